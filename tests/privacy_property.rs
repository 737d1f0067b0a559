//! The privacy rule as a property: whatever text surrounds it and wherever
//! it stands, a planted secret leaves no 8-character piece of itself in any
//! output path (page, search shard, file name, `ccwiki search` result),
//! through every kind of text the data holds: prompts, titles, tool inputs
//! and outputs (previews are cut), edits (diffs on session and file pages),
//! answers, memories, history, and the user's setup (instructions, agents,
//! commands, skills, settings, facets, away summaries).

mod common;

use proptest::prelude::*;
use serde_json::json;
use std::path::Path;

/// A secret as it is written (`shaped`), and the value that must not survive.
#[derive(Debug, Clone)]
struct Planted {
    shaped: String,
    value: String,
}

fn secret() -> impl Strategy<Value = Planted> {
    let alnum =
        |n: usize| proptest::string::string_regex(&format!("[A-Za-z0-9]{{{n}}}")).expect("regex");
    let upper = proptest::string::string_regex("[A-Z0-9]{16}").expect("regex");
    prop_oneof![
        alnum(36).prop_map(|b| plain(format!("ghp_{b}"))),
        alnum(36).prop_map(|b| plain(format!("npm_{b}"))),
        upper.prop_map(|b| plain(format!("AKIA{b}"))),
        alnum(40).prop_map(|b| plain(format!("sk-ant-api03-{b}"))),
        (alnum(24), alnum(40), alnum(43)).prop_map(|(a, b, c)| plain(format!("eyJ{a}.eyJ{b}.{c}"))),
        alnum(16).prop_map(|v| Planted {
            shaped: format!("postgres://app:{v}@db.host:5432/app"),
            value: v,
        }),
        alnum(28).prop_map(|v| Planted {
            shaped: format!("Cookie: sessionid={v}; theme=dark"),
            value: v,
        }),
        alnum(32).prop_map(|v| Planted {
            shaped: format!("Authorization: Bearer {v}"),
            value: v,
        }),
        alnum(30).prop_map(|v| Planted {
            shaped: format!("curl -b 'sid={v}' https://x.test/api"),
            value: v,
        }),
    ]
}

fn plain(value: String) -> Planted {
    Planted {
        shaped: value.clone(),
        value,
    }
}

/// Text around the secret: words, numbers, punctuation, escapes, non-ASCII.
fn filler() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z]{1,9}",
        2 => "[A-Z][a-z]{1,6}",
        1 => "[0-9]{1,5}",
        1 => prop_oneof![
            Just("é".to_string()),
            Just("—".to_string()),
            Just("日本".to_string()),
            Just("\\".to_string()),
            Just("/".to_string()),
            Just("\"".to_string()),
            Just("{".to_string()),
            Just("```".to_string()),
            Just("\t".to_string()),
        ],
    ];
    let sep = prop_oneof![4 => Just(" "), 1 => Just("\n"), 1 => Just(", "), 1 => Just(". ")];
    prop::collection::vec((piece, sep), 0..160).prop_map(|v| {
        v.into_iter()
            .map(|(p, s)| format!("{p}{s}"))
            .collect::<String>()
    })
}

/// `text` with `secret` planted at char offset `at` (clamped), set off by
/// `sep` so it stands as the token it is.
fn plant(text: &str, secret: &Planted, at: usize, sep: &str) -> String {
    let mut i = at.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    format!("{}{sep}{}{sep}{}", &text[..i], secret.shaped, &text[i..])
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// A data directory whose every text holds `text`.
fn data(dir: &Path, text: &str) {
    let cwd = "/home/pat/code/prop";
    let line = |v: serde_json::Value| v.to_string();
    let lines = [
        line(json!({"type":"user","sessionId":"p1","uuid":"u1","cwd":cwd,
            "timestamp":"2026-03-01T09:00:00Z",
            "message":{"role":"user","content":text}})),
        line(json!({"type":"custom-title","sessionId":"p1","customTitle":text})),
        line(
            json!({"type":"assistant","sessionId":"p1","uuid":"a1","cwd":cwd,
            "timestamp":"2026-03-01T09:00:05Z",
            "message":{"id":"m1","model":"claude-opus-4-6","content":[
                {"type":"text","text":text},
                {"type":"tool_use","id":"t1","name":"Bash","input":{"command":text}}]}}),
        ),
        line(json!({"type":"user","sessionId":"p1","uuid":"r1","cwd":cwd,
            "timestamp":"2026-03-01T09:00:06Z",
            "message":{"role":"user","content":[
                {"type":"tool_result","tool_use_id":"t1","content":text}]}})),
        line(
            json!({"type":"assistant","sessionId":"p1","uuid":"a2","cwd":cwd,
            "timestamp":"2026-03-01T09:00:07Z",
            "message":{"id":"m2","model":"claude-opus-4-6","content":[
                {"type":"tool_use","id":"t2","name":"Edit","input":{
                    "file_path":format!("{cwd}/notes.txt"),"old_string":text,"new_string":format!("{text}!")}},
                {"type":"tool_use","id":"t3","name":"Task","input":{
                    "description":"review","prompt":text,"subagent_type":"prop-agent"}}]}}),
        ),
        line(
            json!({"type":"attachment","sessionId":"p1","uuid":"n1","cwd":cwd,
            "attachment":{"type":"nested_memory","path":format!("{cwd}/CLAUDE.md"),
                "content":{"type":"Project","content":text}}}),
        ),
        line(
            json!({"type":"system","subtype":"away_summary","sessionId":"p1","uuid":"w1",
            "cwd":cwd,"content":text}),
        ),
        line(
            json!({"type":"file-history-snapshot","snapshot":{"trackedFileBackups":{
            "notes.txt":{"backupFileName":"0123456789abcdef@v1","version":1,
                "backupTime":"2026-03-01T09:00:07Z"}}}}),
        ),
    ];
    write(
        dir,
        "projects/-home-pat-code-prop/p1.jsonl",
        &(lines.join("\n") + "\n"),
    );
    write(
        dir,
        "projects/-home-pat-code-prop/memory/MEMORY.md",
        "- [Notes](notes.md) — notes\n",
    );
    let one_line = text.replace(['\n', '\r'], " ");
    let description = serde_json::to_string(&one_line).expect("json");
    write(
        dir,
        "projects/-home-pat-code-prop/memory/notes.md",
        &format!("---\nname: Notes\ndescription: {description}\ntype: project\n---\n{text}\n"),
    );
    write(dir, "CLAUDE.md", text);
    write(
        dir,
        "agents/prop-agent.md",
        &format!("---\ndescription: {description}\n---\n{text}\n"),
    );
    write(dir, "commands/prop.md", text);
    write(dir, "skills/prop/SKILL.md", text);
    write(dir, "output-styles/prop.md", text);
    write(dir, "file-history/p1/0123456789abcdef@v1", text);
    write(
        dir,
        "usage-data/facets/p1.json",
        &json!({"underlying_goal":text,"brief_summary":text,"outcome":text,
            "goal_categories":{text:1}})
        .to_string(),
    );
    write(
        dir,
        "settings.json",
        &json!({"model":text,"env":{"X":text},
            "hooks":{"Stop":[{"matcher":text,"hooks":[{"type":"command","command":text}]}]},
            "mcpServers":{"m":{"command":text,"args":[text],"env":{"Y":text}},
                          "h":{"type":"http","url":format!("https://x.test/{text}"),"headers":{"Z":text}}},
            "permissions":{"allow":[text]},
            "enabledPlugins":{text:true}})
        .to_string(),
    );
    write(
        dir,
        "history.jsonl",
        &(line(json!({"display":text,"timestamp":1772355600000u64,
            "project":cwd,"sessionId":"p1"}))
            + "\n"),
    );
}

fn leaked<'a>(value: &'a str, text: &str) -> Option<&'a str> {
    (0..value.len().saturating_sub(7))
        .filter_map(|i| value.get(i..i + 8))
        .find(|p| text.contains(p))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_piece_of_a_planted_secret_survives(
        text in filler(),
        secret in secret(),
        at in 0usize..2000,
        sep in prop_oneof![Just(" "), Just("\n"), Just(" ("), Just("\t")],
    ) {
        let planted = plant(&text, &secret, at, sep);
        let tmp = tempfile::tempdir().expect("tempdir");
        let src = tmp.path().join("claude");
        data(&src, &planted);
        let out = tmp.path().join("site");
        let report = ccwiki::build(&common::options(vec![src.clone()], out.clone()))
            .expect("builds");
        prop_assert!(report.sessions == 1 && report.memories == 1, "{report:?}");
        for (path, bytes) in common::read_tree(&out) {
            let body = String::from_utf8_lossy(&bytes);
            for what in [path.as_str(), &body] {
                if let Some(p) = leaked(&secret.value, what) {
                    prop_assert!(false, "{path} holds {p:?} of {:?}", secret.value);
                }
            }
        }
        let pipeline = ccwiki::knowledge::pipeline::Pipeline::new(vec![src]);
        for query in ["prop", "notes", &secret.shaped[..3]] {
            let found = ccwiki::app::search::search_sources(&pipeline, query, None, 100)
                .expect("search");
            let printed = serde_json::to_string(&found).expect("json");
            if let Some(p) = leaked(&secret.value, &printed) {
                prop_assert!(false, "search {query:?} prints {p:?} of {:?}", secret.value);
            }
        }
    }
}
