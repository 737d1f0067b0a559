//! The committed `example-output/` is the wiki built from `examples/demo/`.
//! This test rebuilds it and fails if a single byte differs, which also
//! proves the output is deterministic. After an intended change, refresh it:
//!
//!     CCWIKI_BLESS=1 cargo test --test example_output

mod common;

use common::read_tree;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn build_demo(out: &Path) {
    let opts = common::options(vec![root().join("examples/demo")], out.to_path_buf());
    let report = ccwiki::build(&opts).expect("demo builds");
    assert!(
        report.sessions >= 6,
        "demo has its sessions: {}",
        report.sessions
    );
}

#[test]
fn example_output_is_up_to_date() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    build_demo(&out);
    let expected_dir = root().join("example-output");
    if std::env::var_os("CCWIKI_BLESS").is_some() {
        if expected_dir.exists() {
            std::fs::remove_dir_all(&expected_dir).unwrap();
        }
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(&out)
            .arg(&expected_dir)
            .status()
            .unwrap();
        assert!(status.success());
        return;
    }
    let built = read_tree(&out);
    let expected = read_tree(&expected_dir);
    let built_names: Vec<&String> = built.keys().collect();
    let expected_names: Vec<&String> = expected.keys().collect();
    assert_eq!(
        built_names, expected_names,
        "example-output/ lists other files than a fresh build; run CCWIKI_BLESS=1 cargo test --test example_output"
    );
    for (name, bytes) in &built {
        assert!(
            expected[name] == *bytes,
            "example-output/{name} differs from a fresh build; run CCWIKI_BLESS=1 cargo test --test example_output"
        );
    }
}

#[test]
fn two_builds_are_identical() {
    let tmp = tempfile::tempdir().unwrap();
    build_demo(&tmp.path().join("a"));
    build_demo(&tmp.path().join("b"));
    assert_eq!(
        read_tree(&tmp.path().join("a")),
        read_tree(&tmp.path().join("b"))
    );
}

#[test]
fn every_internal_link_of_the_demo_wiki_leads_somewhere() {
    let site = root().join("example-output");
    let broken = common::broken_links(&site);
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    // The check itself finds a broken link.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("index.html"),
        "<h2 id=here>h</h2><a href=\"gone/index.html\">x</a> <a href=\"https://example.com\">y</a>\n\
         <a href=\"index.html#here\">z</a> <a href=\"#nowhere\">w</a>",
    )
    .unwrap();
    assert_eq!(
        common::broken_links(tmp.path()),
        [
            "index.html:1: gone/index.html (no such file)",
            "index.html:2: #nowhere (no #nowhere in index.html)"
        ]
    );
}

#[test]
fn every_call_that_started_a_sub_agent_links_to_it_and_back() {
    let site = root().join("example-output");
    let mut linked = 0;
    for entry in std::fs::read_dir(site.join("sessions")).unwrap() {
        let page = entry.unwrap().path().join("index.html");
        let Ok(html) = std::fs::read_to_string(&page) else {
            continue;
        };
        let agents = html.matches("class=\"subagent\"").count();
        let calls = html.matches("↓ The sub-agent it started").count();
        let backs = html.matches("↑ The call that started it").count();
        // The demo's sub-agents were all started by a call of their session.
        assert_eq!((calls, backs), (agents, agents), "{}", page.display());
        linked += agents;
    }
    assert_eq!(linked, 4, "the demo's four sub-agents");
}
