//! Records the compiler version and target, which the plugin ABI tag embeds:
//! a runtime plugin must be built by the same rustc from the same pliant-core.
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown rustc".into());
    println!("cargo:rustc-env=PLIANT_RUSTC_VERSION={version}");
    println!(
        "cargo:rustc-env=PLIANT_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!("cargo:rerun-if-env-changed=RUSTC");
}
