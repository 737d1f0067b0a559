//! What the data holds beyond the conversation, as the demo shows it: the
//! user's setup, the files sessions changed and `ccwiki recover`, digests.

mod common;

use proptest::prelude::*;
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The demo, built once for every test here.
fn site() -> &'static Path {
    static SITE: OnceLock<tempfile::TempDir> = OnceLock::new();
    SITE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        common::build_demo(dir.path(), "default");
        dir
    })
    .path()
}

fn page(rel: &str) -> String {
    std::fs::read_to_string(site().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The demo's tide-api session that used the setup.
const RATE_LIMIT: &str = "sessions/a8e4f019/index.html";

#[test]
fn the_setup_page_lists_every_kind_and_hides_secret_values() {
    let setup = page("setup/index.html");
    for shown in [
        "setup/agents/code-reviewer.html",
        "setup/commands/review.html",
        "setup/skills/changelog.html",
        "setup/output-styles/terse.html",
        "setup/instructions/claude-md.html",
        "setup/instructions/tide-api-claude-md.html",
        "Claude Code skills",
        "PostToolUse",
        "cargo fmt --all",
        "@modelcontextprotocol/server-github --token •••",
        "GITHUB_PERSONAL_ACCESS_TOKEN",
        "https://grafana.example.com/mcp<",
        "rust-analyzer-lsp@claude-plugins-official",
        "ANTHROPIC_API_KEY",
    ] {
        assert!(setup.contains(shown), "setup page lacks {shown:?}");
    }
    // Every value the demo's settings.json hides, in any page.
    for (path, bytes) in common::read_tree(site()) {
        let text = String::from_utf8_lossy(&bytes);
        for secret in ["DemoDemoDemo", "demo-not-a-real", "api_key="] {
            assert!(!text.contains(secret), "{path} holds {secret}");
        }
    }
}

#[test]
fn setup_pages_and_sessions_link_each_other() {
    let agent = page("setup/agents/code-reviewer.html");
    assert!(agent.contains("Never edit files."), "the agent's body");
    assert!(agent.contains("1 session"), "used once");
    assert!(
        agent.contains("../../sessions/a8e4f019/index.html"),
        "links the session"
    );
    let session = page(RATE_LIMIT);
    for used in [
        "setup/agents/code-reviewer.html",
        "setup/skills/changelog.html",
        "setup/instructions/tide-api-claude-md.html",
    ] {
        assert!(session.contains(used), "the session links {used}");
    }
    // A slash command links its page from the session that ran it.
    let review = page("setup/commands/review.html");
    assert!(review.contains("1 session") && review.contains("../../sessions/"));
    // The project's instructions, from the session that read them.
    let claude = page("setup/instructions/tide-api-claude-md.html");
    assert!(claude.contains("handlers never") && claude.contains("projects/tide-api/index.html"));
    let about = page("about/index.html");
    assert!(
        about.contains("setup/index.html"),
        "the about page leads to the setup"
    );
}

#[test]
fn a_session_starts_with_its_digest() {
    let session = page(RATE_LIMIT);
    for shown in [
        "Add per-API-key rate limiting before the partner beta",
        "fully achieved",
        "feature implementation",
        "Added a token bucket per API key",
        "While you were away",
        "The reviewer found nothing blocking.",
    ] {
        assert!(session.contains(shown), "session page lacks {shown:?}");
    }
    // Lists carry a digest line: the facet's summary here.
    let project = page("projects/tide-api/index.html");
    assert!(project.contains("class=\"digest-line\">Added a token bucket"));
}

#[test]
fn a_file_page_shows_every_change_and_the_backups() {
    let project = page("projects/tide-api/index.html");
    assert!(
        project.contains("files/src-state-rs.html"),
        "project lists its files"
    );
    let file = page("projects/tide-api/files/src-state-rs.html");
    assert!(
        file.contains("<code>~/code/tide-api/src/state.rs</code>"),
        "redacted path"
    );
    // The added line, coloured as Rust.
    let added = file
        .split("<span class=\"ins\">")
        .nth(1)
        .expect("an added line");
    assert!(
        added.contains("limiter") && added.contains("RateLimiter"),
        "the edit's diff"
    );
    assert!(added.contains("hl-storage"), "coloured: {added}");
    assert!(file.contains("v1"), "the backup");
    assert!(
        file.contains("sessions/a8e4f019/index.html"),
        "links the session"
    );
    // A file written then edited in two sessions: both changes, oldest first.
    let app = page("projects/tide-api/files/src-app-rs.html");
    let (write, edit) = (app.find(">Write<").unwrap(), app.find(">Edit<").unwrap());
    assert!(write < edit, "in time order");
    // The new file's backup says it did not exist yet.
    let new = page("projects/tide-api/files/src-rate-limit-rs.html");
    assert!(new.contains("did not exist yet"));
}

fn recover(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .arg("recover")
        .args(args)
        .arg("--source")
        .arg(common::demo())
        .arg("--no-archive")
        .env("CCWIKI_CACHE_DIR", common::test_cache())
        .output()
        .expect("runs")
}

#[test]
fn recover_prints_a_file_back_from_a_backup_and_the_edit_on_top() {
    let backup = std::fs::read_to_string(
        common::demo()
            .join("file-history/a8e4f019-62d7-4c3b-8e5a-1f09b7d3c2e8/5e0b2f7c9a41d3e8@v1"),
    )
    .unwrap();
    let edited = backup.replace(
        "    pub config: Arc<Config>,\n}",
        "    pub config: Arc<Config>,\n    pub limiter: Arc<RateLimiter>,\n}",
    );
    let out = recover(&["src/state.rs", "--project", "tide-api"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), edited);
    // Before the edit: the backup, byte for byte.
    let out = recover(&[
        "src/state.rs",
        "-p",
        "tide-api",
        "--at",
        "2026-10-21T09:40:29.450Z",
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), backup);
    let out = recover(&["/home/dana/code/tide-api/src/state.rs", "--list"]);
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.contains("backup v1") && list.contains("edited"),
        "{list}"
    );
}

#[test]
fn recover_says_what_it_cannot_do() {
    // Edited in the demo, never written whole and never backed up.
    let out = recover(&["src/app.rs", "-p", "tide-api", "--at", "2026-10-01"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no version"));
    let out = recover(&["no_such_file.rs"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session changed a file"));
    let out = recover(&["src/app.rs", "--at", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--at"));
}

#[derive(Debug, Clone)]
enum Op {
    Write(String),
    /// Replace the `n`th line (mod the line count) with this text.
    Edit(usize, String),
}

fn op() -> impl Strategy<Value = Op> {
    let line = "[a-z é日{}\"\\\\]{1,12}";
    prop_oneof![
        1 => prop::collection::vec(line, 1..6).prop_map(|l| Op::Write(l.join("\n") + "\n")),
        3 => (0usize..10, line).prop_map(|(n, t)| Op::Edit(n, t)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Whatever writes and edits a session made, in whatever order, the
    /// newest content recover prints is the file as they left it.
    #[test]
    fn recover_replays_writes_and_edits(ops in prop::collection::vec(op(), 1..12)) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut lines = Vec::new();
        let mut file: Option<String> = None;
        for (i, op) in ops.iter().enumerate() {
            let current = file.clone();
            let input = match (op, &current) {
                (Op::Write(text), _) => {
                    file = Some(text.clone());
                    json!({"file_path": "/w/p/f.txt", "content": text})
                }
                (Op::Edit(n, new), Some(text)) => {
                    let all: Vec<&str> = text.lines().collect();
                    let old = all[n % all.len()];
                    // Unique lines only: an edit names text found once.
                    if text.matches(old).count() != 1 || old.is_empty() {
                        continue;
                    }
                    file = Some(text.replacen(old, new, 1));
                    json!({"file_path": "/w/p/f.txt", "old_string": old, "new_string": new})
                }
                (Op::Edit(..), None) => continue,
            };
            let tool = if input.get("content").is_some() { "Write" } else { "Edit" };
            lines.push(json!({"type": "assistant", "sessionId": "s", "cwd": "/w/p",
                "timestamp": format!("2026-01-01T00:00:{i:02}Z"),
                "message": {"id": format!("m{i}"), "content": [
                    {"type": "tool_use", "id": format!("t{i}"), "name": tool, "input": input}]}})
                .to_string());
        }
        prop_assume!(file.is_some());
        let dir = tmp.path().join("claude/projects/-w-p");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("s.jsonl"), lines.join("\n") + "\n").expect("write");
        let mut p = ccwiki::knowledge::pipeline::Pipeline::new(vec![tmp.path().join("claude")]);
        p.archive = None;
        let q = ccwiki::knowledge::recover::Query { path: "f.txt".into(), project: None };
        let (versions, _) = p.file_versions(&q).expect("reads");
        let newest = versions.iter().rev().find_map(|v| v.content.clone());
        prop_assert_eq!(newest, file);
    }
}

#[test]
fn prices_in_the_configuration_replace_the_built_in_ones() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("ccwiki.toml");
    let build = |toml: &str| {
        std::fs::write(&config, toml).expect("write");
        Command::new(env!("CARGO_BIN_EXE_ccwiki"))
            .args(["build", "--no-archive", "-q", "--config"])
            .arg(&config)
            .arg("--source")
            .arg(common::demo())
            .arg("--out")
            .arg(tmp.path().join("site"))
            .env("CCWIKI_CACHE_DIR", common::test_cache())
            .output()
            .expect("runs")
    };
    let out = build("[prices]\n\"claude\" = { input = 0.0, output = 0.0 }\n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let usage = std::fs::read_to_string(tmp.path().join("site/usage/index.html")).expect("usage");
    assert!(usage.contains("<dd>$0.00</dd>"), "every model free");
    // Only the page's explanation says "unknown price": no model is.
    assert_eq!(usage.matches("unknown price").count(), 1);
    let out = build("[prices]\n\"claude\" = { input = 1.0, outptu = 2.0 }\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ccwiki.toml") && err.contains("line 2") && err.contains("outptu"),
        "{err}"
    );
}
