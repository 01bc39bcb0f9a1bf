//! Records what the plugin ABI tag embeds: the compiler version, the target,
//! the panic strategy, and a hash of pliant-core's sources — a runtime plugin
//! must be built by the same rustc from the same pliant-core.
use std::hash::{Hash, Hasher};
use std::path::Path;

fn hash_dir(dir: &Path, h: &mut std::collections::hash_map::DefaultHasher) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            hash_dir(&p, h);
        } else {
            p.file_name().hash(h);
            std::fs::read(&p)
                .unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
                .hash(h);
        }
    }
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("running `{rustc} --version` for the plugin ABI tag: {e}"));
    let version = String::from_utf8(out.stdout)
        .expect("rustc prints UTF-8")
        .trim()
        .to_string();
    assert!(!version.is_empty(), "`{rustc} --version` printed nothing");
    println!("cargo:rustc-env=PLIANT_RUSTC_VERSION={version}");
    println!(
        "cargo:rustc-env=PLIANT_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=PLIANT_PANIC={}",
        std::env::var("CARGO_CFG_PANIC").unwrap_or_else(|_| "unwind".into())
    );
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hash_dir(Path::new("src"), &mut h);
    println!("cargo:rustc-env=PLIANT_SOURCE_HASH={:016x}", h.finish());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
