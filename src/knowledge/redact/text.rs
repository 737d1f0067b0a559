//! [`Text`]: text that went through the redactor, and [`Scrub`], the only
//! way to make one.

use super::Redactor;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How many characters past a cut a caller hands to the redactor (decodes,
/// for a text cut out of a larger one): the most it may look at, see
/// [`SCAN_AHEAD`].
pub const LOOKAHEAD: usize = 4096;

/// How many characters past a cut the redactor always checks. It goes on
/// to the end of the word it stops in (the next space, line break or
/// quote; at most [`LOOKAHEAD`] characters past the cut), so a token, key
/// or password that starts before the cut is checked whole and none of it
/// survives the cut. A PEM key is longer but has lines: its block is
/// redacted to the end of what the redactor sees when its end is not there.
pub const SCAN_AHEAD: usize = 1024;

/// The part of `raw` the redactor checks when only its first `max`
/// characters are kept: [`SCAN_AHEAD`] characters past the cut, then on to
/// the end of the word.
fn scan_window(raw: &str, max: usize) -> &str {
    let seen = cut_chars(raw, max.saturating_add(SCAN_AHEAD));
    let rest = &raw[seen.len()..];
    if rest.is_empty() {
        return seen;
    }
    let rest = cut_chars(rest, LOOKAHEAD.saturating_sub(SCAN_AHEAD));
    let word = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`'))
        .unwrap_or(rest.len());
    &raw[..seen.len() + word]
}

/// Whether the redactor, keeping the first `max` characters of a text that
/// starts with `raw`, sees only what is in `raw` (its window ends inside
/// it): a caller that decoded only the start of a text can tell whether
/// it must decode more.
pub fn window_within(raw: &str, max: usize) -> bool {
    scan_window(raw, max).len() < raw.len()
}

/// Text that went through the redactor (and lost its control characters):
/// the only kind of text the knowledge model holds. Only [`Scrub`] makes
/// one from a raw string; what is derived from it downstream (a cut, a
/// slug) is derived from clean text.
///
/// It deserializes without the redactor because the cache and the spill
/// file hold only what was serialized from a `Text`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Text(Box<str>);

/// `b` as text, checked with SIMD; else the error `expected` gives.
fn utf8<'b, E: serde::de::Error>(
    b: &'b [u8],
    expected: &dyn serde::de::Expected,
) -> Result<&'b str, E> {
    simdutf8::basic::from_utf8(b)
        .map_err(|_| E::invalid_value(serde::de::Unexpected::Bytes(b), expected))
}

/// Read back as bytes from a binary format (the cache, the spill), and
/// checked to be UTF-8 with SIMD: rendering reads every turn back, and the
/// standard library's check was 1.6 % of a cold build's CPU.
impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Text;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Text, E> {
                Ok(Text(s.into()))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Text, E> {
                Ok(Text(s.into_boxed_str()))
            }
            fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<Text, E> {
                utf8(b, &self).map(|s| Text(s.into()))
            }
        }
        if d.is_human_readable() {
            d.deserialize_string(Visit)
        } else {
            d.deserialize_bytes(Visit)
        }
    }
}

impl Text {
    /// A text for the crate's own tests, which build models by hand.
    #[cfg(test)]
    pub(crate) fn test(s: &str) -> Text {
        Text(s.into())
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its first `max` characters: a cut of clean text is clean, as long
    /// as it was redacted past the cut (see [`Scrub::prefix`]).
    pub fn cut(&self, max: usize) -> Text {
        Text(cut_chars(&self.0, max).into())
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

/// A [`Text`] borrowed: read back in place from the bytes a `Text` was
/// written to (the spill, the cache), or lent by a `Text` held in memory.
/// A session page's turns are read back this way, so that each of their
/// texts is neither allocated nor copied (a text a turn's part, about a
/// quarter of a million of them for a gigabyte's pages).
#[derive(Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct TextRef<'a>(&'a str);

impl<'a> TextRef<'a> {
    /// The text, for as long as what holds it.
    pub fn as_str(self) -> &'a str {
        self.0
    }
}

impl<'a> From<&'a Text> for TextRef<'a> {
    fn from(text: &'a Text) -> TextRef<'a> {
        TextRef(&text.0)
    }
}

/// Checked as [`Text`] is; only bytes borrowed from the input are taken.
impl<'de: 'a, 'a> Deserialize<'de> for TextRef<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TextRef<'a>, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = TextRef<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a borrowed string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                s: &'de str,
            ) -> Result<TextRef<'de>, E> {
                Ok(TextRef(s))
            }
            fn visit_borrowed_bytes<E: serde::de::Error>(
                self,
                b: &'de [u8],
            ) -> Result<TextRef<'de>, E> {
                utf8(b, &self).map(TextRef)
            }
        }
        if d.is_human_readable() {
            d.deserialize_str(Visit)
        } else {
            d.deserialize_bytes(Visit)
        }
    }
}

impl std::ops::Deref for TextRef<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl std::fmt::Debug for TextRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0, f)
    }
}

/// Replacements made, by kind index of the redactor that made them. Kept
/// with what was extracted (and cached with it), so a rebuild that reads
/// nothing again still reports what the text it shows had redacted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally(Vec<u64>);

impl Tally {
    pub(super) fn bump(&mut self, kind: usize, n: u64) {
        if self.0.len() <= kind {
            self.0.resize(kind + 1, 0);
        }
        self.0[kind] += n;
    }

    pub(super) fn get(&self, kind: usize) -> u64 {
        self.0.get(kind).copied().unwrap_or(0)
    }

    /// Add `other`'s counts to these.
    pub fn add(&mut self, other: &Tally) {
        for (k, n) in other.0.iter().enumerate() {
            if *n > 0 {
                self.bump(k, *n);
            }
        }
    }

    /// Counts by kind name, only kinds with a replacement.
    pub fn by_kind(&self, r: &Redactor) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for (k, n) in self.0.iter().enumerate() {
            if *n > 0 {
                if let Some(name) = r.rules.kinds.get(k) {
                    *out.entry(name.clone()).or_insert(0) += n;
                }
            }
        }
        out
    }

    /// Total replacements.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// The redactor at work on one source (a file, a folder): turns raw
/// strings into [`Text`] and counts what it replaced.
pub struct Scrub<'r> {
    redactor: &'r Redactor,
    pub tally: Tally,
}

impl<'r> Scrub<'r> {
    pub fn new(redactor: &'r Redactor) -> Scrub<'r> {
        Scrub {
            redactor,
            tally: Tally::default(),
        }
    }

    /// The redactor this scrub uses.
    pub fn redactor(&self) -> &'r Redactor {
        self.redactor
    }

    /// Redact `raw`. A text over [`TEXT_MAX`] bytes is cut there (after
    /// redaction, like every cut) and says so at its end.
    pub fn text(&mut self, raw: &str) -> Text {
        if raw.len() > TEXT_MAX {
            return self.capped(raw);
        }
        Text(self.clean(raw).into_owned().into_boxed_str())
    }

    /// Redacted, controls stripped, never cut; borrowed when nothing
    /// changed (most text), so a caller that keeps a part copies only that.
    fn clean<'a>(&mut self, raw: &'a str) -> Cow<'a, str> {
        match self.redactor.redact_tally(raw, &mut self.tally) {
            Cow::Borrowed(text) => strip_controls(text),
            Cow::Owned(text) => match strip_controls(&text) {
                Cow::Borrowed(_) => Cow::Owned(text),
                Cow::Owned(stripped) => Cow::Owned(stripped),
            },
        }
    }

    fn capped(&mut self, raw: &str) -> Text {
        let mut keep = TEXT_MAX;
        while !raw.is_char_boundary(keep) {
            keep -= 1;
        }
        // Redacted with the usual look past the cut, then cut.
        let chars = raw[..keep].chars().count();
        let window = scan_window(raw, chars);
        let clean = self.clean(window);
        let mut shown = cut_chars(&clean, chars).to_string();
        let _ = write!(
            shown,
            "\n\n[… {} more bytes not shown: ccwiki shows at most 1 MB of one text]",
            raw.len() - keep
        );
        Text(shown.into_boxed_str())
    }

    /// Redact `raw`, reusing its buffer when nothing changes.
    pub fn owned(&mut self, raw: String) -> Text {
        if raw.len() > TEXT_MAX {
            return self.capped(&raw);
        }
        let changed = match self.clean(&raw) {
            Cow::Borrowed(_) => None,
            Cow::Owned(clean) => Some(clean),
        };
        Text(changed.unwrap_or(raw).into_boxed_str())
    }

    /// Redact an optional text.
    pub fn opt(&mut self, raw: Option<&str>) -> Option<Text> {
        raw.map(|r| self.text(r))
    }

    /// The first `max` characters of `raw`, cut after redaction: the
    /// redactor sees past the cut (see [`SCAN_AHEAD`]).
    pub fn prefix(&mut self, raw: &str, max: usize) -> Text {
        let window = scan_window(raw, max);
        Text(cut_chars(&self.clean(window), max).into())
    }

    /// [`crate::base::text::one_line`] of `raw`, after redaction.
    pub fn one_line(&mut self, raw: &str, max: usize) -> Text {
        let window = scan_window(raw, max);
        let clean = self.clean(window);
        Text(crate::base::text::one_line(&clean, max).into_boxed_str())
    }

    /// Redact a path as text (lossy for paths that are not UTF-8).
    pub fn path(&mut self, raw: &std::path::Path) -> Text {
        self.text(&raw.to_string_lossy())
    }
}

/// The most of one text (a prompt, an answer, a tool result, a memory)
/// that is kept: a page stays readable, and a build's memory bounded,
/// whatever one line of a transcript holds.
pub const TEXT_MAX: usize = 1 << 20;

pub(crate) use crate::base::text::cut_chars;

/// Remove what must never reach a page or a terminal: NUL and the other C0
/// controls but tab and line breaks, DEL, C1 controls, ANSI escape
/// sequences (colours in command output: the text stays, the codes go) and
/// the bidirectional controls that can make text read differently from
/// what it is (U+202A–U+202E, U+2066–U+2069).
pub fn strip_controls(text: &str) -> Cow<'_, str> {
    let Some(first) = first_control(text.as_bytes()) else {
        return Cow::Borrowed(text);
    };
    // Clean up to the first control: copied as is, the rest char by char.
    let (clean, text) = text.split_at(first);
    let mut out = String::with_capacity(clean.len() + text.len());
    out.push_str(clean);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                // CSI: ESC [ params... final byte in @..~ ; OSC: ESC ] ... BEL or ESC \
                match chars.peek() {
                    Some('[') => {
                        chars.next();
                        for d in chars.by_ref() {
                            if ('@'..='~').contains(&d) {
                                break;
                            }
                        }
                    }
                    Some(']') => {
                        chars.next();
                        while let Some(d) = chars.next() {
                            if d == '\x07' {
                                break;
                            }
                            if d == '\x1b' {
                                if chars.peek() == Some(&'\\') {
                                    chars.next();
                                }
                                break;
                            }
                        }
                    }
                    Some(_) => {
                        chars.next();
                    }
                    None => {}
                }
            }
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {}
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Where the first character [`strip_controls`] removes starts, by bytes:
/// most texts have none and are not copied. C1 controls are `C2 80`–`C2 9F`
/// in UTF-8, the bidirectional ones `E2 80 AA`–`E2 80 AE` and
/// `E2 81 A6`–`E2 81 A9`.
fn first_control(b: &[u8]) -> Option<usize> {
    // Blocks that hold none are passed over whole, with branch-free tests
    // the compiler makes vector code: each byte with the two after it,
    // so that `—` and `’` (E2 80 94, E2 80 99: common in Claude's prose)
    // are told from the bidirectional controls (E2 80 AA..AE) without
    // walking their block.
    const BLOCK: usize = 32;
    let mut at = 0;
    while let Some(window) = b.get(at..at + BLOCK + 2) {
        let found = (0..BLOCK).fold(false, |any, i| {
            let (c, d, e) = (window[i], window[i + 1], window[i + 2]);
            let c0 = (c < 0x20) & (c != b'\t') & (c != b'\n') & (c != b'\r');
            let c1 = (c == 0xc2) & (0x80..=0x9f).contains(&d);
            let bidi = (c == 0xe2)
                & (((d == 0x80) & (0xaa..=0xae).contains(&e))
                    | ((d == 0x81) & (0xa6..=0xa9).contains(&e)));
            any | c0 | (c == 0x7f) | c1 | bidi
        });
        if found {
            if let Some(i) = control_in(b, at, at + BLOCK) {
                return Some(i);
            }
        }
        at += BLOCK;
    }
    control_in(b, at, b.len())
}

/// The first control of [`first_control`] that starts in `b[from..to]`
/// (a character may run on past `to`).
fn control_in(b: &[u8], from: usize, to: usize) -> Option<usize> {
    (from..to).find(|&i| match b[i] {
        b'\t' | b'\n' | b'\r' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => matches!(b.get(i + 1), Some(0x80..=0x9f)),
        0xe2 => matches!(
            (b.get(i + 1), b.get(i + 2)),
            (Some(0x80), Some(0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
        ),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_read_back_as_written_and_never_as_broken_utf8_owned_or_borrowed() {
        use crate::base::stored::decode_prefix;
        for s in ["", "plain", "é 日本 \u{1F600} — ✓", &"x".repeat(300)] {
            let text = Text(s.into());
            let bytes = postcard::to_allocvec(&text).expect("encoded");
            let (back, used): (Text, usize) = decode_prefix(&bytes).expect("decoded");
            assert_eq!((back, used), (text.clone(), bytes.len()));
            let (lent, used): (TextRef<'_>, usize) = decode_prefix(&bytes).expect("borrowed");
            assert_eq!((lent, used), (TextRef::from(&text), bytes.len()));
            let body = &bytes[bytes.len() - s.len()..];
            assert_eq!(lent.as_str().as_ptr(), body.as_ptr(), "read in place");
            let json = serde_json::to_string(&text).expect("json");
            assert_eq!(
                serde_json::from_str::<Text>(&json).expect("from json"),
                text
            );
        }
        // A cut character, as a torn or damaged file may hold.
        let mut bytes = postcard::to_allocvec(&Text("é".into())).expect("encoded");
        bytes.truncate(bytes.len() - 1);
        bytes[0] = 1;
        assert!(decode_prefix::<Text>(&bytes).is_err());
        assert!(decode_prefix::<TextRef<'_>>(&bytes).is_err());
    }

    #[test]
    fn controls_go_text_stays() {
        assert_eq!(strip_controls("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(strip_controls("a\0b\x07c"), "abc");
        assert_eq!(strip_controls("\x1b[31mred\x1b[0m done"), "red done");
        assert_eq!(strip_controls("\x1b]0;title\x07after"), "after");
        assert_eq!(strip_controls("abc\u{202e}fed"), "abcfed");
        assert_eq!(strip_controls("é ü — ✓"), "é ü — ✓");
        assert!(matches!(strip_controls("é — ✓"), Cow::Borrowed(_)));
    }

    proptest::proptest! {
        /// Without escape sequences, stripping is exactly dropping the
        /// controls; the byte scan that skips clean prefixes finds them all
        /// (the second shape puts one at any place of a block it passes
        /// over whole).
        #[test]
        fn strips_exactly_the_controls(
            s in proptest::string::string_regex(
                "[a-zé—\u{80}-\u{a0}\u{2028}-\u{206f}\t\n\r\u{0}-\u{1a}\u{7f} ]{0,40}|[a-zé— \n]{0,100}[\u{0}\u{7f}\u{85}\u{202e}]?[a-z\u{80}-\u{a0}\u{2028}-\u{206f}\u{0}]{0,40}"
            ).unwrap()
        ) {
            let want: String = s
                .chars()
                .filter(|&c| {
                    let n = c as u32;
                    matches!(c, '\t' | '\n' | '\r')
                        || !(n < 0x20
                            || (0x7f..0xa0).contains(&n)
                            || (0x202a..=0x202e).contains(&n)
                            || (0x2066..=0x2069).contains(&n))
                })
                .collect();
            proptest::prop_assert_eq!(strip_controls(&s), want.as_str());
        }
    }

    /// A secret of each long shape, and what of it must not be shown.
    fn long_secret(kind: u8, seed: u64) -> (String, String) {
        let mut x = seed | 1;
        let mut body = |n: usize| -> String {
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
                        [(x % 58) as usize] as char
                })
                .collect()
        };
        match kind {
            // A 4096-bit key, lines as written and as escaped in JSON.
            0 | 1 => {
                let lines: Vec<String> = (0..50).map(|_| body(64)).collect();
                let sep = if kind == 0 { "\n" } else { "\\n" };
                let b = lines.join(sep);
                (
                    format!(
                        "-----BEGIN RSA PRIVATE KEY-----{sep}{b}{sep}-----END RSA PRIVATE KEY-----"
                    ),
                    lines[0].clone(),
                )
            }
            // A 3 KB JWT (an identity provider's access token).
            2 => {
                let t = format!("eyJ{}.eyJ{}.{}", body(300), body(2500), body(342));
                (t.clone(), t)
            }
            _ => {
                let t = format!("ghp_{}", body(36));
                (t.clone(), t)
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// A secret that starts before the cut, at any distance from it, in
        /// prose or in a run without spaces, shows no piece of itself.
        #[test]
        fn a_secret_across_the_cut_is_never_shown_in_part(
            kind in 0u8..4,
            seed in proptest::num::u64::ANY,
            max in 50usize..3000,
            back in 1usize..200,
            glued in proptest::bool::ANY,
        ) {
            static RED: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
            let red = RED.get_or_init(|| {
                Redactor::new(&super::super::RedactConfig::default()).unwrap()
            });
            let (secret, body) = long_secret(kind, seed);
            let filler = if glued { "x\\n=" } else { "some words " };
            let before = filler.repeat((max / filler.len()).saturating_sub(back / filler.len()) + 1);
            let before = cut_chars(&before, max.saturating_sub(back));
            let gap = if glued { "=" } else { " " };
            let raw = format!("{before}{gap}{secret}{gap}{}", filler.repeat(500));
            let shown = Scrub::new(red).prefix(&raw, max);
            let b = body.as_bytes();
            for i in 0..b.len().saturating_sub(7) {
                let piece = &body[i..i + 8];
                proptest::prop_assert!(!shown.contains(piece), "{piece} shown: {}", shown.as_str());
            }
        }
    }

    #[test]
    fn cuts_count_characters() {
        assert_eq!(cut_chars("héllo", 2), "hé");
        assert_eq!(cut_chars("hi", 5), "hi");
    }

    #[test]
    fn a_huge_text_is_cut_after_redaction_and_says_so() {
        let red = Redactor::new(&super::super::RedactConfig::default()).unwrap();
        let mut sc = Scrub::new(&red);
        // a secret straddling the cut is caught whole
        let secret = format!("ghp_{}", "A1b2C3d4".repeat(5));
        let mut raw = "é".repeat((TEXT_MAX - 10) / 2);
        raw.push(' ');
        raw.push_str(&secret);
        raw.push_str(&" tail".repeat(100_000));
        let shown = sc.text(&raw);
        assert!(shown.len() < TEXT_MAX + 200, "{}", shown.len());
        assert!(!shown.contains("ghp_A1b2"), "no piece of the secret");
        assert!(shown.ends_with("ccwiki shows at most 1 MB of one text]"));
        assert_eq!(sc.owned(raw.clone()), shown);
    }
}
