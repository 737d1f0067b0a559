//! No input makes ccwiki panic or fail: arbitrary bytes in transcripts,
//! memory files, indexes and history, and arbitrary text through the
//! parsers and the redactor. A bad line or file is a skip; the build goes on.

mod common;

use proptest::prelude::*;
use std::path::Path;

/// Lines of a transcript: real record shapes with arbitrary values, broken
/// JSON, and plain garbage.
fn transcript_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        any::<String>().prop_map(|t| serde_json::json!({"type":"user","sessionId":"s1","uuid":"u","cwd":"/home/x/p","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":t}}).to_string().into_bytes()),
        (any::<String>(), any::<String>()).prop_map(|(a, b)| serde_json::json!({"type":"assistant","sessionId":"s1","message":{"id":a,"model":"m","content":[{"type":"text","text":b},{"type":"tool_use","id":"t","name":a,"input":{"command":b}}]}}).to_string().into_bytes()),
        any::<String>().prop_map(|t| serde_json::json!({"type":"user","sessionId":"s1","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":t}]}}).to_string().into_bytes()),
        any::<String>().prop_map(|t| serde_json::json!({"type":"summary","summary":t,"leafUuid":t}).to_string().into_bytes()),
        any::<String>().prop_map(|t| format!("{{\"type\":\"user\",\"message\":{{\"content\":\"{t}").into_bytes()),
        prop::collection::vec(any::<u8>(), 0..200),
    ]
}

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, bytes).expect("write");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_data_directory_builds(
        lines in prop::collection::vec(transcript_line(), 0..12),
        memory in prop::collection::vec(any::<u8>(), 0..400),
        frontmatter in any::<String>(),
        index in any::<String>(),
        history in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let src = tmp.path().join("claude");
        let mut transcript = Vec::new();
        for l in &lines {
            transcript.extend_from_slice(l);
            transcript.push(b'\n');
        }
        write(&src, "projects/-home-x-p/s1.jsonl", &transcript);
        write(&src, "projects/-home-x-p/memory/raw.md", &memory);
        write(&src, "projects/-home-x-p/memory/fm.md", format!("---\n{frontmatter}\n---\nbody\n").as_bytes());
        write(&src, "projects/-home-x-p/memory/MEMORY.md", index.as_bytes());
        write(&src, "history.jsonl", &history);
        let out = tmp.path().join("site");
        let built = ccwiki::build(&common::options(vec![src], out.clone()));
        prop_assert!(built.is_ok(), "{:?}", built.err());
        prop_assert!(out.join("index.html").is_file());
    }

    #[test]
    fn wikilinks_point_at_their_own_brackets(body in any::<String>()) {
        for l in ccwiki::source::memory::wikilinks(&body) {
            let raw = &body[l.span.clone()];
            prop_assert!(raw.starts_with("[[") && raw.ends_with("]]"), "{raw:?}");
        }
    }

    #[test]
    fn the_redactor_takes_any_text(text in any::<String>(), homes in prop::collection::vec("[a-z]{3,8}", 0..3)) {
        let red = ccwiki::knowledge::redact::Redactor::new(&ccwiki::knowledge::redact::RedactConfig {
            home_dirs: homes.iter().map(|h| format!("/home/{h}")).collect(),
            ..Default::default()
        })
        .expect("redactor");
        let once = red.redact(&text).into_owned();
        // What redaction leaves is stable: a second pass finds nothing more
        // to hide in the markers and replacements it wrote.
        let twice = red.redact(&once).into_owned();
        prop_assert_eq!(twice, once);
    }

    #[test]
    fn surrogate_repair_leaves_text_without_escapes_alone(text in any::<String>()) {
        prop_assume!(!text.contains("\\u"));
        prop_assert_eq!(ccwiki::source::jsonl::repair_surrogates(&text), text);
    }

    #[test]
    fn surrogate_repair_makes_any_escape_mix_valid_json(
        pieces in prop::collection::vec(
            prop_oneof![Just("\\uD83D"), Just("\\uDE00"), Just("\\udbff"), Just("a"), Just("\\u0041"), Just("\\n")],
            0..12,
        )
    ) {
        let literal = format!("\"{}\"", pieces.concat());
        let fixed = ccwiki::source::jsonl::repair_surrogates(&literal);
        prop_assert!(serde_json::from_str::<String>(&fixed).is_ok(), "{fixed}");
    }
}
