//! The project list and one page per project.

use super::format::{date_time, day};
use super::links::{Links, Project};
use super::paging::LIST_ROWS;
use super::views::{
    Cards, Facts, FileRow, HistoryRow, ListView, MemoryGroup, ProjectCard, ProjectView, ToolCount,
};
use super::{Page, View};
use crate::knowledge::model::{max_opt, min_opt, one_line, MemoryKind};
use std::collections::{BTreeMap, BTreeSet};

/// Every project as a card, most recently active first.
pub(super) fn cards(l: &Links<'_>) -> Vec<ProjectCard> {
    let mut by_recency: Vec<&Project> = l.projects.values().collect();
    by_recency.sort_by(|a, b| {
        b.last_active
            .cmp(&a.last_active)
            .then_with(|| a.link.title.cmp(&b.link.title))
    });
    by_recency.iter().map(|p| l.project_card(p)).collect()
}

/// The list of projects and each project's page.
pub(super) fn pages<'m>(
    l: &Links<'m>,
    cards: &[ProjectCard],
    mut files: BTreeMap<String, Vec<FileRow>>,
) -> Vec<Page<'m>> {
    let mut pages = vec![Page {
        path: "projects/index.html".into(),
        template: "list.html",
        title: "Projects".into(),
        section: "projects",
        view: View::List(Box::new(ListView {
            kind: "projects",
            intro: "Every folder you worked in with Claude Code, most recent first.",
            projects: cards.to_vec(),
            memories: Cards::default(),
            months: Vec::new(),
            newer: None,
            older: None,
        })),
    }];
    pages.extend(l.projects.iter().map(|(key, p)| Page {
        path: p.link.href.to_string(),
        template: "project.html",
        title: p.link.title.to_string(),
        section: "projects",
        view: View::Project(Box::new(project_view(
            l,
            key,
            p,
            files.remove(key).unwrap_or_default(),
        ))),
    }));
    pages
}

type KindFilter = fn(&MemoryKind) -> bool;

/// A project's facts (in full) and its other memories, grouped by kind.
fn memories_of<'m>(l: &Links<'m>, p: &Project) -> (Facts<'m>, Vec<MemoryGroup<'m>>) {
    let of_kind = |pred: KindFilter| -> Vec<usize> {
        p.memories
            .iter()
            .copied()
            .filter(|&i| pred(&l.model.memories[i].kind))
            .collect()
    };
    let facts = of_kind(|k| *k == MemoryKind::Project)
        .into_iter()
        .map(|i| l.memory_body(i))
        .collect::<Vec<_>>()
        .into();
    let knowledge = GROUPS
        .iter()
        .map(|(kind, label, pred)| MemoryGroup {
            kind,
            label,
            memories: of_kind(*pred)
                .into_iter()
                .map(|i| l.memory_card(i))
                .collect::<Vec<_>>()
                .into(),
        })
        .filter(|g| !g.memories.is_empty())
        .collect();
    (facts, knowledge)
}

/// How a project's memories are grouped on its page (project facts stand
/// apart, at the top).
const GROUPS: [(&str, &str, KindFilter); 4] = [
    ("skills", "Skills", |k| *k == MemoryKind::Feedback),
    ("references", "References", |k| *k == MemoryKind::Reference),
    ("user", "About you", |k| *k == MemoryKind::User),
    ("notes", "Other notes", |k| {
        matches!(k, MemoryKind::Other(_) | MemoryKind::Untyped)
    }),
];

fn project_view<'m>(
    l: &Links<'m>,
    key: &str,
    p: &Project,
    file_rows: Vec<FileRow>,
) -> ProjectView<'m> {
    let model = l.model;
    let mut sessions = p.sessions.clone();
    sessions.sort_by(|a, b| l.newest_first(*a, *b));
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
        for (t, n) in &s.work.tools {
            *tools.entry(t).or_insert(0) += n;
        }
        files.extend(s.work.files_touched.iter());
        prompts += s.prompts;
    }
    for &h in &p.history {
        let ts = Some(model.history[h].ts);
        first = min_opt(first, ts);
        last = max_opt(last, ts);
    }
    prompts += p.history.len() as u64;
    let (facts, knowledge) = memories_of(l, p);
    let mut tools = tool_counts(tools.into_iter());
    tools.truncate(12);
    let mut usage = crate::knowledge::model::ModelUsage::new();
    for &i in &sessions {
        crate::knowledge::model::add_usage(&mut usage, &model.sessions[i].usage_by_model);
    }
    ProjectView {
        name: p.link.title.to_string(),
        path: key.to_string(),
        first_active: day(first),
        last_active: day(last),
        branches: branches.into_iter().collect(),
        models: models.into_iter().collect(),
        facts,
        knowledge,
        sessions: sessions
            .iter()
            .take(LIST_ROWS)
            .map(|&i| l.session_row(i))
            .collect(),
        session_count: sessions.len(),
        history: history_rows(l, p),
        tools,
        files_touched: files.len(),
        files: file_rows,
        prompts,
        cost: super::usage::cost_text(&model.prices, &usage),
    }
}

/// The project's prompts known only from history, newest first, a list
/// page of them at most.
fn history_rows(l: &Links<'_>, p: &Project) -> Vec<HistoryRow> {
    p.history
        .iter()
        .rev()
        .take(LIST_ROWS)
        .map(|&h| {
            let e = &l.model.history[h];
            HistoryRow {
                date: date_time(Some(e.ts)).unwrap_or_default(),
                text: one_line(&e.display, 300),
            }
        })
        .collect()
}

/// A search document per project with prompts known only from history:
/// they are found like any session's, and lead to the project page.
pub(super) fn history_docs(l: &Links<'_>, docs: &mut crate::site::search::SearchDocs<'_>) {
    use crate::site::search::{Doc, DocKind, Packed};
    let model = l.model;
    for p in l.projects.values().filter(|p| !p.history.is_empty()) {
        let last = p.history.iter().map(|&h| model.history[h].ts).max();
        docs.push(Packed::new(&Doc {
            kind: DocKind::Session,
            title: format!("Prompts in {} (from history)", p.link.title),
            headings: Vec::new(),
            url: p.link.href.to_string(),
            project: Some(p.link.title.to_string()),
            date: last.map(|t| t.format("%Y-%m-%d").to_string()),
            sort: last.map(|t| t.timestamp()).unwrap_or(0),
            tools: Vec::new(),
            paths: Vec::new(),
            texts: p
                .history
                .iter()
                .rev()
                .take(LIST_ROWS)
                .map(|&h| ("#history".to_string(), model.history[h].display.to_string()))
                .collect(),
            outputs: Vec::new(),
        }));
    }
}

/// Tools by how often they were called, most first.
pub(super) fn tool_counts<'a>(tools: impl Iterator<Item = (&'a str, u64)>) -> Vec<ToolCount> {
    let mut out: Vec<ToolCount> = tools
        .map(|(name, count)| ToolCount {
            name: name.to_string(),
            count,
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    out
}
