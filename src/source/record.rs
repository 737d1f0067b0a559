//! The shape of one transcript line, as far as the wiki needs it.
//!
//! Every field is optional and lenient. Fields the wiki never shows
//! (thinking text, tool output, snapshots, progress data) are not declared,
//! so serde skips them without building values.

use super::jsonl::{Count, Flag, Str};
use super::skim::{self, Raw};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

/// One line of a transcript.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Record<'a> {
    #[serde(rename = "type")]
    pub kind: Str,
    pub subtype: Str,
    pub uuid: Str,
    pub parent_uuid: Str,
    pub session_id: Str,
    pub timestamp: Str,
    pub cwd: Str,
    pub git_branch: Str,
    pub version: Str,
    pub entrypoint: Str,
    pub agent_id: Str,
    pub is_sidechain: Flag,
    pub is_meta: Flag,
    pub is_compact_summary: Flag,
    pub is_api_error_message: Flag,
    /// `system` records carry their text here.
    pub content: Str,
    pub summary: Str,
    pub leaf_uuid: Str,
    pub ai_title: Str,
    pub custom_title: Str,
    /// `file-history-snapshot` lines: kept raw, read by [`tracked_backups`].
    #[serde(borrow)]
    pub snapshot: Option<Raw<'a>>,
    /// Kept raw: parsed only for the instruction files it names.
    #[serde(borrow)]
    pub attachment: Option<Raw<'a>>,
    /// Read with the line, in the same pass: skipped as raw JSON first and
    /// parsed again, every message was scanned twice.
    #[serde(borrow)]
    pub message: Object<Message<'a>>,
}

/// A JSON object read as `T`, else absent: any other value (a string
/// where an object was expected) reads as absent and is noted as `odd`, so
/// that one odd field does not cost the whole line.
#[derive(Debug)]
pub struct Object<T> {
    pub value: Option<T>,
    pub odd: bool,
}

impl<T> Default for Object<T> {
    fn default() -> Self {
        Object {
            value: None,
            odd: false,
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                let value = T::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Object {
                    value: Some(value),
                    odd: false,
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<Object<T>, E> {
                Ok(Object::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Object<T>, E> {
                Ok(Object::default())
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Object<T>, D2::Error> {
                Object::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Object<T>, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Object::odd())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Object<T>, E> {
                Ok(Object::odd())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Object<T>, E> {
                Ok(Object::odd())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Object<T>, E> {
                Ok(Object::odd())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Object<T>, E> {
                Ok(Object::odd())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Object<T>, E> {
                Ok(Object::odd())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<T> Object<T> {
    fn odd() -> Self {
        Object {
            value: None,
            odd: true,
        }
    }
}

/// `message` of a user or assistant line.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Message<'a> {
    pub id: Str,
    pub model: Str,
    #[serde(borrow)]
    pub content: Content<'a>,
    pub usage: Object<RawUsage>,
}

/// `message.usage`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawUsage {
    pub input_tokens: Count,
    pub output_tokens: Count,
    pub cache_read_input_tokens: Count,
    pub cache_creation_input_tokens: Count,
    /// The cache writes by lifetime (newer lines).
    pub cache_creation: Object<RawCacheCreation>,
}

/// `usage.cache_creation`: tokens written to the cache for 5 minutes and
/// for an hour.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawCacheCreation {
    pub ephemeral_1h_input_tokens: Count,
}

/// `message.content`: a string in older lines, an array of blocks in newer ones.
#[derive(Debug, Default)]
pub enum Content<'a> {
    #[default]
    None,
    Text(String),
    Blocks(Vec<RawBlock<'a>>),
}

/// One content block. Only the fields the wiki uses are read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawBlock<'a> {
    #[serde(rename = "type")]
    pub kind: Str,
    pub text: Str,
    pub name: Str,
    /// A tool call's arguments, kept raw: read as [`ToolInput`] for the
    /// one that says what the call did, and shown (cut) in full.
    #[serde(borrow)]
    pub input: Option<Raw<'a>>,
    /// A tool call's id, and the id of the call a result answers.
    pub id: Str,
    pub tool_use_id: Str,
    /// The result is an error.
    pub is_error: Flag,
    /// A tool result's output, kept raw: only a short prefix is ever decoded.
    #[serde(borrow)]
    pub content: Option<Raw<'a>>,
}

impl RawBlock<'_> {
    /// The arguments that say what a tool call did.
    pub fn tool_input(&self) -> Option<ToolInput> {
        self.input
            .and_then(|raw| skim::from_slice(raw.bytes()).ok())
    }
}

/// One file a `file-history-snapshot` tracks: its backup in
/// `file-history/<session>/<backup>` (None: the file did not exist yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackedBackup {
    /// As Claude Code wrote it: relative to the session's `cwd`, or absolute.
    pub path: String,
    pub backup: Option<String>,
    pub version: u32,
    pub time: Option<String>,
}

/// The files a `snapshot` tracks.
pub fn tracked_backups(snapshot: Raw<'_>) -> Vec<TrackedBackup> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Snapshot {
        #[serde(default)]
        tracked_file_backups: std::collections::BTreeMap<String, Tracked>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Tracked {
        backup_file_name: Option<String>,
        version: Option<u32>,
        backup_time: Option<String>,
    }
    let Ok(s) = serde_json::from_str::<Snapshot>(&snapshot.text()) else {
        return Vec::new();
    };
    s.tracked_file_backups
        .into_iter()
        .map(|(path, t)| TrackedBackup {
            path,
            // A backup is a file name, never a path.
            backup: t
                .backup_file_name
                .filter(|b| crate::base::dirs::plain_name(b)),
            version: t.version.unwrap_or(0),
            time: t.backup_time,
        })
        .collect()
}

/// The arguments of the calls that change a file (shown as a diff here,
/// replayed by `ccwiki recover` in `source::changes`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct EditInput {
    pub file_path: Option<String>,
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    pub replace_all: bool,
    pub content: Option<String>,
    pub new_source: Option<String>,
    pub edits: Vec<EditPair>,
}

/// One replacement of a MultiEdit.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct EditPair {
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    pub replace_all: bool,
}

/// The arguments an edit shows as a diff rather than as lines.
pub const EDIT_ARGS: &[&str] = &["old_string", "new_string", "content", "new_source", "edits"];

/// What a call that changes a file replaced, as (old, new) pairs: Edit's
/// one, MultiEdit's each, Write's and NotebookEdit's whole new text (the
/// old one is not in the call), each side decoded to at most `max`
/// characters. Empty for other tools.
pub fn edits_of(tool: &str, raw: Raw<'_>, max: usize) -> Vec<(String, String)> {
    /// [`EditInput`] with its texts left raw: a whole file written is
    /// decoded only as far as it is kept.
    #[derive(Default, Deserialize)]
    #[serde(default)]
    struct Edits<'a> {
        #[serde(borrow)]
        old_string: Option<Raw<'a>>,
        #[serde(borrow)]
        new_string: Option<Raw<'a>>,
        #[serde(borrow)]
        content: Option<Raw<'a>>,
        #[serde(borrow)]
        new_source: Option<Raw<'a>>,
        #[serde(borrow)]
        edits: Vec<RawPair<'a>>,
    }
    #[derive(Default, Deserialize)]
    #[serde(default)]
    struct RawPair<'a> {
        #[serde(borrow)]
        old_string: Option<Raw<'a>>,
        #[serde(borrow)]
        new_string: Option<Raw<'a>>,
    }
    if !matches!(tool, "Edit" | "MultiEdit" | "Write" | "NotebookEdit") {
        return Vec::new();
    }
    let Ok(input) = skim::from_slice::<Edits>(raw.bytes()) else {
        return Vec::new();
    };
    let text = |v: Option<Raw<'_>>| {
        v.and_then(|v| json_string_prefix(v.bytes(), max))
            .unwrap_or_default()
    };
    let mut out: Vec<(String, String)> = input
        .edits
        .iter()
        .map(|e| (text(e.old_string), text(e.new_string)))
        .collect();
    if input.old_string.is_some() || input.new_string.is_some() {
        out.insert(0, (text(input.old_string), text(input.new_string)));
    }
    if let Some(whole) = input.content.or(input.new_source) {
        out.push((String::new(), text(Some(whole))));
    }
    out
}

/// A tool call's arguments as `name: value` lines, values decoded (a path
/// escaped in JSON is shown, and redacted, as the path it is), cut after
/// about `max` characters; the arguments named in `skip` are left out.
pub fn input_lines(raw: Raw<'_>, max: usize, skip: &[&str]) -> String {
    // Values stay raw until shown: a 50 KB file written costs the decoding
    // of the characters kept, not of the whole file. Keys in sorted order.
    let Ok(fields) = skim::from_slice::<BTreeMap<String, Raw>>(raw.bytes()) else {
        return crate::base::text::cut_chars(&raw.text(), max).to_string();
    };
    let mut out = String::new();
    let mut chars = 0;
    for (key, value) in fields {
        if chars >= max {
            break;
        }
        if skip.contains(&key.as_str()) {
            continue;
        }
        let start = out.len();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&key);
        out.push_str(": ");
        chars += out[start..].chars().count();
        let value = match value.bytes().starts_with(b"\"") {
            true => json_string_prefix(value.bytes(), max.saturating_sub(chars)),
            false => serde_json::from_str::<serde_json::Value>(&value.text())
                .ok()
                .map(|v| v.to_string()),
        };
        let value = value.unwrap_or_default();
        chars += value.chars().count();
        out.push_str(&value);
    }
    crate::base::text::cut_chars(&out, max).to_string()
}

/// The arguments of a tool call that say what it did.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolInput {
    pub file_path: Str,
    pub notebook_path: Str,
    pub path: Str,
    pub command: Str,
    pub pattern: Str,
    pub url: Str,
    pub query: Str,
    pub description: Str,
    pub subagent_type: Str,
    pub skill: Str,
    pub prompt: Str,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content<'a>, E> {
                Ok(Content::Text(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<BlockOrText>()? {
                    if let Some(b) = b.0 {
                        blocks.push(b);
                    }
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content<'a>, A::Error> {
                // A single block where an array was expected.
                let b = RawBlock::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Content::Blocks(vec![b]))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An array element that is a block object, or a bare string taken as text.
struct BlockOrText<'a>(Option<RawBlock<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for BlockOrText<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = BlockOrText<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<BlockOrText<'a>, A::Error> {
                let b = RawBlock::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(BlockOrText(Some(b)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BlockOrText<'a>, E> {
                Ok(BlockOrText(Some(RawBlock {
                    kind: Str::from_value("text"),
                    text: Str::from_value(v),
                    ..RawBlock::default()
                })))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BlockOrText<'a>, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(BlockOrText(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<BlockOrText<'a>, E> {
                Ok(BlockOrText(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<BlockOrText<'a>, E> {
                Ok(BlockOrText(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<BlockOrText<'a>, E> {
                Ok(BlockOrText(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<BlockOrText<'a>, E> {
                Ok(BlockOrText(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<BlockOrText<'a>, E> {
                Ok(BlockOrText(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl Str {
    /// A present string value.
    pub fn from_value(v: &str) -> Str {
        super::jsonl::Loose(Some(v.to_string()))
    }
}

/// The first `max` characters of a tool result's output: the text of a JSON
/// string, or of the text items of an array. Decodes only the prefix, so a
/// 2 MB tool result costs no allocation beyond `max` characters.
pub fn output_prefix(raw: Raw<'_>, max: usize) -> Option<String> {
    let json = raw.bytes().trim_ascii_start();
    if json.starts_with(b"\"") {
        return json_string_prefix(json, max);
    }
    if json.starts_with(b"[") {
        #[derive(Deserialize)]
        struct Item<'a> {
            #[serde(rename = "type", default)]
            kind: Str,
            #[serde(borrow, default)]
            text: Option<Raw<'a>>,
        }
        let items: Vec<Item<'_>> = skim::from_slice(json).ok()?;
        let mut out = String::new();
        for item in items {
            if item.kind.as_deref() != Some("text") {
                continue;
            }
            if let Some(t) = item
                .text
                .and_then(|t| json_string_prefix(t.bytes(), max - out.len().min(max)))
            {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&t);
            }
            if out.chars().count() >= max {
                break;
            }
        }
        return (!out.is_empty()).then_some(out);
    }
    None
}

/// Decode at most `max` characters of a JSON string literal, invalid
/// UTF-8 replaced (U+FFFD): only the characters kept are checked.
fn json_string_prefix(json: &[u8], max: usize) -> Option<String> {
    let bytes = json.strip_prefix(b"\"")?;
    let mut out = Vec::with_capacity(max.min(bytes.len()));
    let mut n = 0;
    let mut i = 0;
    while n < max {
        // A run without escapes is copied whole, up to `max` characters.
        let (run_end, chars) = plain_run(bytes, i, max - n);
        n += chars;
        out.extend_from_slice(&bytes[i..run_end]);
        i = run_end;
        if n >= max || i >= bytes.len() || bytes[i] == b'"' {
            break;
        }
        // An escape.
        match *bytes.get(i + 1)? {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => {}
            b'b' | b'f' => out.push(b' '),
            b'u' => {
                let hex = std::str::from_utf8(bytes.get(i + 2..i + 6)?).ok()?;
                let code = u32::from_str_radix(hex, 16).ok()?;
                let c = char::from_u32(code).unwrap_or('\u{fffd}');
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                i += 4;
            }
            // `"`, `\\`, `/`; any other byte (a line serde_json refuses)
            // as it is, a character it starts following in the next run.
            other => out.push(other),
        }
        i += 2;
        n += 1;
    }
    // Checked with SIMD: std's check of the kept prefixes cost 2.5 % of a
    // cold build's CPU, as much as checking every line whole had.
    Some(match simdutf8::basic::from_utf8(&out) {
        // SAFETY: `out` was just checked to be UTF-8.
        Ok(_) => unsafe { String::from_utf8_unchecked(out) },
        Err(_) => String::from_utf8_lossy(&out).into_owned(),
    })
}

/// From `at`, the end of the bytes that hold neither a quote nor a
/// backslash and at most `room` characters (where a character starts, a
/// quote, a backslash or the end), and how many characters they hold.
/// Sixteen bytes at a time, to the first quote or backslash of a block:
/// tool output holds an escape every 20 bytes or so, and a search and a
/// count for each run cost more than the copy.
fn plain_run(bytes: &[u8], at: usize, room: usize) -> (usize, usize) {
    use wide::u8x16;
    let (mut i, mut n) = (at, 0);
    while let Some(block) = bytes
        .get(i..i + 16)
        .and_then(|b| <[u8; 16]>::try_from(b).ok())
    {
        let v = u8x16::new(block);
        let special = v.simd_eq(u8x16::splat(b'"')) | v.simd_eq(u8x16::splat(b'\\'));
        // The bytes before the first quote or backslash (all 16 without).
        let plain = (special.to_bitmask() | 1 << 16).trailing_zeros() as usize;
        let before = (1u32 << plain) - 1;
        // An ASCII byte is a character. Continuation bytes are counted
        // only where a byte is not ASCII (its top bit set): without the
        // popcount instruction, which a build for any x86-64 cannot
        // assume, the count is a dozen instructions, and it was a third
        // of this function's time on tool output, nearly all ASCII.
        let chars = match v.to_bitmask() & before {
            0 => plain,
            _ => {
                let continuing = (v & u8x16::splat(0xc0)).simd_eq(u8x16::splat(0x80));
                plain - (continuing.to_bitmask() & before).count_ones() as usize
            }
        };
        if n + chars > room {
            break;
        }
        n += chars;
        i += plain;
        if plain < 16 {
            return (i, n);
        }
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' {
            break;
        }
        if b & 0xc0 != 0x80 {
            if n == room {
                break;
            }
            n += 1;
        }
        i += 1;
    }
    (i, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_read_with_its_line_and_odd_shapes_cost_only_themselves() {
        let line = r#"{"type":"assistant","timestamp":"t","message":{"id":"m1","model":"x","content":[{"type":"text","text":"hi"},{"type":"tool_result","tool_use_id":"a","content":[1,{"b":"c"}]}],"usage":{"input_tokens":3,"cache_creation":{"ephemeral_1h_input_tokens":4}}}}"#;
        let rec: Record = serde_json::from_str(line).expect("line");
        let msg = rec.message.value.expect("message");
        assert_eq!(msg.id.as_deref(), Some("m1"));
        let Content::Blocks(blocks) = &msg.content else {
            panic!("blocks")
        };
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            blocks[1].content.map(|c| c.bytes()),
            Some(&br#"[1,{"b":"c"}]"#[..])
        );
        let usage = msg.usage.value.expect("usage");
        assert_eq!(usage.input_tokens.get(), 3);
        assert_eq!(
            usage
                .cache_creation
                .value
                .map(|c| c.ephemeral_1h_input_tokens.get()),
            Some(4)
        );

        // Not an object: the line stands, the message is noted as odd.
        for odd in [r#""hi""#, "[1,2]", "3", "true"] {
            let line = format!(r#"{{"type":"user","timestamp":"t","message":{odd},"cwd":"/x"}}"#);
            let rec: Record = serde_json::from_str(&line).expect("line");
            assert!(rec.message.value.is_none() && rec.message.odd, "{odd}");
            assert_eq!(rec.cwd.as_deref(), Some("/x"), "{odd}");
        }
        // Absent or null: neither read nor odd.
        for line in [r#"{"type":"user"}"#, r#"{"type":"user","message":null}"#] {
            let rec: Record = serde_json::from_str(line).expect("line");
            assert!(rec.message.value.is_none() && !rec.message.odd, "{line}");
        }
        // Odd usage inside a message: only the usage is lost.
        let line = r#"{"type":"assistant","message":{"id":"m2","content":"x","usage":"lots"}}"#;
        let rec: Record = serde_json::from_str(line).expect("line");
        let msg = rec.message.value.expect("message");
        assert!(msg.usage.value.is_none() && msg.usage.odd);
        assert_eq!(msg.id.as_deref(), Some("m2"));
    }

    proptest::proptest! {
        /// The prefix decoded by hand is the prefix of what serde_json
        /// decodes (a carriage return counted then dropped, backspace and
        /// form feed shown as spaces), whatever the escapes and the cut.
        #[test]
        fn a_string_prefix_is_the_decoded_prefix(
            s in proptest::string::string_regex("[a-zé😀\"\\\\/\\u{0}-\\u{1f} ]{0,60}").unwrap(),
            max in 0usize..70,
        ) {
            let json = serde_json::to_string(&s).unwrap();
            let want: String = s
                .chars()
                .take(max)
                .filter(|&c| c != '\r')
                .map(|c| if matches!(c, '\u{8}' | '\u{c}') { ' ' } else { c })
                .collect();
            proptest::prop_assert_eq!(json_string_prefix(json.as_bytes(), max), Some(want));
        }

        /// The same of long runs between escapes, cut anywhere: runs are
        /// read sixteen bytes at a time, and a character may straddle two
        /// blocks or the cut.
        #[test]
        fn a_long_string_prefix_is_the_decoded_prefix(
            s in proptest::string::string_regex("([a-z é😀日]{0,50}[\"\\\\\n]?){0,8}").unwrap(),
            max in 0usize..400,
        ) {
            let json = serde_json::to_string(&s).unwrap();
            let want: String = s.chars().take(max).collect();
            proptest::prop_assert_eq!(json_string_prefix(json.as_bytes(), max), Some(want));
        }
    }

    #[test]
    fn a_bad_escape_is_no_string() {
        assert_eq!(json_string_prefix(br#""ab\u00zz""#, 10), None);
        assert_eq!(json_string_prefix(br#""ab\"#, 10), None);
        assert_eq!(
            json_string_prefix(br#""\u00e9t\u00e9" tail"#, 10).as_deref(),
            Some("été")
        );
    }

    #[test]
    fn invalid_utf8_in_a_string_prefix_is_replaced() {
        let json = b"\"a\xffb\\n\xe2\x82\" tail";
        assert_eq!(
            json_string_prefix(json, 10).as_deref(),
            Some("a\u{fffd}b\n\u{fffd}")
        );
        assert_eq!(json_string_prefix(json, 2).as_deref(), Some("a\u{fffd}"));
    }
}
