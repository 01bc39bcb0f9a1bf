//! Writes the scene files of the cable paper's robots dropped on frictional
//! ground (`examples/scenes/tripod_drop.json`, `puppy_drop.json`) from the
//! builders in `pliant::robots`, so they can be run, edited and shared:
//! `pliant simulate examples/scenes/puppy_drop.json --out out/puppy`.
//! `tests/robot_scenes.rs` checks the committed files match the builders.
//!
//! `cargo run --example robot_scenes [-- out-dir]`

use pliant::robots::RobotKind;

fn main() -> anyhow::Result<()> {
    pliant::init();
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "examples/scenes".into()),
    );
    std::fs::create_dir_all(&dir)?;
    for kind in [RobotKind::Tripod, RobotKind::Puppy] {
        let text = pliant::robots::drop_scene_text(kind)?;
        let path = dir.join(format!("{}_drop.json", kind.name()));
        std::fs::write(&path, text)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
