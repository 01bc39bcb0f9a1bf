//! `pliant mesh`: a body's tetrahedral mesh from a surface (STL, OBJ:
//! voxelized) or a volume mesh (Gmsh `.msh`, TetGen `.node`/`.ele`),
//! written as Gmsh MSH 2.2 with the physical groups `body` (every
//! tetrahedron) and `surface` (the boundary triangles), which scenes
//! (`tet_body`) and Gmsh read. A `.msh` input's own physical groups are
//! not carried over (only `body` and `surface` are written).

use pliant_fem::{MeshError, TetMesh};
use pliant_mesh::{GmshMesh, PhysicalGroup, boundary_faces};
use std::path::Path;
use std::time::Instant;

/// What `pliant mesh` did.
#[derive(Debug, Clone)]
pub struct MeshReport {
    /// Nodes written.
    pub nodes: usize,
    /// Tetrahedra written.
    pub tets: usize,
    /// Boundary triangles written.
    pub boundary: usize,
    /// Volume of the tetrahedra, m³.
    pub volume: f64,
    /// For a surface input: its enclosed volume (m³) and its triangles.
    pub surface: Option<(f64, usize)>,
    /// Wall time of reading and meshing (not writing), s.
    pub seconds: f64,
}

/// Meshes `input` and writes `out` (MSH 2.2). Surfaces need `voxel`, the
/// voxel size (m); `scale` multiplies the input's coordinates (0.001 for
/// millimetres).
pub fn mesh_file(
    input: &Path,
    out: &Path,
    voxel: Option<f64>,
    scale: f64,
) -> Result<MeshReport, MeshError> {
    let started = Instant::now();
    let ext = input
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let parse = |message: String| MeshError::Parse {
        path: input.to_path_buf(),
        line: None,
        message,
    };
    if !(scale.is_finite() && scale > 0.0) {
        return Err(parse(format!(
            "--scale {scale}: expected a positive factor"
        )));
    }
    let (mut mesh, surface) = match ext.as_str() {
        "stl" | "obj" => {
            let h = voxel.ok_or_else(|| {
                parse("a surface is filled with voxels: give their size with --voxel H (m)".into())
            })?;
            let b = TetMesh::read_surface(input, scale, h)?;
            (b.mesh, Some((b.surface_volume, b.triangles)))
        }
        "msh" => (TetMesh::read_gmsh(input)?, None),
        "node" | "ele" => (TetMesh::read_tetgen(&input.with_extension(""))?, None),
        _ => {
            return Err(parse(
                "unknown mesh type: expected .stl, .obj (surfaces), .msh (Gmsh) or .node/.ele (TetGen)"
                    .into(),
            ));
        }
    };
    if surface.is_none() && scale != 1.0 {
        for p in &mut mesh.nodes {
            *p = p.map(|x| x * scale);
        }
    }
    let faces = boundary_faces(&mesh.nodes, &mesh.tets);
    let seconds = started.elapsed().as_secs_f64();
    let mut on_boundary: Vec<usize> = faces.iter().flatten().copied().collect();
    on_boundary.sort_unstable();
    on_boundary.dedup();
    let g = GmshMesh {
        groups: vec![
            PhysicalGroup {
                dim: 2,
                tag: 2,
                name: "surface".into(),
                nodes: on_boundary,
                tets: Vec::new(),
                triangles: (0..faces.len()).collect(),
            },
            PhysicalGroup {
                dim: 3,
                tag: 1,
                name: "body".into(),
                nodes: (0..mesh.nodes.len()).collect(),
                tets: (0..mesh.tets.len()).collect(),
                triangles: Vec::new(),
            },
        ],
        nodes: mesh.nodes.clone(),
        tets: mesh.tets.clone(),
        triangles: faces,
        reoriented: 0,
    };
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| MeshError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    g.write_msh22(out)?;
    Ok(MeshReport {
        nodes: mesh.nodes.len(),
        tets: mesh.tets.len(),
        boundary: g.triangles.len(),
        volume: mesh.volume(),
        surface,
        seconds,
    })
}
