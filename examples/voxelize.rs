//! Times filling a closed surface with tetrahedra, step by step (STL read,
//! closedness check, voxelization, tetrahedral mesh): icospheres of radius
//! 5 cm with 81 920 and 327 680 triangles at 1 mm voxels. Prints the median
//! of 5 runs of each step (release mode; the machine may be shared).
//!
//! `cargo run --release --example voxelize`

use pliant::fem::TetMesh;
use pliant::mesh::{SurfaceMesh, voxelize};
use std::path::Path;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let dir = std::env::temp_dir();
    let h = 1e-3;
    println!("icosphere r = 5 cm, voxel 1 mm; median of 5 runs (s)");
    println!(
        "triangles |  read STL | check closed | voxelize | cubes    | tet mesh | tets      | volume error"
    );
    for levels in [6, 7] {
        let s = SurfaceMesh::icosphere(0.05, [0.0; 3], levels);
        let path = dir.join(format!(
            "pliant-voxelize-{}-{levels}.stl",
            std::process::id()
        ));
        s.write_stl(&path)?;
        let (mut read, mut check, mut vox, mut tet) = (vec![], vec![], vec![], vec![]);
        let (mut cubes, mut tets, mut err) = (0, 0, 0.0);
        for _ in 0..5 {
            let t = Instant::now();
            let surface = SurfaceMesh::read(&path)?;
            read.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            surface.check_closed(Path::new("sphere.stl"))?;
            check.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let grid = voxelize(&surface, h)?;
            vox.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let mesh = TetMesh::from_voxels(&grid)?;
            tet.push(t.elapsed().as_secs_f64());
            cubes = grid.cells.len();
            tets = mesh.tets.len();
            err = mesh.volume() / surface.volume() - 1.0;
        }
        println!(
            "{:>9} | {:>9.3} | {:>12.3} | {:>8.3} | {cubes:>8} | {:>8.3} | {tets:>9} | {:+.2} %",
            s.triangles.len(),
            median(read),
            median(check),
            median(vox),
            median(tet),
            100.0 * err
        );
        let _ = std::fs::remove_file(&path);
    }
    Ok(())
}
