//! Phase 2: read each project's `MEMORY.md` index first, then its memory files.
//!
//! The index gives the reading order and a one-line hook per memory; the
//! files give the distilled knowledge. Dangling index links, invalid
//! frontmatter and unreadable files are reported as skips, never fatal.

mod cache;

pub use cache::{ReadCache, TriageCache};

use crate::base::skip::Skip;
use crate::knowledge::model::{Memory, MemoryKind};
use crate::knowledge::redact::{Redactor, Scrub, Tally};
use crate::source::discover::{MemoryDir, MemoryFile, Root};
use crate::source::memory::{parse_index, parse_memory, IndexEntry, Parsed, RawMemory};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What triage produced for all roots.
#[derive(Debug, Default)]
pub struct Triaged {
    pub memories: Vec<Memory>,
    pub skips: Vec<Skip>,
    /// What redaction replaced in memory files.
    pub tally: Tally,
}

/// What triage made of one memory file: the memory (None for a private
/// or unreadable one), what was wrong with it, and what redaction replaced.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Outcome {
    memory: Option<Memory>,
    skip: Option<Skip>,
    tally: Tally,
}

/// Triage every memory folder of every root; a file `cache` remembers as
/// it is now is taken from it, and every file's outcome is kept in it.
pub fn triage(roots: &[Root], r: &Redactor, cache: &mut TriageCache) -> Triaged {
    let mut out = Triaged::default();
    let mut sc = Scrub::new(r);
    for root in roots {
        for dir in &root.memory_dirs {
            triage_dir(root.index, dir, &mut out, &mut sc, cache);
        }
    }
    // The same memory in two data roots (the live folder and a backup):
    // one page, the first root's.
    // Which to keep, decided on borrowed names (copying two of them for
    // each of 10,000 memories was a part of every rebuild); with one root
    // there is nothing to decide.
    if roots.len() > 1 {
        keep_first_of_each(&mut out.memories);
    }
    out.tally = sc.tally;
    out
}

/// Of memories with the same project folder, name and body, the first.
fn keep_first_of_each(memories: &mut Vec<Memory>) {
    let first: Vec<bool> = {
        let mut seen = HashSet::with_capacity(memories.len());
        (memories.iter())
            .map(|m| {
                let body = crate::base::hash::hash_bytes(m.body.as_bytes());
                seen.insert((&m.project_dir, &m.stem, body))
            })
            .collect()
    };
    let mut first = first.into_iter();
    memories.retain(|_| first.next().unwrap_or(true));
}

fn triage_dir(
    root: usize,
    dir: &MemoryDir,
    out: &mut Triaged,
    sc: &mut Scrub,
    cache: &mut TriageCache,
) {
    let mut index: Vec<IndexEntry> = Vec::new();
    let names: HashSet<&str> = dir.files.iter().map(|f| file_name(&f.path)).collect();
    let mut stubs: Vec<&IndexEntry> = Vec::new();
    if let Some(path) = &dir.index {
        match std::fs::read(path) {
            Ok(bytes) => index = parse_index(&String::from_utf8_lossy(&bytes)),
            Err(e) => out
                .skips
                .push(Skip::file(path, format!("cannot read: {e}"))),
        }
        let mut seen = HashSet::new();
        for entry in &index {
            let dangling = !names.contains(entry.target.as_str()) && !entry.target.contains("://");
            if dangling && seen.insert(entry.target.as_str()) {
                let stub = entry.target.ends_with(".md");
                out.skips.push(Skip::line(
                    path,
                    entry.line,
                    format!(
                        "index links {} which does not exist{}",
                        entry.target,
                        if stub {
                            ": kept as a stub with its description"
                        } else {
                            ""
                        }
                    ),
                ));
                if stub {
                    stubs.push(entry);
                }
            }
        }
    }
    // The first index entry for each target, and where it stands.
    let mut by_target: HashMap<&str, (usize, &IndexEntry)> = HashMap::with_capacity(index.len());
    for (i, e) in index.iter().enumerate() {
        by_target.entry(e.target.as_str()).or_insert((i, e));
    }
    // Indexed files first, in index order; then the rest by name. Each
    // file's place and entry are looked up once, not at every comparison.
    let mut placed: Vec<(usize, &MemoryFile, Option<&IndexEntry>)> = (dir.files.iter())
        .map(|f| match by_target.get(file_name(&f.path)) {
            Some(&(i, entry)) => (i, f, Some(entry)),
            None => (usize::MAX, f, None),
        })
        .collect();
    placed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.path.cmp(&b.1.path)));
    let files: Vec<(&MemoryFile, Option<&IndexEntry>)> =
        placed.into_iter().map(|(_, f, e)| (f, e)).collect();
    let read = outcomes(root, dir, &files, cache, sc.redactor());
    for (outcome, encoded) in read {
        cache.keep(encoded);
        out.skips.extend(outcome.skip);
        out.memories.extend(outcome.memory);
        sc.tally.add(&outcome.tally);
    }
    for entry in stubs {
        out.memories.push(stub(root, dir, entry, sc));
    }
}

/// What each of `files` (with the index entry that names it) gives, in
/// order, with its entry for `cache` encoded: taken from the cache, or
/// read, parsed and redacted on its own (on every core).
fn outcomes(
    root: usize,
    dir: &MemoryDir,
    files: &[(&MemoryFile, Option<&IndexEntry>)],
    cache: &mut TriageCache,
    redactor: &Redactor,
) -> Vec<(Outcome, Option<cache::Encoded>)> {
    let known: Vec<(u64, Option<Outcome>)> = files
        .iter()
        .map(|(file, entry)| {
            let line = cache::index_line(*entry);
            (line, cache.take(file, line))
        })
        .collect();
    let cache = &*cache;
    files
        .par_iter()
        .zip(known)
        .map(|((file, entry), (line, known))| {
            let outcome = match known {
                Some(mut known) => {
                    if let Some(m) = &mut known.memory {
                        m.root = root;
                        m.file = file.path.clone();
                    }
                    known
                }
                None => read_memory(root, dir, &file.path, *entry, redactor),
            };
            let encoded = cache.encode(file, line, &outcome);
            (outcome, encoded)
        })
        .collect()
}

/// One memory file, unless it is private, and why it was skipped or what
/// was wrong with it.
fn read_memory(
    root: usize,
    dir: &MemoryDir,
    path: &Path,
    entry: Option<&IndexEntry>,
    redactor: &Redactor,
) -> Outcome {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            return Outcome {
                skip: Some(Skip::file(path, format!("cannot read: {e}"))),
                ..Outcome::default()
            }
        }
    };
    let mut sc = Scrub::new(redactor);
    let (memory, skip) = match parse_memory(path, &text, entry) {
        Parsed::Keep(m) => (Some(memory(root, dir, path, m, &mut sc)), None),
        Parsed::Private => (None, None),
        Parsed::KeepWithSkip(m, reason) => (
            Some(memory(root, dir, path, m, &mut sc)),
            Some(Skip::file(path, reason)),
        ),
    };
    Outcome {
        memory,
        skip,
        tally: sc.tally,
    }
}

/// A memory the index names but whose file is missing: its title and hook,
/// and a line that says the file is gone.
fn stub(root: usize, dir: &MemoryDir, entry: &IndexEntry, sc: &mut Scrub) -> Memory {
    let stem = entry.target.trim_end_matches(".md");
    let raw = RawMemory {
        name: entry.title.clone(),
        description: entry.hook.clone(),
        stem: stem.to_string(),
        kind: String::new(),
        body: format!(
            "*MEMORY.md lists this memory, but its file `{}` is missing.*",
            entry.target
        ),
        indexed: true,
    };
    memory(root, dir, &dir.path.join(&entry.target), raw, sc)
}

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|s| s.to_str()).unwrap_or("")
}

/// A memory as the knowledge model holds it: every text redacted.
fn memory(root: usize, dir: &MemoryDir, path: &Path, raw: RawMemory, sc: &mut Scrub) -> Memory {
    Memory {
        root,
        project_dir: sc.text(&dir.project_dir),
        file: path.to_path_buf(),
        stem: sc.owned(raw.stem),
        name: sc.owned(raw.name),
        description: sc.owned(raw.description),
        kind: MemoryKind::parse(&raw.kind),
        body: sc.owned(raw.body),
        indexed: raw.indexed,
    }
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
                dir.files.push(MemoryFile {
                    path: p,
                    ..MemoryFile::default()
                });
            }
        }
        let root = Root {
            memory_dirs: vec![dir],
            ..Root::default()
        };
        triage(&[root], &Redactor::disabled(), &mut TriageCache::disabled())
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
        // The index's dangling entry is a stub, after the real files.
        let gone = by("gone");
        assert_eq!(
            (gone.name.as_str(), gone.description.as_str()),
            ("Gone", "missing")
        );
        assert!(gone.indexed && gone.body.contains("`gone.md` is missing"));
        assert_eq!(t.memories.last().map(|m| m.stem.as_str()), Some("gone"));
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

    /// The same memory in two data roots (a live folder and its backup)
    /// is one memory, the first root's; one whose body differs, or in
    /// another project folder, is another.
    #[test]
    fn a_memory_in_two_roots_is_kept_once() {
        let tmp = tempfile::tempdir().unwrap();
        let folder = |root: usize, project: &str, files: &[(&str, &str)]| {
            let path = tmp.path().join(format!("{root}{project}"));
            fs::create_dir_all(&path).unwrap();
            let files = (files.iter())
                .map(|(name, text)| MemoryFile {
                    path: write(&path, name, text),
                    ..MemoryFile::default()
                })
                .collect();
            let dir = MemoryDir {
                project_dir: project.into(),
                path,
                files,
                ..MemoryDir::default()
            };
            Root {
                index: root,
                memory_dirs: vec![dir],
                ..Root::default()
            }
        };
        let roots = [
            folder(0, "-p", &[("a.md", "Same."), ("b.md", "New.")]),
            folder(1, "-p", &[("a.md", "Same."), ("b.md", "Old.")]),
            folder(2, "-q", &[("a.md", "Same.")]),
        ];
        let t = triage(&roots, &Redactor::disabled(), &mut TriageCache::disabled());
        let kept: Vec<(usize, &str, &str, &str)> = (t.memories.iter())
            .map(|m| {
                (
                    m.root,
                    m.project_dir.as_str(),
                    m.stem.as_str(),
                    m.body.trim(),
                )
            })
            .collect();
        assert_eq!(
            kept,
            [
                (0, "-p", "a", "Same."),
                (0, "-p", "b", "New."),
                (1, "-p", "b", "Old."),
                (2, "-q", "a", "Same."),
            ]
        );
    }
}
