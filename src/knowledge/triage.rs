//! Phase 2: read each project's `MEMORY.md` index first, then its memory files.
//!
//! The index gives the reading order and a one-line hook per memory; the
//! files give the distilled knowledge. Dangling index links, invalid
//! frontmatter and unreadable files are reported as skips, never fatal.

use crate::base::skip::Skip;
use crate::knowledge::model::{Memory, MemoryKind};
use crate::source::discover::{MemoryDir, Root};
use gray_matter::engine::YAML;
use gray_matter::{Matter, Pod};
use std::collections::HashMap;
use std::path::Path;

/// One link line of a `MEMORY.md` index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub title: String,
    /// The linked file name, relative to the memory folder.
    pub target: String,
    pub hook: String,
    pub line: u64,
}

/// What triage produced for all roots.
#[derive(Debug, Default)]
pub struct Triaged {
    pub memories: Vec<Memory>,
    pub skips: Vec<Skip>,
}

/// Triage every memory folder of every root.
pub fn triage(roots: &[Root]) -> Triaged {
    let mut out = Triaged::default();
    for root in roots {
        for dir in &root.memory_dirs {
            triage_dir(root.index, dir, &mut out);
        }
    }
    out
}

fn triage_dir(root: usize, dir: &MemoryDir, out: &mut Triaged) {
    let mut index: Vec<IndexEntry> = Vec::new();
    if let Some(path) = &dir.index {
        match std::fs::read(path) {
            Ok(bytes) => index = parse_index(&String::from_utf8_lossy(&bytes)),
            Err(e) => out
                .skips
                .push(Skip::file(path, format!("cannot read: {e}"))),
        }
        for entry in &index {
            let exists = dir.files.iter().any(|f| file_name(f) == entry.target);
            if !exists && !entry.target.contains("://") {
                out.skips.push(Skip::line(
                    path,
                    entry.line,
                    format!("index links {} which does not exist", entry.target),
                ));
            }
        }
    }
    let by_target: HashMap<&str, &IndexEntry> =
        index.iter().map(|e| (e.target.as_str(), e)).collect();
    // Indexed files first, in index order; then the rest by name.
    let mut files: Vec<&Path> = dir.files.iter().map(|p| p.as_path()).collect();
    let order = |p: &Path| {
        index
            .iter()
            .position(|e| e.target == file_name(p))
            .unwrap_or(usize::MAX)
    };
    files.sort_by(|a, b| order(a).cmp(&order(b)).then_with(|| a.cmp(b)));
    for path in files {
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                out.skips
                    .push(Skip::file(path, format!("cannot read: {e}")));
                continue;
            }
        };
        let entry = by_target.get(file_name(path)).copied();
        match parse_memory(root, &dir.project_dir, path, &text, entry) {
            Parsed::Keep(m) => out.memories.push(m),
            Parsed::Private => {}
            Parsed::KeepWithSkip(m, reason) => {
                out.skips.push(Skip::file(path, reason));
                out.memories.push(m);
            }
        }
    }
}

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|s| s.to_str()).unwrap_or("")
}

/// Parse the link lines of a `MEMORY.md`: `- [Title](file.md) — hook`.
pub fn parse_index(text: &str) -> Vec<IndexEntry> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(open) = line.find('[') else { continue };
        let rest = &line[open + 1..];
        let Some(close) = rest.find("](") else {
            continue;
        };
        let title = &rest[..close];
        let after = &rest[close + 2..];
        let Some(end) = after.find(')') else { continue };
        let target = after[..end].trim();
        let target = target.strip_prefix("./").unwrap_or(target);
        let hook = after[end + 1..]
            .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '—' | '–' | '-' | ':'))
            .trim();
        out.push(IndexEntry {
            title: title.trim().to_string(),
            target: target.to_string(),
            hook: hook.to_string(),
            line: n as u64 + 1,
        });
    }
    out
}

enum Parsed {
    Keep(Memory),
    KeepWithSkip(Memory, String),
    Private,
}

fn parse_memory(
    root: usize,
    project_dir: &str,
    path: &Path,
    text: &str,
    entry: Option<&IndexEntry>,
) -> Parsed {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("memory")
        .to_string();
    let mut memory = Memory {
        root,
        project_dir: project_dir.to_string(),
        file: path.to_path_buf(),
        name: entry
            .map(|e| e.title.clone())
            .unwrap_or_else(|| stem.clone()),
        description: entry.map(|e| e.hook.clone()).unwrap_or_default(),
        stem,
        kind: MemoryKind::Untyped,
        body: text.to_string(),
        indexed: entry.is_some(),
    };
    if !has_frontmatter(text) {
        return Parsed::Keep(memory);
    }
    let parsed = match Matter::<YAML>::new().parse::<Pod>(text) {
        Ok(p) => p,
        Err(e) => {
            memory.body = strip_frontmatter(text).to_string();
            // Memory files are written by a model: `name: Dana: role` is common
            // and not strict YAML. Read such lines as `key: rest of line`.
            return match loose_frontmatter(text) {
                Some(fields) => {
                    apply_fields(&mut memory, |k| fields.get(k).cloned());
                    if fields.get("private").is_some_and(|v| v == "true") {
                        Parsed::Private
                    } else {
                        Parsed::Keep(memory)
                    }
                }
                None => Parsed::KeepWithSkip(
                    memory,
                    format!("invalid frontmatter ({e}); kept as an untyped note"),
                ),
            };
        }
    };
    memory.body = parsed.content;
    let Some(data) = parsed.data else {
        return Parsed::Keep(memory);
    };
    let field = |pod: &Pod, key: &str| -> Option<String> {
        match pod {
            Pod::Hash(map) => map.get(key).and_then(scalar),
            _ => None,
        }
    };
    if !matches!(data, Pod::Hash(_)) {
        return Parsed::KeepWithSkip(
            memory,
            "frontmatter is not a mapping; kept as an untyped note".to_string(),
        );
    }
    if field(&data, "private").is_some_and(|v| v == "true") {
        return Parsed::Private;
    }
    let nested = match &data {
        Pod::Hash(map) => map.get("metadata").and_then(|m| field(m, "type")),
        _ => None,
    };
    apply_fields(&mut memory, |k| match k {
        "type" => field(&data, "type").or(nested.clone()),
        _ => field(&data, k),
    });
    Parsed::Keep(memory)
}

/// Set name, description and kind from frontmatter fields, where present.
fn apply_fields(memory: &mut Memory, get: impl Fn(&str) -> Option<String>) {
    if let Some(name) = get("name").filter(|s| !s.trim().is_empty()) {
        memory.name = name.trim().to_string();
    }
    if let Some(desc) = get("description").filter(|s| !s.trim().is_empty()) {
        memory.description = desc.trim().to_string();
    }
    if let Some(kind) = get("type") {
        memory.kind = MemoryKind::parse(&kind);
    }
}

/// `key: value` lines of a frontmatter block that is not valid YAML; an
/// indented `type:` under `metadata:` counts as `type`. None if no line fits.
fn loose_frontmatter(text: &str) -> Option<HashMap<String, String>> {
    let t = text.trim_start_matches('\u{feff}');
    let rest = t.strip_prefix("---")?;
    let end = rest.find("\n---")?;
    let mut fields = HashMap::new();
    for line in rest[..end].lines() {
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        let key = key.trim();
        if indented && key != "type" {
            continue;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        if !key.is_empty() && !value.is_empty() && !key.contains(' ') {
            fields
                .entry(key.to_string())
                .or_insert_with(|| value.to_string());
        }
    }
    (!fields.is_empty()).then_some(fields)
}

fn scalar(pod: &Pod) -> Option<String> {
    match pod {
        Pod::String(s) => Some(s.clone()),
        Pod::Integer(i) => Some(i.to_string()),
        Pod::Float(f) => Some(f.to_string()),
        Pod::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn has_frontmatter(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}');
    t.starts_with("---\n") || t.starts_with("---\r\n")
}

/// The body after a `---` … `---` block, for files whose YAML does not parse.
fn strip_frontmatter(text: &str) -> &str {
    let t = text.trim_start_matches('\u{feff}');
    let Some(rest) = t.strip_prefix("---") else {
        return text;
    };
    match rest.find("\n---") {
        Some(i) => {
            let after = &rest[i + 4..];
            after.split_once('\n').map(|(_, b)| b).unwrap_or("")
        }
        None => text,
    }
}

/// `[[Name]]` or `[[Name|label]]` targets in a Markdown body, in order.
pub fn wikilinks(body: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("[[") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("]]") else { break };
        let inner = &after[..end];
        if !inner.contains('\n') && !inner.trim().is_empty() {
            match inner.split_once('|') {
                Some((t, l)) => out.push((t.trim().to_string(), Some(l.trim().to_string()))),
                None => out.push((inner.trim().to_string(), None)),
            }
        }
        rest = &after[end + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        fs::write(&p, text).unwrap();
        p
    }

    fn run(files: &[(&str, &str)]) -> Triaged {
        let tmp = tempfile::tempdir().unwrap();
        let mut dir = MemoryDir {
            project_dir: "-p".into(),
            path: tmp.path().to_path_buf(),
            ..MemoryDir::default()
        };
        for (name, text) in files {
            let p = write(tmp.path(), name, text);
            if *name == "MEMORY.md" {
                dir.index = Some(p);
            } else {
                dir.files.push(p);
            }
        }
        let root = Root {
            memory_dirs: vec![dir],
            ..Root::default()
        };
        triage(&[root])
    }

    #[test]
    fn index_lines() {
        let e = parse_index(
            "# Index\n\n- [Role](user_role.md) — Senior dev\n* [X](./x.md): hook\nplain\n",
        );
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].title, "Role");
        assert_eq!(e[0].target, "user_role.md");
        assert_eq!(e[0].hook, "Senior dev");
        assert_eq!(e[0].line, 3);
        assert_eq!(e[1].target, "x.md");
        assert_eq!(e[1].hook, "hook");
    }

    #[test]
    fn frontmatter_variants() {
        let t = run(&[
            ("MEMORY.md", "- [A](a.md) — hook a\n- [Gone](gone.md) — missing\n"),
            ("a.md", "---\nname: Alpha\ndescription: first\ntype: feedback\n---\nRule.\n\n**Why:** because\n"),
            ("b.md", "---\nname: beta\ndescription: nested\nmetadata:\n  node_type: memory\n  type: reference\n---\nSee [[Alpha]].\n"),
            ("c.md", "Just a note without frontmatter.\n"),
            ("d.md", "---\nname: d\ntype: glossary\n---\nTerms.\n"),
            ("e.md", "---\n[unclosed\n---\nBody of e.\n"),
            ("g.md", "---\nname: Dana: role\ndescription: a: b\ntype: user\n---\nBody of g.\n"),
            ("f.md", "---\nname: hidden\ntype: user\nprivate: true\n---\nsecret\n"),
        ]);
        let by = |stem: &str| t.memories.iter().find(|m| m.stem == stem).unwrap();
        assert_eq!(t.memories[0].stem, "a", "indexed files come first");
        assert_eq!(by("a").kind, MemoryKind::Feedback);
        assert_eq!(by("a").name, "Alpha");
        assert!(by("a").indexed);
        assert!(by("a").body.starts_with("Rule."));
        assert_eq!(by("b").kind, MemoryKind::Reference);
        assert_eq!(by("c").kind, MemoryKind::Untyped);
        assert_eq!(by("d").kind, MemoryKind::Other("glossary".into()));
        assert_eq!(by("e").kind, MemoryKind::Untyped);
        assert_eq!(by("e").body.trim(), "Body of e.");
        assert!(
            t.memories.iter().all(|m| m.stem != "f"),
            "private memories are left out"
        );
        assert_eq!(
            by("g").name,
            "Dana: role",
            "colons in values are read loosely"
        );
        assert_eq!(by("g").kind, MemoryKind::User);
        assert_eq!(by("g").body.trim(), "Body of g.");
        let reasons: Vec<String> = t.skips.iter().map(|s| s.to_string()).collect();
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("gone.md") && r.contains(":2:")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("e.md") && r.contains("invalid frontmatter")),
            "{reasons:?}"
        );
    }

    #[test]
    fn wikilink_targets() {
        assert_eq!(
            wikilinks("see [[Alpha]] and [[b|the b]] but not [[\n]]"),
            vec![
                ("Alpha".to_string(), None),
                ("b".to_string(), Some("the b".to_string()))
            ]
        );
    }
}
