//! Records a hash of this crate's sources for the backend-plugin ABI tag: a
//! runtime backend hands the host `Box<dyn Backend>` values, so it must be
//! built from the same pliant-hardware (and, through pliant-core's tag, the
//! same compiler and pliant-core).
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
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hash_dir(Path::new("src"), &mut h);
    println!(
        "cargo:rustc-env=PLIANT_HARDWARE_SOURCE_HASH={:016x}",
        h.finish()
    );
    println!("cargo:rerun-if-changed=src");
}
