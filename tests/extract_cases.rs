//! Focused cases of the real Claude Code format, each with a small
//! hand-written fixture: what the wiki must make of it.

mod common;

use ccwiki::knowledge::extract::{extract, Extracted};
use ccwiki::knowledge::model::{Block, CompactKind, Session, SubagentLayout, SubagentRole, Turn};
use ccwiki::knowledge::redact::Redactor;
use std::path::Path;

fn write(dir: &Path, files: &[(&str, &[u8])]) {
    for (rel, bytes) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

fn run(files: &[(&str, &[u8])]) -> Extracted {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), files);
    let sources = ccwiki::source::discover::discover(&[dir.path().to_path_buf()]).unwrap();
    extract(&sources.roots, &Redactor::disabled())
}

/// A session's turns: `extract` keeps them in memory.
fn turns(s: &Session) -> Vec<Turn> {
    ccwiki::knowledge::spill::Spill::none()
        .load(&s.turns)
        .unwrap()
}

fn session<'a>(x: &'a Extracted, id: &str) -> &'a Session {
    x.sessions.iter().find(|s| s.id == id).unwrap_or_else(|| {
        panic!(
            "no session {id} in {:?}",
            x.sessions.iter().map(|s| &s.id).collect::<Vec<_>>()
        )
    })
}

fn user(sid: &str, uuid: &str, parent: &str, content: &str) -> String {
    format!(
        r#"{{"type":"user","sessionId":"{sid}","uuid":"{uuid}","parentUuid":{parent},"cwd":"/home/u/p","timestamp":"2026-01-01T10:00:00Z","message":{{"role":"user","content":{content}}}}}"#
    )
}

fn assistant(sid: &str, uuid: &str, msg_id: &str, blocks: &str, out_tokens: u64) -> String {
    format!(
        r#"{{"type":"assistant","sessionId":"{sid}","uuid":"{uuid}","cwd":"/home/u/p","timestamp":"2026-01-01T10:00:05Z","message":{{"id":"{msg_id}","model":"claude-opus-4-6","role":"assistant","content":[{blocks}],"usage":{{"input_tokens":10,"output_tokens":{out_tokens}}}}}}}"#
    )
}

#[test]
fn split_response_is_one_turn_with_usage_counted_once() {
    let lines = [
        user("s", "u1", "null", r#""hello""#),
        assistant(
            "s",
            "a1",
            "msg_1",
            r#"{"type":"thinking","thinking":"secret plan","signature":"x"}"#,
            7,
        ),
        assistant(
            "s",
            "a2",
            "msg_1",
            r#"{"type":"text","text":"First part."}"#,
            7,
        ),
        assistant(
            "s",
            "a3",
            "msg_1",
            r#"{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/home/u/p/a.rs"}}"#,
            7,
        ),
        user(
            "s",
            "u2",
            "\"a3\"",
            r#"[{"type":"tool_result","tool_use_id":"t1","content":"fn main(){}"}]"#,
        ),
        assistant("s", "a4", "msg_2", r#"{"type":"text","text":"Done."}"#, 3),
    ]
    .join("\n");
    let x = run(&[("projects/-home-u-p/s.jsonl", lines.as_bytes())]);
    let s = session(&x, "s");
    assert_eq!(s.assistant_turns, 2);
    assert_eq!(s.prompts, 1, "a tool result is not a prompt");
    assert_eq!(s.usage.output, 10, "usage once per message.id");
    assert_eq!(s.usage.input, 20);
    let Turn::Assistant { blocks, .. } = &turns(s)[1] else {
        panic!("{:?}", s.turns)
    };
    assert_eq!(
        blocks.len(),
        2,
        "thinking is dropped, text then tool in order"
    );
    assert!(matches!(&blocks[0], Block::Text(t) if t == "First part."));
    assert!(matches!(&blocks[1], Block::Tool(c) if c.name == "Read" && c.arg == "/home/u/p/a.rs"));
    assert!(!format!("{:?}", s.turns).contains("secret plan"));
    assert_eq!(s.work.files_touched.len(), 1);
}

#[test]
fn meta_command_and_caveat_lines_are_not_prompts() {
    let lines = [
        user("s", "u1", "null", r#""<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src</command-args>""#),
        r#"{"type":"user","isMeta":true,"sessionId":"s","message":{"role":"user","content":"expanded command prompt"}}"#.to_string(),
        user("s", "u2", "null", r#""<local-command-caveat>Caveat: generated</local-command-caveat>""#),
        user("s", "u3", "null", r#""<local-command-stdout>Total cost: $0.12</local-command-stdout>""#),
        user("s", "u4", "null", r#"[{"type":"text","text":"[Request interrupted by user]"}]"#),
        user("s", "u5", "null", r#"[{"type":"text","text":"the real question"}]"#),
    ]
    .join("\n");
    let x = run(&[("projects/-p/s.jsonl", lines.as_bytes())]);
    let s = session(&x, "s");
    assert_eq!(s.prompts, 1);
    assert!(
        matches!(&turns(s)[0], Turn::Command { name, args, .. } if name == "/review" && args == "src")
    );
    assert!(matches!(&turns(s)[1], Turn::CommandOutput { text } if text == "Total cost: $0.12"));
    assert!(matches!(&turns(s)[2], Turn::Prompt { text, .. } if text == "the real question"));
    assert_eq!(s.turns.len(), 3);
}

#[test]
fn subagents_in_all_three_layouts_attach_to_their_session() {
    let inline = [
        user("s1", "u1", "null", r#""delegate it""#),
        r#"{"type":"user","isSidechain":true,"sessionId":"s1","uuid":"c1","parentUuid":null,"message":{"role":"user","content":"inline task one"}}"#.to_string(),
        r#"{"type":"assistant","isSidechain":true,"sessionId":"s1","uuid":"c2","parentUuid":"c1","message":{"id":"m_in1","content":[{"type":"text","text":"inline answer"}]}}"#.to_string(),
        r#"{"type":"user","isSidechain":true,"sessionId":"s1","uuid":"c3","parentUuid":null,"message":{"role":"user","content":"inline task two"}}"#.to_string(),
    ]
    .join("\n");
    let sibling = r#"{"type":"user","isSidechain":true,"sessionId":"s2","message":{"role":"user","content":"sibling task"}}
{"type":"assistant","isSidechain":true,"sessionId":"s2","message":{"id":"m_sib","content":[{"type":"text","text":"sibling answer"}]}}"#;
    let nested = r#"{"type":"user","isSidechain":true,"sessionId":"s3","agentId":"abc","message":{"role":"user","content":"nested task"}}"#;
    let x = run(&[
        ("projects/-p/s1.jsonl", inline.as_bytes()),
        (
            "projects/-p/s2.jsonl",
            user("s2", "u", "null", r#""go""#).as_bytes(),
        ),
        ("projects/-p/agent-1234abcd.jsonl", sibling.as_bytes()),
        (
            "projects/-p/s3.jsonl",
            user("s3", "u", "null", r#""go""#).as_bytes(),
        ),
        (
            "projects/-p/s3/subagents/agent-abc.jsonl",
            nested.as_bytes(),
        ),
        (
            "projects/-p/s3/subagents/agent-abc.meta.json",
            br#"{"agentType":"Explore","description":"Look around"}"#,
        ),
        (
            "projects/-p/s3/subagents/agent-acompact-77.jsonl",
            nested.as_bytes(),
        ),
        (
            "projects/-p/s3/subagents/agent-aprompt_suggestion-88.jsonl",
            nested.as_bytes(),
        ),
        (
            "projects/-p/s3/subagents/agent-aside_question-99.jsonl",
            nested.as_bytes(),
        ),
    ]);
    let s1 = session(&x, "s1");
    assert_eq!(
        s1.prompts, 1,
        "sidechain prompts are the sub-agent's, not the user's"
    );
    assert_eq!(
        s1.subagents.len(),
        2,
        "a root sidechain line starts a new sub-agent"
    );
    assert!(s1
        .subagents
        .iter()
        .all(|a| a.layout == SubagentLayout::Inline));
    assert_eq!(s1.subagents[0].assistant_turns, 1);
    let s2 = session(&x, "s2");
    assert_eq!(s2.subagents.len(), 1);
    assert_eq!(s2.subagents[0].layout, SubagentLayout::Sibling);
    assert_eq!(s2.subagents[0].id, "1234abcd");
    let s3 = session(&x, "s3");
    let roles: Vec<SubagentRole> = s3.subagents.iter().map(|a| a.role).collect();
    assert_eq!(s3.subagents.len(), 4);
    for r in [
        SubagentRole::Task,
        SubagentRole::Compaction,
        SubagentRole::PromptSuggestion,
        SubagentRole::Aside,
    ] {
        assert!(roles.contains(&r), "{roles:?}");
    }
    let task = s3
        .subagents
        .iter()
        .find(|a| a.role == SubagentRole::Task)
        .unwrap();
    assert_eq!(task.agent_type.as_deref(), Some("Explore"));
    assert_eq!(task.description.as_deref(), Some("Look around"));
    assert_eq!(task.layout, SubagentLayout::Nested);
}

#[test]
fn compaction_is_a_marker_with_its_summary() {
    let lines = [
        user("s", "u1", "null", r#""start""#),
        r#"{"type":"system","subtype":"compact_boundary","sessionId":"s","content":"Conversation compacted","timestamp":"2026-01-01T11:00:00Z"}"#.to_string(),
        r#"{"type":"user","isCompactSummary":true,"sessionId":"s","message":{"role":"user","content":"This session is being continued. Summary: we fixed X."}}"#.to_string(),
        r#"{"type":"system","subtype":"microcompact_boundary","sessionId":"s"}"#.to_string(),
    ]
    .join("\n");
    let x = run(&[("projects/-p/s.jsonl", lines.as_bytes())]);
    let s = session(&x, "s");
    assert_eq!(s.prompts, 1);
    assert!(
        matches!(&turns(s)[1], Turn::Compaction { kind: CompactKind::Full, summary: Some(t), .. } if t.contains("we fixed X"))
    );
    assert!(matches!(
        &turns(s)[2],
        Turn::Compaction {
            kind: CompactKind::Micro,
            summary: None,
            ..
        }
    ));
}

#[test]
fn titles_follow_custom_ai_summary_prompt() {
    let base = user("s", "u1", "null", r#""first prompt text""#);
    let with = |extra: &[&str]| {
        let mut l = vec![base.clone()];
        l.extend(extra.iter().map(|s| s.to_string()));
        l.join("\n")
    };
    let ai = r#"{"type":"ai-title","sessionId":"s","aiTitle":"AI title"}"#;
    let custom = r#"{"type":"custom-title","sessionId":"s","customTitle":"My title"}"#;
    let summary = r#"{"type":"summary","summary":"Summary title","leafUuid":"u1"}"#;
    let cases = [
        (with(&[]), "first prompt text"),
        (with(&[summary]), "Summary title"),
        (with(&[summary, ai]), "AI title"),
        (with(&[custom, summary, ai]), "My title"),
    ];
    for (text, want) in cases {
        let x = run(&[("projects/-p/s.jsonl", text.as_bytes())]);
        assert_eq!(session(&x, "s").title(), want);
    }
}

#[test]
fn one_file_many_sessions_and_a_summary_pointing_elsewhere() {
    let a = [
        user("a", "ua", "null", r#""in a""#),
        user("b", "ub", "null", r#""in b""#),
    ]
    .join("\n");
    // Older versions start a file with the summary of the conversation it continues.
    let c = [
        r#"{"type":"summary","summary":"What b was about","leafUuid":"ub"}"#.to_string(),
        user("c", "uc", "null", r#""in c""#),
    ]
    .join("\n");
    let x = run(&[
        ("projects/-p/a.jsonl", a.as_bytes()),
        ("projects/-p/c.jsonl", c.as_bytes()),
    ]);
    assert_eq!(session(&x, "a").prompts, 1);
    assert_eq!(session(&x, "b").prompts, 1);
    assert_eq!(
        session(&x, "b").titles.summary.as_deref(),
        Some("What b was about")
    );
    assert_eq!(session(&x, "c").titles.summary, None);
}

/// More files than extraction reads between two merges (4,096): what the
/// last file says about sessions of the first ones still reaches them.
#[test]
fn files_merged_in_batches_still_meet_across_batches() {
    let mut files: Vec<(String, String)> = (0..4100)
        .map(|i| {
            let line = user(&format!("s{i:05}"), &format!("u{i}"), "null", r#""hi""#);
            (format!("projects/-p/f{i:05}.jsonl"), line)
        })
        .collect();
    // Last in path order: a summary of the first session, and a second
    // part of the second one.
    let last = [
        r#"{"type":"summary","summary":"What the first was about","leafUuid":"u0"}"#.to_string(),
        user("s00001", "u1b", "null", r#""again""#),
    ]
    .join("\n");
    files.push(("projects/-p/zz.jsonl".to_string(), last));
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_bytes()))
        .collect();
    let x = run(&files);
    assert_eq!(x.sessions.len(), 4100);
    assert_eq!(
        session(&x, "s00000").titles.summary.as_deref(),
        Some("What the first was about")
    );
    assert_eq!(session(&x, "s00001").prompts, 2);
    assert_eq!(session(&x, "s04099").titles.summary, None);
    let ids: Vec<&str> = x.sessions.iter().map(|s| s.id.as_str()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "sessions not in id order"
    );
}

#[test]
fn hostile_text_never_breaks_the_read() {
    let mut bytes: Vec<u8> = Vec::new();
    bytes.extend_from_slice(user("s", "u1", "null", r#""lone \ud83d surrogate""#).as_bytes());
    bytes.extend_from_slice(b"\r\n");
    bytes.extend_from_slice(b"{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"content\":\"bad \xff\xfe bytes\"}}\r\n");
    let big = "x".repeat(3 * 1024 * 1024);
    bytes.extend_from_slice(user("s", "u2", "null", &format!("\"{big}\"")).as_bytes());
    bytes
        .extend_from_slice(b"\n{\"type\":\"unknown-future-type\",\"whatever\":[1,{\"a\":null}]}\n");
    bytes.extend_from_slice(
        b"{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"content\":\"cut off",
    );
    let x = run(&[
        ("projects/-p/s.jsonl", &bytes),
        ("projects/-p/empty.jsonl", b""),
    ]);
    let s = session(&x, "s");
    assert_eq!(s.prompts, 3);
    assert!(matches!(&turns(s)[0], Turn::Prompt { text, .. } if text == "lone \u{fffd} surrogate"));
    assert!(matches!(&turns(s)[1], Turn::Prompt { text, .. } if text.contains('\u{fffd}')));
    assert_eq!(x.skips.len(), 1, "{:?}", x.skips);
    assert_eq!(x.skips[0].line, Some(5));
    assert!(x.skips[0].reason.contains("incomplete last line"));
}

#[test]
fn projects_come_from_cwd_including_windows_paths() {
    let win = r#"{"type":"user","sessionId":"w","cwd":"C:\\Users\\Eve\\code\\app","message":{"content":"hi"}}"#;
    let x = run(&[("projects/C--Users-Eve-code-app/w.jsonl", win.as_bytes())]);
    assert_eq!(
        session(&x, "w").cwd.as_deref(),
        Some("C:\\Users\\Eve\\code\\app")
    );
}

#[test]
fn several_data_roots_are_read_together() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    write(
        a.path(),
        &[(
            "projects/-p/s1.jsonl",
            user("s1", "u", "null", r#""one""#).as_bytes(),
        )],
    );
    write(
        b.path(),
        &[(
            "projects/-p/s2.jsonl",
            user("s2", "u", "null", r#""two""#).as_bytes(),
        )],
    );
    let sources =
        ccwiki::source::discover::discover(&[a.path().to_path_buf(), b.path().to_path_buf()])
            .unwrap();
    let x = extract(&sources.roots, &Redactor::disabled());
    assert_eq!(x.sessions.len(), 2);
    assert_eq!(session(&x, "s2").root, 1);
}

#[test]
fn the_same_session_in_a_backup_is_one_session_with_its_longer_copy() {
    let dir = tempfile::tempdir().unwrap();
    let first = user("s1", "u1", "null", r#""first question""#);
    let second = user("s1", "u2", r#""u1""#, r#""second question""#);
    let longer = format!("{first}\n{second}\n");
    write(
        dir.path(),
        &[
            // The live folder lost the second prompt; the backup has both,
            // and one more session.
            ("projects/-p/s1.jsonl", format!("{first}\n").as_bytes()),
            ("projects.bak-2025/-p/s1.jsonl", longer.as_bytes()),
            (
                "projects.bak-2025/-p/s9.jsonl",
                user("s9", "u9", "null", r#""old""#).as_bytes(),
            ),
        ],
    );
    let sources = ccwiki::source::discover::discover(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(sources.roots.len(), 2);
    let x = extract(&sources.roots, &Redactor::disabled());
    assert_eq!(x.sessions.len(), 2, "s1 once, and s9");
    let s1 = session(&x, "s1");
    assert_eq!(s1.prompts, 2, "the longer copy, not both added up");
    assert_eq!(turns(s1).len(), 2);
    assert_eq!(session(&x, "s9").prompts, 1);
}

#[test]
fn large_files_read_in_pieces_give_the_same_result() {
    use ccwiki::knowledge::spill::Spill;
    let demo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    let sources = ccwiki::source::discover::discover(&[demo]).unwrap();
    let dir = tempfile::tempdir().expect("temp dir");
    let (none, spill) = (Spill::none(), Spill::in_dir(dir.path()).expect("spill"));
    let mut checked = 0;
    for tf in &sources.roots[0].transcripts {
        let r = Redactor::disabled();
        let mut s = ccwiki::knowledge::extract::ReaderState::new(0, tf, &r);
        let tail = s.read(tf, &r, &none);
        let one = common::everything(&s.into_digest(tf, tail, &r, None, &none), &none);
        for piece in [300u64, 1_500, 9_000] {
            for spill in [&none, &spill] {
                let (s, tail) = ccwiki::knowledge::extract::ReaderState::read_in_pieces(
                    0, tf, piece, &r, spill,
                );
                let pieces = common::everything(&s.into_digest(tf, tail, &r, None, spill), spill);
                assert_eq!(one, pieces, "{} in {piece}-byte pieces", tf.path.display());
            }
        }
        checked += 1;
    }
    assert!(checked >= 10);
    assert!(spill.written() > 0, "pieces were stowed");
    assert_eq!(spill.failure(), None);
}

#[test]
fn a_tool_call_keeps_its_arguments_and_its_result_cut_with_errors_marked() {
    let long = "x".repeat(5_000);
    let lines = [
        user("s", "u1", "null", r#""run it""#),
        assistant(
            "s",
            "a1",
            "msg_1",
            r#"{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test","description":"Run the tests"}},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"C:\\work\\a.rs","limit":20}}"#,
            5,
        ),
        user(
            "s",
            "u2",
            r#""a1""#,
            &format!(
                r#"[{{"type":"tool_result","tool_use_id":"t2","content":[{{"type":"text","text":"{long}"}}]}},{{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"error: 2 tests failed"}}]"#
            ),
        ),
    ];
    let x = run(&[("projects/-home-u-p/s.jsonl", lines.join("\n").as_bytes())]);
    let calls: Vec<_> = turns(session(&x, "s"))
        .into_iter()
        .flat_map(|t| match t {
            Turn::Assistant { blocks, .. } => blocks,
            _ => Vec::new(),
        })
        .filter_map(|b| match b {
            Block::Tool(c) => Some(c),
            Block::Text(_) => None,
        })
        .collect();
    assert_eq!(calls.len(), 2);
    let (bash, read) = (&calls[0], &calls[1]);
    assert_eq!(
        &*bash.input,
        "command: cargo test\ndescription: Run the tests"
    );
    assert_eq!(bash.result.as_deref(), Some("error: 2 tests failed"));
    assert!(bash.error);
    // Values are shown decoded: the path as it is, not JSON-escaped.
    assert_eq!(&*read.input, "file_path: C:\\work\\a.rs\nlimit: 20");
    assert!(!read.error);
    let shown = read.result.as_deref().unwrap_or_default();
    assert_eq!(
        shown.chars().count(),
        ccwiki::knowledge::model::TOOL_TEXT_CHARS
    );
    assert!(read.result_bytes > 5_000, "the whole size is known");
}

#[test]
fn calls_that_change_a_file_keep_what_they_replaced() {
    let lines = [
        user("s", "u1", "null", r#""edit it""#),
        assistant(
            "s",
            "a1",
            "msg_1",
            r#"{"type":"tool_use","id":"t1","name":"MultiEdit","input":{"file_path":"/home/u/p/a.rs","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}},{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/home/u/p/n.rs","content":"fn main() {}\n"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"ls"}}"#,
            5,
        ),
    ];
    let x = run(&[("projects/-home-u-p/s.jsonl", lines.join("\n").as_bytes())]);
    let calls: Vec<_> = turns(session(&x, "s"))
        .into_iter()
        .flat_map(|t| match t {
            Turn::Assistant { blocks, .. } => blocks,
            _ => Vec::new(),
        })
        .filter_map(|b| match b {
            Block::Tool(c) => Some(c),
            Block::Text(_) => None,
        })
        .collect();
    let pairs = |i: usize| -> Vec<(String, String)> {
        calls[i]
            .edits
            .iter()
            .map(|e| (e.old.to_string(), e.new.to_string()))
            .collect()
    };
    assert_eq!(
        pairs(0),
        [("a".into(), "b".into()), ("c".into(), "d".into())]
    );
    assert_eq!(pairs(1), [(String::new(), "fn main() {}\n".to_string())]);
    assert!(pairs(2).is_empty());
    // What the diff shows is not repeated in the arguments.
    assert_eq!(&*calls[1].input, "file_path: /home/u/p/n.rs");
}

#[test]
fn tokens_are_counted_by_model_once_per_response_with_the_sub_agents() {
    let with_model = |line: String, model: &str| line.replace("claude-opus-4-6", model);
    let lines = [
        user("s", "u1", "null", r#""go""#),
        with_model(
            assistant("s", "a1", "msg_1", r#"{"type":"text","text":"one"}"#, 100),
            "claude-sonnet-4-5-20250929",
        ),
        // The same response's second line: its usage is not counted again.
        with_model(
            assistant("s", "a2", "msg_1", r#"{"type":"text","text":"more"}"#, 100),
            "claude-sonnet-4-5-20250929",
        ),
        assistant("s", "a3", "msg_2", r#"{"type":"text","text":"two"}"#, 7),
    ];
    let agent = [
        user("s", "x1", "null", r#""look around""#),
        with_model(assistant("s", "x2", "msg_9", r#"{"type":"text","text":"seen"}"#, 40), "claude-haiku-4-5-20251001")
            .replace(r#""output_tokens":40"#, r#""output_tokens":40,"cache_creation_input_tokens":30,"cache_creation":{"ephemeral_1h_input_tokens":20}"#),
    ];
    let x = run(&[
        ("projects/-p/s.jsonl", lines.join("\n").as_bytes()),
        (
            "projects/-p/s/subagents/agent-a1.jsonl",
            agent.join("\n").as_bytes(),
        ),
    ]);
    let s = session(&x, "s");
    let by: Vec<(String, u64, u64, u64)> = s
        .usage_by_model
        .iter()
        .map(|(m, u)| (m.to_string(), u.output, u.cache_creation, u.cache_write_1h))
        .collect();
    assert_eq!(
        by,
        [
            ("claude-haiku-4-5-20251001".to_string(), 40, 30, 20),
            ("claude-opus-4-6".to_string(), 7, 0, 0),
            ("claude-sonnet-4-5-20250929".to_string(), 100, 0, 0),
        ]
    );
}

#[test]
fn where_a_session_ended_is_its_last_answers_first_paragraph() {
    let lines = [
        user("s", "u1", "null", r#""go""#),
        assistant(
            "s",
            "a1",
            "msg_1",
            r#"{"type":"text","text":"First answer."}"#,
            1,
        ),
        user("s", "u2", r#""a1""#, r#""more""#),
        assistant(
            "s",
            "a2",
            "msg_2",
            r###"{"type":"text","text":"## Done\n\nThe fix is in.\n\nDetails follow."}"###,
            1,
        ),
    ];
    let x = run(&[("projects/-p/s.jsonl", lines.join("\n").as_bytes())]);
    assert_eq!(
        session(&x, "s").titles.last_answer.as_deref(),
        Some("The fix is in.")
    );
}

#[test]
fn newer_record_kinds_are_skipped_on_purpose_one_by_one() {
    // Lines Claude Code writes that are not the conversation: each is left
    // out without a warning, and nothing of it reaches a turn.
    let kinds = [
        r#"{"type":"progress","sessionId":"s","data":{"type":"hook_progress","hookName":"PLANTED"}}"#,
        r#"{"type":"queue-operation","sessionId":"s","operation":"enqueue","content":"PLANTED"}"#,
        r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"trackedFileBackups":{"PLANTED":{}}}}"#,
        r#"{"type":"file-history-delta","sessionId":"s","delta":"PLANTED"}"#,
        r#"{"type":"last-prompt","sessionId":"s","lastPrompt":"PLANTED"}"#,
        r#"{"type":"permission-mode","sessionId":"s","permissionMode":"PLANTED"}"#,
        r#"{"type":"mode","sessionId":"s","mode":"PLANTED"}"#,
        r#"{"type":"pr-link","sessionId":"s","url":"https://example.com/PLANTED"}"#,
        r#"{"type":"teleported-from","sessionId":"s","from":"PLANTED"}"#,
        r#"{"type":"relocated","sessionId":"s","to":"PLANTED"}"#,
        r#"{"type":"worktree-state","sessionId":"s","path":"PLANTED"}"#,
        r#"{"type":"agent-name","sessionId":"s","name":"PLANTED"}"#,
        r#"{"type":"bridge-session","sessionId":"s","bridge":"PLANTED"}"#,
        r#"{"type":"attachment","sessionId":"s","attachment":{"type":"hook_success","content":"PLANTED"}}"#,
        r#"{"type":"attachment","sessionId":"s","attachment":{"type":"nested_memory","content":"PLANTED"}}"#,
        r#"{"type":"system","subtype":"turn_duration","sessionId":"s","durationMs":1200,"content":"PLANTED"}"#,
        r#"{"type":"system","subtype":"stop_hook_summary","sessionId":"s","content":"PLANTED"}"#,
    ];
    for kind in kinds {
        let lines = [
            user("s", "u1", "null", r#""the question""#),
            kind.to_string(),
            assistant(
                "s",
                "a1",
                "msg_1",
                r#"{"type":"text","text":"the answer"}"#,
                1,
            ),
        ];
        let x = run(&[("projects/-p/s.jsonl", lines.join("\n").as_bytes())]);
        assert!(x.skips.is_empty(), "{kind}: {:?}", x.skips);
        assert_eq!(x.sessions.len(), 1, "{kind}");
        let shown = format!("{:?}", turns(session(&x, "s")));
        assert_eq!(turns(session(&x, "s")).len(), 2, "{kind}: {shown}");
        assert!(!shown.contains("PLANTED"), "{kind}: {shown}");
    }
}

#[test]
fn a_sub_agents_journal_and_workflows_are_no_sessions() {
    let real = [
        user("s", "u1", "null", r#""the question""#),
        assistant(
            "s",
            "a1",
            "msg_1",
            r#"{"type":"text","text":"the answer"}"#,
            1,
        ),
    ]
    .join("\n");
    let journal = r#"{"type":"agent-start","agentId":"a1","note":"PLANTED"}"#;
    let x = run(&[
        ("projects/-p/s.jsonl", real.as_bytes()),
        ("projects/-p/s/subagents/journal.jsonl", journal.as_bytes()),
        ("projects/-p/s/workflows/run-1.jsonl", journal.as_bytes()),
    ]);
    let ids: Vec<&str> = x.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["s"], "{:?}", x.skips);
    assert!(session(&x, "s").subagents.is_empty());
    assert!(!format!("{:?}", turns(session(&x, "s"))).contains("PLANTED"));
}
