//! Snapshots of what templates receive: the view of one page of each kind,
//! built from the demo. A change to a view shows here as a reviewable diff
//! (`cargo insta review`, or `INSTA_UPDATE=always cargo test --test views`
//! then read the diff of `tests/snapshots/`), before it shows in HTML.

mod common;

use ccwiki::knowledge::pipeline::Pipeline;
use ccwiki::site::assemble::{assemble, View};

#[test]
fn views_of_each_page_kind() {
    let (model, _) = Pipeline::new(vec![common::demo()])
        .load()
        .expect("the demo loads");
    let site = assemble(&model).expect("the demo assembles");
    let wanted = [
        "index.html",
        "about/index.html",
        "projects/index.html",
        "projects/tide-api/index.html",
        "skills/clippy-gate.html",
        "references/grafana-and-on-call.html",
        "sessions/index.html",
        "sessions/7c2d9e40/index.html",
        "timeline/index.html",
        "usage/index.html",
        // A session whose tool calls start a sub-agent and edit files.
        "sessions/a8e4f019/index.html",
        "setup/index.html",
        "setup/agents/code-reviewer.html",
        "projects/tide-api/files/src-state-rs.html",
    ];
    for path in wanted {
        let made;
        let page = match site.pages.iter().find(|p| p.path == path) {
            Some(page) => page,
            None => {
                made = site
                    .session_pages
                    .all()
                    .find(|p| p.path == path)
                    .unwrap_or_else(|| panic!("the demo has no page {path}"));
                &made
            }
        };
        let name = path
            .trim_end_matches("/index.html")
            .trim_end_matches(".html")
            .replace('/', "-");
        let name = if name == "index" {
            "home".to_string()
        } else {
            name
        };
        match &page.view {
            View::Session(s) => {
                let loaded = s.load().expect("session turns load");
                let view = loaded.view().expect("session turns decode");
                insta::assert_json_snapshot!(name, view);
            }
            View::File(f) => {
                let loaded = f.load().expect("file changes load");
                insta::assert_json_snapshot!(name, loaded.view());
            }
            view => insta::assert_json_snapshot!(name, view),
        }
    }
}

/// A month's timeline page is made from its own entries and the list of
/// months: a session started in a later month leaves it as it was, so the
/// build keeps it without making it again.
#[test]
fn a_new_session_leaves_an_older_months_timeline_as_it_was() {
    let view_of = |source: std::path::PathBuf| {
        let (model, _) = Pipeline::new(vec![source]).load().expect("loads");
        let site = assemble(&model).expect("assembles");
        let page = site
            .pages
            .iter()
            .find(|p| p.path == "timeline/2026-10/index.html")
            .expect("an October page");
        serde_json::to_string(&page.view).expect("view as JSON")
    };
    let before = view_of(common::demo());
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("claude");
    common::copy_dir(&common::demo(), &src);
    let sid = "3f6a1c2e-8b4d-4e7a-9c05-d2b1e8f7a640";
    let line = serde_json::json!({"type":"user","sessionId":sid,"uuid":"n-1","cwd":"/home/dana/code/tide-api","timestamp":"2026-11-28T10:00:00Z","message":{"role":"user","content":"count the pelicans"}});
    std::fs::write(
        src.join(format!("projects/-home-dana-code-tide-api/{sid}.jsonl")),
        format!("{line}\n"),
    )
    .expect("write");
    let after = view_of(src);
    assert_eq!(before, after);
}
