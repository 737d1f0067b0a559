use super::strings::{escaped_bytes, Block};
use super::*;
use crate::source::record::Record;
use proptest::prelude::*;
use serde_json::Value;

/// The skim's answer must be serde_json's wherever the skim answers.
fn same_as_serde_json<'a, T>(line: &'a str) -> Result<bool, TestCaseError>
where
    T: Deserialize<'a> + fmt::Debug,
{
    let Ok(skimmed) = skim::<T>(line.as_bytes()) else {
        return Ok(false);
    };
    match serde_json::from_str::<T>(line) {
        Ok(parsed) => prop_assert_eq!(format!("{skimmed:?}"), format!("{parsed:?}"), "{}", line),
        Err(e) => prop_assert!(false, "skimmed what serde_json refuses ({e}): {line}"),
    }
    Ok(true)
}

/// Every transcript and history line the project holds: the demo's and
/// the hostile fixture's.
fn project_lines() -> &'static [String] {
    static LINES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LINES.get_or_init(read_project_lines)
}

fn read_project_lines() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut lines = Vec::new();
    for dir in ["examples/demo", "tests/fixtures"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.expect("walk");
            if entry.path().extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(entry.path()).expect("read");
                lines.extend(
                    text.lines()
                        .filter(|l| !l.trim().is_empty())
                        .map(String::from),
                );
            }
        }
    }
    assert!(lines.len() > 200, "{} lines", lines.len());
    lines
}

#[test]
fn every_line_the_project_holds_is_skimmed_as_serde_json_reads_it() {
    for line in project_lines() {
        let parsed = serde_json::from_str::<Record>(line);
        let skimmed = skim::<Record>(line.as_bytes());
        match (&parsed, &skimmed) {
            (Ok(p), Ok(s)) => assert_eq!(format!("{s:?}"), format!("{p:?}"), "{line}"),
            (Err(_), Err(_)) => {}
            // Keys with escapes are left to serde_json on purpose.
            (Ok(_), Err(_)) => panic!("not skimmed: {line}"),
            (Err(e), Ok(_)) => panic!("skimmed what serde_json refuses ({e}): {line}"),
        }
        let value = skim::<Value>(line.as_bytes()).ok();
        assert_eq!(value, serde_json::from_str::<Value>(line).ok(), "{line}");
    }
}

#[test]
fn refusals_go_to_serde_json_for_its_error() {
    for bad in [
        r#"{"type":"user","x":"a\qb"}"#,
        r#"{"type":"user","x":"tab	inside"}"#,
        r#"{"type":"user","x":[1,]}"#,
        r#"{"type":"user","x":01}"#,
        r#"{"type":"user","x":"\u12g4"}"#,
        r#"{"type":"user"} x"#,
        r#"{"type":"user","#,
        r#"{"type":"user","x":"abc"#,
    ] {
        assert_eq!(skim::<Record>(bad.as_bytes()).err(), Some(Refused), "{bad}");
        let err = from_slice::<Record>(bad.as_bytes())
            .expect_err(bad)
            .to_string();
        assert!(err.contains("column"), "{bad}: {err}");
    }
    // A key with an escape, deep nesting: refused, then read by serde_json.
    let nested = format!(
        r#"{{"type":"user","x":{}1{}}}"#,
        "[".repeat(80),
        "]".repeat(80)
    );
    for line in [r#"{"ty\u0070e":"user"}"#, nested.as_str()] {
        assert_eq!(
            skim::<Record>(line.as_bytes()).err(),
            Some(Refused),
            "{line}"
        );
        assert_eq!(
            from_slice::<Record>(line.as_bytes())
                .expect(line)
                .kind
                .as_deref(),
            Some("user")
        );
    }
}

#[test]
fn raw_values_are_the_text_as_written() {
    let line = r#"{"type":"user","message":{"content":[{"type":"tool_result","content": [1, {"a":"\"}"}] ,"input":"x\ny"}]}}"#;
    for rec in [
        skim::<Record>(line.as_bytes()).expect("skim"),
        serde_json::from_str(line).expect("serde"),
    ] {
        let Some(crate::source::record::Message {
            content: crate::source::record::Content::Blocks(blocks),
            ..
        }) = rec.message.value
        else {
            panic!("blocks")
        };
        assert_eq!(
            blocks[0].content.map(Raw::bytes),
            Some(&br#"[1, {"a":"\"}"}]"#[..])
        );
        assert_eq!(blocks[0].input.map(Raw::bytes), Some(&br#""x\ny""#[..]));
    }
}

/// Which bytes a run of backslashes escapes, one byte at a time.
fn escaped_by_hand(slashes: u64, carry: u64) -> (u64, u64) {
    let (mut escaped, mut pending) = (0u64, carry == 1);
    for i in 0..64 {
        if pending {
            escaped |= 1 << i;
            pending = false;
        } else if slashes >> i & 1 == 1 {
            pending = true;
        }
    }
    (escaped, u64::from(pending))
}

/// Bytes with every class the masks tell apart (and the high half, which a
/// signed compare would take for control characters).
fn string_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b'"'),
        Just(b'\\'),
        Just(b'n'),
        Just(b't'),
        Just(b'r'),
        Just(b'u'),
        Just(b'/'),
        Just(b'b'),
        Just(b'f'),
        Just(b'0'),
        Just(b'A'),
        Just(b' '),
        0u8..0x20,
        0x80u8..=0xff,
        any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn escapes_are_found_as_by_hand(
        a in any::<u64>(), b in any::<u64>(), c in any::<u64>(), carry in 0u64..2,
    ) {
        // Dense, sparse and long runs of backslashes.
        for slashes in [a, a | b, a & b, a | b | c, a & b & c, !(a & b)] {
            let (escaped, next) = escaped_by_hand(slashes, carry);
            prop_assert_eq!(escaped_bytes(slashes, carry), (escaped & !slashes, next));
        }
    }

    #[test]
    fn masks_are_the_bytes_classes(bytes in proptest::collection::vec(string_byte(), 64)) {
        let chunk: [u8; 64] = bytes.clone().try_into().expect("64");
        let block = Block::of(&chunk);
        let mask = |f: &dyn Fn(u8) -> bool| {
            bytes.iter().enumerate().fold(0u64, |m, (i, &b)| m | u64::from(f(b)) << i)
        };
        prop_assert_eq!(block.quotes, mask(&|b| b == b'"'));
        prop_assert_eq!(block.slashes, mask(&|b| b == b'\\'));
        prop_assert_eq!(block.controls, mask(&|b| b < 0x20));
        prop_assert_eq!(block.common_escapes, mask(&|b| b"\"\\ntr".contains(&b)));
    }

    /// With AVX-512 (where the CPU has it), the blocks' masks and the
    /// strings' ends are those of the 16-byte compares, at any place,
    /// the last block read past the end of the bytes too.
    #[test]
    fn avx512_reads_as_the_16_byte_compares(
        bytes in proptest::collection::vec(string_byte(), 0..200),
        at in 0usize..200,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512bw") {
            let at = at.min(bytes.len());
            // SAFETY: the CPU has AVX-512BW, as just checked.
            let wide = unsafe { super::strings::Block::at_avx512(&bytes, at) };
            prop_assert_eq!(wide, Block::at(&bytes, at));
            // SAFETY: as above.
            let end = unsafe { super::strings::end_avx512(&bytes, at) };
            prop_assert_eq!(end, super::strings::end_with(&bytes, at, Block::at));
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (bytes, at);
    }

    /// Short strings read by the quick look (`end` first) end where the
    /// walk by blocks ends them, at any place, near the end of the bytes
    /// too.
    #[test]
    fn short_strings_end_as_the_blocks_say(
        bytes in proptest::collection::vec(prop_oneof![4 => Just(b'a'), 1 => string_byte()], 0..100),
        at in 0usize..100,
    ) {
        let at = at.min(bytes.len());
        let blocks = super::strings::end_with(&bytes, at, Block::at);
        prop_assert_eq!(super::strings::end(&bytes, at), blocks);
    }

    /// A string of any bytes, at any place in a line across block edges:
    /// where serde_json reads the line, the skim reads it the same.
    #[test]
    fn strings_of_any_bytes_read_as_serde_json_reads_them(
        body in proptest::collection::vec(string_byte(), 0..200),
        pad in 0usize..70,
    ) {
        let body = String::from_utf8_lossy(&body);
        for key in ["text", "other"] {
            let line = format!(r#"{{"type":"{}","{key}":"{body}","cwd":"/x"}}"#, "y".repeat(pad));
            same_as_serde_json::<Record>(&line)?;
            same_as_serde_json::<Value>(&line)?;
        }
    }

    /// Valid lines with planted values anywhere are skimmed, and read the same.
    #[test]
    fn planted_values_read_as_serde_json_reads_them(
        at in 0usize..1000,
        planted in planted_value(),
        key in prop_oneof![Just("toolUseResult"), Just("content"), Just("cwd"), Just("text"), Just("input"), Just("usage")],
    ) {
        let values: Vec<Value> = project_lines()
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let mut value = values[at % values.len()].clone();
        plant(&mut value, key, planted, at);
        let line = value.to_string();
        prop_assert!(same_as_serde_json::<Record>(&line)?, "not skimmed: {}", line);
        prop_assert!(same_as_serde_json::<Value>(&line)?, "not skimmed: {}", line);
    }

    /// Lines cut, or with a byte put in or taken out anywhere: where the
    /// skim reads one, serde_json reads it the same.
    #[test]
    fn mutated_lines_read_as_serde_json_reads_them(
        at in 0usize..1000,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, string_byte()), 1..4),
    ) {
        let lines = project_lines();
        let mut bytes = lines[at % lines.len()].as_bytes().to_vec();
        for (place, kind, byte) in edits {
            let i = place.index(bytes.len() + 1);
            match kind {
                0 => bytes.insert(i, byte),
                1 if i < bytes.len() => { bytes.remove(i); }
                _ => bytes.truncate(i),
            }
        }
        let line = String::from_utf8_lossy(&bytes);
        same_as_serde_json::<Record>(&line)?;
        same_as_serde_json::<Value>(&line)?;
    }
}

/// Byte sequences that are not UTF-8: stray, cut, overlong, surrogate.
fn invalid_utf8() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(vec![0xff]),
        Just(vec![0x80]),
        Just(vec![0xc3]),
        Just(vec![0xe2, 0x82]),
        Just(vec![0xf0, 0x9f, 0x98]),
        Just(vec![0xc0, 0xaf]),
        Just(vec![0xed, 0xa0, 0x80]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Invalid UTF-8 put in anywhere (in a kept string, a key, a skipped
    /// value, a raw one, between tokens): the line reads as its lossy text
    /// (each invalid sequence replaced by U+FFFD) reads, though only what
    /// the record keeps is checked; and the skim answers for the bytes
    /// wherever it answers for the lossy text, so no line goes the slow
    /// way for being invalid.
    #[test]
    fn invalid_utf8_reads_as_the_lossy_line_reads(
        at in 0usize..1000,
        plants in proptest::collection::vec((any::<prop::sample::Index>(), invalid_utf8()), 1..4),
    ) {
        let lines = project_lines();
        let mut bytes = lines[at % lines.len()].as_bytes().to_vec();
        for (place, seq) in plants {
            let i = place.index(bytes.len() + 1);
            bytes.splice(i..i, seq);
        }
        let lossy = lossy(&bytes);
        let read = |line: &[u8]| {
            let mut repaired = None;
            crate::source::jsonl::parse_line::<Record>(line, &mut repaired)
                .map(|r| format!("{r:?}"))
                .ok()
        };
        prop_assert_eq!(read(&bytes), read(lossy.as_bytes()), "{}", lossy);
        if skim::<Record>(lossy.as_bytes()).is_ok() {
            prop_assert!(skim::<Record>(&bytes).is_ok(), "not skimmed: {}", lossy);
        }
        let value = |line: &[u8]| {
            let mut repaired = None;
            crate::source::jsonl::parse_line::<Value>(line, &mut repaired).ok()
        };
        prop_assert_eq!(value(&bytes), value(lossy.as_bytes()), "{}", lossy);
    }
}

/// Any JSON value, strings with escapes and long runs of them.
fn planted_value() -> impl Strategy<Value = Value> {
    let text =
        proptest::string::string_regex("[a-z\"\\\\/\\u{0}-\\u{1f}é😀 ]{0,90}").expect("regex");
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text.prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Put `planted` under `key` in the line's object, or in its message's
/// first content block when `at` is odd and there is one.
fn plant(line: &mut Value, key: &str, planted: Value, at: usize) {
    let block = line
        .pointer_mut("/message/content/0")
        .filter(|b| b.is_object() && at % 2 == 1);
    let target = match block {
        Some(block) => block,
        None => line,
    };
    if let Some(object) = target.as_object_mut() {
        object.insert(key.to_string(), planted);
    }
}

/// A visitor that reads the first item of an array or the first entry of
/// an object, and stops there.
struct First;

impl<'de> Deserialize<'de> for First {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = First;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array or an object")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<First, A::Error> {
                seq.next_element::<u64>().map(|_| First)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<First, A::Error> {
                map.next_entry::<String, u64>().map(|_| First)
            }
        }
        d.deserialize_any(V)
    }
}

#[test]
fn a_container_read_in_part_is_as_serde_json_has_it() {
    for (line, read) in [
        ("[1]", true),
        ("[]", true),
        (r#"{"a":1}"#, true),
        ("[1,2]", false),
        (r#"{"a":1,"b":2}"#, false),
    ] {
        assert_eq!(serde_json::from_str::<First>(line).is_ok(), read, "{line}");
        assert_eq!(skim::<First>(line.as_bytes()).is_ok(), read, "{line}");
    }
}
