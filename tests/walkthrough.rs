//! `docs/energies.md`, followed verbatim: its shell blocks and files, in
//! order, from a temporary folder next to a `pliant` checkout (a link to
//! this one). Blocks are read from the page itself, so the page cannot
//! drift from what works.
//!
//! Fences: ` ```sh ` blocks run; ` ```LANG file=PATH ` writes `PATH`,
//! ` ```LANG append=PATH ` appends to it (relative to where the commands
//! are at that point); ` ```sh install ` (installing the CLI) does not run:
//! `pliant` is this build's binary instead. Needs network access for
//! `cargo add` and compiles pliant-core's dependencies once (a few minutes
//! on two cores).

#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Command;

/// The page's blocks as one bash script.
fn script(page: &str) -> String {
    let mut out = String::from("set -euo pipefail\n");
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        let mut body = Vec::new();
        for l in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            body.push(l.get(indent..).unwrap_or(l.trim_start()));
        }
        let words: Vec<&str> = info.split_whitespace().collect();
        let target = words.iter().find_map(|w| {
            w.strip_prefix("file=")
                .map(|p| (">", p))
                .or_else(|| w.strip_prefix("append=").map(|p| (">>", p)))
        });
        match (words.first().copied(), target) {
            (_, Some((op, path))) => {
                out.push_str(&format!(
                    "mkdir -p \"$(dirname '{path}')\"\ncat {op} '{path}' <<'PLIANT_WALKTHROUGH_EOF'\n{}\nPLIANT_WALKTHROUGH_EOF\n",
                    body.join("\n")
                ));
            }
            (Some("sh"), None) if words.len() == 1 => {
                out.push_str(&body.join("\n"));
                out.push('\n');
            }
            _ => {}
        }
    }
    out
}

#[test]
fn the_energy_walkthrough_runs_verbatim() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/energies.md")).unwrap();
    let script = script(&page);
    assert!(
        script.contains("cargo new --lib my_energy") && script.contains("pliant simulate"),
        "the page's blocks were not found:\n{script}"
    );
    let dir = std::env::temp_dir().join(format!("pliant-walkthrough-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(root, dir.join("pliant")).unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pliant"), bin.join("pliant")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&dir)
        .env("PATH", path)
        // The new crate builds in its own folder, as a user's would.
        .env_remove("CARGO_TARGET_DIR")
        // The toolchain is chosen by the folder (its rust-toolchain.toml),
        // as for a user, not inherited from this test's cargo.
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "the walkthrough failed.\nscript:\n{script}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains("muscle"),
        "`pliant energies` did not list it:\n{stdout}"
    );
    // What the page says the run shows: node 1 near 85 % of the rest length.
    let csv = std::fs::read_to_string(dir.join("my_energy/out/trajectory.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "q3").unwrap();
    let x: f64 = last[col].parse().unwrap();
    assert!((x - 0.085).abs() < 1e-3, "node 1 at x = {x} m");
    let _ = std::fs::remove_dir_all(&dir);
}
