//! Writes the scene files of the cable paper's robots from the builders in
//! `pliant::robots`, so they can be run, edited and shared:
//! - dropped on frictional ground (`examples/scenes/tripod_drop.json`,
//!   `puppy_drop.json`):
//!   `pliant simulate examples/scenes/puppy_drop.json --out out/puppy`;
//! - actuated on the table, the scenes gait specs optimize
//!   (`examples/robots/tripod.json`, `puppy.json`: body, platform, motor
//!   masses, cables with one control channel per motor, ground, gravity):
//!   `pliant optimize examples/optimize/tripod_walk.json`.
//!
//! `tests/robot_scenes.rs` checks the committed files match the builders.
//!
//! `cargo run --example robot_scenes [-- examples-dir]`

use pliant::robots::RobotKind;

fn main() -> anyhow::Result<()> {
    pliant::init();
    let dir =
        std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "examples".into()));
    std::fs::create_dir_all(dir.join("scenes"))?;
    std::fs::create_dir_all(dir.join("robots"))?;
    for kind in [RobotKind::Tripod, RobotKind::Puppy] {
        let name = kind.name();
        for (path, text) in [
            (
                dir.join(format!("scenes/{name}_drop.json")),
                pliant::robots::drop_scene_text(kind)?,
            ),
            (
                dir.join(format!("robots/{name}.json")),
                pliant::gait::paper_gait_scene_text(kind)?,
            ),
        ] {
            std::fs::write(&path, text)?;
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}
