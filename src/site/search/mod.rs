//! Ranked search over what the wiki shows, shared by the page index and
//! `ccwiki search`, scored the way seed 003 describes:
//!
//! * only message content is searched, never metadata (session ids, branch
//!   names, `cwd`, versions…): a branch called `feat/log-rotation` does not
//!   make a session match "rotation";
//! * a match in a tool name weighs 2, in a file path 1.5, in text 1, in tool
//!   output 0.5, counted per block (at most [`spec::Spec::max_hits`] blocks
//!   per field and term), summed over the query's terms; case-insensitive;
//! * ties go to knowledge pages (memories) first, then to the newest.
//!
//! The numbers live in [`spec::SPEC`]. The browser runs the same rules in
//! `search.js`, with the spec and the index that [`SearchDocs::write_index`] writes.

mod docs;
pub mod spec;

pub use docs::{Packed, SearchDocs};

use crate::knowledge::model::{Memory, Session, Turn};
use serde::{Deserialize, Serialize};
use spec::SPEC;

/// What a search document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DocKind {
    /// A memory page: ranks above sessions at equal scores.
    #[serde(rename = "m")]
    Knowledge,
    #[serde(rename = "s")]
    Session,
}

/// One searchable page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Doc {
    #[serde(rename = "k")]
    pub kind: DocKind,
    #[serde(rename = "t")]
    pub title: String,
    /// Markdown headings of its text (`## Rollback`), at most [`HEADINGS`].
    #[serde(rename = "h", skip_serializing_if = "Vec::is_empty", default)]
    pub headings: Vec<String>,
    /// Page path relative to the site root.
    #[serde(rename = "u")]
    pub url: String,
    #[serde(rename = "p", skip_serializing_if = "Option::is_none", default)]
    pub project: Option<String>,
    #[serde(rename = "d", skip_serializing_if = "Option::is_none", default)]
    pub date: Option<String>,
    /// Seconds since the epoch, for "newest first" among equal scores.
    #[serde(rename = "s")]
    pub sort: i64,
    /// Tool names with how often each was called.
    #[serde(rename = "n", skip_serializing_if = "Vec::is_empty", default)]
    pub tools: Vec<(String, u64)>,
    #[serde(rename = "f", skip_serializing_if = "Vec::is_empty", default)]
    pub paths: Vec<String>,
    /// Text blocks with the anchor of the turn they are in.
    #[serde(rename = "x", skip_serializing_if = "Vec::is_empty", default)]
    pub texts: Vec<(String, String)>,
    #[serde(rename = "o", skip_serializing_if = "Vec::is_empty", default)]
    pub outputs: Vec<String>,
}

/// How much of a session a search document holds: the page index must stay
/// small enough to load in a second for thousands of sessions, and
/// `ccwiki search` scores the very same documents so both rank alike.
pub const BLOCK_CHARS: usize = 1_000;
/// Characters of prompt and answer text per session (prompts first).
pub const TEXT_CHARS: usize = 8_000;
/// File paths per session.
pub const PATHS: usize = 60;
/// Tool outputs per session (each already cut to a few hundred characters).
pub const OUTPUTS: usize = 12;

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// The search document of a session page, with `texts` from its turns
/// (see [`SessionTexts`]).
pub fn session_doc(
    s: &Session,
    texts: Vec<(String, String)>,
    url: &str,
    project: Option<&str>,
) -> Doc {
    Doc {
        kind: DocKind::Session,
        title: s.title(),
        headings: headings(texts.iter().map(|(_, x)| x.as_str())),
        url: url.to_string(),
        project: project.map(str::to_string),
        date: s.started.map(|t| t.format("%Y-%m-%d").to_string()),
        sort: s.started.map(|t| t.timestamp()).unwrap_or(0),
        tools: s
            .work
            .tools
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        paths: (s.work.files_touched)
            .iter()
            .take(PATHS)
            .map(|p| p.to_string())
            .collect(),
        texts,
        outputs: (s.work.tool_outputs)
            .iter()
            .take(OUTPUTS)
            .map(|o| o.to_string())
            .collect(),
    }
}

/// The text blocks of a session's search document, each with the anchor of
/// its turn, within [`TEXT_CHARS`] in all: prompts first (they say what a
/// session was about), then the answers, then the sub-agents' answers.
/// Fed in that order, a chunk of turns at a time.
#[derive(Debug)]
pub struct SessionTexts {
    texts: Vec<(String, String)>,
    budget: usize,
}

impl Default for SessionTexts {
    fn default() -> Self {
        SessionTexts {
            texts: Vec::new(),
            budget: TEXT_CHARS,
        }
    }
}

impl SessionTexts {
    fn push(&mut self, anchor: impl FnOnce() -> String, text: &str) {
        if self.budget == 0 || text.trim().is_empty() {
            return;
        }
        let t = cut(text, BLOCK_CHARS.min(self.budget));
        self.budget = self.budget.saturating_sub(t.chars().count());
        self.texts.push((anchor(), t));
    }

    /// The text of `t` when it is a prompt.
    pub fn prompt(&mut self, t: &Turn, anchor: impl FnOnce() -> String) {
        if let Turn::Prompt { text, .. } = t {
            self.push(anchor, text);
        }
    }

    /// The texts of `t` when it is an answer, a command or a compaction's
    /// summary.
    pub fn answer(&mut self, t: &Turn, anchor: impl Fn() -> String) {
        match t {
            Turn::Assistant { .. } => self.answer_texts(t, anchor),
            Turn::Command { name, args, .. } => self.push(anchor, &format!("{name} {args}")),
            Turn::Compaction {
                summary: Some(text),
                ..
            } => self.push(anchor, text),
            _ => {}
        }
    }

    /// The text blocks of `t` when it is an answer.
    pub fn answer_texts(&mut self, t: &Turn, anchor: impl Fn() -> String) {
        use crate::knowledge::model::Block;
        if let Turn::Assistant { blocks, .. } = t {
            for b in blocks {
                if let Block::Text(text) = b {
                    self.push(&anchor, text);
                }
            }
        }
    }

    /// `more`'s texts after these, within what is left of the budget:
    /// the same as pushing them here (each is already cut to no more than
    /// what is left here, since both budgets start whole).
    pub fn append(&mut self, more: SessionTexts) {
        for (anchor, text) in more.texts {
            self.push(|| anchor, &text);
        }
    }

    /// How many texts there are.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Anchor every text from the `from`th on at `anchor`.
    pub fn anchor_from(&mut self, from: usize, anchor: &str) {
        for (a, _) in self.texts.iter_mut().skip(from) {
            a.clear();
            a.push_str(anchor);
        }
    }

    pub fn into_texts(self) -> Vec<(String, String)> {
        self.texts
    }
}

/// The search document of a memory page.
/// Headings kept per document: enough to say what its parts are about.
pub const HEADINGS: usize = 40;

/// The Markdown headings (`# …` to `###### …`) of `texts`, without their
/// marks, at most [`HEADINGS`].
pub fn headings<'a>(texts: impl Iterator<Item = &'a str>) -> Vec<String> {
    texts
        .flat_map(str::lines)
        .filter_map(|line| {
            let line = line.trim_start();
            let level = line.len() - line.trim_start_matches('#').len();
            let rest = &line[level..];
            ((1..=6).contains(&level) && rest.starts_with(' '))
                .then(|| rest.trim().trim_end_matches('#').trim().to_string())
        })
        .filter(|h| !h.is_empty())
        .take(HEADINGS)
        .collect()
}

pub fn memory_doc(m: &Memory, url: &str, project: Option<&str>, sort: i64) -> Doc {
    let mut texts = vec![(String::new(), m.name.to_string())];
    if !m.description.is_empty() {
        texts.push((String::new(), m.description.to_string()));
    }
    texts.push((String::new(), m.body.to_string()));
    Doc {
        kind: DocKind::Knowledge,
        title: m.name.to_string(),
        headings: headings(std::iter::once(m.body.as_str())),
        url: url.to_string(),
        project: project.map(str::to_string),
        date: None,
        sort,
        tools: Vec::new(),
        paths: Vec::new(),
        texts,
        outputs: Vec::new(),
    }
}

/// A query's terms: lower-cased, split on white space, each once.
pub fn terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in spec::SPLIT.split(&query.to_lowercase()) {
        let t = t.to_string();
        if !t.is_empty() && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// A ranked result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit<'d> {
    #[serde(skip)]
    pub doc: &'d Doc,
    pub score: f64,
    /// Plain text around the best match.
    pub snippet: String,
    /// Where in the page the match is (`#p3`), when known.
    pub anchor: Option<String>,
}

fn count(hay: impl Iterator<Item = String>, term: &str) -> usize {
    hay.filter(|h| h.contains(term)).take(SPEC.max_hits).count()
}

/// Score one document; None when no term matches.
pub fn score(doc: &Doc, terms: &[String]) -> Option<f64> {
    let mut total = 0.0;
    for t in terms {
        let tools: u64 = doc
            .tools
            .iter()
            .filter(|(n, _)| n.to_lowercase().contains(t.as_str()))
            .map(|(_, c)| *c)
            .sum::<u64>()
            .min(SPEC.max_hits as u64);
        let w = SPEC.weights;
        if doc.title.to_lowercase().contains(t.as_str()) {
            total += w.t;
        }
        if doc
            .headings
            .iter()
            .any(|h| h.to_lowercase().contains(t.as_str()))
        {
            total += w.h;
        }
        total += w.n * tools as f64;
        total += w.f * count(doc.paths.iter().map(|p| p.to_lowercase()), t) as f64;
        total += w.x * count(doc.texts.iter().map(|(_, x)| x.to_lowercase()), t) as f64;
        total += w.o * count(doc.outputs.iter().map(|o| o.to_lowercase()), t) as f64;
    }
    (total > 0.0).then_some(total)
}

/// Rank `docs` for `query`: score, then knowledge first, then newest, then title.
pub fn search<'d>(docs: &'d [Doc], query: &str, limit: usize) -> Vec<Hit<'d>> {
    let terms = terms(query);
    if terms.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(f64, &Doc)> = docs
        .iter()
        .filter_map(|d| score(d, &terms).map(|s| (s, d)))
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| (a.1.kind != DocKind::Knowledge).cmp(&(b.1.kind != DocKind::Knowledge)))
            .then_with(|| b.1.sort.cmp(&a.1.sort))
            .then_with(|| a.1.title.cmp(&b.1.title))
            .then_with(|| a.1.url.cmp(&b.1.url))
    });
    scored
        .into_iter()
        .take(limit)
        .map(|(score, doc)| {
            let (snippet, anchor) = snippet(doc, &terms);
            Hit {
                doc,
                score,
                snippet,
                anchor,
            }
        })
        .collect()
}

/// Up to [`spec::Spec::snippet_chars`] characters around the first match in the block that holds
/// the most query terms; text first, then paths, outputs and tool names.
pub fn snippet(doc: &Doc, terms: &[String]) -> (String, Option<String>) {
    let candidates = doc
        .texts
        .iter()
        .map(|(a, t)| (Some(a.as_str()), t.as_str()))
        .chain(doc.paths.iter().map(|p| (None, p.as_str())))
        .chain(doc.outputs.iter().map(|o| (None, o.as_str())))
        .chain(doc.tools.iter().map(|(n, _)| (None, n.as_str())));
    let mut best: Option<(usize, Option<&str>, &str)> = None;
    for (anchor, text) in candidates {
        let lower = text.to_lowercase();
        let n = terms.iter().filter(|t| lower.contains(t.as_str())).count();
        if n > 0 && best.is_none_or(|(b, _, _)| n > b) {
            best = Some((n, anchor, text));
        }
    }
    let Some((_, anchor, text)) = best else {
        return (String::new(), None);
    };
    let chars: Vec<char> = text.chars().collect();
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let first = terms
        .iter()
        .filter_map(|t| find_chars(&lower, &t.chars().collect::<Vec<_>>()))
        .min()
        .unwrap_or(0);
    let start = first.saturating_sub(SPEC.snippet_before);
    let end = (start + SPEC.snippet_chars).min(chars.len());
    let mut s: String = chars[start..end].iter().collect();
    s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        s.insert(0, '…');
    }
    if end < chars.len() {
        s.push('…');
    }
    let anchor = anchor.filter(|a| !a.is_empty()).map(str::to_string);
    (s, anchor)
}

fn find_chars(hay: &[char], needle: &[char]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

/// The index shard that holds a project's sessions. A page names its
/// project's shard so that the browser loads it first.
pub fn shard_key(project: Option<&str>) -> String {
    format!(
        "sessions-{}",
        crate::base::slugs::slugify(project.unwrap_or("other"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(kind: DocKind, sort: i64, text: &str) -> Doc {
        Doc {
            kind,
            title: format!("doc {sort}"),
            headings: headings(std::iter::once(text)),
            url: format!("u{sort}"),
            project: None,
            date: None,
            sort,
            tools: Vec::new(),
            paths: Vec::new(),
            texts: vec![("#p1".into(), text.to_string())],
            outputs: Vec::new(),
        }
    }

    #[test]
    fn weights_rank_tool_over_path_over_text_over_output() {
        let mut tool = doc(DocKind::Session, 1, "nothing");
        tool.tools = vec![("Grep".into(), 1)];
        let mut path = doc(DocKind::Session, 2, "nothing");
        path.paths = vec!["/src/grep.rs".into()];
        let text = doc(DocKind::Session, 3, "we used grep here");
        let mut out = doc(DocKind::Session, 4, "nothing");
        out.outputs = vec!["grep: no match".into()];
        let docs = vec![out, text, path, tool];
        let hits = search(&docs, "GREP", 10);
        let scores: Vec<f64> = hits.iter().map(|h| h.score).collect();
        assert_eq!(scores, vec![2.0, 1.5, 1.0, 0.5]);
        assert_eq!(hits[0].doc.tools[0].0, "Grep");
        // A title match outweighs any one block of the body.
        let mut titled = doc(DocKind::Session, 5, "nothing");
        titled.title = "Grep tricks".into();
        let docs = vec![docs[3].clone(), titled];
        let hits = search(&docs, "grep", 10);
        assert_eq!(hits[0].doc.title, "Grep tricks");
        assert_eq!(hits[0].score, SPEC.weights.t);
        // A heading match outweighs a mention in a block of the body.
        let headed = doc(DocKind::Session, 6, "intro\n## Grep tricks\nmore");
        let mentioned = doc(DocKind::Session, 7, "we used grep twice, grep");
        let docs = vec![mentioned, headed];
        let hits = search(&docs, "grep", 10);
        assert_eq!(hits[0].doc.url, "u6");
        assert_eq!(hits[0].score, SPEC.weights.h + SPEC.weights.x);
        assert_eq!(hits[1].score, SPEC.weights.x);
    }

    #[test]
    fn headings_are_markdown_heading_lines_without_their_marks() {
        let h = headings(
            [
                "# One\ntext #not\n  ### Three ##\n####### seven\n#nospace",
                "## Two",
            ]
            .into_iter(),
        );
        assert_eq!(h, ["One", "Three", "Two"]);
        let many = "## h\n".repeat(100);
        assert_eq!(headings(std::iter::once(many.as_str())).len(), HEADINGS);
    }

    #[test]
    fn multi_term_total_then_knowledge_then_newest() {
        let docs = vec![
            doc(DocKind::Session, 10, "pino logs"),
            doc(DocKind::Session, 20, "pino log rotation"),
            doc(DocKind::Knowledge, 1, "rotation of pino logs"),
            doc(DocKind::Session, 30, "rotation of pino logs"),
        ];
        let hits = search(&docs, "pino rotation", 10);
        let order: Vec<&str> = hits.iter().map(|h| h.doc.url.as_str()).collect();
        assert_eq!(order, vec!["u1", "u30", "u20", "u10"]);
    }

    #[test]
    fn snippet_shows_the_match() {
        let long = format!(
            "{} the needle is here {}",
            "x ".repeat(100),
            "y ".repeat(100)
        );
        let d = doc(DocKind::Session, 1, &long);
        let (s, anchor) = snippet(&d, &terms("NEEDLE"));
        assert!(s.contains("needle is here"), "{s}");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.chars().count() <= 162);
        assert_eq!(anchor.as_deref(), Some("#p1"));
    }

    #[test]
    fn no_terms_no_hits() {
        assert!(search(&[doc(DocKind::Session, 1, "a")], "   ", 5).is_empty());
    }

    #[test]
    fn index_is_sharded_by_project_and_size() {
        let mut docs = Vec::new();
        for i in 0..10 {
            let mut d = doc(DocKind::Session, i, &"word ".repeat(200));
            d.project = Some(if i % 2 == 0 {
                "alpha".into()
            } else {
                "beta".into()
            });
            docs.push(d);
        }
        docs.push(doc(DocKind::Knowledge, 0, "k"));
        let spill = crate::knowledge::spill::Spill::none();
        let mut packed = SearchDocs::new(&spill);
        for d in &docs {
            packed.push(Packed::new(d));
        }
        let files = packed.index_files(3000).unwrap();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.contains(&"search/index.js"));
        assert!(names.contains(&"search/knowledge.js"));
        assert!(
            names
                .iter()
                .filter(|n| n.contains("sessions-alpha"))
                .count()
                >= 2,
            "{names:?}"
        );
        let manifest = String::from_utf8(files.last().unwrap().1.clone()).unwrap();
        // The spec comes first, so the page ranks by it as soon as shards arrive.
        let (spec_line, shards_line) = manifest.split_once('\n').unwrap();
        assert!(shards_line.starts_with("ccwikiSearch.shards(["));
        let json = spec_line
            .strip_prefix("ccwikiSearch.spec(")
            .and_then(|j| j.strip_suffix(");"))
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["weights"]["n"], 2.0);
        assert_eq!(v["max_hits"], SPEC.max_hits);
        assert_eq!(v["split"], SPEC.split);
    }
}
