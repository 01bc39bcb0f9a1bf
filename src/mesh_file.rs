//! `pliant mesh`: a body's tetrahedral mesh from a surface (STL, OBJ:
//! voxelized) or a volume mesh (Gmsh `.msh`, TetGen `.node`/`.ele`),
//! written as Gmsh MSH 2.2 with the physical groups `body` (every
//! tetrahedron) and `surface` (the boundary triangles), which scenes
//! (`tet_body`) and Gmsh read. A `.msh` input's own named physical groups
//! are carried over: volume groups with their tetrahedra, the others as
//! the point sets of their nodes (their own triangles and lines are not
//! written; a scene uses a group's nodes).

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
    /// Named groups of a `.msh` input carried over.
    pub carried: Vec<String>,
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
    let mut carried: Vec<PhysicalGroup> = Vec::new();
    let (mut mesh, surface) = match ext.as_str() {
        "stl" | "obj" => {
            let h = voxel.ok_or_else(|| {
                parse("a surface is filled with voxels: give their size with --voxel H (m)".into())
            })?;
            let b = TetMesh::read_surface(input, scale, h)?;
            (b.mesh, Some((b.surface_volume, b.triangles)))
        }
        "msh" => {
            let g = GmshMesh::read(input)?;
            if g.tets.is_empty() {
                return Err(parse(
                    "no 4-node tetrahedra (Gmsh element type 4) in the file".into(),
                ));
            }
            // The body keeps the tetrahedra in order and renumbers the
            // nodes of tetrahedra only.
            let map = g.body_node_map();
            for grp in g
                .groups
                .iter()
                .filter(|grp| !grp.name.is_empty() && grp.name != "body" && grp.name != "surface")
            {
                let nodes: Vec<usize> = grp.nodes.iter().filter_map(|&n| map[n]).collect();
                if nodes.is_empty() {
                    continue;
                }
                let volume = grp.dim == 3 && !grp.tets.is_empty();
                carried.push(PhysicalGroup {
                    dim: if volume { 3 } else { 0 },
                    tag: 3 + carried.len() as i32,
                    name: grp.name.clone(),
                    nodes,
                    tets: if volume { grp.tets.clone() } else { Vec::new() },
                    triangles: Vec::new(),
                });
            }
            (TetMesh::from_gmsh(&g)?, None)
        }
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
    let carried_names: Vec<String> = carried.iter().map(|g| g.name.clone()).collect();
    let mut groups = vec![
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
    ];
    groups.extend(carried);
    let g = GmshMesh {
        groups,
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
        carried: carried_names,
        volume: mesh.volume(),
        surface,
        seconds,
    })
}
