//! Build-script helpers for pliant's crates (a `[build-dependencies]`
//! crate; no runtime code).
//!
//! A runtime plugin hands the host Rust values (`Box<dyn EnergySpec>`,
//! `Box<dyn Backend>`), so it must be built from the same sources as the
//! host: pliant-core's and pliant-hardware's ABI tags embed a hash of their
//! `src/` trees, computed here.
#![warn(missing_docs)]

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

/// A hash of every file name and byte below `dir`, in sorted order.
pub fn source_hash(dir: &Path) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hash_dir(dir, &mut h);
    h.finish()
}

/// From a build script: sets the compile-time variable `var` to the hash of
/// the crate's `src/` (16 hex digits) and reruns when `src/` changes.
pub fn emit_source_hash(var: &str) {
    println!(
        "cargo:rustc-env={var}={:016x}",
        source_hash(Path::new("src"))
    );
    println!("cargo:rerun-if-changed=src");
}
