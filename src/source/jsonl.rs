//! Streaming JSONL: one line at a time, whatever the bytes are.
//!
//! Handles CRLF line ends, invalid UTF-8 (replaced where it is read, not
//! fatal), lone UTF-16 surrogates in `\u` escapes (which serde_json
//! rejects), a last line cut off by a writer still at work, and lines of
//! any length. Also holds the lenient field types that let one odd field
//! never cost a whole record.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// What happened to one line, for the caller's bookkeeping.
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The bytes, CR/LF stripped, not checked as UTF-8: [`parse_line`]
    /// checks only what a record keeps.
    pub bytes: &'a [u8],
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

/// Bytes read from the file at a time.
const READ_BYTES: usize = 1 << 18;

/// [`read_lines`], stopping at the first line that starts at or after `end`.
///
/// Lines are handed out where they lie in the read buffer: no copy of
/// each line (a std `read_until` copied every byte once more and found
/// line ends with a slower scan), only the start of a line cut by the end
/// of a read moves to the front of the buffer.
pub fn read_range(
    path: &Path,
    start: Position,
    end: u64,
    f: impl FnMut(Line<'_>),
) -> std::io::Result<Position> {
    read_range_by(path, start, end, READ_BYTES, f)
}

/// [`read_range`], reading `read_bytes` at a time (small in tests, so
/// that lines cross many reads).
fn read_range_by(
    path: &Path,
    start: Position,
    end: u64,
    read_bytes: usize,
    f: impl FnMut(Line<'_>),
) -> std::io::Result<Position> {
    let mut file = File::open(path)?;
    if start.offset > 0 {
        file.seek(SeekFrom::Start(start.offset))?;
    }
    let read_bytes = read_bytes.max(1);
    let mut buf = READ_BUFFER.take();
    // Never cut shorter: the bytes past `read_bytes` that a long line made
    // room for in an earlier file are zeroed already (cut back at each
    // file, the buffer was zeroed again at each file's first line longer
    // than one read).
    if buf.len() < read_bytes {
        buf.resize(read_bytes, 0);
    }
    let read = lines_in(&mut file, &mut buf, start, end, read_bytes, f);
    // Kept for the next file no longer than four reads: a thread keeps no
    // giant line's buffer. (Kept up to 4 MB, a cold 1 GB build had a tenth
    // fewer page faults, but 3 GB with a 1 GB session peaked 20 MB
    // higher.) Cut back rather than dropped: the next long line grows it
    // from there, not again from one read by doubling and copying.
    if buf.len() > 4 * read_bytes {
        buf.truncate(4 * read_bytes);
        buf.shrink_to_fit();
    }
    READ_BUFFER.set(buf);
    read
}

thread_local! {
    /// Each thread's read buffer, kept from one file to the next: a fresh
    /// zeroed buffer for each file cost three times the page faults of
    /// the rest of a build.
    static READ_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The lines of `file` from `start`, read into `buf` (`read_bytes` long).
fn lines_in(
    file: &mut File,
    buf: &mut Vec<u8>,
    start: Position,
    end: u64,
    read_bytes: usize,
    mut f: impl FnMut(Line<'_>),
) -> std::io::Result<Position> {
    // buf[begin..filled] is read and not handed out yet; buf[begin..scanned]
    // holds no line end.
    let (mut begin, mut scanned, mut filled) = (0usize, 0usize, 0usize);
    let mut eof = false;
    let mut pos = start;
    loop {
        if pos.offset >= end {
            return Ok(pos);
        }
        let line_end = memchr::memchr(b'\n', &buf[scanned..filled]).map(|i| scanned + i);
        let (stop, next) = match line_end {
            Some(nl) => (nl, nl + 1),
            None if eof && begin < filled => (filled, filled),
            None if eof => return Ok(pos),
            None => {
                scanned = filled;
                if begin > 0 {
                    buf.copy_within(begin..filled, 0);
                    (scanned, filled) = (scanned - begin, filled - begin);
                    begin = 0;
                }
                // Give back memory after a giant line so one 500 MB line
                // does not pin it.
                if buf.len() > 64 * read_bytes && filled < read_bytes {
                    buf.truncate(read_bytes);
                    buf.shrink_to_fit();
                }
                // Room for one more read only: what is zeroed is resident,
                // and a doubled buffer would be up to twice the line.
                if filled == buf.len() {
                    buf.resize(filled + read_bytes, 0);
                }
                let room = buf.len().min(filled + read_bytes);
                match file.read(&mut buf[filled..room]) {
                    Ok(0) => eof = true,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
                continue;
            }
        };
        let unterminated = stop == next;
        pos.line += 1;
        pos.offset += (next - begin) as u64;
        let mut bytes = &buf[begin..stop];
        (begin, scanned) = (next, next);
        while let [rest @ .., b'\n' | b'\r'] = bytes {
            bytes = rest;
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        f(Line {
            number: pos.line,
            bytes,
            unterminated,
            end: pos.offset,
        });
    }
}

/// Read a whole file line by line; returns the number of lines.
pub fn for_each_line(path: &Path, f: impl FnMut(Line<'_>)) -> std::io::Result<u64> {
    read_lines(path, Position::default(), f).map(|p| p.line)
}

/// Parse one JSON line into `T`: what `T` keeps is checked as UTF-8 (and
/// replaced where invalid) by the skim. A line serde_json refuses is tried
/// once more, repaired into `repaired`: invalid UTF-8 replaced, lone
/// surrogate escapes too (serde_json refuses both; a repaired surrogate
/// is one serde_json would refuse, so repairing it first changes no line
/// that reads).
pub fn parse_line<'a, T: Deserialize<'a>>(
    line: &'a [u8],
    repaired: &'a mut Option<String>,
) -> Result<T, serde_json::Error> {
    let e = match super::skim::from_slice::<T>(line) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let text = String::from_utf8_lossy(line);
    let surrogates = has_surrogate_escape(&text);
    if matches!(text, Cow::Borrowed(_)) && !surrogates {
        return Err(e);
    }
    let text = match surrogates {
        true => repair_surrogates(&text),
        false => text.into_owned(),
    };
    super::skim::from_slice::<T>(repaired.insert(text).as_bytes())
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
    use super::super::skim::lossy;
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

    /// A thread keeps its read buffer between files when a long line grew
    /// it (up to 1 MB), and cuts it back to 1 MB after a giant line.
    #[test]
    fn read_buffer_is_kept_for_long_lines_and_cut_back_after_giant_ones() {
        let dir = tempfile::tempdir().expect("temp dir");
        let kept_after = |line_bytes: usize| {
            let path = dir.path().join(format!("{line_bytes}.jsonl"));
            let line = format!("{{\"x\":\"{}\"}}\n", "a".repeat(line_bytes));
            std::fs::write(&path, line).expect("write");
            let mut lines = 0;
            read_range(&path, Position::default(), u64::MAX, |_| lines += 1).expect("read");
            assert_eq!(lines, 1);
            let buf = READ_BUFFER.take();
            let kept = buf.capacity();
            READ_BUFFER.set(buf);
            kept
        };
        assert!(
            kept_after(600 << 10) > 600 << 10,
            "a 600 KB line's buffer is kept"
        );
        assert_eq!(
            kept_after(2 << 20),
            4 * READ_BYTES,
            "a 2 MB line's buffer is cut back to four reads"
        );
        assert!(kept_after(100) >= READ_BYTES, "the usual buffer is kept");
    }

    /// What `read_range` hands out, line by line as the std reader did:
    /// (number, text, unterminated, end) and the position it stops at.
    fn lines_of(
        bytes: &[u8],
        start: Position,
        end: u64,
    ) -> (Vec<(u64, String, bool, u64)>, Position) {
        let mut out = Vec::new();
        let mut pos = start;
        let mut rest = &bytes[start.offset as usize..];
        while !rest.is_empty() && pos.offset < end {
            let n = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            let (line, after) = rest.split_at(n);
            rest = after;
            pos.line += 1;
            pos.offset += n as u64;
            let unterminated = line.last() != Some(&b'\n');
            let mut t = line;
            while let [r @ .., b'\n' | b'\r'] = t {
                t = r;
            }
            if !t.iter().all(u8::is_ascii_whitespace) {
                out.push((pos.line, lossy(t), unterminated, pos.offset));
            }
        }
        (out, pos)
    }

    proptest::proptest! {
        /// Any bytes, any read size, from any line start to any end, with
        /// whatever an earlier file left in the thread's buffer: the lines
        /// handed out are the file's lines, numbered and placed.
        #[test]
        fn lines_are_read_whole_across_reads(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
                    proptest::collection::vec(proptest::sample::select(b"ab \r\n{}\xc3\xa9".to_vec()), 0..300),
                ],
                0..12,
            ),
            read_bytes in 1usize..70,
            from in proptest::prelude::any::<proptest::sample::Index>(),
            end in proptest::prelude::any::<proptest::sample::Index>(),
            left in proptest::collection::vec(proptest::sample::select(b"x\n".to_vec()), 0..400),
        ) {
            READ_BUFFER.set(left);
            let bytes = parts.concat();
            let starts: Vec<u64> = std::iter::once(0)
                .chain(bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i as u64 + 1))
                .collect();
            let offset = starts[from.index(starts.len())];
            let line = starts.iter().filter(|&&s| s > 0 && s <= offset).count() as u64;
            let start = Position { offset, line };
            let end = if end.index(3) == 0 { u64::MAX } else { end.index(bytes.len() + 2) as u64 };
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("a.jsonl");
            std::fs::write(&path, &bytes).unwrap();
            let mut got = Vec::new();
            let stop = read_range_by(&path, start, end, read_bytes, |l| {
                got.push((l.number, lossy(l.bytes), l.unterminated, l.end))
            })
            .unwrap();
            let (want, want_stop) = lines_of(&bytes, start, end);
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(stop, want_stop);
        }
    }

    #[test]
    fn lone_surrogates_are_repaired() {
        let line = r#"{"s":"a\ud83d b \udc00 c \ud83d\ude00 \\ud800"}"#;
        let mut repaired = None;
        let t: T = parse_line(line.as_bytes(), &mut repaired).unwrap();
        assert_eq!(t.s.as_deref(), Some("a\u{fffd} b \u{fffd} c 😀 \\ud800"));
    }

    #[test]
    fn crlf_invalid_utf8_and_truncated_last_line() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(b"{\"a\":1}\r\n\r\n{\"b\":\"\xff\"}\n{\"c\":")
            .unwrap();
        let mut seen = Vec::new();
        let n = for_each_line(f.path(), |l| {
            seen.push((l.number, lossy(l.bytes), l.unterminated))
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
