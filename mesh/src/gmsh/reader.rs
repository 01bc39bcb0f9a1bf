//! Numbers of an MSH section, read as ASCII tokens or as binary values
//! according to the file's `$MeshFormat`.

use super::cursor::{Cursor, Endian};
use crate::MeshFileError as MeshError;
use std::path::Path;

pub(super) struct Reader<'a> {
    pub(super) cur: Cursor<'a>,
    /// Byte order and `size_t` width of a binary file; `None` for ASCII.
    pub(super) binary: Option<(Endian, usize)>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8], path: &'a Path) -> Self {
        Self {
            cur: Cursor::new(bytes, path),
            binary: None,
        }
    }

    /// An error at the current position (line in ASCII, byte in binary).
    pub(super) fn error(&self, message: impl Into<String>) -> MeshError {
        match self.binary {
            None => self.cur.error(message),
            Some(_) => self.cur.binary_error(message),
        }
    }

    /// After a section header: in a binary file, moves to its first byte of data.
    pub(super) fn start_data(&mut self) -> Result<(), MeshError> {
        if self.binary.is_some() {
            self.cur.end_of_line()?;
        }
        Ok(())
    }

    /// An `int` (entity, physical and element-type tags; 2.2 node and element numbers).
    pub(super) fn int(&mut self, what: &str) -> Result<i64, MeshError> {
        match self.binary {
            None => self.cur.parse(what),
            Some((e, _)) => self.cur.i32(e, what).map(i64::from),
        }
    }

    /// A non-negative `int` used as an index or small count.
    pub(super) fn uint(&mut self, what: &str) -> Result<u64, MeshError> {
        let v = self.int(what)?;
        u64::try_from(v).map_err(|_| self.error(format!("{what}: {v} is negative")))
    }

    /// A non-negative `int` count that sizes an allocation (MSH 2.2 binary
    /// element-block headers, MSH 4.1 physical-tag counts are `size_t`).
    pub(super) fn int_count(&mut self, what: &str) -> Result<usize, MeshError> {
        let n = self.uint(what)?;
        let n = usize::try_from(n).map_err(|_| self.error(format!("{what} {n} is too large")))?;
        self.cur.check_count(n, what)
    }

    /// A `size_t` (4.1 counts and node/element tags).
    pub(super) fn size(&mut self, what: &str) -> Result<u64, MeshError> {
        match self.binary {
            None => self.cur.parse(what),
            Some((e, s)) => self.cur.size(e, s, what),
        }
    }

    /// A `size_t` count that sizes an allocation.
    pub(super) fn count(&mut self, what: &str) -> Result<usize, MeshError> {
        match self.binary {
            None => self.cur.count(what),
            Some((e, s)) => self.cur.size_count(e, s, what),
        }
    }

    /// A `double`.
    pub(super) fn double(&mut self, what: &str) -> Result<f64, MeshError> {
        match self.binary {
            None => self.cur.parse(what),
            Some((e, _)) => self.cur.f64(e, what),
        }
    }

    /// A physical tag (`int`) as stored in groups.
    pub(super) fn physical(&mut self, what: &str) -> Result<i32, MeshError> {
        let v = self.int(what)?;
        i32::try_from(v).map_err(|_| self.error(format!("{what}: {v} is out of range")))
    }
}

/// Reads a `$PhysicalNames` section (ASCII in every file type), after its header.
pub(super) fn physical_names(r: &mut Reader, b: &mut super::Builder) -> Result<(), MeshError> {
    let n = r.cur.count("the number of physical names")?;
    for _ in 0..n {
        let dim: usize = r.cur.parse("a physical name's dimension")?;
        let tag: i32 = r.cur.parse("a physical name's tag")?;
        if dim > 3 {
            return Err(r
                .cur
                .error(format!("physical group dimension {dim} (0–3 expected)")));
        }
        let name = r.cur.rest_of_line()?;
        let name = name
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .ok_or_else(|| {
                r.cur
                    .error(format!("physical name {name} is not in double quotes"))
            })?;
        b.name_group(dim, tag, name);
    }
    r.cur.expect("$EndPhysicalNames")
}

/// A section neither version reads: skipped if it is one (`$Name`), else an
/// error naming what was found.
pub(super) fn other_section(r: &mut Reader, token: &str) -> Result<(), MeshError> {
    match token.strip_prefix('$') {
        Some(name) => r.cur.skip_section(name),
        None => Err(r.cur.error(format!(
            "expected a section header such as `$Nodes`, found `{}`",
            token.chars().take(40).collect::<String>()
        ))),
    }
}

/// Both `$Nodes` and `$Elements` were read, or an error naming the missing one.
pub(super) fn both_sections(r: &Reader, nodes: bool, elements: bool) -> Result<(), MeshError> {
    if nodes && elements {
        Ok(())
    } else {
        Err(r.cur.error(format!(
            "the file has no `${}` section",
            if nodes { "Elements" } else { "Nodes" }
        )))
    }
}
