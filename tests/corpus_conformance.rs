//! Conformance over real data: every data root in `../shared/corpus`
//! (published by other people, Claude Code 1.0.0 to 2.1.x) must build, and
//! what the wiki shows must match an independent count made here with plain
//! `serde_json::Value`.
//!
//! This suite needs the corpus: without it, it is skipped with one loud
//! line, but under `CI=true` it fails.

mod common;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Every data root of the corpus; None (and a loud skip line) when the
/// corpus is not beside the checkout.
fn data_roots() -> Option<Vec<PathBuf>> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir(common::corpus()?)
        .expect("read corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    roots.sort();
    assert!(
        roots.len() >= 10,
        "expected the corpus's data roots, found {}",
        roots.len()
    );
    Some(roots)
}

/// The directory Claude Code data sits in: the root, or its `.claude/`.
fn claude_dir(root: &Path) -> PathBuf {
    if root.join("projects").is_dir() || root.join("history.jsonl").is_file() {
        root.to_path_buf()
    } else if root.join(".claude").is_dir() {
        root.join(".claude")
    } else {
        root.to_path_buf()
    }
}

fn transcript_files(dir: &Path) -> Vec<PathBuf> {
    let has_projects = dir.join("projects").is_dir();
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().to_path_buf())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| p.file_name().is_some_and(|n| n != "history.jsonl"))
        .filter(|p| {
            if !has_projects {
                return true;
            }
            let rel: Vec<String> = p
                .strip_prefix(dir)
                .expect("inside")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            rel[0] == "projects" && (rel.len() == 3 || (rel.len() == 5 && rel[3] == "subagents"))
        })
        .collect();
    files.sort();
    files
}

/// serde_json rejects lone surrogate escapes; Claude Code writes them.
fn without_surrogate_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            let rest = &line[i..];
            let is_surrogate = rest.len() >= 6
                && rest[1..2].eq_ignore_ascii_case("u")
                && rest[2..3].eq_ignore_ascii_case("d")
                && matches!(rest.as_bytes()[3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f');
            if is_surrogate {
                out.push_str("\\ufffd");
                for _ in 0..5 {
                    chars.next();
                }
                continue;
            }
            out.push(c);
            if let Some((_, n)) = chars.next() {
                out.push(n);
            }
            continue;
        }
        out.push(c);
    }
    out
}

fn lines(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).expect("read transcript");
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<Value>(l)
                .ok()
                .or_else(|| serde_json::from_str(&without_surrogate_escapes(l)).ok())
        })
        .filter(|v| v.is_object())
        .collect()
}

const COMMAND_TAGS: &[&str] = &[
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "task-notification",
    "user-prompt-submit-hook",
];

fn strip_blocks(text: &str, tag: &str) -> String {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = text.to_string();
    while let Some(s) = out.find(&open) {
        let Some(e) = out[s..].find(&close) else {
            break;
        };
        out.replace_range(s..s + e + close.len(), "");
    }
    out
}

fn is_real_prompt(v: &Value) -> bool {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
    if flag("isSidechain") || flag("isMeta") || flag("isCompactSummary") {
        return false;
    }
    let Some(content) = v.get("message").and_then(|m| m.get("content")) else {
        return false;
    };
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            if items
                .iter()
                .any(|i| i.get("type").and_then(Value::as_str) == Some("tool_result"))
            {
                return false;
            }
            // A bare string in the array is text too (older lines).
            items
                .iter()
                .filter_map(|i| match i {
                    Value::String(s) => Some(s.as_str()),
                    _ if i.get("type").and_then(Value::as_str) == Some("text") => {
                        i.get("text").and_then(Value::as_str)
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n\n")
        }
        _ => return false,
    };
    let t = text.trim_start();
    if t.starts_with("[Request interrupted") {
        return false;
    }
    if COMMAND_TAGS.iter().any(|tag| {
        t.strip_prefix('<')
            .and_then(|r| r.strip_prefix(tag))
            .is_some_and(|r| r.starts_with('>') || r.starts_with(' '))
    }) {
        return false;
    }
    let mut rest = t.to_string();
    for tag in ["ide_opened_file", "ide_selection", "system-reminder"] {
        rest = strip_blocks(&rest, tag);
    }
    !rest.trim().is_empty()
}

fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

/// Words of a text block, without code-fence info strings (those become a
/// class attribute, not text).
fn words(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("```") && !l.trim_start().starts_with("~~~"))
        .flat_map(|l| l.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 4)
        .collect()
}

struct Expected {
    prompts: u64,
    assistant_turns: u64,
    subagents: usize,
    /// session id → text blocks of its assistant turns (incl. sub-agents).
    texts: BTreeMap<String, Vec<String>>,
    /// Long stretches of thinking text, by session, that appear nowhere else.
    thinking: Vec<(String, String)>,
}

fn count(root: &Path) -> Expected {
    let dir = claude_dir(root);
    let mut e = Expected {
        prompts: 0,
        assistant_turns: 0,
        subagents: 0,
        texts: BTreeMap::new(),
        thinking: Vec::new(),
    };
    // Text that is legitimately visible anywhere in this root: prompts,
    // answers and tool inputs. Thinking that repeats it proves nothing.
    let mut visible = String::new();
    let mut thinking: Vec<(String, String)> = Vec::new();
    for file in transcript_files(&dir) {
        let is_agent = file
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("agent-"));
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if is_agent {
            e.subagents += 1;
        }
        let vals = lines(&file);
        let mut ids: HashSet<String> = HashSet::new();
        // Inline sub-agents, per session: agentId, or a new group at each root line.
        let mut groups: HashMap<String, (HashSet<String>, usize)> = HashMap::new();
        let mut current = stem.clone();
        for v in &vals {
            let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
            let sid = match v
                .get("sessionId")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                Some(s) => {
                    current = s.to_string();
                    s.to_string()
                }
                None => current.clone(),
            };
            if !matches!(kind, "user" | "assistant" | "system") {
                continue;
            }
            let sidechain = v.get("isSidechain").and_then(Value::as_bool) == Some(true);
            if sidechain && !is_agent {
                let g = groups.entry(sid.clone()).or_default();
                match v
                    .get("agentId")
                    .and_then(Value::as_str)
                    .filter(|a| !a.is_empty())
                {
                    Some(a) => {
                        g.0.insert(a.to_string());
                    }
                    None => {
                        if v.get("parentUuid").is_none_or(Value::is_null) || g.1 == 0 {
                            g.1 += 1;
                        }
                    }
                }
            }
            let msg = v.get("message").filter(|m| m.is_object());
            if kind == "user" && !is_agent && msg.is_some() && is_real_prompt(v) {
                e.prompts += 1;
            }
            if let Some(Value::String(s)) = msg.and_then(|m| m.get("content")) {
                visible.push_str(s);
            }
            if kind != "assistant" {
                if let Some(Value::Array(items)) = msg.and_then(|m| m.get("content")) {
                    for i in items {
                        if let Some(t) = i.get("text").and_then(Value::as_str) {
                            visible.push_str(t);
                        }
                    }
                }
                continue;
            }
            let Some(msg) = msg else { continue };
            match msg
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                Some(id) => {
                    if ids.insert(format!("{sid}/{id}")) {
                        e.assistant_turns += 1;
                    }
                }
                None => e.assistant_turns += 1,
            }
            let items = match msg.get("content") {
                Some(Value::Array(items)) => items.clone(),
                Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
                _ => Vec::new(),
            };
            for i in &items {
                match i.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = i.get("text").and_then(Value::as_str) {
                            visible.push_str(t);
                            if !t.trim().is_empty() {
                                e.texts.entry(sid.clone()).or_default().push(t.to_string());
                            }
                        }
                    }
                    Some("thinking") => {
                        if let Some(t) = i.get("thinking").and_then(Value::as_str) {
                            thinking.push((sid.clone(), t.to_string()));
                        }
                    }
                    Some("tool_use") => {
                        visible.push_str(&i.get("input").map(Value::to_string).unwrap_or_default())
                    }
                    _ => {}
                }
            }
        }
        for (set, n) in groups.values() {
            e.subagents += set.len() + n;
        }
    }
    for (sid, t) in thinking {
        let chars: Vec<char> = t.trim().chars().collect();
        if chars.len() < 120 {
            continue;
        }
        let mid = chars.len() / 2;
        let window: String = chars[mid - 30..mid + 30].iter().collect();
        let letters = window.chars().filter(|c| c.is_alphanumeric()).count();
        if letters >= 30 && !visible.contains(&window) && !window.contains('\n') {
            e.thinking.push((sid, window));
        }
    }
    e
}

/// Session pages by session id, and every file of the site joined.
fn read_site(out: &Path) -> (HashMap<String, String>, String) {
    let mut by_session = HashMap::new();
    let mut all = String::new();
    for entry in walkdir::WalkDir::new(out)
        .into_iter()
        .filter_map(Result::ok)
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let text =
            String::from_utf8_lossy(&std::fs::read(entry.path()).expect("read page")).into_owned();
        if let Some(pos) = text.find("Session id <code>") {
            let rest = &text[pos + "Session id <code>".len()..];
            let id = rest.split("</code>").next().unwrap_or("");
            // A long session has several pages: keep them all.
            by_session
                .entry(html_to_text(id).trim().to_string())
                .or_insert_with(String::new)
                .push_str(&text);
        }
        all.push_str(&text);
    }
    (by_session, all)
}

#[test]
fn every_corpus_root_builds_and_shows_what_it_holds() {
    let mut failures = Vec::new();
    let mut total_turns = 0;
    let Some(roots) = data_roots() else { return };
    for root in roots {
        let name = root
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let tmp = tempfile::tempdir().expect("tempdir");
        let out = tmp.path().join("site");
        let mut opts = common::options(vec![root.clone()], out.clone());
        opts.redact = false;
        let report = match ccwiki::build(&opts) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: build failed: {e}"));
                continue;
            }
        };
        for s in &report.skips {
            assert!(!s.reason.is_empty(), "{name}: a skip without a reason: {s}");
        }
        let expected = count(&root);
        total_turns += expected.assistant_turns;
        if report.prompts != expected.prompts {
            failures.push(format!(
                "{name}: prompts {} ≠ independent count {}",
                report.prompts, expected.prompts
            ));
        }
        if report.assistant_turns != expected.assistant_turns {
            failures.push(format!(
                "{name}: assistant turns {} ≠ independent count {}",
                report.assistant_turns, expected.assistant_turns
            ));
        }
        if report.subagents != expected.subagents {
            failures.push(format!(
                "{name}: sub-agents {} ≠ independent count {}",
                report.subagents, expected.subagents
            ));
        }
        for b in common::broken_links(&out).into_iter().take(5) {
            failures.push(format!("{name}: broken link {b}"));
        }
        let (pages, all) = read_site(&out);
        // Every session page here holds some text: none is titled by its id.
        for (sid, page) in &pages {
            let short: String = sid.chars().take(8).collect();
            if page.contains(&format!("<title>Session {short} ")) {
                failures.push(format!("{name}: session {sid} is titled by its id"));
            }
        }
        let mut missing = 0;
        for (sid, texts) in &expected.texts {
            let Some(page) = pages.get(sid) else {
                failures.push(format!(
                    "{name}: session {sid} has assistant text but no page"
                ));
                continue;
            };
            let page_text = html_to_text(page);
            for t in texts {
                let w = words(t);
                let probes = [w.first(), w.get(w.len() / 2), w.last()];
                for probe in probes.into_iter().flatten() {
                    // Link targets are in attributes, not in the text.
                    if !page_text.contains(probe) && !page.contains(probe) {
                        missing += 1;
                        if missing <= 5 {
                            failures.push(format!("{name}: session {sid}: text word {probe:?} not on its page (from {:?})", t.chars().take(80).collect::<String>()));
                        }
                    }
                }
            }
        }
        for (sid, window) in &expected.thinking {
            let escaped = window
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;");
            if all.contains(window.as_str()) || all.contains(&escaped) {
                failures.push(format!(
                    "{name}: thinking text of session {sid} found on a page: {window:?}"
                ));
            }
        }
        eprintln!(
            "{name}: {} sessions, {} prompts, {} assistant turns, {} sub-agents, {} text-bearing sessions checked, {} thinking probes, {} skips",
            report.sessions, report.prompts, report.assistant_turns, report.subagents,
            expected.texts.len(), expected.thinking.len(), report.skips.len()
        );
    }
    assert!(
        failures.is_empty(),
        "conformance failures:\n{}",
        failures.join("\n")
    );
    assert!(
        total_turns > 5000,
        "the corpus should hold thousands of assistant turns, saw {total_turns}"
    );
}

/// Large files are read in pieces on all cores; the result must be exactly
/// that of one sequential read. Tiny pieces put a boundary inside every
/// kind of sequence the corpus has (split responses, sub-agent runs,
/// compactions, sessions sharing a file).
#[test]
fn reading_in_pieces_equals_reading_in_one_go() {
    use ccwiki::knowledge::spill::Spill;
    let r = ccwiki::knowledge::redact::Redactor::disabled();
    let dir = tempfile::tempdir().expect("temp dir");
    let spill = Spill::in_dir(dir.path()).expect("spill");
    let mut files = 0;
    let Some(roots) = data_roots() else { return };
    for root in roots {
        let sources = ccwiki::source::discover::discover(&[root]).expect("discover");
        for tf in &sources.roots[0].transcripts {
            let none = Spill::none();
            let one = {
                let mut s = ccwiki::knowledge::extract::ReaderState::new(0, tf, &r);
                let tail = s.read(tf, &r, &none);
                common::everything(&s.into_digest(tf, tail, &r, None, &none), &none)
            };
            for piece in [3_000u64, 40_000] {
                if tf.size <= piece {
                    continue;
                }
                // Each piece's turns held, and each stowed to a spill as
                // soon as it is read (folding reads back what it changes).
                for spill in [&none, &spill] {
                    let (s, tail) = ccwiki::knowledge::extract::ReaderState::read_in_pieces(
                        0, tf, piece, &r, spill,
                    );
                    let pieces =
                        common::everything(&s.into_digest(tf, tail, &r, None, spill), spill);
                    if one != pieces {
                        let at = one
                            .bytes()
                            .zip(pieces.bytes())
                            .position(|(a, b)| a != b)
                            .unwrap_or(0);
                        let from = at.saturating_sub(200);
                        panic!(
                            "{} read in {piece}-byte pieces differs from one read at byte {at}:\n one:    {}\n pieces: {}",
                            tf.path.display(),
                            &one[from..(at + 200).min(one.len())],
                            &pieces[from..(at + 200).min(pieces.len())]
                        );
                    }
                }
            }
            files += 1;
        }
    }
    assert!(files > 400, "{files} files");
    assert!(spill.written() > 0, "pieces were stowed");
    assert_eq!(spill.failure(), None);
}

/// The user names that project folders spell (`-Users-X-…`, `-home-X-…`,
/// `C--Users-X-…`), but for account names that are not people's.
fn folder_users(dir: &Path) -> BTreeMap<String, String> {
    const ACCOUNTS: &[&str] = &[
        "administrator",
        "admin",
        "root",
        "ubuntu",
        "runner",
        "user",
        "jenkins",
        "workspaces",
    ];
    let mut names = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir.join("projects")) else {
        return names;
    };
    for e in entries.filter_map(Result::ok) {
        let folder = e.file_name().to_string_lossy().into_owned();
        let rest = ["-Users-", "-home-"]
            .iter()
            .find_map(|p| folder.strip_prefix(p))
            .or_else(|| {
                let b = folder.as_bytes();
                (b.len() > 9
                    && b[0].is_ascii_alphabetic()
                    && folder[1..].to_ascii_lowercase().starts_with("--users-"))
                .then(|| &folder[9..])
            });
        if let Some(name) = rest.and_then(|r| r.split('-').next()) {
            let lower = name.to_lowercase();
            if name.len() >= 3 && !ACCOUNTS.contains(&lower.as_str()) {
                names.insert(lower, folder.clone());
            }
        }
    }
    names
}

/// Whether `name` stands in `text` as a word of its own (case-insensitive).
fn has_word(text: &str, name: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name).map(|i| i + from) {
        let before = lower[..i].chars().next_back();
        let after = lower[i + name.len()..].chars().next();
        let alnum = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        if !alnum(before) && !alnum(after) {
            return Some(around(&lower, i));
        }
        from = i + name.len();
    }
    None
}

/// Whether `name` stands in `text` in a Windows home whose backslashes a
/// shell ate (`C:UsersDanaDocuments`), glued to what follows.
fn in_eaten_home(text: &str, name: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let i = lower.find(&format!(":users{name}"))?;
    Some(around(&lower, i))
}

/// The 90 characters of `text` from 40 bytes before `i`.
fn around(text: &str, i: usize) -> String {
    let mut start = i.saturating_sub(40);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    text[start..].chars().take(90).collect()
}

/// With default settings, no user name a project folder spells reaches
/// the site: not in a page, a search shard, a file name; not as a word,
/// nor glued in a home whose separators are gone.
#[test]
fn corpus_user_names_stay_out_of_the_sites() {
    let mut failures = Vec::new();
    let mut checked = 0;
    let Some(roots) = data_roots() else { return };
    for root in roots {
        let dir = claude_dir(&root);
        let users = folder_users(&dir);
        if users.is_empty() {
            continue;
        }
        let tmp = tempfile::tempdir().expect("tempdir");
        let out = tmp.path().join("site");
        if let Err(e) = ccwiki::build(&common::options(vec![root.clone()], out.clone())) {
            failures.push(format!("{}: build failed: {e}", root.display()));
            continue;
        }
        for (path, bytes) in common::read_tree(&out) {
            let body = String::from_utf8_lossy(&bytes);
            for (name, folder) in &users {
                for (what, text) in [("file name", path.as_str()), ("file", &body)] {
                    if let Some(around) = has_word(text, name).or_else(|| in_eaten_home(text, name))
                    {
                        failures.push(format!(
                            "{what} {path} holds {name:?} (from folder {folder}): …{around}…"
                        ));
                    }
                }
            }
        }
        checked += users.len();
    }
    assert!(
        checked >= 5,
        "the corpus should name several users in folder names, saw {checked}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
