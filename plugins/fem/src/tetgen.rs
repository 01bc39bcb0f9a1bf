//! TetGen `.node`/`.ele` pairs. Every file is validated: out-of-range
//! indices and degenerate or inverted tetrahedra are errors that name the
//! element.

use crate::mesh::{MeshError, TetMesh};
use std::path::Path;

fn read(path: &Path) -> Result<Vec<u8>, MeshError> {
    std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn parse_err(path: &Path, message: String) -> MeshError {
    at(path, None, message)
}

fn at(path: &Path, line: Option<usize>, message: String) -> MeshError {
    MeshError::Parse {
        path: path.to_path_buf(),
        line,
        message,
    }
}

impl TetMesh {
    /// Reads a TetGen mesh from `<stem>.node` and `<stem>.ele` (0- or
    /// 1-based numbering, as the `.node` file starts).
    pub fn read_tetgen(stem: &Path) -> Result<Self, MeshError> {
        let node_path = stem.with_extension("node");
        let ele_path = stem.with_extension("ele");
        let lines = |p: &Path| -> Result<Vec<(usize, Vec<String>)>, MeshError> {
            let text =
                String::from_utf8(read(p)?).map_err(|_| parse_err(p, "not UTF-8 text".into()))?;
            Ok(text
                .lines()
                .enumerate()
                .map(|(i, l)| {
                    (
                        i + 1,
                        l.split('#')
                            .next()
                            .unwrap_or("")
                            .split_whitespace()
                            .map(String::from)
                            .collect::<Vec<_>>(),
                    )
                })
                .filter(|(_, w)| !w.is_empty())
                .collect())
        };
        let num = |p: &Path, line: usize, w: &str| -> Result<f64, MeshError> {
            w.parse::<f64>()
                .map_err(|_| at(p, Some(line), format!("`{w}` is not a number")))
        };
        let int = |p: &Path, line: usize, w: &str| -> Result<usize, MeshError> {
            w.parse::<usize>().map_err(|_| {
                at(
                    p,
                    Some(line),
                    format!("`{w}` is not a non-negative integer"),
                )
            })
        };
        let nl = lines(&node_path)?;
        let (hline, header) = nl
            .first()
            .ok_or_else(|| parse_err(&node_path, "empty file".into()))?;
        let count = int(&node_path, *hline, &header[0])?;
        if header.get(1).map(String::as_str) != Some("3") {
            return Err(at(
                &node_path,
                Some(*hline),
                "only 3-D meshes are supported".into(),
            ));
        }
        if nl.len() < count + 1 {
            return Err(parse_err(
                &node_path,
                format!(
                    "header announces {count} nodes, the file has {}",
                    nl.len() - 1
                ),
            ));
        }
        let mut nodes = Vec::with_capacity(count);
        let mut base = None;
        for (line, w) in &nl[1..=count] {
            if w.len() < 4 {
                return Err(at(&node_path, Some(*line), "expected `index x y z`".into()));
            }
            let id = int(&node_path, *line, &w[0])?;
            let b = *base.get_or_insert(id);
            if id != b + nodes.len() {
                return Err(at(
                    &node_path,
                    Some(*line),
                    format!("node {id} out of sequence"),
                ));
            }
            nodes.push([
                num(&node_path, *line, &w[1])?,
                num(&node_path, *line, &w[2])?,
                num(&node_path, *line, &w[3])?,
            ]);
        }
        let base = base.unwrap_or(0);
        let el = lines(&ele_path)?;
        let (hline, header) = el
            .first()
            .ok_or_else(|| parse_err(&ele_path, "empty file".into()))?;
        let ntet = int(&ele_path, *hline, &header[0])?;
        if header.get(1).map(String::as_str) != Some("4") {
            return Err(at(
                &ele_path,
                Some(*hline),
                "only 4-node tetrahedra are supported".into(),
            ));
        }
        if el.len() < ntet + 1 {
            return Err(parse_err(
                &ele_path,
                format!(
                    "header announces {ntet} tetrahedra, the file has {}",
                    el.len() - 1
                ),
            ));
        }
        let mut tets = Vec::with_capacity(ntet);
        for (line, w) in &el[1..=ntet] {
            if w.len() < 5 {
                return Err(at(
                    &ele_path,
                    Some(*line),
                    "expected `index n0 n1 n2 n3`".into(),
                ));
            }
            let mut t = [0; 4];
            for k in 0..4 {
                let n = int(&ele_path, *line, &w[k + 1])?;
                t[k] = n.checked_sub(base).ok_or_else(|| {
                    at(
                        &ele_path,
                        Some(*line),
                        format!("node {n} is below the first index {base}"),
                    )
                })?;
            }
            tets.push(t);
        }
        let mesh = TetMesh { nodes, tets };
        mesh.validate()?;
        Ok(mesh)
    }
}
