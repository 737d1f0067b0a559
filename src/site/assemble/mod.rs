//! Phase 5: decide the wiki's pages, their paths, and the links between them.
//!
//! A project is identified by the `cwd` its records carry, never by its
//! folder name (which is lossy). Every page gets a path relative to the site
//! root (`projects/tide-api/index.html`); templates prefix links with the
//! page's `root` (`../../`), so the site works from `file://` and under any
//! sub-path. Internal links inside Markdown are written `@/path` and resolved
//! by the `markdown` filter at render time.

pub mod views;

use crate::base::skip::Skip;
use crate::base::slugs::SlugSet;
use crate::knowledge::model::{
    max_opt, min_opt, one_line, short_id, CompactKind, Knowledge, Memory, MemoryKind, Session,
    SubagentLayout, Turn,
};
use crate::source::memory::wikilinks;
use chrono::{DateTime, Datelike, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use views::*;

/// What a page shows; serialised as the template's context.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum View<'m> {
    Home(HomeView<'m>),
    About(AboutView<'m>),
    Project(ProjectView<'m>),
    Memory(MemoryView<'m>),
    /// Rendered from [`SessionPage::load`], never serialised as it is.
    #[serde(skip_serializing)]
    Session(SessionPage<'m>),
    Timeline(TimelineView),
    List(ListView<'m>),
}

/// One page of the site.
#[derive(Debug)]
pub struct Page<'m> {
    /// Path relative to the site root, e.g. `projects/tide-api/index.html`.
    pub path: String,
    /// The template that renders it.
    pub template: &'static str,
    pub title: String,
    /// The navigation section it belongs to.
    pub section: &'static str,
    pub view: View<'m>,
}

impl Page<'_> {
    /// The project this page is about, if any.
    pub fn project(&self) -> Option<&str> {
        match &self.view {
            View::Project(p) => Some(&p.name),
            View::Session(s) => s.project.as_ref().map(|l| l.title.as_str()),
            _ => None,
        }
    }

    /// The prefix that leads from this page back to the site root (`../../`).
    pub fn root(&self) -> String {
        "../".repeat(self.path.matches('/').count())
    }
}

/// The assembled site: pages, and what assembly found worth reporting.
#[derive(Debug, Default)]
pub struct Site<'m> {
    pub pages: Vec<Page<'m>>,
    /// What the search index holds: one document per memory and session page.
    pub search_docs: Vec<crate::site::search::Doc>,
    pub skips: Vec<Skip>,
    pub projects: usize,
    pub sessions: usize,
    pub empty_sessions: usize,
}

/// A project: every session and memory that shares one `cwd`.
#[derive(Debug, Default)]
struct Project {
    name: String,
    path: String,
    href: String,
    sessions: Vec<usize>,
    memories: Vec<usize>,
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

fn day(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| t.format("%Y-%m-%d").to_string())
}

fn date_time(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
}

fn clock(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| t.format("%H:%M").to_string())
}

/// A human duration: `45 s`, `12 min`, `2 h 05 min`.
pub fn duration(start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) -> Option<String> {
    let secs = (end? - start?).num_seconds();
    if secs < 0 {
        return None;
    }
    Some(match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min", secs / 60),
        _ => format!("{} h {:02} min", secs / 3600, (secs % 3600) / 60),
    })
}

fn month_key(ts: DateTime<Utc>) -> String {
    format!("{:04}-{:02}", ts.year(), ts.month())
}

/// Where each memory kind lives in the site.
fn memory_section(kind: &MemoryKind) -> &'static str {
    match kind {
        MemoryKind::Feedback => "skills",
        MemoryKind::Reference => "references",
        _ => "notes",
    }
}

/// Split a skill body into the rule, **Why** and **How to apply**.
pub fn split_skill(body: &str) -> Option<(String, Option<String>, Option<String>)> {
    let lower = body.to_ascii_lowercase();
    let why = lower.find("**why:**").or_else(|| lower.find("**why**:"));
    let how = lower
        .find("**how to apply:**")
        .or_else(|| lower.find("**how to apply**:"));
    if why.is_none() && how.is_none() {
        return None;
    }
    let cut = |start: usize, marker_len: usize, end: Option<usize>| {
        let s = start + marker_len;
        let e = end.filter(|e| *e > s).unwrap_or(body.len());
        body[s..e].trim().to_string()
    };
    let first = [why, how].into_iter().flatten().min().unwrap_or(body.len());
    let rule = body[..first].trim().to_string();
    let why_text = why.map(|w| cut(w, "**why:**".len(), how.filter(|h| *h > w)));
    let how_text = how.map(|h| cut(h, "**how to apply:**".len(), why.filter(|w| *w > h)));
    Some((
        rule,
        why_text.filter(|s| !s.is_empty()),
        how_text.filter(|s| !s.is_empty()),
    ))
}

/// Assemble the site from the (already redacted) model.
pub fn assemble(model: &Knowledge) -> Result<Site<'_>, crate::Error> {
    let mut site = Site::default();

    // Projects, keyed by normalised cwd; folders only when no cwd is known.
    let mut projects: BTreeMap<String, Project> = BTreeMap::new();
    let mut folder_cwds: HashMap<(usize, &str), BTreeMap<String, usize>> = HashMap::new();
    let mut session_project: Vec<Option<String>> = vec![None; model.sessions.len()];
    for (i, s) in model.sessions.iter().enumerate() {
        if s.turns.is_empty() && s.subagents.is_empty() {
            site.empty_sessions += 1;
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
        // The folder's most frequent cwd, else the decoded folder name.
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

    // Slugs and hrefs.
    let mut project_slugs = SlugSet::default();
    for (key, p) in projects.iter_mut() {
        p.name = project_name(key);
        p.path = key.clone();
        p.href = format!("projects/{}/index.html", project_slugs.claim(&p.name));
    }
    let mut memory_project: Vec<&str> = vec![""; model.memories.len()];
    for (key, p) in &projects {
        for &m in &p.memories {
            memory_project[m] = key;
        }
    }
    let mut section_slugs: HashMap<&str, SlugSet> = HashMap::new();
    let memory_href: Vec<String> = model
        .memories
        .iter()
        .map(|m| {
            let section = memory_section(&m.kind);
            let slug = section_slugs.entry(section).or_default().claim(&m.name);
            format!("{section}/{slug}/index.html")
        })
        .collect();
    let mut session_slugs = SlugSet::default();
    let session_href: Vec<Option<String>> = model
        .sessions
        .iter()
        .zip(&session_project)
        .map(|(s, p)| {
            p.as_ref().map(|_| {
                format!(
                    "sessions/{}/index.html",
                    session_slugs.claim(short_id(&s.id))
                )
            })
        })
        .collect();
    let project_link = |key: &str| -> Option<Link> {
        projects.get(key).map(|p| Link {
            title: p.name.clone(),
            href: p.href.clone(),
        })
    };
    let sessions_by_id: HashMap<&str, usize> = model
        .sessions
        .iter()
        .enumerate()
        .filter(|(i, _)| session_href[*i].is_some())
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();

    // Memory bodies with [[wikilinks]] and links to sibling .md files resolved.
    let resolver = Resolver::new(model, &memory_href, &memory_project);
    let mut backlinks: Vec<BTreeSet<(String, String)>> =
        vec![BTreeSet::new(); model.memories.len()];
    let bodies: Vec<String> = model
        .memories
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let (body, targets) = resolver.link_body(i, &mut site.skips);
            for t in targets {
                if t != i {
                    backlinks[t].insert((m.name.to_string(), memory_href[i].clone()));
                }
            }
            body
        })
        .collect();

    let memory_card = |i: usize| -> MemoryCard<'_> {
        let m = &model.memories[i];
        MemoryCard {
            title: &m.name,
            href: memory_href[i].clone(),
            description: &m.description,
            kind: m.kind.label(),
            project: project_link(memory_project[i]),
        }
    };
    let memory_body = |i: usize| -> MemoryBody<'_> {
        let m = &model.memories[i];
        MemoryBody {
            title: &m.name,
            href: memory_href[i].clone(),
            description: &m.description,
            kind: m.kind.label(),
            body: bodies[i].clone(),
        }
    };
    let session_row = |i: usize| -> SessionRow {
        let s = &model.sessions[i];
        SessionRow {
            title: s.title(),
            href: session_href[i].clone().unwrap_or_default(),
            date: date_time(s.started),
            project: session_project[i].as_deref().and_then(project_link),
            prompts: s.prompts,
            duration: duration(s.started, s.ended),
        }
    };
    // Newest first, then by id for a stable order.
    let newest_first = |a: &usize, b: &usize| {
        let (sa, sb) = (&model.sessions[*a], &model.sessions[*b]);
        sb.started.cmp(&sa.started).then_with(|| sa.id.cmp(&sb.id))
    };
    let mut all_sessions: Vec<usize> = (0..model.sessions.len())
        .filter(|i| session_href[*i].is_some())
        .collect();
    all_sessions.sort_by(newest_first);

    let project_last = |p: &Project| {
        p.sessions
            .iter()
            .filter_map(|&i| model.sessions[i].ended.or(model.sessions[i].started))
            .max()
    };
    let project_card = |p: &Project| ProjectCard {
        title: p.name.clone(),
        href: p.href.clone(),
        path: p.path.clone(),
        sessions: p.sessions.len(),
        memories: p.memories.len(),
        last_active: day(project_last(p)),
    };
    let mut cards: Vec<(&Project, Option<DateTime<Utc>>)> =
        projects.values().map(|p| (p, project_last(p))).collect();
    cards.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
    let project_cards: Vec<ProjectCard> = cards.iter().map(|(p, _)| project_card(p)).collect();

    // Month activity, oldest to newest.
    let mut per_month: BTreeMap<String, usize> = BTreeMap::new();
    for &i in &all_sessions {
        if let Some(t) = model.sessions[i].started {
            *per_month.entry(month_key(t)).or_insert(0) += 1;
        }
    }
    let busiest = per_month.values().copied().max().unwrap_or(1).max(1);
    let activity: Vec<MonthBar> = per_month
        .iter()
        .map(|(m, n)| MonthBar {
            month: m.clone(),
            sessions: *n,
            percent: (((*n * 100) / busiest) as u32).div_ceil(5) * 5,
            href: format!("timeline/{m}/index.html"),
        })
        .collect();

    let by_kind = |pred: &dyn Fn(&MemoryKind) -> bool| -> Vec<usize> {
        (0..model.memories.len())
            .filter(|&i| pred(&model.memories[i].kind))
            .collect()
    };
    let user_memories = by_kind(&|k| *k == MemoryKind::User);
    let skills = by_kind(&|k| *k == MemoryKind::Feedback);
    let references = by_kind(&|k| *k == MemoryKind::Reference);
    let notes = by_kind(&|k| memory_section(k) == "notes");

    let starts: Vec<DateTime<Utc>> = all_sessions
        .iter()
        .filter_map(|&i| model.sessions[i].started)
        .collect();
    let totals = Totals {
        projects: projects.len(),
        sessions: all_sessions.len(),
        memories: model.memories.len(),
        skills: skills.len(),
        references: references.len(),
        prompts: all_sessions
            .iter()
            .map(|&i| model.sessions[i].prompts)
            .sum(),
        first_day: day(starts.iter().min().copied()),
        last_day: day(starts.iter().max().copied()),
    };

    // Newest knowledge: memories of the most recently active projects first.
    let mut knowledge: Vec<usize> = (0..model.memories.len()).collect();
    let memory_recency = |i: usize| projects.get(memory_project[i]).and_then(project_last);
    knowledge.sort_by(|a, b| {
        memory_recency(*b)
            .cmp(&memory_recency(*a))
            .then_with(|| model.memories[*a].name.cmp(&model.memories[*b].name))
    });

    // Home.
    site.pages.push(Page {
        path: "index.html".into(),
        template: "home.html",
        title: "Home".into(),
        section: "home",
        view: View::Home(HomeView {
            totals: totals.clone(),
            projects: project_cards.iter().take(12).cloned().collect(),
            knowledge: knowledge.iter().take(8).map(|&i| memory_card(i)).collect(),
            recent: all_sessions
                .iter()
                .take(10)
                .map(|&i| session_row(i))
                .collect(),
            activity: activity.iter().rev().take(12).rev().cloned().collect(),
            about: user_memories.iter().map(|&i| memory_card(i)).collect(),
        }),
    });

    // About you.
    site.pages.push(Page {
        path: "about/index.html".into(),
        template: "about.html",
        title: "About you".into(),
        section: "about",
        view: View::About(AboutView {
            memories: user_memories.iter().map(|&i| memory_body(i)).collect(),
        }),
    });

    // Projects.
    site.pages.push(Page {
        path: "projects/index.html".into(),
        template: "list.html",
        title: "Projects".into(),
        section: "projects",
        view: View::List(ListView {
            kind: "projects",
            intro: "Every folder you worked in with Claude Code, most recent first.",
            projects: project_cards.clone(),
            memories: Vec::new(),
            months: Vec::new(),
        }),
    });
    for (key, p) in &projects {
        let mut sessions = p.sessions.clone();
        sessions.sort_by(newest_first);
        let (mut first, mut last) = (None, None);
        let mut branches = BTreeSet::new();
        let mut models = BTreeSet::new();
        let mut tools: BTreeMap<&str, u64> = BTreeMap::new();
        let mut files = BTreeSet::new();
        let mut prompts = 0;
        for &i in &sessions {
            let s = &model.sessions[i];
            first = min_opt(first, s.started);
            last = max_opt(last, s.ended.or(s.started));
            branches.extend(s.branches.iter().map(|t| t.as_str()));
            models.extend(s.models.iter().map(|t| t.as_str()));
            for (t, n) in &s.tools {
                *tools.entry(t).or_insert(0) += n;
            }
            files.extend(s.files_touched.iter());
            prompts += s.prompts;
        }
        let facts: Vec<MemoryBody> = p
            .memories
            .iter()
            .filter(|&&i| model.memories[i].kind == MemoryKind::Project)
            .map(|&i| memory_body(i))
            .collect();
        let groups: [(&'static str, &'static str, &KindFilter); 4] = [
            ("skills", "Skills", &|k| *k == MemoryKind::Feedback),
            ("references", "References", &|k| *k == MemoryKind::Reference),
            ("user", "About you", &|k| *k == MemoryKind::User),
            ("notes", "Other notes", &|k| {
                matches!(k, MemoryKind::Other(_) | MemoryKind::Untyped)
            }),
        ];
        let knowledge = groups
            .iter()
            .map(|(kind, label, pred)| MemoryGroup {
                kind,
                label,
                memories: p
                    .memories
                    .iter()
                    .filter(|&&i| pred(&model.memories[i].kind))
                    .map(|&i| memory_card(i))
                    .collect(),
            })
            .filter(|g| !g.memories.is_empty())
            .collect();
        let mut tools = tool_counts(tools.into_iter());
        tools.truncate(12);
        site.pages.push(Page {
            path: p.href.clone(),
            template: "project.html",
            title: p.name.clone(),
            section: "projects",
            view: View::Project(ProjectView {
                name: p.name.clone(),
                path: key.clone(),
                first_active: day(first),
                last_active: day(last),
                branches: branches.into_iter().collect(),
                models: models.into_iter().collect(),
                facts,
                knowledge,
                sessions: sessions.iter().map(|&i| session_row(i)).collect(),
                tools,
                files_touched: files.len(),
                prompts,
            }),
        });
    }

    // Memory pages and their indexes.
    for (i, m) in model.memories.iter().enumerate() {
        let split = if m.kind == MemoryKind::Feedback {
            split_skill(&bodies[i])
        } else {
            None
        };
        let (rule, why, how) = match split {
            Some((r, w, h)) => (Some(r), w, h),
            None => (None, None, None),
        };
        let source = format!("projects/{}/memory/{}.md", m.project_dir, m.stem);
        site.pages.push(Page {
            path: memory_href[i].clone(),
            template: "memory.html",
            title: m.name.to_string(),
            section: memory_section(&m.kind),
            view: View::Memory(MemoryView {
                name: &m.name,
                description: &m.description,
                kind: m.kind.label(),
                project: project_link(memory_project[i]),
                rule,
                why,
                how,
                body: bodies[i].clone(),
                backlinks: backlinks[i]
                    .iter()
                    .map(|(t, h)| Link {
                        title: t.clone(),
                        href: h.clone(),
                    })
                    .collect(),
                source,
            }),
        });
    }
    for (section, title, intro, list) in [
        ("skills", "Skills", "How to work with you: rules learned from your feedback, each with why and how to apply it.", &skills),
        ("references", "References", "Where things live: dashboards, documents and tickets Claude Code was pointed to.", &references),
        ("notes", "Notes", "Project facts, notes about you and other memories.", &notes),
    ] {
        let mut cards: Vec<MemoryCard> = list.iter().map(|&i| memory_card(i)).collect();
        cards.sort_by_key(|c| c.title.to_lowercase());
        site.pages.push(Page {
            path: format!("{section}/index.html"),
            template: "list.html",
            title: title.into(),
            section,
            view: View::List(ListView {
                kind: section,
                intro,
                projects: Vec::new(),
                memories: cards,
                months: Vec::new(),
            }),
        });
    }

    // Sessions.
    let mut months: Vec<MonthGroup> = Vec::new();
    for &i in &all_sessions {
        let m = model.sessions[i]
            .started
            .map(month_key)
            .unwrap_or_else(|| "undated".into());
        match months.last_mut() {
            Some(g) if g.month == m => g.sessions.push(session_row(i)),
            _ => months.push(MonthGroup {
                month: m,
                sessions: vec![session_row(i)],
            }),
        }
    }
    site.pages.push(Page {
        path: "sessions/index.html".into(),
        template: "list.html",
        title: "Sessions".into(),
        section: "sessions",
        view: View::List(ListView {
            kind: "sessions",
            intro: "Every conversation, newest first.",
            projects: Vec::new(),
            memories: Vec::new(),
            months,
        }),
    });
    for (i, m) in model.memories.iter().enumerate() {
        let project = projects.get(memory_project[i]);
        site.search_docs.push(crate::site::search::memory_doc(
            m,
            &memory_href[i],
            project.map(|p| p.name.as_str()),
            project
                .and_then(project_last)
                .map(|t| t.timestamp())
                .unwrap_or(0),
        ));
    }
    // Each session's turns are read back once, in parallel, for its pages
    // and its search document, then let go.
    let laid_out: Vec<(Vec<PageSpan>, crate::site::search::Doc)> = {
        use rayon::prelude::*;
        all_sessions
            .par_iter()
            .map(|&i| {
                let s = &model.sessions[i];
                let (turns, agents) = model.spill.load_session(s)?;
                let paging = paginate(&turns, &agents);
                let project = session_project[i]
                    .as_deref()
                    .and_then(|k| projects.get(k))
                    .map(|p| p.name.as_str());
                let doc = crate::site::search::session_doc(
                    s,
                    &turns,
                    &agents,
                    session_href[i].as_deref().unwrap_or_default(),
                    project,
                    &paging,
                );
                Ok((paging.spans(&turns), doc))
            })
            .collect::<Result<_, crate::Error>>()?
    };
    for (&i, (spans, doc)) in all_sessions.iter().zip(laid_out) {
        site.search_docs.push(doc);
        let s = &model.sessions[i];
        let first = session_href[i].clone().unwrap_or_default();
        let project = session_project[i].as_deref().and_then(project_link);
        let pages = spans.len();
        for (page, span) in spans.into_iter().enumerate() {
            let title = if pages > 1 {
                format!("{} (page {} of {})", s.title(), page + 1, pages)
            } else {
                s.title()
            };
            site.pages.push(Page {
                path: session_page_href(&first, page),
                template: "session.html",
                title,
                section: "sessions",
                view: View::Session(SessionPage {
                    session: s,
                    spill: &model.spill,
                    project: project.clone(),
                    span,
                    page,
                    pages,
                    first_href: first.clone(),
                }),
            });
        }
    }

    // Timeline, one page per month plus the latest month as the index.
    timeline(
        model,
        &mut site,
        &activity,
        &|key: &str| project_link(&project_key(key)),
        &|id: &str| {
            sessions_by_id.get(id).map(|&i| Link {
                title: model.sessions[i].title(),
                href: session_href[i].clone().unwrap_or_default(),
            })
        },
    );

    site.projects = projects.len();
    site.sessions = all_sessions.len();
    Ok(site)
}

/// Tools by how often they were called, most first.
fn tool_counts<'a>(tools: impl Iterator<Item = (&'a str, u64)>) -> Vec<ToolCount> {
    let mut out: Vec<ToolCount> = tools
        .map(|(name, count)| ToolCount {
            name: name.to_string(),
            count,
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    out
}

/// The anchor of each turn on its page: `p3` for the third prompt or
/// answer, `a4`…; empty for turns without one. Search links use them.
pub fn turn_anchors(turns: &[Turn], prefix: &str) -> Vec<String> {
    turn_anchors_from(turns, prefix, 0)
}

/// The anchor letter of a turn that gets one: `p` for a prompt, `a` for an answer.
fn anchor_letter(t: &Turn) -> Option<char> {
    match t {
        Turn::Prompt { .. } => Some('p'),
        Turn::Assistant { .. } => Some('a'),
        _ => None,
    }
}

/// [`turn_anchors`], numbering on after `anchored_before` anchored turns
/// (those on a session's earlier pages).
fn turn_anchors_from(turns: &[Turn], prefix: &str, anchored_before: usize) -> Vec<String> {
    let mut n = anchored_before;
    turns
        .iter()
        .map(|t| match anchor_letter(t) {
            Some(letter) => {
                n += 1;
                format!("{prefix}{letter}{n}")
            }
            None => String::new(),
        })
        .collect()
}

/// Text per session page: a longer conversation continues on pages 2, 3…
/// so that no page is too big for a browser, or for memory while rendering.
pub const PAGE_CHARS: usize = 400_000;

/// Which page (0-based) each turn and each sub-agent of a session is on.
#[derive(Debug, Clone, Default)]
pub struct Paging {
    pub turns: Vec<usize>,
    pub subagents: Vec<usize>,
    pub pages: usize,
}

fn turn_chars(t: &Turn) -> usize {
    100 + match t {
        Turn::Prompt { text, .. } | Turn::CommandOutput { text } => text.len(),
        Turn::Assistant { blocks, .. } => blocks
            .iter()
            .map(|b| match b {
                crate::knowledge::model::Block::Text(t) => t.len(),
                crate::knowledge::model::Block::Tool(c) => c.name.len() + c.arg.len() + 40,
            })
            .sum(),
        Turn::Command { name, args, .. } => name.len() + args.len(),
        Turn::Compaction { summary, .. } => summary.as_ref().map_or(0, |t| t.len()),
    }
}

/// Cut a session into pages of about [`PAGE_CHARS`]: the conversation first,
/// then the sub-agents, a sub-agent never split.
pub fn paginate(turns: &[Turn], agents: &[Vec<Turn>]) -> Paging {
    let mut paging = Paging::default();
    let (mut page, mut used) = (0, 0);
    let mut place = |size: usize| {
        if used > 0 && used + size > PAGE_CHARS {
            page += 1;
            used = 0;
        }
        used += size;
        page
    };
    paging.turns = turns.iter().map(|t| place(turn_chars(t))).collect();
    paging.subagents = agents
        .iter()
        .map(|a| place(200 + a.iter().map(turn_chars).sum::<usize>()))
        .collect();
    paging.pages = page + 1;
    paging
}

impl Paging {
    /// The turns and the sub-agents on `page`: contiguous ranges, since
    /// pages are filled in order.
    pub fn ranges(&self, page: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let range = |of: &[usize]| {
            let start = of.iter().position(|p| *p >= page).unwrap_or(of.len());
            let end = of.iter().position(|p| *p > page).unwrap_or(of.len());
            start..end.max(start)
        };
        (range(&self.turns), range(&self.subagents))
    }

    /// What each page shows, in order.
    pub fn spans(&self, turns: &[Turn]) -> Vec<PageSpan> {
        let mut anchored_before = 0;
        (0..self.pages)
            .map(|page| {
                let (turn_range, subagents) = self.ranges(page);
                let span = PageSpan {
                    turns: turn_range.clone(),
                    subagents,
                    anchored_before,
                };
                anchored_before += turns[turn_range]
                    .iter()
                    .filter(|t| anchor_letter(t).is_some())
                    .count();
                span
            })
            .collect()
    }
}

/// The turns and sub-agents one page of a session shows.
#[derive(Debug, Clone)]
pub struct PageSpan {
    turns: std::ops::Range<usize>,
    subagents: std::ops::Range<usize>,
    /// Prompts and answers on earlier pages: anchors continue after them.
    anchored_before: usize,
}

/// The path of page `page` (0-based) of the session whose first page is `first`.
pub fn session_page_href(first: &str, page: usize) -> String {
    if page == 0 {
        return first.to_string();
    }
    let dir = first.strip_suffix("index.html").unwrap_or(first);
    format!("{dir}{}/index.html", page + 1)
}

/// A link to `anchor` on page `page`, relative to the session's first page.
pub fn session_anchor(page: usize, anchor: &str) -> String {
    let fragment = if anchor.is_empty() {
        String::new()
    } else {
        format!("#{anchor}")
    };
    if page == 0 {
        fragment
    } else {
        format!("{}/index.html{fragment}", page + 1)
    }
}

fn turn_views<'a>(turns: &'a [Turn], prefix: &str) -> Vec<TurnView<'a>> {
    turn_views_from(turns, prefix, 0)
}

/// Views of `turns`, whose anchors continue after `anchored_before` anchored
/// turns (the turns of the session's earlier pages).
fn turn_views_from<'a>(
    turns: &'a [Turn],
    prefix: &str,
    anchored_before: usize,
) -> Vec<TurnView<'a>> {
    let anchors = turn_anchors_from(turns, prefix, anchored_before);
    let mut after_assistant = false;
    turns
        .iter()
        .zip(anchors)
        .map(|(t, anchor)| {
            let continued = after_assistant;
            after_assistant = matches!(t, Turn::Assistant { .. });
            (t, continued, anchor)
        })
        .map(|(t, continued, anchor)| match t {
            Turn::Prompt { ts, text } => TurnView::Prompt {
                time: clock(*ts),
                text,
                anchor,
            },
            Turn::Assistant { ts, model, blocks } => TurnView::Assistant {
                time: clock(*ts),
                model: model.as_deref(),
                blocks: blocks
                    .iter()
                    .map(|b| match b {
                        crate::knowledge::model::Block::Text(t) => BlockView::Text { text: t },
                        crate::knowledge::model::Block::Tool(c) => BlockView::Tool {
                            name: &c.name,
                            arg: &c.arg,
                        },
                    })
                    .collect(),
                anchor,
                continued,
            },
            Turn::Command { ts, name, args } => TurnView::Command {
                time: clock(*ts),
                name,
                args,
            },
            Turn::CommandOutput { text } => TurnView::Output { text },
            Turn::Compaction { ts, kind, summary } => TurnView::Compaction {
                time: clock(*ts),
                micro: *kind == CompactKind::Micro,
                summary: summary.as_deref(),
            },
        })
        .collect()
}

/// One page of a session. Its turns are read back from the spill only when
/// the page is rendered, so a long session's turns are never all in memory.
#[derive(Debug)]
pub struct SessionPage<'m> {
    session: &'m Session,
    spill: &'m crate::knowledge::spill::Spill,
    pub project: Option<Link>,
    span: PageSpan,
    page: usize,
    pages: usize,
    first_href: String,
}

/// The turns of one session page, read back from the spill.
pub struct LoadedPage<'m> {
    page: &'m SessionPage<'m>,
    turns: Vec<Turn>,
    subagents: Vec<Vec<Turn>>,
}

impl<'m> SessionPage<'m> {
    /// Read this page's turns and sub-agents.
    pub fn load(&'m self) -> Result<LoadedPage<'m>, crate::Error> {
        let s = self.session;
        Ok(LoadedPage {
            page: self,
            turns: self.spill.load_range(&s.turns, self.span.turns.clone())?,
            subagents: s.subagents[self.span.subagents.clone()]
                .iter()
                .map(|a| self.spill.load(&a.turns))
                .collect::<Result<_, _>>()?,
        })
    }
}

impl LoadedPage<'_> {
    /// The template's context.
    pub fn view(&self) -> SessionView<'_> {
        let p = self.page;
        let s = p.session;
        let tools = tool_counts(s.tools.iter().map(|(k, v)| (k.as_str(), *v)));
        let mut turns = turn_views_from(&self.turns, "", p.span.anchored_before);
        // A page starts with a speaker, even in the middle of the assistant's run.
        if let Some(TurnView::Assistant { continued, .. }) = turns.first_mut() {
            *continued = false;
        }
        let link = |n: usize| Link {
            title: format!("Page {}", n + 1),
            href: session_page_href(&p.first_href, n),
        };
        SessionView {
            title: s.title(),
            id: &s.id,
            project: p.project.clone(),
            date: date_time(s.started),
            duration: duration(s.started, s.ended),
            models: s.models.iter().map(|t| t.as_str()).collect(),
            branches: s.branches.iter().map(|t| t.as_str()).collect(),
            versions: s.versions.iter().map(|t| t.as_str()).collect(),
            entrypoint: s.entrypoint.as_deref(),
            prompts: s.prompts,
            assistant_turns: s.assistant_turns,
            tokens_in: s.usage.input + s.usage.cache_read + s.usage.cache_creation,
            tokens_out: s.usage.output,
            tools,
            turns,
            subagents: s.subagents[p.span.subagents.clone()]
                .iter()
                .zip(&self.subagents)
                .zip(p.span.subagents.clone())
                .map(|((a, agent_turns), k)| SubagentView {
                    number: k + 1,
                    id: &a.id,
                    role: a.role.label(),
                    layout: match a.layout {
                        SubagentLayout::Inline => "inline",
                        SubagentLayout::Sibling => "sibling file",
                        SubagentLayout::Nested => "subagents folder",
                    },
                    agent_type: a.agent_type.as_deref(),
                    description: a.description.as_deref(),
                    assistant_turns: a.assistant_turns,
                    turns: turn_views(agent_turns, &format!("s{}-", k + 1)),
                })
                .collect(),
            page: p.page + 1,
            pages: p.pages,
            prev: (p.page > 0).then(|| link(p.page - 1)),
            next: (p.page + 1 < p.pages).then(|| link(p.page + 1)),
        }
    }
}

type LinkFn<'a> = dyn Fn(&str) -> Option<Link> + 'a;
type KindFilter = dyn Fn(&MemoryKind) -> bool;
/// Day (`YYYY-MM-DD`) → its timeline entries with their times.
type DayMap = BTreeMap<String, Vec<(DateTime<Utc>, TimelineEntry)>>;

fn timeline(
    model: &Knowledge,
    site: &mut Site<'_>,
    activity: &[MonthBar],
    project_link: &LinkFn<'_>,
    session_link: &LinkFn<'_>,
) {
    // month → day → entries (time-sorted).
    let mut months: BTreeMap<String, DayMap> = BTreeMap::new();
    let mut add = |ts: DateTime<Utc>, e: TimelineEntry| {
        months
            .entry(month_key(ts))
            .or_default()
            .entry(ts.format("%Y-%m-%d").to_string())
            .or_default()
            .push((ts, e));
    };
    for h in &model.history {
        add(
            h.ts,
            TimelineEntry {
                time: h.ts.format("%H:%M").to_string(),
                kind: "prompt",
                text: one_line(&h.display, 200),
                project: h.project.as_deref().and_then(project_link),
                session: h.session_id.as_deref().and_then(session_link),
            },
        );
    }
    let mut started: BTreeSet<&str> = BTreeSet::new();
    for s in &model.sessions {
        let Some(link) = session_link(&s.id) else {
            continue;
        };
        let Some(ts) = s.started else { continue };
        started.insert(&s.id);
        add(
            ts,
            TimelineEntry {
                time: ts.format("%H:%M").to_string(),
                kind: "start",
                text: link.title.clone(),
                project: s.cwd.as_deref().and_then(project_link),
                session: Some(link),
            },
        );
    }
    // Sessions known only from sessions/<pid>.json.
    for st in &model.starts {
        if started.contains(st.session_id.as_str()) {
            continue;
        }
        let Some(ts) = st.started else { continue };
        add(
            ts,
            TimelineEntry {
                time: ts.format("%H:%M").to_string(),
                kind: "start",
                text: format!(
                    "Session {} started{}",
                    short_id(&st.session_id),
                    st.entrypoint
                        .as_deref()
                        .map(|e| format!(" from {e}"))
                        .unwrap_or_default()
                ),
                project: st.cwd.as_deref().and_then(project_link),
                session: session_link(&st.session_id),
            },
        );
    }
    let keys: Vec<String> = months.keys().cloned().collect();
    let bars: Vec<MonthBar> = keys
        .iter()
        .rev()
        .map(|k| MonthBar {
            month: k.clone(),
            sessions: activity
                .iter()
                .find(|a| a.month == *k)
                .map(|a| a.sessions)
                .unwrap_or(0),
            percent: activity
                .iter()
                .find(|a| a.month == *k)
                .map(|a| a.percent)
                .unwrap_or(0),
            href: format!("timeline/{k}/index.html"),
        })
        .collect();
    let n = keys.len();
    let mut latest: Option<TimelineView> = None;
    for (pos, (month, days)) in months.into_iter().enumerate() {
        let link = |i: usize| Link {
            title: keys[i].clone(),
            href: format!("timeline/{}/index.html", keys[i]),
        };
        let days: Vec<TimelineDay> = days
            .into_iter()
            .rev()
            .map(|(date, mut entries)| {
                entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.text.cmp(&b.1.text)));
                TimelineDay {
                    date,
                    entries: entries.into_iter().map(|(_, e)| e).collect(),
                }
            })
            .collect();
        let make = |days| TimelineView {
            month: Some(month.clone()),
            months: bars.clone(),
            days,
            newer: (pos + 1 < n).then(|| link(pos + 1)),
            older: (pos > 0).then(|| link(pos - 1)),
        };
        if pos + 1 == n {
            latest = Some(make(days.clone()));
        }
        site.pages.push(Page {
            path: format!("timeline/{month}/index.html"),
            template: "timeline.html",
            title: format!("Timeline {month}"),
            section: "timeline",
            view: View::Timeline(make(days)),
        });
    }
    site.pages.push(Page {
        path: "timeline/index.html".into(),
        template: "timeline.html",
        title: "Timeline".into(),
        section: "timeline",
        view: View::Timeline(latest.unwrap_or(TimelineView {
            month: None,
            months: Vec::new(),
            days: Vec::new(),
            newer: None,
            older: None,
        })),
    });
}

/// Resolves links between memories.
struct Resolver<'a> {
    model: &'a Knowledge,
    hrefs: &'a [String],
    projects: &'a [&'a str],
    /// Lower-cased name, stem and slug → memory indexes.
    by_name: HashMap<String, Vec<usize>>,
}

impl<'a> Resolver<'a> {
    fn new(model: &'a Knowledge, hrefs: &'a [String], projects: &'a [&'a str]) -> Self {
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, m) in model.memories.iter().enumerate() {
            for k in [
                m.name.to_lowercase(),
                m.stem.to_lowercase(),
                crate::base::slugs::slugify(&m.name),
            ] {
                let v = by_name.entry(k).or_default();
                if !v.contains(&i) {
                    v.push(i);
                }
            }
        }
        Resolver {
            model,
            hrefs,
            projects,
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
            .or_else(|| self.by_name.get(&crate::base::slugs::slugify(name)))?;
        candidates
            .iter()
            .copied()
            .find(|&c| self.projects[c] == self.projects[from])
            .or_else(|| candidates.first().copied())
    }

    /// The body of memory `i` with `[[X]]` and `(x.md)` links pointing at pages.
    fn link_body(&self, i: usize, skips: &mut Vec<Skip>) -> (String, Vec<usize>) {
        let m: &Memory = &self.model.memories[i];
        let mut body = m.body.to_string();
        let mut targets = Vec::new();
        for (target, label) in wikilinks(&m.body) {
            let raw = match &label {
                Some(l) => format!("[[{target}|{l}]]"),
                None => format!("[[{target}]]"),
            };
            let shown = label.clone().unwrap_or_else(|| target.clone());
            let replacement = match self.find(i, &target) {
                Some(t) => {
                    targets.push(t);
                    format!("[{}](@/{})", escape_link_text(&shown), self.hrefs[t])
                }
                None => {
                    skips.push(Skip::file(
                        &m.file,
                        format!("wikilink [[{target}]] matches no memory"),
                    ));
                    shown
                }
            };
            body = body.replace(&raw, &replacement);
        }
        // Markdown links to sibling memory files: `](other.md)`.
        let mut out = String::with_capacity(body.len());
        let mut rest = body.as_str();
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

    #[test]
    fn skill_split() {
        let (rule, why, how) =
            split_skill("Always run tests.\n\n**Why:** CI is slow.\n\n**How to apply:** run `cargo test` first.").unwrap();
        assert_eq!(rule, "Always run tests.");
        assert_eq!(why.as_deref(), Some("CI is slow."));
        assert_eq!(how.as_deref(), Some("run `cargo test` first."));
        assert!(split_skill("no markers").is_none());
    }

    #[test]
    fn long_sessions_are_paginated() {
        let big = "word ".repeat(PAGE_CHARS / 5 / 2 - 100);
        let turns: Vec<Turn> = (0..5)
            .map(|_| Turn::Prompt {
                ts: None,
                text: crate::knowledge::model::Text::test(&big),
            })
            .collect();
        let agents = vec![vec![Turn::Prompt {
            ts: None,
            text: crate::knowledge::model::Text::test("small"),
        }]];
        let p = paginate(&turns, &agents);
        assert_eq!(p.turns, vec![0, 0, 1, 1, 2]);
        assert_eq!(p.subagents, vec![2]);
        assert_eq!(p.pages, 3);
        assert_eq!(
            session_page_href("sessions/x/index.html", 0),
            "sessions/x/index.html"
        );
        assert_eq!(
            session_page_href("sessions/x/index.html", 2),
            "sessions/x/3/index.html"
        );
        assert_eq!(session_anchor(0, "p1"), "#p1");
        assert_eq!(session_anchor(1, "p9"), "2/index.html#p9");
        assert_eq!(session_anchor(1, ""), "2/index.html");
        assert_eq!(paginate(&[], &[]).pages, 1);
        // Anchors go on counting across pages.
        let spans = p.spans(&turns);
        assert_eq!(spans.len(), 3);
        assert_eq!(
            spans.iter().map(|s| s.anchored_before).collect::<Vec<_>>(),
            vec![0, 2, 4]
        );
        assert_eq!(spans[2].turns, 4..5);
        assert_eq!(spans[2].subagents, 0..1);
    }

    #[test]
    fn durations() {
        let t = |s: &str| Some(DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc));
        assert_eq!(
            duration(t("2026-01-01T00:00:00Z"), t("2026-01-01T00:00:45Z")).as_deref(),
            Some("45 s")
        );
        assert_eq!(
            duration(t("2026-01-01T00:00:00Z"), t("2026-01-01T02:05:00Z")).as_deref(),
            Some("2 h 05 min")
        );
        assert_eq!(duration(t("2026-01-01T00:00:00Z"), None), None);
    }
}
