//! A foam body from a mesh file, in a scene: scene type `"tet_body"`.
//!
//! ```json
//! {"type": "tet_body", "name": "foam", "mesh": "body.msh",
//!  "density": 60, "material": {"type": "constant", "youngs_modulus": 1.5e5, "poisson_ratio": 0.3}}
//! ```
//!
//! `mesh` is a Gmsh `.msh` (4.1 or 2.2), a TetGen `.node`/`.ele` pair (either
//! name) or a closed surface (`.stl`, `.obj`) filled with voxels of side
//! `voxel` (m); relative to the scene file. `scale` multiplies the file's
//! coordinates (0.001 for millimetres), then `offset` (m) moves the body.
//! The body adds its nodes after the scene's own (with lumped masses of
//! density `density`, kg/m³) and names regions a scene selects by name:
//! `"<name>"` (every node), `"<name>.surface"` (the boundary nodes) and
//! `"<name>.<group>"` for each named Gmsh physical group. It is bound as
//! `neo_hookean_tets` over those nodes, so it is drawn, differentiated and
//! reported like any other body. Its tetrahedra are the model's body
//! `name` ([`Layout::volume`](pliant_core::Layout::volume)): a cable routed
//! through it binds to them.

use crate::mesh::{MeshError, TetMesh};
use crate::tet::{Material, NeoHookeanTets};
use pliant_core::{BindInfo, CoreError, Declare, Energy, EnergySpec, Invalid, Result};
use pliant_mesh::GmshMesh;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

fn one() -> f64 {
    1.0
}

/// Named node sets over a mesh's nodes.
type Groups = Vec<(String, Vec<usize>)>;

/// A tetrahedral body read from a mesh file (see the [module docs](self)).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TetBody {
    /// The body's name: its regions are `name`, `name.surface`,
    /// `name.<group>`.
    pub name: String,
    /// Mesh file, relative to the scene's directory.
    pub mesh: PathBuf,
    /// Voxel size for a surface file (`.stl`, `.obj`), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voxel: Option<f64>,
    /// Factor on the file's coordinates (0.001 for mm).
    #[serde(default = "one")]
    pub scale: f64,
    /// Translation after scaling, m.
    #[serde(default)]
    pub offset: [f64; 3],
    /// Density, kg/m³ (lumped to the nodes).
    pub density: f64,
    /// Material of the neo-Hookean tetrahedra.
    pub material: Material,
}

impl TetBody {
    /// A body `name` from `mesh` with density `density` (kg/m³) and a
    /// material.
    pub fn new(name: &str, mesh: impl Into<PathBuf>, density: f64, material: Material) -> Self {
        Self {
            name: name.into(),
            mesh: mesh.into(),
            voxel: None,
            scale: 1.0,
            offset: [0.0; 3],
            density,
            material,
        }
    }

    /// The mesh with its named groups (node sets over the mesh's nodes).
    fn load(&self, path: &Path) -> std::result::Result<(TetMesh, Groups), MeshError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        match ext.as_str() {
            _ if self.voxel.is_some() && !matches!(ext.as_str(), "stl" | "obj") => {
                Err(MeshError::Parse {
                    path: path.to_path_buf(),
                    line: None,
                    message: "`voxel` applies to surfaces (.stl, .obj) only; this is a volume mesh"
                        .into(),
                })
            }
            "msh" => {
                let g = GmshMesh::read(path)?;
                if g.tets.is_empty() {
                    return Err(MeshError::Parse {
                        path: path.to_path_buf(),
                        line: None,
                        message: "no 4-node tetrahedra (Gmsh element type 4) in the file".into(),
                    });
                }
                let map = g.body_node_map();
                let mesh = TetMesh::from_gmsh(&g)?;
                let groups = g
                    .groups
                    .iter()
                    .filter(|grp| !grp.name.is_empty())
                    .map(|grp| {
                        let nodes = grp.nodes.iter().filter_map(|&n| map[n]).collect();
                        (grp.name.clone(), nodes)
                    })
                    .collect();
                Ok((mesh, groups))
            }
            "node" | "ele" => Ok((TetMesh::read_tetgen(&path.with_extension(""))?, vec![])),
            "stl" | "obj" => {
                let h = self.voxel.ok_or_else(|| MeshError::Parse {
                    path: path.to_path_buf(),
                    line: None,
                    message: "a surface is filled with voxels: give `voxel` (m)".into(),
                })?;
                // Scaled before voxelizing, so `voxel` is in metres.
                let b = TetMesh::read_surface(path, self.scale, h)?;
                Ok((b.mesh, vec![]))
            }
            _ => Err(MeshError::Parse {
                path: path.to_path_buf(),
                line: None,
                message: "unknown mesh type: expected .msh, .node/.ele, .stl or .obj".into(),
            }),
        }
    }
}

impl EnergySpec for TetBody {
    fn declare(&self, d: &mut Declare) -> Result<()> {
        Invalid::positive("density", self.density, "kg/m³")?;
        Invalid::positive("scale", self.scale, "a factor")?;
        if d.layout().dim() != 3 {
            return Err(CoreError::Dimension {
                what: "tet_body".into(),
                expected: 3,
                found: d.layout().dim(),
            });
        }
        let path = match d.base_dir() {
            Some(dir) if self.mesh.is_relative() => dir.join(&self.mesh),
            _ => self.mesh.clone(),
        };
        let (mut mesh, groups) = self.load(&path).map_err(|e| CoreError::File {
            path: path.display().to_string(),
            message: format!("`mesh`: {e}"),
        })?;
        let surface = matches!(
            path.extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .as_deref(),
            Some("stl" | "obj")
        );
        for p in &mut mesh.nodes {
            // Surfaces were scaled before voxelizing.
            let s = if surface { 1.0 } else { self.scale };
            *p = std::array::from_fn(|a| s * p[a] + self.offset[a]);
        }
        let first = d.layout().n_nodes();
        for (k, (p, m)) in mesh
            .nodes
            .iter()
            .zip(mesh.lumped_masses(self.density))
            .enumerate()
        {
            d.add_node(p, m, &format!("mesh node {k}"))?;
        }
        let shift = |v: &[usize]| v.iter().map(|n| n + first).collect::<Vec<_>>();
        d.add_region(
            &self.name,
            (first..first + mesh.nodes.len()).collect(),
            "name",
        )?;
        d.add_region(
            &format!("{}.surface", self.name),
            shift(&mesh.boundary_nodes()),
            "name",
        )?;
        for (g, nodes) in groups {
            let region = format!("{}.{g}", self.name);
            // A mesh's own `surface` group (as `pliant mesh` writes) is
            // the boundary region already named.
            if d.layout().region(&region, "mesh").is_ok() {
                continue;
            }
            d.add_region(&region, shift(&nodes), "mesh")?;
        }
        let tets = mesh.tets.iter().map(|t| t.map(|n| n + first)).collect();
        d.add_volume(&self.name, tets, "name")
    }

    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let tets = info.layout.volume(&self.name, "name")?.to_vec();
        NeoHookeanTets::new(tets, self.material.clone()).bind(info)
    }

    fn label(&self) -> Option<&str> {
        Some(&self.name)
    }
}

pliant_core::register_energy!(
    TetBody = "tet_body",
    "a neo-Hookean body from a mesh file (`mesh`: .msh with physical groups, .node/.ele, or .stl/.obj with `voxel` m), `density` kg/m³, `material`; regions `name`, `name.surface`, `name.<group>`",
    r#"{"type": "tet_body", "name": "foam", "mesh": "body.msh", "density": 60, "material": {"type": "constant", "youngs_modulus": 1.5e5, "poisson_ratio": 0.3}}"#
);
