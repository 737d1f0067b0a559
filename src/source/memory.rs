//! Memory folders as written: the `MEMORY.md` index, each memory file's
//! frontmatter and body, and the `[[wikilinks]]` inside. Nothing here is
//! redacted: triage (in the knowledge layer) does that.

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

/// A memory file's fields, as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawMemory {
    /// The file name without `.md`.
    pub stem: String,
    /// Frontmatter `name`, else the index title, else the stem.
    pub name: String,
    /// Frontmatter `description`, else the index hook.
    pub description: String,
    /// Frontmatter `type` (or `metadata.type`), empty when there is none.
    pub kind: String,
    /// The Markdown body after the frontmatter.
    pub body: String,
    /// Whether `MEMORY.md` links to the file.
    pub indexed: bool,
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

/// What a memory file holds.
pub enum Parsed {
    Keep(RawMemory),
    /// Kept, with the reason it could not be read fully.
    KeepWithSkip(RawMemory, String),
    /// `private: true`: left out of the wiki.
    Private,
}

/// Parse a memory file's text: frontmatter fields over the index entry's
/// title and hook, over the file name.
pub fn parse_memory(path: &Path, text: &str, entry: Option<&IndexEntry>) -> Parsed {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("memory")
        .to_string();
    let mut memory = RawMemory {
        name: entry
            .map(|e| e.title.clone())
            .unwrap_or_else(|| stem.clone()),
        description: entry.map(|e| e.hook.clone()).unwrap_or_default(),
        stem,
        kind: String::new(),
        body: text.to_string(),
        indexed: entry.is_some(),
    };
    if !has_frontmatter(text) {
        return Parsed::Keep(memory);
    }
    if let Some(why) = unsafe_yaml(text) {
        // Never handed to the YAML parser: read as plain `key: value` lines.
        memory.body = strip_frontmatter(text).to_string();
        let fields = loose_frontmatter(text).unwrap_or_default();
        if fields.get("private").is_some_and(|v| v == "true") {
            return Parsed::Private;
        }
        apply_fields(&mut memory, |k| fields.get(k).cloned());
        return Parsed::KeepWithSkip(
            memory,
            format!("frontmatter {why}: read as plain key: value lines"),
        );
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

/// Frontmatter larger than this is not parsed as YAML.
const FRONTMATTER_MAX: usize = 64 << 10;

/// Why a frontmatter block must not reach the YAML parser, if it must not:
/// anchors and aliases can expand exponentially (a few hundred bytes make
/// gigabytes), and a huge block is no frontmatter a memory needs.
fn unsafe_yaml(text: &str) -> Option<&'static str> {
    let (block, _) = frontmatter(text)?;
    if block.len() > FRONTMATTER_MAX {
        return Some("is over 64 KB");
    }
    let bytes = block.as_bytes();
    let alias = bytes.windows(2).enumerate().any(|(i, w)| {
        let before = if i == 0 { b' ' } else { bytes[i - 1] };
        matches!(w[0], b'&' | b'*')
            && (w[1].is_ascii_alphanumeric() || w[1] == b'_')
            && matches!(
                before,
                b' ' | b'\t' | b'\n' | b'[' | b'{' | b',' | b':' | b'-'
            )
    });
    alias.then_some("uses YAML anchors or aliases")
}

/// Set name, description and kind from frontmatter fields, where present.
fn apply_fields(memory: &mut RawMemory, get: impl Fn(&str) -> Option<String>) {
    if let Some(name) = get("name").filter(|s| !s.trim().is_empty()) {
        memory.name = name.trim().to_string();
    }
    if let Some(desc) = get("description").filter(|s| !s.trim().is_empty()) {
        memory.description = desc.trim().to_string();
    }
    if let Some(kind) = get("type") {
        memory.kind = kind;
    }
}

/// `key: value` lines of a frontmatter block that is not valid YAML; an
/// indented `type:` under `metadata:` counts as `type`. None if no line fits.
fn loose_frontmatter(text: &str) -> Option<HashMap<String, String>> {
    let (block, Some(_)) = frontmatter(text)? else {
        return None;
    };
    let mut fields = HashMap::new();
    for line in block.lines() {
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
    match frontmatter(text) {
        Some((_, Some(after))) => after,
        _ => text,
    }
}

/// The frontmatter block after the opening `---` (to the end of the text
/// when it is never closed), and the body after the closing `---` line.
fn frontmatter(text: &str) -> Option<(&str, Option<&str>)> {
    let rest = text.trim_start_matches('\u{feff}').strip_prefix("---")?;
    Some(match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            let body = after.split_once('\n').map(|(_, b)| b).unwrap_or("");
            (&rest[..end], Some(body))
        }
        None => (rest, None),
    })
}

/// A `[[Name]]` or `[[Name|label]]` link in a Markdown body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WikiLink {
    /// Where `[[…]]` stands in the body, brackets included.
    pub span: std::ops::Range<usize>,
    pub target: String,
    pub label: Option<String>,
}

/// The `[[wikilinks]]` of a Markdown body, in order, in one pass.
pub fn wikilinks(body: &str) -> Vec<WikiLink> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(start) = body[pos..].find("[[").map(|s| s + pos) {
        let inner_start = start + 2;
        let Some(end) = body[inner_start..].find("]]").map(|e| e + inner_start) else {
            break;
        };
        let inner = &body[inner_start..end];
        if !inner.contains('\n') && !inner.trim().is_empty() {
            let (target, label) = match inner.split_once('|') {
                Some((t, l)) => (t.trim().to_string(), Some(l.trim().to_string())),
                None => (inner.trim().to_string(), None),
            };
            out.push(WikiLink {
                span: start..end + 2,
                target,
                label,
            });
        }
        pos = end + 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn wikilink_targets() {
        let body = "see [[Alpha]] and [[b|the b]] but not [[\n]]";
        let links = wikilinks(body);
        let found: Vec<(&str, Option<&str>, &str)> = links
            .iter()
            .map(|l| (l.target.as_str(), l.label.as_deref(), &body[l.span.clone()]))
            .collect();
        assert_eq!(
            found,
            vec![
                ("Alpha", None, "[[Alpha]]"),
                ("b", Some("the b"), "[[b|the b]]")
            ]
        );
    }

    #[test]
    fn yaml_bombs_never_reach_the_parser() {
        let mut bomb = String::from(
            "---\nname: Bomb\na: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n",
        );
        for (i, prev) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().enumerate() {
            let name = (b'b' + i as u8) as char;
            bomb.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        bomb.push_str("---\nbody\n");
        match parse_memory(Path::new("bomb.md"), &bomb, None) {
            Parsed::KeepWithSkip(m, why) => {
                assert_eq!(m.name, "Bomb");
                assert_eq!(m.body.trim(), "body");
                assert!(why.contains("aliases"), "{why}");
            }
            _ => panic!("a bomb is kept as a note, with a warning"),
        }
        let huge = format!("---\nname: Big\nx: {}\n---\nbody\n", "y".repeat(70_000));
        assert!(matches!(
            parse_memory(Path::new("big.md"), &huge, None),
            Parsed::KeepWithSkip(_, why) if why.contains("64 KB")
        ));
        // Ordinary frontmatter still goes through YAML.
        let plain =
            "---\nname: Plain\ndescription: \"uses **bold** and a*b\"\ntype: user\n---\nx\n";
        assert!(
            matches!(parse_memory(Path::new("p.md"), plain, None), Parsed::Keep(m) if m.kind == "user")
        );
    }
}
