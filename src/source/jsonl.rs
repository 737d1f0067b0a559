//! Streaming JSONL: one line at a time, whatever the bytes are.
//!
//! Handles CRLF line ends, invalid UTF-8 (replaced, not fatal), lone UTF-16
//! surrogates in `\u` escapes (which serde_json rejects), a last line cut off
//! by a writer still at work, and lines of any length. Also holds the lenient
//! field types that let one odd field never cost a whole record.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

/// What happened to one line, for the caller's bookkeeping.
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The text, CR/LF stripped, invalid UTF-8 replaced.
    pub text: Cow<'a, str>,
    /// True for the final line when the file does not end with a newline.
    pub unterminated: bool,
    /// Byte offset just past this line (and its newline).
    pub end: u64,
}

/// Where a read starts: a byte offset at a line start, and the lines before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    pub offset: u64,
    pub line: u64,
}

/// Read `path` line by line from `start`, calling `f` for each non-blank
/// line. Returns the position at the end of the file.
pub fn read_lines(
    path: &Path,
    start: Position,
    f: impl FnMut(Line<'_>),
) -> std::io::Result<Position> {
    read_range(path, start, u64::MAX, f)
}

/// [`read_lines`], stopping at the first line that starts at or after `end`.
pub fn read_range(
    path: &Path,
    start: Position,
    end: u64,
    mut f: impl FnMut(Line<'_>),
) -> std::io::Result<Position> {
    let mut file = File::open(path)?;
    if start.offset > 0 {
        file.seek(SeekFrom::Start(start.offset))?;
    }
    let mut reader = BufReader::with_capacity(1 << 18, file);
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut pos = start;
    loop {
        if pos.offset >= end {
            return Ok(pos);
        }
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(pos);
        }
        pos.line += 1;
        pos.offset += n as u64;
        let unterminated = buf.last() != Some(&b'\n');
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // Fast path: valid UTF-8 (nearly every line) is checked with SIMD.
        let text = match simdutf8::basic::from_utf8(&buf) {
            Ok(t) => Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(&buf),
        };
        f(Line {
            number: pos.line,
            text,
            unterminated,
            end: pos.offset,
        });
        // Give back memory after a giant line so one 500 MB line does not pin it.
        if buf.capacity() > 1 << 24 {
            buf = Vec::with_capacity(1 << 16);
        }
    }
}

/// Read a whole file line by line; returns the number of lines.
pub fn for_each_line(path: &Path, f: impl FnMut(Line<'_>)) -> std::io::Result<u64> {
    read_lines(path, Position::default(), f).map(|p| p.line)
}

/// Parse one JSON line into `T`, repairing lone surrogate escapes on a second try.
pub fn parse_line<'a, T: Deserialize<'a>>(
    text: &'a str,
    repaired: &'a mut Option<String>,
) -> Result<T, serde_json::Error> {
    match serde_json::from_str::<T>(text) {
        Ok(v) => Ok(v),
        Err(e) => {
            if !has_surrogate_escape(text) {
                return Err(e);
            }
            *repaired = Some(repair_surrogates(text));
            match repaired.as_deref() {
                Some(r) => serde_json::from_str::<T>(r),
                None => Err(e),
            }
        }
    }
}

fn has_surrogate_escape(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memmem::find_iter(b, b"\\u").any(|i| {
        matches!(b.get(i + 2), Some(b'd' | b'D'))
            && matches!(b.get(i + 3), Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
    })
}

/// Replace `\uD800`–`\uDFFF` escapes that do not form a valid pair with `\uFFFD`.
pub fn repair_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut last = 0;
    let hex = |at: usize| -> Option<u16> {
        let s = text.get(at..at + 4)?;
        u16::from_str_radix(s, 16).ok()
    };
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if b[i + 1] == b'u' {
                if let Some(v) = hex(i + 2) {
                    if (0xD800..0xDC00).contains(&v) {
                        let pair = (b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u'))
                            .then(|| hex(i + 8))
                            .flatten()
                            .is_some_and(|w| (0xDC00..0xE000).contains(&w));
                        if pair {
                            i += 12;
                            continue;
                        }
                        out.push_str(&text[last..i]);
                        out.push_str("\\uFFFD");
                        i += 6;
                        last = i;
                        continue;
                    }
                    if (0xDC00..0xE000).contains(&v) {
                        out.push_str(&text[last..i]);
                        out.push_str("\\uFFFD");
                        i += 6;
                        last = i;
                        continue;
                    }
                }
            }
            // Skip the escaped character so `\\u` is not read as an escape.
            i += 2;
            continue;
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    out
}

/// A scalar a [`Loose`] field may hold.
pub trait Scalar: Sized {
    fn from_bool(_: bool) -> Option<Self> {
        None
    }
    fn from_u64(_: u64) -> Option<Self> {
        None
    }
    fn from_str(_: &str) -> Option<Self> {
        None
    }
}

impl Scalar for String {
    fn from_str(v: &str) -> Option<Self> {
        Some(v.to_string())
    }
}

impl Scalar for bool {
    fn from_bool(v: bool) -> Option<Self> {
        Some(v)
    }
}

impl Scalar for u64 {
    fn from_u64(v: u64) -> Option<Self> {
        Some(v)
    }
}

/// A field of one scalar kind; any other JSON value, or none, reads as absent.
/// Records from newer or older Claude Code versions change field types; this
/// keeps one odd field from costing the whole record.
#[derive(Debug, Clone, PartialEq)]
pub struct Loose<T>(pub Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Loose(None)
    }
}

/// A string field.
pub type Str = Loose<String>;
/// A boolean field.
pub type Flag = Loose<bool>;
/// A non-negative integer field.
pub type Count = Loose<u64>;

impl<'de, T: Scalar> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Scalar> Visitor<'de> for V<T> {
            type Value = Loose<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Loose(T::from_bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Loose(u64::try_from(v).ok().and_then(T::from_u64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Loose(T::from_u64(v)))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Loose(T::from_str(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Loose(None))
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
                Loose::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl Loose<String> {
    /// The string, if present.
    pub fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl Loose<bool> {
    /// True only when the field is the JSON value `true`.
    pub fn is_true(&self) -> bool {
        self.0 == Some(true)
    }
}

impl Loose<u64> {
    /// The number, or 0.
    pub fn get(&self) -> u64 {
        self.0.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[derive(Deserialize)]
    struct T {
        #[serde(default)]
        s: Str,
        #[serde(default)]
        f: Flag,
        #[serde(default)]
        c: Count,
    }

    #[test]
    fn lenient_fields_never_fail() {
        let t: T = serde_json::from_str(r#"{"s":{"a":[1,2]},"f":"yes","c":"12"}"#).unwrap();
        assert_eq!(t.s.0, None);
        assert_eq!(t.f.0, None);
        assert_eq!(t.c.0, None);
        let t: T = serde_json::from_str(r#"{"s":"x","f":true,"c":7}"#).unwrap();
        assert_eq!(t.s.as_deref(), Some("x"));
        assert!(t.f.is_true());
        assert_eq!(t.c.get(), 7);
        let t: T = serde_json::from_str(r#"{}"#).unwrap();
        assert_eq!(t.s.0, None);
    }

    #[test]
    fn lone_surrogates_are_repaired() {
        let line = r#"{"s":"a\ud83d b \udc00 c \ud83d\ude00 \\ud800"}"#;
        let mut repaired = None;
        let t: T = parse_line(line, &mut repaired).unwrap();
        assert_eq!(t.s.as_deref(), Some("a\u{fffd} b \u{fffd} c 😀 \\ud800"));
    }

    #[test]
    fn crlf_invalid_utf8_and_truncated_last_line() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(b"{\"a\":1}\r\n\r\n{\"b\":\"\xff\"}\n{\"c\":")
            .unwrap();
        let mut seen = Vec::new();
        let n = for_each_line(f.path(), |l| {
            seen.push((l.number, l.text.into_owned(), l.unterminated))
        })
        .unwrap();
        assert_eq!(n, 4);
        assert_eq!(seen[0], (1, "{\"a\":1}".to_string(), false));
        assert_eq!(seen[1], (3, "{\"b\":\"\u{fffd}\"}".to_string(), false));
        assert_eq!(seen[2], (4, "{\"c\":".to_string(), true));
    }

    #[test]
    fn empty_file_has_no_lines() {
        let f = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(for_each_line(f.path(), |_| panic!("no lines")).unwrap(), 0);
    }
}
