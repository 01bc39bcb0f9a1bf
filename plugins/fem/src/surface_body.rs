//! Tetrahedral bodies from closed surfaces (STL, OBJ): the voxels inside
//! ([`pliant_mesh::voxelize`]) split into a conforming tetrahedral mesh,
//! six tetrahedra per cube (Freudenthal/Kuhn split, which conforms across
//! neighbouring cubes). The body's volume approaches the surface's as the
//! voxel size shrinks; [`SurfaceBody`] reports both.

use crate::mesh::{MeshError, TetMesh};
use pliant_mesh::{SurfaceMesh, VoxelGrid, voxelize};
use std::path::Path;

/// A body meshed from a surface file, with how well it fills it.
#[derive(Debug, Clone)]
pub struct SurfaceBody {
    /// The tetrahedral mesh.
    pub mesh: TetMesh,
    /// The surface's enclosed volume, m³.
    pub surface_volume: f64,
    /// The mesh's volume, m³.
    pub mesh_volume: f64,
    /// The surface's triangles.
    pub triangles: usize,
    /// Voxel size, m.
    pub h: f64,
}

impl SurfaceBody {
    /// Relative volume error `(mesh − surface)/surface`.
    pub fn volume_error(&self) -> f64 {
        (self.mesh_volume - self.surface_volume) / self.surface_volume
    }
}

impl TetMesh {
    /// The conforming tetrahedral mesh of a voxel grid (six tetrahedra per
    /// cube).
    pub fn from_voxels(g: &VoxelGrid) -> Result<Self, MeshError> {
        let boxes: Vec<([i64; 3], [i64; 3])> = g
            .cells
            .iter()
            .map(|c| (*c, [c[0] + 1, c[1] + 1, c[2] + 1]))
            .collect();
        Self::from_voxel_boxes(&boxes, g.h, g.origin)
    }

    /// Reads a closed `.stl` or `.obj` surface (m; `scale` multiplies the
    /// coordinates: 0.001 for millimetres), checks that it bounds a solid
    /// and fills it with tetrahedra from voxels of side `h` (m).
    pub fn read_surface(path: &Path, scale: f64, h: f64) -> Result<SurfaceBody, MeshError> {
        let surface = SurfaceMesh::read(path)?.scaled(scale);
        Self::from_surface(&surface, h, path)
    }

    /// [`TetMesh::read_surface`] of a surface already read; `path` names it
    /// in errors.
    pub fn from_surface(s: &SurfaceMesh, h: f64, path: &Path) -> Result<SurfaceBody, MeshError> {
        s.check_closed(path)?;
        let surface_volume = s.volume();
        if surface_volume.is_nan() || surface_volume <= 0.0 {
            return Err(MeshError::Parse {
                path: path.to_path_buf(),
                line: None,
                message: format!(
                    "the surface encloses a volume of {surface_volume:.3e} m³: its triangles face inwards (flip them) or it is flat"
                ),
            });
        }
        let grid = voxelize(s, h).map_err(|source| MeshError::Voxels {
            path: path.to_path_buf(),
            source,
        })?;
        let mesh = Self::from_voxels(&grid)?;
        Ok(SurfaceBody {
            mesh_volume: mesh.volume(),
            mesh,
            surface_volume,
            triangles: s.triangles.len(),
            h,
        })
    }
}
