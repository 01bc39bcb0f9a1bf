//! A cursor over the bytes of an MSH file: whitespace-separated ASCII
//! tokens and, in binary files, fixed-size little- or big-endian numbers.
//! Every failure names the line (ASCII) or byte offset (binary) it was at.

use crate::MeshFileError as MeshError;
use std::path::Path;

/// Byte order of a binary MSH file (from the integer `1` after its header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Endian {
    Little,
    Big,
}

pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8], path: &'a Path) -> Self {
        Self {
            bytes,
            pos: 0,
            path,
        }
    }

    /// 1-based line number of the current position.
    fn line(&self) -> usize {
        1 + self.bytes[..self.pos]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    /// A parse error at the current position.
    pub(super) fn error(&self, message: impl Into<String>) -> MeshError {
        MeshError::Parse {
            path: self.path.to_path_buf(),
            line: Some(self.line()),
            message: message.into(),
        }
    }

    /// A parse error at the current byte offset (binary data has no lines).
    pub(super) fn binary_error(&self, message: impl Into<String>) -> MeshError {
        MeshError::Parse {
            path: self.path.to_path_buf(),
            line: None,
            message: format!("at byte {}: {}", self.pos, message.into()),
        }
    }

    pub(super) fn at_end(&mut self) -> bool {
        self.skip_space();
        self.pos >= self.bytes.len()
    }

    fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    /// The next whitespace-separated token (empty at the end of the file).
    pub(super) fn token(&mut self) -> Result<&'a str, MeshError> {
        self.skip_space();
        let start = self.pos;
        while self.pos < self.bytes.len() && !self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        std::str::from_utf8(&self.bytes[start..self.pos]).map_err(|_| {
            self.pos = start;
            self.error("expected ASCII text")
        })
    }

    /// The next token, parsed; `what` names the field in errors.
    pub(super) fn parse<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, MeshError> {
        let t = self.token()?;
        if t.is_empty() {
            return Err(self.error(format!("the file ends where {what} was expected")));
        }
        t.parse()
            .map_err(|_| self.error(format!("{what}: `{t}` is not a valid number")))
    }

    /// A count in ASCII that sizes an allocation: at most one item per
    /// remaining byte, so a corrupt count cannot exhaust memory.
    pub(super) fn count(&mut self, what: &str) -> Result<usize, MeshError> {
        let n: usize = self.parse(what)?;
        self.check_count(n, what)
    }

    pub(super) fn check_count(&self, n: usize, what: &str) -> Result<usize, MeshError> {
        if n > self.bytes.len() - self.pos.min(self.bytes.len()) {
            return Err(self.error(format!(
                "{what} {n} exceeds what the rest of the file could hold"
            )));
        }
        Ok(n)
    }

    /// Expects the token `word` (a section marker such as `$EndNodes`).
    pub(super) fn expect(&mut self, word: &str) -> Result<(), MeshError> {
        let t = self.token()?;
        if t != word {
            let found = if t.is_empty() {
                "the end of the file".to_string()
            } else {
                format!("`{}`", t.chars().take(40).collect::<String>())
            };
            return Err(self.error(format!("expected `{word}`, found {found}")));
        }
        Ok(())
    }

    /// The rest of the current line, trimmed (physical names with spaces).
    pub(super) fn rest_of_line(&mut self) -> Result<&'a str, MeshError> {
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
        std::str::from_utf8(&self.bytes[start..self.pos])
            .map(str::trim)
            .map_err(|_| self.error("expected ASCII text"))
    }

    /// Moves past the single newline that ends a header line before binary data.
    pub(super) fn end_of_line(&mut self) -> Result<(), MeshError> {
        while self.pos < self.bytes.len() && matches!(self.bytes[self.pos], b' ' | b'\t' | b'\r') {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'\n') => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.error("expected the end of the line before binary data")),
        }
    }

    /// Skips an unknown section up to and including `$End<name>`.
    pub(super) fn skip_section(&mut self, name: &str) -> Result<(), MeshError> {
        let end = format!("$End{name}");
        let hay = &self.bytes[self.pos..];
        match hay.windows(end.len()).position(|w| w == end.as_bytes()) {
            Some(i) => {
                self.pos += i + end.len();
                Ok(())
            }
            None => Err(self.error(format!("section `${name}` has no `{end}`"))),
        }
    }

    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], MeshError> {
        match self.bytes.get(self.pos..self.pos + N) {
            Some(b) => {
                self.pos += N;
                Ok(b.try_into().expect("slice of length N"))
            }
            None => Err(self.binary_error(format!("the file ends inside {what}"))),
        }
    }

    pub(super) fn i32(&mut self, e: Endian, what: &str) -> Result<i32, MeshError> {
        let b = self.take::<4>(what)?;
        Ok(match e {
            Endian::Little => i32::from_le_bytes(b),
            Endian::Big => i32::from_be_bytes(b),
        })
    }

    pub(super) fn f64(&mut self, e: Endian, what: &str) -> Result<f64, MeshError> {
        let b = self.take::<8>(what)?;
        Ok(match e {
            Endian::Little => f64::from_le_bytes(b),
            Endian::Big => f64::from_be_bytes(b),
        })
    }

    /// An unsigned integer of `size` bytes (4 or 8, the file's `size_t`).
    pub(super) fn size(&mut self, e: Endian, size: usize, what: &str) -> Result<u64, MeshError> {
        Ok(if size == 4 {
            let b = self.take::<4>(what)?;
            u64::from(match e {
                Endian::Little => u32::from_le_bytes(b),
                Endian::Big => u32::from_be_bytes(b),
            })
        } else {
            let b = self.take::<8>(what)?;
            match e {
                Endian::Little => u64::from_le_bytes(b),
                Endian::Big => u64::from_be_bytes(b),
            }
        })
    }

    /// A binary count that sizes an allocation (see [`Cursor::count`]).
    pub(super) fn size_count(
        &mut self,
        e: Endian,
        size: usize,
        what: &str,
    ) -> Result<usize, MeshError> {
        let n = self.size(e, size, what)?;
        let n = usize::try_from(n)
            .map_err(|_| self.binary_error(format!("{what} {n} is too large")))?;
        self.check_count(n, what)
    }

    /// Reads the integer `1` written after a binary header and returns the
    /// byte order it reveals.
    pub(super) fn endianness(&mut self) -> Result<Endian, MeshError> {
        let b = self.take::<4>("the byte-order mark")?;
        if i32::from_le_bytes(b) == 1 {
            Ok(Endian::Little)
        } else if i32::from_be_bytes(b) == 1 {
            Ok(Endian::Big)
        } else {
            Err(self.binary_error(
                "the binary header's integer 1 reads neither as little- nor as big-endian",
            ))
        }
    }
}
