//! Nothing from a transcript or a memory file ever runs in a reader's browser.
//!
//! `tests/fixtures/hostile/` is a Claude Code data directory whose every
//! user-controlled string carries XSS payloads (in the spirit of the OWASP
//! filter-evasion cheat sheet). The tests build it and check the site three
//! ways:
//!
//! 1. statically: every HTML page and search shard is scanned for tags,
//!    attributes and URL schemes the site does not make itself;
//! 2. in headless Chromium: every page is loaded with a probe script that
//!    turns any dialog, console call, foreign script, event handler or
//!    dangerous element into a flag on `<html>`, once under the page's CSP
//!    and once with the CSP removed (so the markup itself is proven inert),
//!    and the search box is fed payload words;
//! 3. unit level: `ccwiki::output::markdown::render` of each payload alone,
//!    with line breaks reflowed and as typed.
//!
//! Names no portable file system accepts (`<img src=x onerror=alert(1)>.md`,
//! a project folder named `-srv-"><svg onload=alert(1)>`) are added to a
//! copy of the fixture at test time, so the repository stays checkout-able
//! everywhere.
//!
//! Needs Chromium for the browser test (`apt-get install chromium`, or set
//! `CCWIKI_CHROMIUM`).

#[path = "../common/mod.rs"]
mod common;
mod html;

use html::*;

use ccwiki::output::markdown::{render, Breaks};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const HTML_PAYLOADS: &[&str] = &[
    r#"<script>alert(1)</script>"#,
    r#"<img src=x onerror=alert(1)>"#,
    r#"<svg onload=alert(1)>"#,
    r#"<svg><script>alert(1)</script></svg>"#,
    r#"<iframe src="javascript:alert(1)"></iframe>"#,
    r#"<body onload=alert(1)>"#,
    r#"<a href="javascript:alert(1)">js link</a>"#,
    r#"<a href="JaVaScRiPt:alert(1)">mixed case</a>"#,
    r#"<a href="java&#x09;script:alert(1)">tab entity</a>"#,
    r#"<a href="&#106;avascript:alert(1)">decimal entity</a>"#,
    r#"<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">hex entities</a>"#,
    r#""><script>alert(1)</script>"#,
    r#"'-alert(1)-'"#,
    r#"" onmouseover="alert(1)"#,
    r#"' onmouseover='alert(1)"#,
    r#"<math><mtext></mtext><mglyph><style><img src=x onerror=alert(1)>"#,
    r#"<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data uri</a>"#,
    r#"<a href="vbscript:msgbox(1)">vbscript</a>"#,
    r#"<meta http-equiv="refresh" content="0;url=javascript:alert(1)">"#,
    r#"<base href="javascript:alert(1)//">"#,
    r#"<style>@import 'javascript:alert(1)';</style>"#,
    r#"<object data="javascript:alert(1)"></object>"#,
    r#"<embed src="javascript:alert(1)">"#,
    r#"<form action="javascript:alert(1)"><button formaction="javascript:alert(1)">go</button></form>"#,
    r#"<input autofocus onfocus=alert(1)>"#,
    r#"<details open ontoggle=alert(1)>"#,
    r#"<IMG SRC=JaVaScRiPt:alert(1)>"#,
    r#"<IMG """><SCRIPT>alert(1)</SCRIPT>">"#,
    r#"<<script>alert(1)//<</script>"#,
    r#"<scr<script>ipt>alert(1)</scr</script>ipt>"#,
    r#"<!--<img src="--><img src=x onerror=alert(1)//">"#,
    r#"</title><script>alert(1)</script>"#,
    r#"</textarea><script>alert(1)</script>"#,
    r#"<noscript><p title="</noscript><img src=x onerror=alert(1)>">"#,
    r#"<svg><animate onbegin=alert(1) attributeName=x dur=1s>"#,
    r#"<a href=" &#14;  javascript:alert(1)">control char</a>"#,
    r#"<div style="background:url(javascript:alert(1))">css url</div>"#,
    r#"<link rel=import href="data:text/html,<script>alert(1)</script>">"#,
    r#"<template><script>alert(1)</script></template>"#,
    r#"<x onclick=alert(1)>custom element</x>"#,
];
const MARKDOWN_PAYLOADS: &[&str] = &[
    r#"[md link](javascript:alert(1))"#,
    r#"[md angle](<javascript:alert(1)>)"#,
    r#"![md image](javascript:alert(1))"#,
    "[md ref][r]\n\n[r]: javascript:alert(1)",
    r#"<javascript:alert(1)>"#,
    r#"[md case](JaVaScRiPt:alert(1))"#,
    "[md tab](<java\tscript:alert(1)>)",
    r#"[md entity](&#106;avascript:alert(1))"#,
    r#"[md colon](javascript&colon;alert(1))"#,
    r#"[md data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"#,
    r#"[md vbscript](vbscript:msgbox(1))"#,
    r#"[md title](#ok "\" onmouseover=\"alert(1)")"#,
    r#"[md quote](<a" onmouseover="alert(1)>)"#,
    r#"![<img src=x onerror=alert(1)>](#img)"#,
    r#"# <img src=x onerror=alert(1)> heading"#,
    "<div>\n<script>alert(1)</script>\n</div>",
    r#"`<script>alert(1)</script>` in a code span"#,
    "```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```",
    "```\"><script>alert(1)</script>\nfence with a hostile info string\n```",
    "| <img src=x onerror=alert(1)> | b |\n|---|---|\n| <script>alert(1)</script> | <svg onload=alert(1)> |",
    r#"- [ ] <svg onload=alert(1)> task"#,
    r#"> <iframe src="javascript:alert(1)"></iframe> quoted"#,
    r#"*<img src=x onerror=alert(1)>* emphasis"#,
    r#"[<script>alert(1)</script>](#x) link text"#,
    r#"&lt;script&gt;alert(1)&lt;/script&gt; entities"#,
    r#"[md backslash](javascript\:alert(1))"#,
    r#"[md spaces](  javascript:alert(1)  )"#,
    r#"[md nested [brackets]](javascript:alert(1))"#,
    "[md ref title][r2]\n\n[r2]: <javascript:alert(1)> \"title\"",
    r#"<JAVASCRIPT:alert(1)>"#,
    r#"[md internal](@/javascript:alert(1))"#,
];

/// Every payload, HTML first.
fn all_payloads() -> Vec<&'static str> {
    HTML_PAYLOADS
        .iter()
        .chain(MARKDOWN_PAYLOADS)
        .copied()
        .collect()
}

// ---------------------------------------------------------------- fixture

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Write `text` to `dir/rel`; false if the file system refuses the name.
fn try_write(dir: &Path, rel: &[&str], text: &str) -> bool {
    let mut p = dir.to_path_buf();
    for part in rel {
        p.push(part);
    }
    let ok = p
        .parent()
        .map(|d| std::fs::create_dir_all(d).is_ok())
        .unwrap_or(false)
        && std::fs::write(&p, text).is_ok();
    if !ok {
        eprintln!("note: this file system refuses {rel:?}; that case is not covered here");
    }
    ok
}

/// The fixture, plus files whose very names are payloads.
fn hostile_source(tmp: &Path) -> PathBuf {
    let src = tmp.join("source");
    copy_dir(&fixture(), &src);
    let body = all_payloads().join("\n\n");
    // Memory files named after payloads: no frontmatter, so the file name is
    // the memory's name, slug and source path.
    try_write(
        &src,
        &[
            "projects",
            "-srv-xss-lab",
            "memory",
            "<img src=x onerror=alert(1)>.md",
        ],
        &body,
    );
    try_write(
        &src,
        &[
            "projects",
            "-srv-xss-lab",
            "memory",
            "\"><svg onload=alert(1)>.md",
        ],
        &format!("---\ntype: feedback\n---\n\n{body}\n\n**Why:** <script>alert(1)</script>\n"),
    );
    // A project folder named after a payload, with no `cwd` anywhere: its
    // path and name come from the folder name itself.
    let dir = "-srv-\"><svg onload=alert(1)>";
    let line = |kind: &str, minute: u32, message: String| {
        format!(
            r#"{{"type":"{kind}","uuid":"x-{minute}","timestamp":"2026-03-05T08:{minute:02}:00Z","message":{message}}}"#
        )
    };
    let prompt = serde_json::to_string(&body).unwrap();
    let transcript = [
        line("user", 0, format!(r#"{{"role":"user","content":{prompt}}}"#)),
        line(
            "assistant",
            1,
            format!(
                r#"{{"id":"m1","role":"assistant","model":"m","content":[{{"type":"text","text":{prompt}}}]}}"#
            ),
        ),
    ]
    .join("\n");
    try_write(
        &src,
        &["projects", dir, "<img src=x onerror=alert(1)>.jsonl"],
        &transcript,
    );
    try_write(
        &src,
        &["projects", dir, "memory", "MEMORY.md"],
        "- [<script>alert(1)</script>](<img src=x onerror=alert(1)>.md) — <svg onload=alert(1)>\n",
    );
    try_write(
        &src,
        &["projects", dir, "memory", "<img src=x onerror=alert(1)>.md"],
        &format!("---\nname: <svg onload=alert(1)>\ntype: user\n---\n\n{body}\n"),
    );
    src
}

/// Build the hostile fixture into `tmp/site`.
fn build_site(tmp: &Path) -> (PathBuf, ccwiki::BuildReport) {
    let src = hostile_source(tmp);
    let out = tmp.join("site");
    let report = ccwiki::build(&common::options(vec![src], out.clone()))
        .expect("the hostile fixture builds");
    (out, report)
}

/// Every file under `dir`, as paths relative to it with `/` separators.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                walk(base, &entry.path(), out);
            } else {
                let rel = entry.path().strip_prefix(base).unwrap().to_path_buf();
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The page's relative path back to the site root: `""`, `"../"`, …
fn root_of(rel: &str) -> String {
    // The 404 page is served at any address: its links start at the
    // served root (the default base path, `/`).
    if rel == "404.html" {
        return "/".to_string();
    }
    "../".repeat(rel.matches('/').count())
}

// ---------------------------------------------------------------- a. static scan

#[test]
fn every_output_file_is_inert() {
    let tmp = tempfile::tempdir().unwrap();
    let (site, report) = build_site(tmp.path());
    // The payloads reached the site: otherwise the checks below prove nothing.
    // (Counts of the committed fixture alone; the hostile file names add more.)
    assert!(report.projects >= 3, "projects: {report:?}");
    assert!(report.sessions >= 4, "sessions: {report:?}");
    assert!(report.memories >= 7, "memories: {report:?}");
    assert!(report.subagents >= 2, "sub-agents: {report:?}");

    let files = files_under(&site);
    let all: BTreeSet<String> = files.iter().cloned().collect();
    let mut problems = Vec::new();
    let mut text = String::new();
    let mut pages = 0;
    let mut shards = 0;
    let mut shard_text = String::new();
    for rel in &files {
        let bytes = std::fs::read(site.join(rel)).unwrap();
        let body = String::from_utf8_lossy(&bytes);
        if rel.ends_with(".html") {
            pages += 1;
            let (p, tags) = page_problems(rel, &body);
            problems.extend(p);
            text.push_str(&visible_text(&body, &tags));
            text.push('\n');
        } else if rel.starts_with("search/") && rel.ends_with(".js") {
            shards += 1;
            problems.extend(shard_problems(rel, &body, &all));
            shard_text.push_str(&body);
        } else if matches!(
            rel.as_str(),
            "static/style.css" | "static/search.js" | ".ccwiki"
        ) {
            if body.contains("alert(1)") {
                problems.push(format!("{rel}: content reached a static file"));
            }
        } else {
            problems.push(format!("{rel}: an output file of an unexpected kind"));
        }
    }
    assert!(pages >= 20, "only {pages} pages");
    assert!(shards >= 2, "only {shards} search files");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Payloads are shown as text, not dropped: the fixture really was hostile.
    let missing: Vec<&&str> = HTML_PAYLOADS
        .iter()
        .filter(|p| !text.contains(**p))
        .collect();
    assert!(
        missing.is_empty(),
        "payloads not shown as text anywhere: {missing:#?}"
    );
    for needle in [
        "onerror=alert(1)",
        "<script>alert(1)</script>",
        "javascript:alert(1)",
    ] {
        // Held, escaped: no raw markup characters in a script file.
        let json = ccwiki::base::text::json_for_script(&serde_json::to_string(needle).unwrap());
        assert!(
            shard_text.contains(json.trim_matches('"')),
            "the search index never holds {needle:?}"
        );
        if needle.contains('<') {
            assert!(
                !shard_text.contains(needle),
                "the search index holds raw {needle:?}"
            );
        }
    }
}

/// The static checks are not vacuous: each kind of hole in a real page is
/// reported, and the page as built is not.
#[test]
fn static_checks_catch_planted_holes() {
    let tmp = tempfile::tempdir().unwrap();
    let (site, _) = build_site(tmp.path());
    let page = std::fs::read_to_string(site.join("index.html")).unwrap();
    let (clean, _) = page_problems("index.html", &page);
    assert!(clean.is_empty(), "{clean:?}");
    let at = page.find("</main>").expect("a <main>");
    for hole in [
        "<img src=x onerror=alert(1)>",
        "<script>alert(1)</script>",
        r#"<script src="static/search.js" defer></script>"#,
        r#"<a href="javascript:alert(1)">x</a>"#,
        r#"<a href=" JaVaScRiPt:alert(1)">x</a>"#,
        r#"<a href="java&#x09;script:alert(1)">x</a>"#,
        r#"<a href="&#106avascript:alert(1)">x</a>"#,
        r#"<a href="javascript&colon;alert(1)">x</a>"#,
        r#"<a href="data:text/html,x">x</a>"#,
        r#"<a href="vbscript:x">x</a>"#,
        r#"<p title="x" onmouseover="alert(1)">x</p>"#,
        r#"<p title="x"onmouseover="alert(1)">x</p>"#,
        r#"<p/onmouseover="alert(1)">x</p>"#,
        r##"<a href="#" "onclick"="x">x</a>"##,
        "<p class=x>x</p>",
        r#"<p style="color:red">x</p>"#,
        "<svg></svg>",
        "<iframe></iframe>",
        "<math></math>",
        r#"<base href="x">"#,
        r#"<meta http-equiv="refresh" content="0;url=x">"#,
        "<style></style>",
        r#"<form class="x" action="index.html"></form>"#,
        r#"<link rel="import" href="x">"#,
        r#"<input type="text" id="x">"#,
        "<!-- x -->",
        "< img>",
        "<x-foo>x</x-foo>",
    ] {
        let mut bad = page.clone();
        bad.insert_str(at, hole);
        let (p, _) = page_problems("index.html", &bad);
        assert!(!p.is_empty(), "not caught: {hole}");
    }
    let (tags, _) = scan(&page);
    let csp = tags
        .iter()
        .find(|t| t.attr("http-equiv").is_some())
        .expect("a CSP meta tag");
    let mut no_csp = page.clone();
    no_csp.replace_range(csp.start..csp.end, "");
    assert!(
        !page_problems("index.html", &no_csp).0.is_empty(),
        "a missing CSP is not caught"
    );

    let all: BTreeSet<String> = files_under(&site).into_iter().collect();
    let shard = std::fs::read_to_string(site.join("search/knowledge.js")).unwrap();
    assert!(shard_problems("search/knowledge.js", &shard, &all).is_empty());
    for bad in [
        format!("{shard}alert(1);\n"),
        "ccwikiSearch.add([]);alert(1);\n".to_string(),
        "ccwikiSearch.add([alert(1)]);\n".to_string(),
        r#"ccwikiSearch.add([{"u":"javascript:alert(1)"}]);"#.to_string(),
        r#"ccwikiSearch.shards(["../x"]);"#.to_string(),
        "alert(1)".to_string(),
    ] {
        assert!(
            !shard_problems("search/x.js", &bad, &all).is_empty(),
            "not caught: {bad}"
        );
    }
}

// ---------------------------------------------------------------- c. markdown unit check

#[test]
fn markdown_of_each_payload_is_inert() {
    let mut problems = Vec::new();
    let mut inputs: Vec<String> = Vec::new();
    for p in all_payloads() {
        inputs.push(p.to_string());
        inputs.push(format!("text before {p} text after"));
        inputs.push(format!("- item\n\n  {p}"));
        inputs.push(format!("> {p}"));
    }
    inputs.push(all_payloads().join("\n\n"));
    inputs.push(all_payloads().join("\n"));
    for input in &inputs {
        for (root, breaks) in ["", "../../"]
            .into_iter()
            .flat_map(|root| [(root, Breaks::Reflow), (root, Breaks::AsTyped)])
        {
            let html = render(input, root, breaks);
            let (tags, mut p) = scan(&html);
            for t in &tags {
                if t.closing {
                    if !MARKDOWN_TAGS.contains(&t.name.as_str()) {
                        p.push(format!("closing tag </{}>", t.name));
                    }
                    continue;
                }
                p.extend(tag_problems(
                    t,
                    MARKDOWN_TAGS,
                    &[
                        "href", "title", "class", "type", "disabled", "checked", "start", "style",
                    ],
                ));
                if t.name == "input" && t.attr("type") != Some("checkbox") {
                    p.push("an input that is not a task-list checkbox".to_string());
                }
                let highlight = t
                    .attr("class")
                    .is_some_and(|c| c.split(' ').all(|w| w.starts_with("hl-")));
                if t.name == "span" && (!highlight || t.attrs.len() != 1) {
                    p.push("a span that is not the highlighter's".to_string());
                }
            }
            let lower = html.to_ascii_lowercase();
            for raw in [
                "<script",
                "<img",
                "<svg",
                "<iframe",
                "<body",
                "<math",
                "<meta",
                "<base",
                "<style",
                "<object",
                "<embed",
                "<form",
                "<button",
                "<details",
                "<noscript",
                "<template",
                "<link",
                "<x ",
                "<div",
                "<title",
                "<textarea",
                "<mglyph",
                "<mtext",
                "<animate",
                "<scr",
                "<!--",
                "</script",
                "</title",
                "</textarea",
                "</noscript",
            ] {
                if lower.contains(raw) {
                    p.push(format!("raw {raw}"));
                }
            }
            if !p.is_empty() {
                problems.push(format!(
                    "{input:?} (root {root:?}) -> {html:?}:\n    {}",
                    p.join("\n    ")
                ));
            }
        }
    }
    // Raw HTML is kept as text, verbatim.
    for p in HTML_PAYLOADS {
        for breaks in [Breaks::Reflow, Breaks::AsTyped] {
            let html = render(p, "", breaks);
            let (tags, _) = scan(&html);
            let text = visible_text(&html, &tags);
            if !text.contains(p) {
                problems.push(format!("{p:?} is not shown verbatim: {html:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------- b. the browser

/// Loaded first on every page: turns anything that runs, or could run, into
/// `data-pwned` on `<html>` with the reasons in `data-pwned-why`.
const PROBE_JS: &str = r#"(function () {
  "use strict";
  var root = document.documentElement;
  root.setAttribute("data-probe", "ready");
  var seen = {};
  function pwn(why) {
    why = String(why).slice(0, 200);
    root.setAttribute("data-pwned", "1");
    if (seen[why]) return;
    seen[why] = 1;
    var log = root.getAttribute("data-pwned-why") || "";
    if (log.length < 4000) root.setAttribute("data-pwned-why", log + why + " | ");
  }
  // The scheme a browser would use for a URL attribute, after resolving it.
  function scheme(value) {
    try { return new URL(value, document.baseURI).protocol; } catch (e) { return ""; }
  }
  ["alert", "confirm", "prompt", "print", "open"].forEach(function (n) {
    try {
      window[n] = function () { pwn("window." + n + "(" + Array.prototype.join.call(arguments, ",") + ")"); };
    } catch (e) { pwn("cannot hook " + n); }
  });
  ["log", "info", "warn", "error", "debug", "trace", "dir", "table"].forEach(function (n) {
    try {
      console[n] = function () { pwn("console." + n + "(" + Array.prototype.join.call(arguments, ",") + ")"); };
    } catch (e) { pwn("cannot hook console." + n); }
  });
  var me = document.currentScript;
  var base = me.src.replace(/static\/probe\.js$/, "");
  function ownScript(s) {
    if (s === me) return true;
    if (!s.hasAttribute("src") || s.textContent.trim() !== "") return false;
    var src = s.src;
    // The 404 page loads the site's script from the served root.
    var top = new URL("/", location.href).href;
    var from = src.indexOf(base) === 0 ? base : (/\/404\.html$/.test(location.pathname) ? top : null);
    if (from === null || src.indexOf(from) !== 0) return false;
    var rel = src.slice(from.length);
    return rel === "static/search.js" || /^search\/[a-z0-9-]+\.js$/.test(rel);
  }
  var BAD = { iframe: 1, frame: 1, frameset: 1, object: 1, embed: 1, applet: 1, svg: 1, math: 1,
              base: 1, style: 1, img: 1, video: 1, audio: 1, button: 1, textarea: 1, template: 1,
              noscript: 1, portal: 1 };
  var URLS = { href: 1, src: 1, action: 1, formaction: 1, data: 1, poster: 1, background: 1,
               "xlink:href": 1, srcdoc: 1, ping: 1 };
  function inspect(el) {
    if (!el || el.nodeType !== 1) return;
    var tag = el.localName;
    if (tag === "script" && !ownScript(el)) pwn("foreign script " + el.outerHTML);
    // The usage page's charts are an <svg class="chart"> drawn at build time.
    var chart = tag === "svg" && el.getAttribute("class") === "chart";
    if (BAD[tag] && !chart) pwn("element <" + tag + ">");
    if (tag === "meta" && el.hasAttribute("http-equiv") &&
        !/^content-security-policy$/i.test(el.getAttribute("http-equiv"))) pwn("meta " + el.outerHTML);
    if (tag === "form" && !el.classList.contains("search")) pwn("foreign form");
    if (tag === "link" && !(el.rel === "stylesheet" && /static\/style\.css$/.test(el.href))) pwn("link " + el.outerHTML);
    for (var i = 0; i < el.attributes.length; i++) {
      var a = el.attributes[i];
      var name = a.name.toLowerCase();
      if (name.indexOf("on") === 0) pwn("handler " + name + " on <" + tag + ">");
      if (name === "style") pwn("style attribute on <" + tag + ">");
      if (URLS[name] && /^(javascript|vbscript|data):$/.test(scheme(a.value))) {
        pwn(name + "=" + a.value + " on <" + tag + ">");
      }
    }
  }
  function walk(node) {
    inspect(node);
    if (node && node.querySelectorAll) Array.prototype.forEach.call(node.querySelectorAll("*"), inspect);
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.type === "attributes") inspect(r.target);
      Array.prototype.forEach.call(r.addedNodes || [], walk);
    });
  }).observe(document, { childList: true, subtree: true, attributes: true });
  document.addEventListener("securitypolicyviolation", function (e) {
    pwn("CSP blocked " + e.effectiveDirective + " " + e.blockedURI + " " + e.sample);
  });
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.scripts, function (s) {
      if (!ownScript(s)) pwn("foreign script at DOMContentLoaded " + s.outerHTML);
    });
    walk(document.documentElement);
    root.setAttribute("data-probe-dom", "1");
  });
  window.addEventListener("load", function () {
    walk(document.documentElement);
    root.setAttribute("data-probe-done", "1");
  });
})();
"#;

/// Dump every URL, four at a time.
fn dump_all(urls: &[String]) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<String>>> = Mutex::new(vec![None; urls.len()]);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(url) = urls.get(i) else { break };
                let dom = common::dump_dom(url, common::DESKTOP);
                results.lock().unwrap()[i] = Some(dom);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|d| d.expect("every URL was dumped"))
        .collect()
}

/// Copy the site for the browser: the probe goes first in every `<head>`;
/// with `keep_csp` false the Content-Security-Policy meta tag is removed.
fn probed_copy(site: &Path, dest: &Path, keep_csp: bool) -> Vec<String> {
    copy_dir(site, dest);
    std::fs::write(dest.join("static/probe.js"), PROBE_JS).unwrap();
    let mut pages = Vec::new();
    for rel in files_under(dest) {
        if !rel.ends_with(".html") {
            continue;
        }
        let path = dest.join(&rel);
        let mut html = std::fs::read_to_string(&path).unwrap();
        if !keep_csp {
            let (tags, _) = scan(&html);
            let csp = tags
                .iter()
                .find(|t| {
                    t.name == "meta"
                        && t.attr("http-equiv")
                            .is_some_and(|v| v.eq_ignore_ascii_case("content-security-policy"))
                })
                .unwrap_or_else(|| panic!("{rel} has no CSP meta tag"));
            html.replace_range(csp.start..csp.end, "");
        }
        let head = html
            .find("<head>")
            .unwrap_or_else(|| panic!("{rel} has no <head>"))
            + "<head>".len();
        // Relative even on the 404 page: the copy is opened from disk.
        let up = "../".repeat(rel.matches('/').count());
        let probe = format!("<script src=\"{up}static/probe.js\"></script>");
        html.insert_str(head, &probe);
        std::fs::write(&path, html).unwrap();
        pages.push(rel);
    }
    pages
}

fn attr_of(dom: &str, name: &str) -> Option<String> {
    let (tags, _) = scan(dom);
    tags.into_iter()
        .find(|t| t.name == "html" && !t.closing)
        .and_then(|t| t.attr(name).map(str::to_string))
}

fn file_url(dir: &Path, rel: &str) -> String {
    format!("file://{}/{rel}", dir.display())
}

/// Percent-encode a query value.
fn query(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The search panel of a dumped page, from its opening tag to its end.
fn results_panel(dom: &str) -> Option<&str> {
    let (tags, _) = scan(dom);
    let open = tags
        .iter()
        .position(|t| !t.closing && t.name == "div" && t.attr("class") == Some("search-results"))?;
    let mut depth = 0;
    for t in &tags[open..] {
        if t.name == "div" {
            depth += if t.closing { -1 } else { 1 };
            if depth == 0 {
                return Some(&dom[tags[open].start..t.end]);
            }
        }
    }
    None
}

#[test]
fn no_page_runs_anything_in_chromium() {
    if !common::has_chromium() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (site, _) = build_site(tmp.path());
    let with_csp = tmp.path().join("with-csp");
    let without_csp = tmp.path().join("without-csp");
    let pages = probed_copy(&site, &with_csp, true);
    let pages2 = probed_copy(&site, &without_csp, false);
    assert_eq!(pages, pages2);
    assert!(pages.len() >= 20, "only {} pages", pages.len());

    // Canaries: the probe does catch what it is meant to catch.
    std::fs::write(
        without_csp.join("canary.html"),
        "<!doctype html><html><head><script src=\"static/probe.js\"></script></head><body><img src=x onerror=alert(1)></body></html>",
    )
    .unwrap();
    std::fs::write(
        with_csp.join("canary.html"),
        "<!doctype html><html><head><script src=\"static/probe.js\"></script><meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'self'\"></head><body><p>x</p><script>alert(1)</script></body></html>",
    )
    .unwrap();

    let mut urls = Vec::new();
    let mut labels = Vec::new();
    for (dir, label) in [(&with_csp, "with CSP"), (&without_csp, "without CSP")] {
        for rel in &pages {
            urls.push(file_url(dir, rel));
            labels.push(format!("{rel} ({label})"));
        }
    }
    let queries = [
        "onerror",
        "script",
        "alert",
        "javascript",
        "<img src=x onerror=alert(1)>",
        "\"><script>alert(1)</script>",
        "' onmouseover='alert(1)",
    ];
    let first_query = urls.len();
    // Every query without the CSP; a few with it, and one from a deep page.
    let mut searches: Vec<(&Path, &str, &str, &str)> = queries
        .iter()
        .map(|q| (without_csp.as_path(), "without CSP", "index.html", *q))
        .collect();
    searches.extend(
        queries[..3]
            .iter()
            .map(|q| (with_csp.as_path(), "with CSP", "index.html", *q)),
    );
    let deep = pages
        .iter()
        .find(|p| p.starts_with("sessions/") && p.matches('/').count() == 2)
        .expect("a session page");
    searches.push((
        without_csp.as_path(),
        "without CSP",
        deep.as_str(),
        queries[4],
    ));
    for (dir, label, page, q) in searches {
        urls.push(format!("{}?q={}", file_url(dir, page), query(q)));
        labels.push(format!("{page}?q={q:?} ({label})"));
    }
    let query_count = urls.len() - first_query;
    urls.push(file_url(&without_csp, "canary.html"));
    urls.push(file_url(&with_csp, "canary.html"));

    let doms = dump_all(&urls);
    let n = doms.len();
    for (dom, what) in doms[n - 2..].iter().zip(["without CSP", "with CSP"]) {
        assert_eq!(
            attr_of(dom, "data-pwned").as_deref(),
            Some("1"),
            "the probe missed the canary ({what}): {dom}"
        );
    }

    let mut problems = Vec::new();
    for (k, (dom, label)) in doms[..n - 2].iter().zip(&labels).enumerate() {
        if attr_of(dom, "data-probe").as_deref() != Some("ready") {
            problems.push(format!("{label}: the probe did not run"));
            continue;
        }
        if attr_of(dom, "data-probe-done").as_deref() != Some("1") {
            problems.push(format!("{label}: the page did not finish loading"));
        }
        if attr_of(dom, "data-pwned").is_some() {
            problems.push(format!(
                "{label}: PWNED: {}",
                attr_of(dom, "data-pwned-why").unwrap_or_default()
            ));
        }
        if k >= first_query && k < first_query + query_count {
            let Some(panel) = results_panel(dom) else {
                problems.push(format!("{label}: no search results panel"));
                continue;
            };
            let (tags, scan_problems) = scan(panel);
            problems.extend(scan_problems.into_iter().map(|p| format!("{label}: {p}")));
            let mut titles = 0;
            let mut marks = 0;
            for t in tags.iter().filter(|t| !t.closing) {
                if !["div", "p", "ol", "li", "a", "mark"].contains(&t.name.as_str()) {
                    problems.push(format!("{label}: <{}> in the results panel", t.name));
                }
                for name in t.attr_names() {
                    if !["class", "id", "href", "role", "hidden"].contains(&name) {
                        problems.push(format!("{label}: attribute {name} in the results panel"));
                    }
                }
                if t.name == "mark" {
                    marks += 1;
                }
                if t.name == "a" {
                    let href = t.attr("href").unwrap_or("");
                    if !href.starts_with("file://")
                        || url_problem(href.trim_start_matches("file://")).is_some()
                    {
                        problems.push(format!("{label}: result link {href:?}"));
                    }
                    if t.attr("class") == Some("result-title") {
                        titles += 1;
                    }
                }
            }
            // Words and payloads alike find pages: the payloads are in the index as text.
            if titles == 0 || marks == 0 {
                problems.push(format!(
                    "{label}: no result-title links or no <mark>: {panel}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
