//! What a reader sees, checked in headless Chromium: the search box answers
//! from `file://` with the same ranking as `ccwiki search`.
//!
//! Needs Chromium (`apt-get install chromium`); `.ci/run` installs it. Set
//! `CCWIKI_CHROMIUM` to use another binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("CCWIKI_CHROMIUM") {
        return PathBuf::from(p);
    }
    for p in [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ] {
        if Path::new(p).exists() {
            return PathBuf::from(p);
        }
    }
    panic!("browser tests need Chromium: apt-get install chromium (or set CCWIKI_CHROMIUM)");
}

/// The DOM of `url` after its scripts ran.
fn dump_dom(url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn demo_site() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    ccwiki::build(&ccwiki::BuildOptions::new(vec![demo], out.clone())).expect("demo builds");
    (tmp, out)
}

/// Result links shown by the page's search panel, relative to the site.
fn page_results(site: &Path, page: &str, query: &str) -> Vec<String> {
    let base = format!("file://{}/", site.display());
    let url = format!("{base}{page}?q={}", query.replace(' ', "%20"));
    let dom = dump_dom(&url);
    let panel = dom
        .split("class=\"search-results\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no results panel for {query:?}"));
    panel
        .split("class=\"result-title\" href=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap_or("").replace("&amp;", "&"))
        .map(|href| href.strip_prefix(&base).unwrap_or(&href).to_string())
        .collect()
}

fn cli_results(query: &str) -> Vec<String> {
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    let out = Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .args(["search", "--json", "--limit", "20", "--source"])
        .arg(demo)
        .arg(query)
        .output()
        .unwrap();
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    found
        .as_array()
        .expect("array")
        .iter()
        .map(|f| f["url"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn search_answers_from_file_urls_like_the_cli() {
    let (_tmp, site) = demo_site();
    for query in [
        "rate limit",
        "clippy",
        "Edit",
        "dry run import",
        "atom feed",
        "grafana",
    ] {
        let page = page_results(&site, "sessions/index.html", query);
        let cli = cli_results(query);
        assert!(!page.is_empty(), "the page found nothing for {query:?}");
        let n = page.len().min(cli.len()).min(5);
        assert_eq!(&page[..n], &cli[..n], "top results differ for {query:?}");
        assert!(
            page.len() == cli.len() || page.len() == 20,
            "{query:?}: page {} vs cli {}",
            page.len(),
            cli.len()
        );
    }
    // From a page two levels down, links still resolve inside the site.
    let deep = page_results(&site, "projects/tide-api/index.html", "clippy");
    assert!(
        deep.iter()
            .all(|u| !u.starts_with("file:") && !u.contains("..")),
        "{deep:?}"
    );
    // A word only in a branch name matches nothing (seed 003's "log rotation").
    let dom = dump_dom(&format!("file://{}/index.html?q=rotation", site.display()));
    assert!(dom.contains("No results."), "branch names are not searched");
}
