//! Checks a plugin file before the dynamic loader maps it.
//!
//! `dlopen` maps a shared library's segments straight from the file; a
//! truncated copy (a cut download, a full disk during the build) has
//! segments that end past the end of the file, and touching those pages
//! kills the process with SIGBUS inside the loader. So the file is parsed
//! first (ELF, Mach-O or PE headers, with the `object` crate) and refused
//! unless it is a shared library whose every segment and section lies
//! within the file.

use super::PluginError;
use object::{Object, ObjectKind, ObjectSection, ObjectSegment};
use std::path::Path;

/// Refuses `path` unless it is a complete shared library (see the module
/// documentation).
pub(crate) fn check_shared_library(path: &Path) -> Result<(), PluginError> {
    let bad = |reason: String| PluginError::NotALibrary {
        path: path.to_path_buf(),
        reason,
    };
    let data = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let len = data.len() as u64;
    let file = object::File::parse(&*data).map_err(|e| {
        bad(format!(
            "{e}: truncated, or not an ELF, Mach-O or PE file ({len} bytes)"
        ))
    })?;
    if file.kind() != ObjectKind::Dynamic {
        return Err(bad(format!(
            "a {:?} object file, not a shared library (build the plugin crate with crate-type = [\"cdylib\"])",
            file.kind()
        )));
    }
    let beyond = |what: &str, name: String, start: u64, size: u64| -> Option<PluginError> {
        let end = start.checked_add(size);
        end.is_none_or(|e| e > len).then(|| {
            bad(format!(
                "truncated or corrupt: {what} {name} spans bytes {start}..{} but the file has {len} bytes",
                end.map_or("overflow".to_string(), |e| e.to_string())
            ))
        })
    };
    for (i, seg) in file.segments().enumerate() {
        let (start, size) = seg.file_range();
        if let Some(e) = beyond("segment", i.to_string(), start, size) {
            return Err(e);
        }
    }
    for sec in file.sections() {
        if let Some((start, size)) = sec.file_range()
            && let Some(e) = beyond(
                "section",
                sec.name().unwrap_or("?").to_string(),
                start,
                size,
            )
        {
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_empty_files_are_refused_with_a_reason() {
        let dir = std::env::temp_dir().join(format!("pliant-preflight-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in [("empty.so", &b""[..]), ("text.so", &b"not a library\n"[..])] {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            let e = check_shared_library(&p).unwrap_err().to_string();
            assert!(
                e.contains("truncated, or not an ELF, Mach-O or PE file"),
                "{e}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
