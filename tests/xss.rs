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
//! 3. unit level: `ccwiki::output::markdown::render` of each payload alone.
//!
//! Names no portable file system accepts (`<img src=x onerror=alert(1)>.md`,
//! a project folder named `-srv-"><svg onload=alert(1)>`) are added to a
//! copy of the fixture at test time, so the repository stays checkout-able
//! everywhere.
//!
//! Needs Chromium for the browser test (`apt-get install chromium`, or set
//! `CCWIKI_CHROMIUM`).

mod common;

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
    "../".repeat(rel.matches('/').count())
}

// ---------------------------------------------------------------- a rough HTML tokenizer

/// One tag of a page.
#[derive(Debug)]
struct Tag {
    /// Lower-cased element name.
    name: String,
    closing: bool,
    /// Lower-cased attribute names, values with entities decoded.
    attrs: Vec<(String, Option<String>)>,
    /// Byte range of the tag in the page.
    start: usize,
    end: usize,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    fn has(&self, name: &str) -> bool {
        self.attrs.iter().any(|(n, _)| n == name)
    }

    fn attr_names(&self) -> Vec<&str> {
        self.attrs.iter().map(|(n, _)| n.as_str()).collect()
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// The tags of `html`, and everything that does not look like what an
/// HTML-escaping generator makes: a `<` that opens no tag, a comment, an
/// unquoted or unterminated attribute value, an odd attribute name.
fn scan(html: &str) -> (Vec<Tag>, Vec<String>) {
    let b = html.as_bytes();
    let mut tags = Vec::new();
    let mut problems = Vec::new();
    let mut i = 0;
    let snippet = |at: usize| -> String {
        let end = (at + 80).min(html.len());
        let mut e = end;
        while !html.is_char_boundary(e) {
            e -= 1;
        }
        html[at..e].to_string()
    };
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let start = i;
        if i == 0 && html.len() >= 15 && html[..15].eq_ignore_ascii_case("<!doctype html>") {
            i = 15;
            continue;
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let name_at = if closing { i + 2 } else { i + 1 };
        if !b.get(name_at).is_some_and(|c| c.is_ascii_alphabetic()) {
            problems.push(format!(
                "'<' that opens no tag at byte {i}: {:?}",
                snippet(i)
            ));
            i += 1;
            continue;
        }
        let mut j = name_at;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
            j += 1;
        }
        let name = html[name_at..j].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut ok = true;
        loop {
            while j < b.len() && (is_space(b[j]) || b[j] == b'/') {
                j += 1;
            }
            if j >= b.len() {
                problems.push(format!(
                    "unterminated tag at byte {start}: {:?}",
                    snippet(start)
                ));
                ok = false;
                break;
            }
            if b[j] == b'>' {
                j += 1;
                break;
            }
            let n0 = j;
            // A name may start with any character, even '=', in a browser.
            j += html[j..].chars().next().map_or(1, char::len_utf8);
            while j < b.len() && !is_space(b[j]) && !matches!(b[j], b'/' | b'>' | b'=') {
                j += 1;
            }
            let attr = html[n0..j].to_ascii_lowercase();
            let good_name = attr.as_bytes()[0].is_ascii_lowercase()
                && attr.bytes().all(|c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b':'
                });
            if !good_name {
                problems.push(format!(
                    "odd attribute name {attr:?} in <{name}>: {:?}",
                    snippet(start)
                ));
            }
            while j < b.len() && is_space(b[j]) {
                j += 1;
            }
            let mut value = None;
            if j < b.len() && b[j] == b'=' {
                j += 1;
                while j < b.len() && is_space(b[j]) {
                    j += 1;
                }
                match b.get(j) {
                    Some(&q) if q == b'"' || q == b'\'' => match html[j + 1..].find(q as char) {
                        Some(len) => {
                            value = Some(decode_entities(&html[j + 1..j + 1 + len]));
                            j += len + 2;
                        }
                        None => {
                            problems.push(format!(
                                "unterminated attribute value in <{name}>: {:?}",
                                snippet(start)
                            ));
                            ok = false;
                            break;
                        }
                    },
                    _ => {
                        let v0 = j;
                        while j < b.len() && !is_space(b[j]) && b[j] != b'>' {
                            j += 1;
                        }
                        problems.push(format!(
                            "unquoted attribute value {:?} in <{name}>: {:?}",
                            &html[v0..j],
                            snippet(start)
                        ));
                        value = Some(decode_entities(&html[v0..j]));
                    }
                }
            }
            attrs.push((attr, value));
        }
        if !ok {
            break;
        }
        tags.push(Tag {
            name,
            closing,
            attrs,
            start,
            end: j,
        });
        i = j;
    }
    (tags, problems)
}

/// Decode character references the way a browser does in an attribute:
/// numeric ones with or without `;`, and the named ones that matter here.
fn decode_entities(s: &str) -> String {
    const NAMED: &[(&str, char)] = &[
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&quot;", '"'),
        ("&apos;", '\''),
        ("&colon;", ':'),
        ("&tab;", '\t'),
        ("&newline;", '\n'),
        ("&nbsp;", '\u{a0}'),
        ("&sol;", '/'),
        ("&lpar;", '('),
        ("&rpar;", ')'),
        ("&period;", '.'),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let b = rest.as_bytes();
        if b.get(1) == Some(&b'#') {
            let hex = matches!(b.get(2), Some(b'x' | b'X'));
            let from = if hex { 3 } else { 2 };
            let digits = rest[from..]
                .bytes()
                .take_while(|c| {
                    if hex {
                        c.is_ascii_hexdigit()
                    } else {
                        c.is_ascii_digit()
                    }
                })
                .count();
            if digits > 0 {
                let n = u32::from_str_radix(&rest[from..from + digits], if hex { 16 } else { 10 });
                out.push(n.ok().and_then(char::from_u32).unwrap_or('\u{fffd}'));
                let mut len = from + digits;
                if b.get(len) == Some(&b';') {
                    len += 1;
                }
                rest = &rest[len..];
                continue;
            }
        }
        let mut e = rest.len().min(12);
        while !rest.is_char_boundary(e) {
            e -= 1;
        }
        let lower = rest[..e].to_ascii_lowercase();
        match NAMED.iter().find(|(n, _)| lower.starts_with(n)) {
            Some((n, c)) => {
                out.push(*c);
                rest = &rest[n.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Why a URL attribute value is dangerous, if it is.
fn url_problem(value: &str) -> Option<String> {
    let cleaned: String = decode_entities(value)
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    for bad in ["javascript:", "vbscript:", "data:"] {
        if cleaned.contains(bad) {
            return Some(format!("{bad} in {value:?}"));
        }
    }
    if let Some(i) = cleaned.find([':', '/', '?', '#']) {
        if cleaned.as_bytes()[i] == b':' {
            let scheme = &cleaned[..i];
            if !matches!(scheme, "http" | "https" | "mailto") {
                return Some(format!("scheme {scheme:?} in {value:?}"));
            }
        }
    }
    None
}

/// The text a reader sees: tags removed, character references decoded.
fn visible_text(html: &str, tags: &[Tag]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for t in tags {
        out.push_str(&decode_entities(&html[at..t.start]));
        out.push(' ');
        at = t.end;
    }
    out.push_str(&decode_entities(&html[at..]));
    out
}

/// Elements a generated page may contain: the templates' and what
/// pulldown-cmark makes of Markdown (images become links).
const PAGE_TAGS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "link",
    "script",
    "body",
    "header",
    "nav",
    "main",
    "footer",
    "section",
    "article",
    "aside",
    "div",
    "span",
    "p",
    "a",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "form",
    "label",
    "input",
    "details",
    "summary",
    "time",
    "code",
    "pre",
    "em",
    "strong",
    "del",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
    "mark",
];

/// Elements Markdown from content may produce.
const MARKDOWN_TAGS: &[&str] = &[
    "p",
    "a",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "code",
    "pre",
    "em",
    "strong",
    "del",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
    "input",
];

/// Attributes a generated page may carry (plus `aria-*`).
const PAGE_ATTRS: &[&str] = &[
    "action",
    "autocomplete",
    "charset",
    "class",
    "content",
    "data-first",
    "defer",
    "disabled",
    "checked",
    "for",
    "href",
    "http-equiv",
    "id",
    "lang",
    "name",
    "placeholder",
    "rel",
    "role",
    "spellcheck",
    "src",
    "title",
    "type",
    "start",
    "style",
    "datetime",
    "hidden",
    "open",
];

/// Elements that must never appear, named for clearer failures.
const FORBIDDEN_TAGS: &[&str] = &[
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "svg",
    "math",
    "base",
    "style",
    "template",
    "noscript",
    "textarea",
    "button",
    "img",
    "video",
    "audio",
    "source",
    "animate",
    "set",
    "mglyph",
    "mtext",
    "foreignobject",
    "portal",
    "xmp",
    "plaintext",
    "noembed",
    "marquee",
    "isindex",
    "body-onload",
];

/// Attributes whose value is loaded or navigated to.
const URL_ATTRS: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "xlink:href",
    "cite",
    "srcset",
    "ping",
    "codebase",
    "longdesc",
    "manifest",
    "lowsrc",
    "dynsrc",
];

/// Problems common to any markup: event handlers, styles, URL schemes, and
/// elements outside `allowed_tags`.
fn tag_problems(t: &Tag, allowed_tags: &[&str], allowed_attrs: &[&str]) -> Vec<String> {
    let mut p = Vec::new();
    if FORBIDDEN_TAGS.contains(&t.name.as_str()) {
        p.push(format!("forbidden element <{}>", t.name));
    } else if !allowed_tags.contains(&t.name.as_str()) {
        p.push(format!("unexpected element <{}>", t.name));
    }
    for (name, value) in &t.attrs {
        if name.starts_with("on") {
            p.push(format!("event handler {name}= on <{}>", t.name));
        } else if !allowed_attrs.contains(&name.as_str()) && !name.starts_with("aria-") {
            p.push(format!("unexpected attribute {name} on <{}>", t.name));
        }
        if name == "style" {
            let v = value.as_deref().unwrap_or("");
            let fine = ["left", "center", "right"]
                .iter()
                .any(|a| v.trim().trim_end_matches(';') == format!("text-align: {a}"));
            if !fine {
                p.push(format!("style={v:?} on <{}>", t.name));
            }
        }
        if URL_ATTRS.contains(&name.as_str()) {
            if let Some(why) = url_problem(value.as_deref().unwrap_or("")) {
                p.push(format!("{name} on <{}>: {why}", t.name));
            }
        }
    }
    p
}

/// Everything wrong with one generated page.
fn page_problems(rel: &str, html: &str) -> (Vec<String>, Vec<Tag>) {
    let root = root_of(rel);
    let (tags, mut problems) = scan(html);
    let mut scripts = 0;
    let mut forms = 0;
    let mut csp = 0;
    for (k, t) in tags.iter().enumerate() {
        if t.closing {
            if !PAGE_TAGS.contains(&t.name.as_str()) {
                problems.push(format!(
                    "closing tag of an unexpected element </{}>",
                    t.name
                ));
            }
            continue;
        }
        problems.extend(tag_problems(t, PAGE_TAGS, PAGE_ATTRS));
        match t.name.as_str() {
            "script" => {
                scripts += 1;
                let src = format!("{root}static/search.js");
                // Its one optional attribute names the search shard to load
                // first: a slug, never anything from the data verbatim.
                let first_ok = match t.attr("data-first") {
                    None => t.attrs.len() == 2,
                    Some(v) => {
                        t.attrs.len() == 3
                            && v.starts_with("sessions-")
                            && v.bytes()
                                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    }
                };
                let own = t.attr("src") == Some(src.as_str()) && t.has("defer") && first_ok;
                let next = tags.get(k + 1);
                let empty =
                    next.is_some_and(|n| n.closing && n.name == "script" && n.start == t.end);
                if !own || !empty {
                    problems.push(format!(
                        "a script that is not the site's: {:?}",
                        &html[t.start..t.end]
                    ));
                }
            }
            "form" => {
                forms += 1;
                let action = format!("{root}index.html");
                let own =
                    t.attr("class") == Some("search") && t.attr("action") == Some(action.as_str());
                if !own {
                    problems.push(format!(
                        "a form that is not the site's: {:?}",
                        &html[t.start..t.end]
                    ));
                }
            }
            "link" => {
                let href = format!("{root}static/style.css");
                let own = t.attr("rel") == Some("stylesheet")
                    && t.attr("href") == Some(href.as_str())
                    && t.attrs.len() == 2;
                if !own {
                    problems.push(format!(
                        "a link that is not the site's stylesheet: {:?}",
                        &html[t.start..t.end]
                    ));
                }
            }
            "meta" => {
                let equiv = t.attr("http-equiv").map(|v| v.to_ascii_lowercase());
                match equiv.as_deref() {
                    Some("content-security-policy") => {
                        csp += 1;
                        let c = t.attr("content").unwrap_or("");
                        if !c.contains("default-src 'none'")
                            || !c.contains("script-src 'self'")
                            || c.contains("unsafe-")
                        {
                            problems.push(format!("weak Content-Security-Policy {c:?}"));
                        }
                    }
                    Some(other) => problems.push(format!("<meta http-equiv={other:?}>")),
                    None => {
                        let fine = t.has("charset")
                            || matches!(
                                t.attr("name"),
                                Some("viewport" | "referrer" | "generator")
                            );
                        if !fine {
                            problems.push(format!("unexpected meta: {:?}", &html[t.start..t.end]));
                        }
                    }
                }
            }
            "input" => {
                let fine = match t.attr("type") {
                    Some("search") => t.attr("id") == Some("search-input"),
                    Some("checkbox") => t.has("disabled"),
                    _ => false,
                };
                if !fine {
                    problems.push(format!("unexpected input: {:?}", &html[t.start..t.end]));
                }
            }
            "title" => {
                // Raw text element: nothing but text until </title>.
                let next = tags.get(k + 1);
                if !next.is_some_and(|n| n.closing && n.name == "title") {
                    problems.push("markup inside <title>".to_string());
                }
            }
            _ => {}
        }
    }
    if scripts != 1 {
        problems.push(format!(
            "{scripts} script elements, expected only the site's search.js"
        ));
    }
    if forms != 1 {
        problems.push(format!(
            "{forms} forms, expected only the site's search form"
        ));
    }
    if csp != 1 {
        problems.push(format!(
            "{csp} Content-Security-Policy meta tags, expected 1"
        ));
    }
    let lower = html.to_ascii_lowercase();
    if !lower.starts_with("<!doctype html>") {
        problems.push("no <!doctype html>".to_string());
    }
    (
        problems
            .into_iter()
            .map(|p| format!("{rel}: {p}"))
            .collect(),
        tags,
    )
}

/// Everything wrong with one search index file: it must be a single call
/// with a JSON argument, so payloads in it are data, never code.
fn shard_problems(rel: &str, js: &str, all: &BTreeSet<String>) -> Vec<String> {
    // The index opens with the ranking spec: one call, a JSON object.
    let js = match js.strip_prefix("ccwikiSearch.spec(") {
        Some(rest) => {
            let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
            let spec = line.strip_suffix(");").unwrap_or("");
            match serde_json::from_str::<serde_json::Value>(spec) {
                Ok(v) if v.is_object() => after,
                _ => return vec![format!("{rel}: spec() of something other than an object")],
            }
        }
        None => js,
    };
    let re = regex::Regex::new(r"^ccwikiSearch\.(add|shards)\(([\s\S]*)\);\n?$").unwrap();
    let Some(c) = re.captures(js) else {
        let head: String = js.chars().take(120).collect();
        return vec![format!("{rel}: not a single ccwikiSearch call: {head:?}")];
    };
    let json: serde_json::Value = match serde_json::from_str(&c[2]) {
        Ok(v) => v,
        Err(e) => return vec![format!("{rel}: the argument is not JSON: {e}")],
    };
    let mut p = Vec::new();
    match (&c[1], json.as_array()) {
        ("add", Some(docs)) => {
            if !docs.iter().all(|d| d.is_object()) {
                p.push(format!("{rel}: add() of something other than objects"));
            }
            for d in docs {
                let url = d["u"].as_str().unwrap_or("");
                if !all.contains(url) {
                    p.push(format!(
                        "{rel}: a document links {url:?}, which is no page of the site"
                    ));
                }
            }
        }
        ("shards", Some(names)) => {
            for n in names {
                let name = n.as_str().unwrap_or("");
                let fine = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
                if !fine || !all.contains(&format!("search/{name}.js")) {
                    p.push(format!("{rel}: shard name {n} is odd or missing"));
                }
            }
        }
        _ => p.push(format!("{rel}: the argument is not an array")),
    }
    p
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
        for root in ["", "../../"] {
            let html = ccwiki::output::markdown::render(input, root);
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
        let html = ccwiki::output::markdown::render(p, "");
        let (tags, _) = scan(&html);
        let text = visible_text(&html, &tags);
        if !text.contains(p) {
            problems.push(format!("{p:?} is not shown verbatim: {html:?}"));
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
    if (src.indexOf(base) !== 0) return false;
    var rel = src.slice(base.length);
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
    if (BAD[tag]) pwn("element <" + tag + ">");
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
        let probe = format!("<script src=\"{}static/probe.js\"></script>", root_of(&rel));
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
