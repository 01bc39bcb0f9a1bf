//! Records the git commit the `pliant` binary is built from (for `run.json`),
//! when it is built from a checkout; nothing otherwise.
use std::path::Path;
use std::process::Command;

fn main() {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let value = if commit.is_empty() {
        String::new()
    } else if dirty {
        format!("{commit}+modified")
    } else {
        commit
    };
    println!("cargo:rustc-env=PLIANT_GIT_COMMIT={value}");
    for f in [".git/HEAD", ".git/index"] {
        if Path::new(f).exists() {
            println!("cargo:rerun-if-changed={f}");
        }
    }
}
