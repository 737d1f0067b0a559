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

/// A data directory whose every text holds `text`, its sessions run in
/// the Unix home of `pat`.
fn data(dir: &Path, text: &str) {
    data_in(dir, text, "/home/pat/code/prop", "-home-pat-code-prop");
}

/// The same, the sessions run in `cwd`, kept in the project folder
/// `folder` (Claude Code's dashed spelling of `cwd`).
fn data_in(dir: &Path, text: &str, cwd: &str, folder: &str) {
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
        &format!("projects/{folder}/p1.jsonl"),
        &(lines.join("\n") + "\n"),
    );
    write(
        dir,
        &format!("projects/{folder}/memory/MEMORY.md"),
        "- [Notes](notes.md) — notes\n",
    );
    let one_line = text.replace(['\n', '\r'], " ");
    let description = serde_json::to_string(&one_line).expect("json");
    write(
        dir,
        &format!("projects/{folder}/memory/notes.md"),
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

/// An owner's user name no filler word and no hex id can hold: letters
/// past `f`, then digits; sometimes with a dot or a dash inside.
fn owner() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[g-z]{3,7}[0-9]{2}",
        1 => "[g-z]{3,5}[.-][g-z]{2,5}[0-9]",
    ]
}

/// Where the owner works: (the sessions' `cwd`, its project folder).
fn home_of(name: &str, kind: usize) -> (String, String) {
    match kind {
        0 => (
            format!("/home/{name}/code/prop"),
            format!("-home-{name}-code-prop"),
        ),
        1 => (
            format!("/Users/{name}/code/prop"),
            format!("-Users-{name}-code-prop"),
        ),
        _ => (
            format!("C:\\Users\\{name}\\code\\prop"),
            format!("C--Users-{name}-code-prop"),
        ),
    }
}

/// The owner's name in one of the spellings text holds it in: paths of
/// every system (escaped for JSON, URL-escaped, with the backslashes a
/// shell ate), project folder names, and the name as a word.
fn spelled(name: &str, shape: usize) -> String {
    let upper = name.to_uppercase();
    let shapes = [
        format!("/home/{name}/code/x.rs"),
        format!("/Users/{name}/Library/Caches"),
        format!("C:\\Users\\{name}\\Documents\\x.txt"),
        format!("C:\\\\Users\\\\{name}\\\\AppData"),
        format!("c:/users/{name}/src"),
        format!("C:\\USERS\\{upper}\\x"),
        format!("/mnt/c/Users/{name}/src"),
        format!("/c/Users/{name}/src"),
        format!("C:Users{name}Documents"),
        format!("C%3A%5CUsers%5C{name}%5Cx"),
        format!("%2Fhome%2F{name}%2Fx"),
        format!("file:///home/{name}/x.html"),
        format!("-home-{name}-code-x"),
        format!("C--Users-{name}-code-x"),
        name.to_string(),
        format!("@{name}"),
        format!("{name}@laptop"),
        format!("drwxr-xr-x  2 {name}  staff  64 x"),
        format!("\"{name}\""),
        format!("({name})"),
        format!("{name}'s"),
        format!("`{name}`"),
        capitalised(name),
        format!("https://github.com/{name}/dotfiles"),
        format!("{name}-MacBook-Pro.local"),
        format!("/home/{name}"),
    ];
    shapes[shape % shapes.len()].clone()
}

fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The owner's user name, in any spelling, at any place of any text,
    /// whatever system the sessions ran on, reaches no output: no page, no
    /// search shard, no file name, no `ccwiki search` result.
    #[test]
    fn no_spelling_of_the_owners_name_survives(
        text in (filler(), filler()).prop_map(|(a, b)| a + &b),
        name in owner(),
        system in 0usize..3,
        shape in 0usize..64,
        at in 0usize..3000,
        sep in prop_oneof![Just(" "), Just("\n"), Just(" ("), Just("\t")],
    ) {
        let mut i = at.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        let planted = format!("{}{sep}{}{sep}{}", &text[..i], spelled(&name, shape), &text[i..]);
        let (cwd, folder) = home_of(&name, system);
        let tmp = tempfile::tempdir().expect("tempdir");
        let src = tmp.path().join("claude");
        data_in(&src, &planted, &cwd, &folder);
        let out = tmp.path().join("site");
        let report = ccwiki::build(&common::options(vec![src.clone()], out.clone()))
            .expect("builds");
        prop_assert!(report.sessions == 1 && report.memories == 1, "{report:?}");
        let lower = name.to_lowercase();
        let holds = |what: &str| what.to_lowercase().contains(&lower);
        for (path, bytes) in common::read_tree(&out) {
            let body = String::from_utf8_lossy(&bytes);
            prop_assert!(!holds(&path), "the file name {path} holds {name:?}");
            if holds(&body) {
                let at = body.to_lowercase().find(&lower).unwrap_or(0);
                let from = body.floor_char_boundary(at.saturating_sub(60));
                let to = body.ceil_char_boundary((at + 60).min(body.len()));
                prop_assert!(false, "{path} holds {name:?}: {:?}", &body[from..to]);
            }
        }
        let pipeline = ccwiki::knowledge::pipeline::Pipeline::new(vec![src]);
        for query in ["prop", "notes", &name[..3]] {
            let found = ccwiki::app::search::search_sources(&pipeline, query, None, 100)
                .expect("search");
            let printed = serde_json::to_string(&found).expect("json");
            prop_assert!(!holds(&printed), "search {query:?} prints {name:?}");
        }
    }
}

/// An owner's real name, as their account shows it: two or three words
/// of letters past `f` (no filler word is one of them by chance).
fn real_name() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[G-Z][g-z]{2,7}", 2..4)
}

/// The real name `words` in one of the ways text writes a name.
fn said(words: &[String], shape: usize) -> String {
    let full = words.join(" ");
    let (first, last) = (&words[0], &words[words.len() - 1]);
    let lower = |sep: &str| words.join(sep).to_lowercase();
    let shapes = [
        full.clone(),
        full.to_uppercase(),
        full.to_lowercase(),
        words.join("  "),
        words.join("\t"),
        lower("-"),
        lower("."),
        words.join("_"),
        format!("{last}, {}", words[..words.len() - 1].join(" ")),
        format!("{first} {last}"),
        format!("{last},{first}"),
        format!("verified as {full}."),
        format!("\"{full}\""),
        format!("{full}'s laptop"),
        format!("https://github.com/{}", lower("-")),
        format!("https://github.com/{}27/x", lower("")),
        format!("Signed-off-by: {full}"),
    ];
    shapes[shape % shapes.len()].clone()
}

/// Every way the real name `words` can be left in a text, lower-cased.
fn spellings_of(words: &[String]) -> Vec<String> {
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let (first, last) = (&lower[0], &lower[lower.len() - 1]);
    let mut all = Vec::new();
    for sep in ["", " ", "  ", "\t", "-", ".", "_", "\\t"] {
        all.push(lower.join(sep));
        all.push(format!("{first}{sep}{last}"));
    }
    for sep in [", ", ","] {
        all.push(format!("{last}{sep}{first}"));
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The owner's real name, which only the account in Claude Code's
    /// settings file (`.claude.json`, beside the data or inside it) knows,
    /// written as text writes a name at any place of any text, reaches no
    /// output.
    #[test]
    fn the_owners_real_name_from_their_account_survives_nowhere(
        text in (filler(), filler()).prop_map(|(a, b)| a + &b),
        words in real_name(),
        shape in 0usize..64,
        at in 0usize..3000,
        inside in any::<bool>(),
        sep in prop_oneof![Just(" "), Just("\n"), Just(" ("), Just("\t")],
    ) {
        let mut i = at.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        let planted = format!("{}{sep}{}{sep}{}", &text[..i], said(&words, shape), &text[i..]);
        let tmp = tempfile::tempdir().expect("tempdir");
        let src = tmp.path().join(".claude");
        data(&src, &planted);
        let settings = json!({"numStartups": 3, "oauthAccount": {
            "emailAddress": "pat@acme.io", "displayName": words.join(" ")}});
        let file = if inside { src.join(".claude.json") } else { tmp.path().join(".claude.json") };
        std::fs::write(file, settings.to_string()).expect("write");
        let out = tmp.path().join("site");
        let report = ccwiki::build(&common::options(vec![src.clone()], out.clone()))
            .expect("builds");
        prop_assert!(report.sessions == 1 && report.skips.is_empty(), "{report:?}");
        let spellings = spellings_of(&words);
        let found = |what: &str| {
            let lower = what.to_lowercase();
            spellings.iter().find(|s| lower.contains(s.as_str())).cloned()
        };
        for (path, bytes) in common::read_tree(&out) {
            let body = String::from_utf8_lossy(&bytes);
            if let Some(s) = found(&body) {
                let at = body.to_lowercase().find(&s).unwrap_or(0);
                let from = body.floor_char_boundary(at.saturating_sub(60));
                let to = body.ceil_char_boundary((at + 60).min(body.len()));
                prop_assert!(false, "{path} holds {s:?}: {:?}", &body[from..to]);
            }
        }
        let pipeline = ccwiki::knowledge::pipeline::Pipeline::new(vec![src]);
        for query in ["prop", "notes", &words[0]] {
            let found_by = ccwiki::app::search::search_sources(&pipeline, query, None, 100)
                .expect("search");
            let printed = serde_json::to_string(&found_by).expect("json");
            prop_assert!(found(&printed).is_none(), "search {query:?} prints the name");
        }
    }
}
