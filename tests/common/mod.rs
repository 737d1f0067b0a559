//! Helpers shared by the integration tests: the demo, a site's files, and
//! headless Chromium.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn demo() -> PathBuf {
    repo().join("examples/demo")
}

/// Where tests keep ccwiki's cache and temporary files: under the target
/// folder, never in the user's cache directory.
pub fn test_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-cache")
}

/// Build options for `sources` into `out`, caching under [`test_cache`].
pub fn options(sources: Vec<PathBuf>, out: PathBuf) -> ccwiki::BuildOptions {
    let mut opts = ccwiki::BuildOptions::new(sources, out);
    opts.cache_dir = Some(test_cache());
    opts
}

/// Build the demo with `theme` into `out`.
pub fn build_demo(out: &Path, theme: &str) {
    let mut opts = options(vec![demo()], out.to_path_buf());
    opts.theme = theme.to_string();
    ccwiki::build(&opts).expect("demo builds");
}

/// The search case table, `tests/search_cases.json`: (query, the
/// expected start of the result list, in order; empty: no result).
pub fn search_cases() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(repo().join("tests/search_cases.json"))
        .expect("read the case table");
    let v: serde_json::Value = serde_json::from_str(&text).expect("case table is JSON");
    v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let top = c["top"]
                .as_array()
                .expect("top")
                .iter()
                .map(|u| u.as_str().expect("url").to_string())
                .collect();
            (c["query"].as_str().expect("query").to_string(), top)
        })
        .collect()
}

/// The result URLs of `ccwiki search --json` on the demo.
pub fn cli_search(query: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_ccwiki"))
        .env("CCWIKI_CACHE_DIR", test_cache())
        .env(
            "CCWIKI_ARCHIVE_DIR",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ccwiki-archive"),
        )
        .args(["search", "--json", "--limit", "20", "--source"])
        .arg(demo())
        .arg(query)
        .output()
        .expect("run ccwiki search");
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    found
        .as_array()
        .expect("array")
        .iter()
        .map(|f| f["url"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Every file of a site, by path relative to it.
pub fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.expect("walk output"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read(e.path()).expect("read output file"))
        })
        .collect()
}

/// Copy the folder `from` (its folders and files) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A suite that needs something a fresh clone may not have (the shared
/// corpus, Chromium) runs when it is there. When it is not, the suite is
/// skipped with one loud line, except under `CI=true`, where it is required.
pub fn skip_unless_ci(what: &str, how: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("CI=true: this suite needs {what} ({how})");
    }
    // Straight to stderr: the test harness would swallow eprintln! of a
    // passing test, and this line must be seen.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: this suite needs {what} ({how}); under CI=true it fails instead"
    );
}

/// The Chromium binary, if this machine has one (see [`skip_unless_ci`]).
pub fn try_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CCWIKI_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    for p in [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    skip_unless_ci(
        "Chromium",
        "apt-get install chromium, or set CCWIKI_CHROMIUM",
    );
    None
}

/// Whether the browser suites can run; prints the skip line when not.
pub fn has_chromium() -> bool {
    try_chromium().is_some()
}

fn chromium() -> PathBuf {
    try_chromium().expect("the test checked has_chromium() first")
}

/// The shared corpus of real data, if it is beside the checkout.
pub fn corpus() -> Option<PathBuf> {
    let dir = repo().join("../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    skip_unless_ci(
        "the shared corpus of real data",
        "expected at ../shared/corpus beside the checkout",
    );
    None
}

/// How to open a page.
#[derive(Clone, Copy)]
pub struct View {
    pub width: u32,
    pub height: u32,
    pub dark: bool,
}

/// A desktop window in light mode.
pub const DESKTOP: View = View {
    width: 1280,
    height: 900,
    dark: false,
};

fn chromium_cmd(view: View, profile: &Path) -> Command {
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--window-size={},{}", view.width, view.height));
    if view.dark {
        cmd.args([
            "--force-dark-mode",
            "--blink-settings=preferredColorScheme=0",
        ]);
    }
    cmd
}

/// The DOM of `url` after its scripts ran.
pub fn dump_dom(url: &str, view: View) -> String {
    dump_dom_with(url, view, &[])
}

/// Chromium showing `url` until it is killed (a page that keeps a
/// connection open, which `--dump-dom` would not wait for).
pub fn open_page(url: &str) -> (std::process::Child, tempfile::TempDir) {
    let profile = tempfile::tempdir().expect("profile");
    let child = chromium_cmd(DESKTOP, profile.path())
        .arg("--remote-debugging-port=0")
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run chromium");
    (child, profile)
}

/// [`dump_dom`] with more Chromium flags (`--blink-settings=…` to emulate
/// a device).
pub fn dump_dom_with(url: &str, view: View, flags: &[&str]) -> String {
    let profile = tempfile::tempdir().expect("profile");
    let out = chromium_cmd(view, profile.path())
        .arg("--virtual-time-budget=5000")
        .args(flags)
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Save a screenshot of `url` to `png`.
pub fn screenshot(url: &str, view: View, png: &Path) {
    let profile = tempfile::tempdir().expect("profile");
    let out = chromium_cmd(view, profile.path())
        .arg("--virtual-time-budget=5000")
        .arg(format!("--screenshot={}", png.display()))
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success() && png.is_file(),
        "no screenshot of {url}"
    );
}

/// A script that records what a page did: console errors, uncaught errors,
/// CSP violations, dialogs, whether the page overflows horizontally, and
/// whether the search box sits on the menu's line.
/// Results land on `<html data-probe-…>` attributes, readable in `dump_dom`.
pub const PROBE_JS: &str = r#"(function () {
  var root = document.documentElement;
  function flag(name, value) {
    var prev = root.getAttribute("data-probe-" + name);
    root.setAttribute("data-probe-" + name, prev ? prev + " | " + value : value);
  }
  ["alert", "confirm", "prompt", "print"].forEach(function (f) {
    window[f] = function () { flag("dialog", f); };
  });
  var err = console.error;
  console.error = function () { flag("console", Array.prototype.join.call(arguments, " ")); return err.apply(console, arguments); };
  window.addEventListener("error", function (e) { flag("error", String(e.message || e.target && e.target.src)); }, true);
  document.addEventListener("securitypolicyviolation", function (e) { flag("csp", e.violatedDirective + " " + e.blockedURI); });
  window.addEventListener("load", function () {
    setTimeout(function () {
      var w = document.documentElement.clientWidth;
      var over = [];
      if (document.documentElement.scrollWidth > w + 1) over.push("page " + document.documentElement.scrollWidth + ">" + w);
      root.setAttribute("data-probe-overflow", over.join(", "));
      var nav = document.querySelector(".site-nav"), box = document.querySelector("form.search");
      if (nav && box) {
        var below = box.getBoundingClientRect().top >= nav.getBoundingClientRect().bottom - 1;
        root.setAttribute("data-probe-search-row", below ? "below the menu" : "the menu's");
      }
      root.setAttribute("data-probe-done", "1");
    }, 50);
  });
})();
"#;

/// Copy `site` to a new folder and load `probe.js` first in every page.
pub fn probed_copy(site: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (rel, bytes) in read_tree(site) {
        let dest = dir.path().join(&rel);
        std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
        let bytes = if rel.ends_with(".html") {
            let root = "../".repeat(rel.matches('/').count());
            let html = String::from_utf8_lossy(&bytes).replacen(
                "<head>",
                &format!("<head><script src=\"{root}static/probe.js\"></script>"),
                1,
            );
            html.into_bytes()
        } else {
            bytes
        };
        std::fs::write(dest, bytes).expect("write");
    }
    std::fs::write(dir.path().join("static/probe.js"), PROBE_JS).expect("probe");
    dir
}

/// The value of `data-probe-<name>` in a dumped DOM.
pub fn probe(dom: &str, name: &str) -> Option<String> {
    let key = format!("data-probe-{name}=\"");
    let start = dom.find(&key)? + key.len();
    let end = dom[start..].find('"')? + start;
    Some(dom[start..end].to_string())
}

/// Every internal link, anchor and asset of every page of `site` that
/// leads nowhere, as `ccwiki check` prints it (`page:line: target (why)`).
#[allow(dead_code)]
pub fn broken_links(site: &Path) -> Vec<String> {
    let opts = ccwiki::app::check::CheckOptions::default();
    match ccwiki::app::check::check_site(site, &opts) {
        Ok(report) => report.broken.iter().map(ToString::to_string).collect(),
        Err(e) => vec![e.to_string()],
    }
}

/// A file's digest, all of it: what is cached (as JSON) and its turns.
pub fn everything(
    d: &ccwiki::knowledge::extract::FileDigest,
    spill: &ccwiki::knowledge::spill::Spill,
) -> String {
    use ccwiki::knowledge::model::{Subagent, Turns};
    // Turns as they are, wherever they are kept and however they are cut.
    let held = |t: &Turns| Turns::from(spill.load(t).expect("turns read back"));
    let agent = |a: &Subagent| Subagent {
        turns: held(&a.turns),
        ..a.clone()
    };
    let turns: Vec<_> = d
        .parts
        .iter()
        .map(|p| {
            // What the digest makes from the turns, not serialized.
            let firsts = (&p.first_prompt, &p.first_answer, &p.last_answer);
            let agents = p.agents.iter().map(agent).collect::<Vec<_>>();
            (held(&p.turns), agents, firsts)
        })
        .collect();
    let subagent = d
        .subagent
        .as_ref()
        .map(|(parent, cwd, a)| (parent, cwd, agent(a)));
    let json = serde_json::to_string(d).expect("json");
    format!("{json}\n{turns:?}\n{subagent:?}")
}
