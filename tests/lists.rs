//! Lists too long for one page (the session list, a busy month of the
//! timeline, a busy project) continue on pages 2, 3…: every session is
//! listed exactly once, in order, and no page grows without bound.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const ROWS: usize = 500;

fn session_line(i: usize, day: usize) -> String {
    format!(
        r#"{{"type":"user","sessionId":"{i:08x}-0000-4000-8000-000000000000","uuid":"u{i}","cwd":"/home/u/p{}","timestamp":"2026-0{}-{:02}T{:02}:{:02}:00Z","message":{{"role":"user","content":"question number {i}"}}}}"#,
        i % 2,
        1 + day / 28,
        1 + day % 28,
        (i / 60) % 24,
        i % 60,
    )
}

/// Build the data in `tmp/src` into `tmp/site` (no cache, no archive).
fn build(tmp: &Path) -> std::path::PathBuf {
    let site = tmp.join("site");
    let out = Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .env("CCWIKI_CACHE_DIR", tmp.join("cache"))
        .args(["build", "--quiet", "--no-cache", "--no-archive", "--source"])
        .arg(tmp.join("src"))
        .arg("--out")
        .arg(&site)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    site
}

/// Session hrefs in the `session-title` links of a page, in order.
fn listed(page: &Path) -> Vec<String> {
    let html = std::fs::read_to_string(page).unwrap();
    html.split("class=\"session-title\" href=\"")
        .skip(1)
        .map(|s| {
            s[..s.find('"').unwrap()]
                .trim_start_matches("../")
                .to_string()
        })
        .collect()
}

#[test]
fn long_lists_continue_on_numbered_pages_with_every_session_once() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 1203;
    for i in 0..n {
        let dir = tmp.path().join(format!("src/projects/-home-u-p{}", i % 2));
        std::fs::create_dir_all(&dir).unwrap();
        // Most sessions in January, some in February.
        let day = if i < 1100 { i % 28 } else { 28 + i % 20 };
        std::fs::write(
            dir.join(format!("{i:08x}-0000-4000-8000-000000000000.jsonl")),
            session_line(i, day) + "\n",
        )
        .unwrap();
    }
    let site = build(tmp.path());

    // The session list: 3 pages of at most 500, every session once.
    let pages = [
        "sessions/index.html",
        "sessions/2/index.html",
        "sessions/3/index.html",
    ];
    let mut all = Vec::new();
    for p in pages {
        let rows = listed(&site.join(p));
        assert!(
            !rows.is_empty() && rows.len() <= ROWS,
            "{p}: {}",
            rows.len()
        );
        all.extend(rows);
    }
    assert!(!site.join("sessions/4/index.html").exists());
    assert_eq!(all.len(), n);
    assert_eq!(
        all.iter().collect::<BTreeSet<_>>().len(),
        n,
        "no session twice"
    );
    let second = std::fs::read_to_string(site.join("sessions/2/index.html")).unwrap();
    assert!(
        second.contains("href=\"../../sessions/index.html\" rel=\"prev\"")
            && second.contains("href=\"../../sessions/3/index.html\" rel=\"next\""),
        "page 2 links both ways"
    );

    // January's timeline: 1,100 starts over 3 pages; the index is its newest page.
    let jan = |p: &str| std::fs::read_to_string(site.join("timeline/2026-01").join(p)).unwrap();
    let entries = |html: &str| html.matches("class=\"entry entry-start\"").count();
    let counts = [
        entries(&jan("index.html")),
        entries(&jan("2/index.html")),
        entries(&jan("3/index.html")),
    ];
    assert_eq!(counts, [500, 500, 100]);
    assert!(jan("index.html").contains("page 1 of 3"));
    let index = std::fs::read_to_string(site.join("timeline/index.html")).unwrap();
    assert_eq!(
        entries(&index),
        103,
        "the index shows the newest month, February"
    );
    assert!(
        index.contains("2026-01 (1 of 3)"),
        "and leads on to January"
    );

    // A project with 602 sessions lists its 500 most recent and says so.
    let project = site.join("projects/p0/index.html");
    let html = std::fs::read_to_string(&project).unwrap();
    assert_eq!(listed(&project).len(), ROWS);
    assert!(
        html.contains("<dd>602</dd>"),
        "the count is of all sessions"
    );
    assert!(html.contains("The 500 most recent of 602"));
}

/// A session longer than a page (about 400 KB of text) continues on pages
/// 2, 3…: each says which page it is, of how many, and links to its
/// neighbours; every prompt is on exactly one page.
#[test]
fn a_long_session_continues_on_numbered_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src/projects/-home-u-long");
    std::fs::create_dir_all(&dir).unwrap();
    let id = "0badc0de-0000-4000-8000-000000000000";
    // 60 prompts of 20 KB each: 1.2 MB of text, three or four pages.
    let prompts = 60;
    let lines: Vec<String> = (0..prompts)
        .map(|i| {
            let text = format!("prompt-marker-{i:03} {}", "word ".repeat(4_000));
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"u{i}","cwd":"/home/u/long","timestamp":"2026-03-01T10:{:02}:00Z","message":{{"role":"user","content":"{text}"}}}}"#,
                i % 60
            )
        })
        .collect();
    std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let site = build(tmp.path());

    let first = site.join("sessions/0badc0de/index.html");
    let mut htmls = vec![std::fs::read_to_string(&first).unwrap()];
    for n in 2.. {
        match std::fs::read_to_string(site.join(format!("sessions/0badc0de/{n}/index.html"))) {
            Ok(html) => htmls.push(html),
            Err(_) => break,
        }
    }
    let count = htmls.len();
    assert!((3..=4).contains(&count), "{count} pages");
    for (i, html) in htmls.iter().enumerate() {
        let n = i + 1;
        assert!(
            html.contains(&format!("<span class=\"meta\">Page {n} of {count}</span>")),
            "page {n} says which it is: {}",
            html[html.find("class=\"pager\"").unwrap_or(0)..]
                .chars()
                .take(300)
                .collect::<String>()
        );
        assert_eq!(
            html.contains("rel=\"prev\""),
            n > 1,
            "page {n}: a link back"
        );
        assert_eq!(
            html.contains("rel=\"next\""),
            n < count,
            "page {n}: a link on"
        );
    }
    for i in 0..prompts {
        // In the conversation, not in the title every page repeats.
        let marker = format!("<p>prompt-marker-{i:03}");
        let on = htmls.iter().filter(|h| h.contains(&marker)).count();
        assert_eq!(on, 1, "{marker} is on exactly one page");
    }
}

/// A page that holds only sub-agents (the session's own turns all on the
/// pages before it) has no empty conversation section; the page with the
/// session's turns has one.
#[test]
fn a_page_of_sub_agents_only_has_no_conversation_section() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src/projects/-home-u-agents");
    let id = "0a9e0000-0000-4000-8000-000000000000";
    std::fs::create_dir_all(dir.join(id).join("subagents")).unwrap();
    let line = |kind: &str, i: usize, side: bool, message: String| {
        let agent = if side {
            r#""isSidechain":true,"agentId":"a1","#
        } else {
            ""
        };
        format!(
            r#"{{"type":"{kind}",{agent}"sessionId":"{id}","uuid":"{kind}{i}{side}","cwd":"/home/u/agents","timestamp":"2026-03-01T10:{i:02}:00Z","message":{message}}}"#
        )
    };
    let prompt = |text: &str| format!(r#"{{"role":"user","content":"{text}"}}"#);
    let answer = |n: usize, text: &str| {
        format!(
            r#"{{"id":"msg_{n}","role":"assistant","model":"claude-x","content":[{{"type":"text","text":"{text}"}}]}}"#
        )
    };
    let session = [
        line("user", 1, false, prompt("own-prompt-marker look around")),
        line("assistant", 2, false, answer(1, "own-answer-marker done")),
    ];
    std::fs::write(dir.join(format!("{id}.jsonl")), session.join("\n") + "\n").unwrap();
    // Half a megabyte of answers: more than the first page has room for.
    let long = "word ".repeat(50_000);
    let agent = [
        line("user", 3, true, prompt("agent-prompt-marker dig in")),
        line(
            "assistant",
            4,
            true,
            answer(2, &format!("agent-answer-marker {long}")),
        ),
        line("assistant", 5, true, answer(3, &long)),
    ];
    std::fs::write(
        dir.join(id).join("subagents/agent-a1.jsonl"),
        agent.join("\n") + "\n",
    )
    .unwrap();
    let site = build(tmp.path());

    let first = std::fs::read_to_string(site.join("sessions/0a9e0000/index.html")).unwrap();
    let second = std::fs::read_to_string(site.join("sessions/0a9e0000/2/index.html")).unwrap();
    assert!(first.contains("own-prompt-marker") && !first.contains("agent-answer-marker"));
    assert!(
        first.contains("class=\"conversation\""),
        "its turns' section"
    );
    assert!(second.contains("agent-answer-marker") && !second.contains("own-answer-marker"));
    assert!(
        second.contains("class=\"subagents\""),
        "the sub-agents' section"
    );
    assert!(
        !second.contains("class=\"conversation\""),
        "no empty conversation section"
    );
}
