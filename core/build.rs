//! Records what the plugin ABI tag embeds: the compiler version, the target,
//! the panic strategy, and a hash of pliant-core's sources — a runtime plugin
//! must be built by the same rustc from the same pliant-core.
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
    pliant_build_support::emit_source_hash("PLIANT_SOURCE_HASH");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
