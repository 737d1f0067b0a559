//! The link table: which project each session and memory belongs to, the
//! path of every page, and memory bodies with their links resolved. Every
//! page kind reads it; none of them decides a path on its own.

use super::format::day;
use super::views::{Link, MemoryBody, MemoryCard, ProjectCard, SessionRow};
use crate::base::skip::Skip;
use crate::base::slugs::{slugify, SlugSet};
use crate::knowledge::model::{short_id, Knowledge, MemoryKind};
use crate::source::memory::wikilinks;
use chrono::{DateTime, Utc};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock};

/// A project: every session and memory that shares one `cwd`.
#[derive(Debug, Default)]
pub(super) struct Project {
    /// Its name and page, shared by every page that links to it.
    pub link: Arc<Link>,
    /// The normalised `cwd` (the key it is filed under).
    pub path: String,
    pub sessions: Vec<usize>,
    pub memories: Vec<usize>,
    /// Prompts of `history.jsonl` (indexes, oldest first) whose session has
    /// no page: all a project known only from history has.
    pub history: Vec<usize>,
    /// When its last session ended (or began), or its last prompt; pages
    /// sort by it.
    pub last_active: Option<DateTime<Utc>>,
}

/// Normalise a `cwd` to a project key: no trailing separator, Windows drive
/// letters upper-cased with backslashes (`c:/x` and `C:\x` are one project).
pub fn project_key(cwd: &str) -> String {
    let t = cwd.trim();
    let b = t.as_bytes();
    if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
        let mut s = t.replace('/', "\\");
        s.replace_range(0..1, &t[0..1].to_ascii_uppercase());
        let trimmed = s.trim_end_matches('\\');
        return if trimmed.len() <= 2 {
            format!("{trimmed}\\")
        } else {
            trimmed.to_string()
        };
    }
    let trimmed = t.trim_end_matches('/');
    if trimmed.is_empty() {
        t.to_string()
    } else {
        trimmed.to_string()
    }
}

/// The name a project is shown under: its last path component.
fn project_name(key: &str) -> String {
    if key == "~" {
        return "home (~)".to_string();
    }
    key.rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or(key)
        .to_string()
}

/// Best effort for a folder with no `cwd` anywhere: `-home-x-y` → `/home/x/y`.
fn decode_folder(dir: &str) -> String {
    if dir.len() > 2 && dir.as_bytes()[1] == b'-' && dir.as_bytes()[2] == b'-' {
        return format!(
            "{}:\\{}",
            &dir[..1].to_ascii_uppercase(),
            dir[3..].replace('-', "\\")
        );
    }
    dir.replace('-', "/")
}

/// Where each memory kind lives in the site.
pub(super) fn memory_section(kind: &MemoryKind) -> &'static str {
    match kind {
        MemoryKind::Feedback => "skills",
        MemoryKind::Reference => "references",
        _ => "notes",
    }
}

/// The first page of each session that has a project (one to show).
fn session_hrefs(model: &Knowledge, session_project: &[Option<String>]) -> Vec<Option<Arc<str>>> {
    let mut session_slugs = SlugSet::default();
    model
        .sessions
        .iter()
        .zip(session_project)
        .map(|(s, p)| {
            p.as_ref().map(|_| {
                format!(
                    "sessions/{}/index.html",
                    session_slugs.claim(short_id(&s.id))
                )
                .into()
            })
        })
        .collect()
}

/// Every page's path and every cross-reference, decided once.
pub(super) struct Links<'m> {
    pub model: &'m Knowledge,
    /// Projects by key (normalised `cwd`).
    pub projects: BTreeMap<String, Project>,
    /// The project key of each session; None for one with nothing to show.
    pub session_project: Vec<Option<String>>,
    /// The project key of each memory.
    pub memory_project: Vec<String>,
    pub memory_href: Vec<String>,
    /// The first page of each session that has one.
    pub session_href: Vec<Option<Arc<str>>>,
    sessions_by_id: HashMap<&'m str, usize>,
    /// Sessions with a page, newest first.
    pub sessions: Vec<usize>,
    /// Session files with nothing to show.
    pub empty_sessions: usize,
    /// Prompts of `history.jsonl` whose session has no page.
    pub history_prompts: usize,
    /// Memory bodies with `[[links]]` and `(x.md)` links pointing at pages.
    pub bodies: Vec<String>,
    /// The memories that link to each memory, each once, in model order
    /// (pages show them by title: [`Links::backlinks_of`]).
    backlinks: Vec<Vec<usize>>,
    /// Session id → what `/insights` made of it.
    pub facets: HashMap<&'m str, &'m crate::knowledge::setup::Facet>,
    /// Each session's row in lists, made once when first asked for and
    /// shared: the sessions list and the project pages show the same
    /// rows (two copies of a hundred thousand rows were 30 MB).
    rows: Vec<OnceLock<Arc<SessionRow<'m>>>>,
}

impl<'m> Links<'m> {
    /// The table for `model`; links that lead nowhere are reported in `skips`.
    pub fn new(model: &'m Knowledge, skips: &mut Vec<Skip>) -> Links<'m> {
        let (mut projects, session_project, empty_sessions, history_prompts) = file_projects(model);
        let mut project_slugs = SlugSet::default();
        for (key, p) in projects.iter_mut() {
            p.path = key.clone();
            let s = &model.sessions;
            let history = p.history.iter().map(|&h| model.history[h].ts);
            p.last_active = p
                .sessions
                .iter()
                .filter_map(|&i| s[i].ended.or(s[i].started))
                .chain(history)
                .max();
            let name = project_name(key);
            let href = format!("projects/{}/index.html", project_slugs.claim(&name));
            p.link = Arc::new(Link {
                title: name.into(),
                href: href.into(),
            });
        }
        let mut memory_project = vec![String::new(); model.memories.len()];
        for (key, p) in &projects {
            for &m in &p.memories {
                memory_project[m] = key.clone();
            }
        }
        let mut section_slugs: HashMap<&str, SlugSet> = HashMap::new();
        let memory_href = model
            .memories
            .iter()
            .map(|m| {
                let section = memory_section(&m.kind);
                // A page of its own, not a folder: a rebuild makes the new
                // site's folders again, and ten thousand memories' folders
                // were a sixth of a rebuild after one of them changed.
                let slug = section_slugs.entry(section).or_default().claim(&m.name);
                format!("{section}/{slug}.html")
            })
            .collect();
        let session_href = session_hrefs(model, &session_project);
        let sessions_by_id = model
            .sessions
            .iter()
            .enumerate()
            .filter(|(i, _)| session_href[*i].is_some())
            .map(|(i, s)| (s.id.as_str(), i))
            .collect();
        let mut links = Links {
            model,
            projects,
            session_project,
            memory_project,
            memory_href,
            session_href,
            sessions_by_id,
            sessions: Vec::new(),
            empty_sessions,
            history_prompts,
            bodies: Vec::new(),
            backlinks: Vec::new(),
            facets: model
                .setup
                .facets
                .iter()
                .map(|f| (f.session_id.as_str(), f))
                .collect(),
            rows: (0..model.sessions.len()).map(|_| OnceLock::new()).collect(),
        };
        let mut sessions: Vec<usize> = (0..model.sessions.len())
            .filter(|i| links.session_href[*i].is_some())
            .collect();
        sessions.sort_by(|a, b| links.newest_first(*a, *b));
        links.sessions = sessions;
        links.link_bodies(skips);
        links
    }

    /// Newest first, then by id for a stable order.
    pub fn newest_first(&self, a: usize, b: usize) -> Ordering {
        let (sa, sb) = (&self.model.sessions[a], &self.model.sessions[b]);
        sb.started.cmp(&sa.started).then_with(|| sa.id.cmp(&sb.id))
    }

    pub fn project_link(&self, key: &str) -> Option<Arc<Link>> {
        self.projects.get(key).map(|p| p.link.clone())
    }

    /// The row of the session with this id, if it has a page.
    pub fn session_row_of(&self, id: &str) -> Option<Arc<SessionRow<'m>>> {
        self.sessions_by_id.get(id).map(|&i| self.session_row(i))
    }

    pub fn project_card(&self, p: &Project) -> ProjectCard {
        ProjectCard {
            title: p.link.title.to_string(),
            href: p.link.href.to_string(),
            path: p.path.clone(),
            sessions: p.sessions.len(),
            memories: p.memories.len(),
            last_active: day(p.last_active),
        }
    }

    pub fn memory_card(&self, i: usize) -> MemoryCard<'m> {
        let m = &self.model.memories[i];
        MemoryCard {
            title: &m.name,
            href: self.memory_href[i].clone(),
            description: &m.description,
            kind: m.kind.label(),
            project: self.project_link(&self.memory_project[i]),
        }
    }

    pub fn memory_body(&self, i: usize) -> MemoryBody<'m> {
        let m = &self.model.memories[i];
        MemoryBody {
            title: &m.name,
            href: self.memory_href[i].clone(),
            description: &m.description,
            kind: m.kind.label(),
            body: self.bodies[i].clone(),
        }
    }

    /// Session `i`'s row in lists.
    pub fn session_row(&self, i: usize) -> Arc<SessionRow<'m>> {
        self.rows[i]
            .get_or_init(|| Arc::new(self.make_row(i)))
            .clone()
    }

    fn make_row(&self, i: usize) -> SessionRow<'m> {
        let s = &self.model.sessions[i];
        let title: Arc<str> = s.title().into();
        SessionRow {
            about: self.about(i, &title),
            title,
            href: self.session_href[i].clone().unwrap_or_default(),
            session: s,
            project: self.session_project[i]
                .as_deref()
                .and_then(|k| self.project_link(k)),
        }
    }

    /// What a session was about beyond its title: what `/insights` made
    /// of it, else its summary, else what happened while the user was
    /// away, else where it ended.
    fn about(&self, i: usize, title: &str) -> Option<&'m str> {
        let s = &self.model.sessions[i];
        let facet = self
            .facets
            .get(s.id.as_str())
            .and_then(|f| f.summary.as_deref());
        let summary = s.titles.summary.as_deref().filter(|t| *t != title);
        facet
            .or(summary)
            .or(s.setup.away.as_deref())
            .or(s.titles.last_answer.as_deref())
    }

    /// The memories that link to memory `i`, by title (then page).
    pub fn backlinks_of(&self, i: usize) -> Vec<Link> {
        let mut sources: Vec<(&str, &str)> = self.backlinks[i]
            .iter()
            .map(|&s| (&*self.model.memories[s].name, self.memory_href[s].as_str()))
            .collect();
        sources.sort_unstable();
        sources
            .into_iter()
            .map(|(title, href)| Link {
                title: title.into(),
                href: href.into(),
            })
            .collect()
    }

    /// Memories whose kind passes `pred`, in model order.
    pub fn memories_where(&self, pred: impl Fn(&MemoryKind) -> bool) -> Vec<usize> {
        (0..self.model.memories.len())
            .filter(|&i| pred(&self.model.memories[i].kind))
            .collect()
    }

    fn link_bodies(&mut self, skips: &mut Vec<Skip>) {
        use rayon::prelude::*;
        let resolver = Resolver::new(self);
        let mut backlinks = vec![Vec::new(); self.model.memories.len()];
        let mut bodies = Vec::with_capacity(self.model.memories.len());
        // Each body on its own, on every core; then taken in order.
        let linked: Vec<(String, Vec<usize>, Vec<Skip>)> = (0..self.model.memories.len())
            .into_par_iter()
            .map(|i| {
                let mut found = Vec::new();
                let (body, targets) = resolver.link_body(i, &mut found);
                (body, targets, found)
            })
            .collect();
        for (i, (body, targets, found)) in linked.into_iter().enumerate() {
            skips.extend(found);
            for t in targets.into_iter().filter(|t| *t != i) {
                // Sources come in order: one linking twice is the last.
                let sources: &mut Vec<usize> = &mut backlinks[t];
                if sources.last() != Some(&i) {
                    sources.push(i);
                }
            }
            bodies.push(body);
        }
        self.bodies = bodies;
        self.backlinks = backlinks;
    }
}

/// Projects keyed by normalised `cwd`; a memory goes with its folder's most
/// frequent `cwd`, a folder with none by its decoded name. Returns the
/// projects, each session's key, and how many sessions had nothing to show.
/// What [`file_projects`] finds: the projects, each session's project, how
/// many sessions had nothing to show, how many history prompts belong to no
/// session page.
type Filed = (BTreeMap<String, Project>, Vec<Option<String>>, usize, usize);

fn file_projects(model: &Knowledge) -> Filed {
    let mut projects: BTreeMap<String, Project> = BTreeMap::new();
    let mut folder_cwds: HashMap<(usize, &str), BTreeMap<String, usize>> = HashMap::new();
    let mut session_project = vec![None; model.sessions.len()];
    let mut empty = 0;
    for (i, s) in model.sessions.iter().enumerate() {
        if s.turns.is_empty() && s.subagents.is_empty() {
            empty += 1;
            continue;
        }
        let key = match &s.cwd {
            Some(c) => {
                let k = project_key(c);
                *folder_cwds
                    .entry((s.root, s.project_dir.as_str()))
                    .or_default()
                    .entry(k.clone())
                    .or_insert(0) += 1;
                k
            }
            None => decode_folder(&s.project_dir),
        };
        projects.entry(key.clone()).or_default().sessions.push(i);
        session_project[i] = Some(key);
    }
    for (i, m) in model.memories.iter().enumerate() {
        let key = folder_cwds
            .get(&(m.root, m.project_dir.as_str()))
            .and_then(|counts| {
                counts
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(k, _)| k.clone())
            })
            .unwrap_or_else(|| decode_folder(&m.project_dir));
        projects.entry(key).or_default().memories.push(i);
    }
    let orphans = file_history(model, &session_project, &mut projects);
    (projects, session_project, empty, orphans)
}

/// File each history prompt whose session has no page under its project
/// (made here when history is all that is known of it); how many such
/// prompts there are, with a project or not.
fn file_history(
    model: &Knowledge,
    session_project: &[Option<String>],
    projects: &mut BTreeMap<String, Project>,
) -> usize {
    let with_page: HashSet<&str> = model
        .sessions
        .iter()
        .zip(session_project)
        .filter(|(_, p)| p.is_some())
        .map(|(s, _)| s.id.as_str())
        .collect();
    // Older history lines carry no session id: a prompt typed in the
    // project while one of its sessions ran belongs to that session.
    let mut spans: HashMap<&str, Vec<(i64, i64)>> = HashMap::new();
    for (s, key) in model.sessions.iter().zip(session_project) {
        if let (Some(key), Some(start)) = (key, s.started) {
            let end = s.ended.unwrap_or(start);
            spans
                .entry(key.as_str())
                .or_default()
                .push((start.timestamp() - 60, end.timestamp() + 60));
        }
    }
    for v in spans.values_mut() {
        v.sort_unstable();
    }
    let during_a_session = |key: &str, ts: i64| {
        spans.get(key).is_some_and(|v| {
            let after = v.partition_point(|&(start, _)| start <= ts);
            v[..after].iter().rev().take(8).any(|&(_, end)| ts <= end)
        })
    };
    let mut orphans = 0;
    for (i, h) in model.history.iter().enumerate() {
        if h.session_id
            .as_deref()
            .is_some_and(|id| with_page.contains(id))
        {
            continue;
        }
        let key = h.project.as_deref().map(project_key);
        if h.session_id.is_none()
            && key
                .as_deref()
                .is_some_and(|k| during_a_session(k, h.ts.timestamp()))
        {
            continue;
        }
        orphans += 1;
        if let Some(key) = key {
            projects.entry(key).or_default().history.push(i);
        }
    }
    orphans
}

/// Resolves links between memories.
struct Resolver<'a> {
    model: &'a Knowledge,
    hrefs: &'a [String],
    projects: &'a [String],
    /// Lower-cased name, stem and slug → memory indexes.
    /// Keyed by names from the data: foldhash, seeded at random (see
    /// `base::slugs`).
    by_name: foldhash::HashMap<String, Vec<usize>>,
}

impl<'a> Resolver<'a> {
    fn new(links: &'a Links<'_>) -> Self {
        use rayon::prelude::*;
        // Made on every core, then filed in order: ten thousand memories'
        // thirty thousand names held a rebuild's one core while the other
        // waited.
        let keys: Vec<[String; 3]> = (links.model.memories.par_iter())
            .map(|m| {
                [
                    m.name.to_lowercase(),
                    m.stem.to_lowercase(),
                    slugify(&m.name),
                ]
            })
            .collect();
        let mut by_name =
            foldhash::HashMap::with_capacity_and_hasher(keys.len() * 3, Default::default());
        for (i, names) in keys.into_iter().enumerate() {
            for k in names {
                let v: &mut Vec<usize> = by_name.entry(k).or_default();
                if !v.contains(&i) {
                    v.push(i);
                }
            }
        }
        Resolver {
            model: links.model,
            hrefs: &links.memory_href,
            projects: &links.memory_project,
            by_name,
        }
    }

    /// The memory `name` refers to, preferring one in the same project.
    fn find(&self, from: usize, name: &str) -> Option<usize> {
        let name = name.trim();
        let name = name.strip_suffix(".md").unwrap_or(name);
        let candidates = self
            .by_name
            .get(&name.to_lowercase())
            .or_else(|| self.by_name.get(&slugify(name)))?;
        candidates
            .iter()
            .copied()
            .find(|&c| self.projects[c] == self.projects[from])
            .or_else(|| candidates.first().copied())
    }

    /// The body of memory `i` with `[[X]]` and `(x.md)` links pointing at
    /// pages, built in one pass over the body.
    fn link_body(&self, i: usize, skips: &mut Vec<Skip>) -> (String, Vec<usize>) {
        let m = &self.model.memories[i];
        let body: &str = &m.body;
        let mut targets = Vec::new();
        let mut linked = String::with_capacity(body.len());
        let mut at = 0;
        for link in wikilinks(body) {
            linked.push_str(&body[at..link.span.start]);
            let shown = link.label.as_deref().unwrap_or(&link.target);
            match self.find(i, &link.target) {
                Some(t) => {
                    targets.push(t);
                    linked.push_str(&format!(
                        "[{}](@/{})",
                        escape_link_text(shown),
                        self.hrefs[t]
                    ));
                }
                None => {
                    skips.push(Skip::file(
                        &m.file,
                        format!("wikilink [[{}]] matches no memory", link.target),
                    ));
                    linked.push_str(shown);
                }
            }
            at = link.span.end;
        }
        linked.push_str(&body[at..]);
        // Markdown links to sibling memory files: `](other.md)`.
        let mut out = String::with_capacity(linked.len());
        let mut rest = linked.as_str();
        while let Some(pos) = rest.find("](") {
            out.push_str(&rest[..pos + 2]);
            let after = &rest[pos + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = &after[..end];
            let local = target.strip_prefix("./").unwrap_or(target);
            if local.ends_with(".md") && !local.contains('/') && !local.contains(':') {
                if let Some(t) = self.find(i, local) {
                    targets.push(t);
                    out.push_str(&format!("@/{}", self.hrefs[t]));
                    rest = &after[end..];
                    continue;
                }
            }
            rest = after;
        }
        out.push_str(rest);
        (out, targets)
    }
}

fn escape_link_text(s: &str) -> String {
    s.replace('[', "\\[").replace(']', "\\]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_keys() {
        assert_eq!(project_key("/home/a/x/"), "/home/a/x");
        assert_eq!(project_key("c:/Users/A/x"), "C:\\Users\\A\\x");
        assert_eq!(project_key("C:\\Users\\A\\x\\"), "C:\\Users\\A\\x");
        assert_eq!(project_key("/"), "/");
        assert_eq!(project_name("C:\\Users\\A\\web.site-v2"), "web.site-v2");
        assert_eq!(project_name("/home/a/x"), "x");
    }
}
