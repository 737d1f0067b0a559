//! One page per memory, and the skills, references and notes indexes.

use super::links::{memory_section, Links};
use super::views::{ListView, MemoryCard, MemoryView};
use super::{Page, View};
use crate::knowledge::model::MemoryKind;

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

/// The indexes: (section, title, intro, which kinds).
type KindFilter = fn(&MemoryKind) -> bool;

const INDEXES: [(&str, &str, &str, KindFilter); 3] = [
    ("skills", "Skills", "How to work with you: rules learned from your feedback, each with why and how to apply it.", |k| *k == MemoryKind::Feedback),
    ("references", "References", "Where things live: dashboards, documents and tickets Claude Code was pointed to.", |k| *k == MemoryKind::Reference),
    ("notes", "Notes", "Project facts, notes about you and other memories.", |k| memory_section(k) == "notes"),
];

/// Every memory's page, then the three indexes.
pub(super) fn pages<'m>(l: &Links<'m>) -> Vec<Page<'m>> {
    let mut pages: Vec<Page<'m>> = (0..l.model.memories.len())
        .map(|i| memory_page(l, i))
        .collect();
    for (section, title, intro, pred) in INDEXES {
        let mut cards: Vec<MemoryCard> = l
            .memories_where(pred)
            .into_iter()
            .map(|i| l.memory_card(i))
            .collect();
        cards.sort_by_key(|c| c.title.to_lowercase());
        pages.push(Page {
            path: format!("{section}/index.html"),
            template: "list.html",
            title: title.into(),
            section,
            view: View::List(Box::new(ListView {
                kind: section,
                intro,
                projects: Vec::new(),
                memories: cards.into(),
                months: Vec::new(),
                newer: None,
                older: None,
            })),
        });
    }
    pages
}

fn memory_page<'m>(l: &Links<'m>, i: usize) -> Page<'m> {
    let m = &l.model.memories[i];
    let split = if m.kind == MemoryKind::Feedback {
        split_skill(&l.bodies[i])
    } else {
        None
    };
    let (rule, why, how) = match split {
        Some((r, w, h)) => (Some(r), w, h),
        None => (None, None, None),
    };
    Page {
        path: l.memory_href[i].clone(),
        template: "memory.html",
        title: m.name.to_string(),
        section: memory_section(&m.kind),
        view: View::Memory(Box::new(MemoryView {
            name: &m.name,
            description: &m.description,
            kind: m.kind.label(),
            project: l.project_link(&l.memory_project[i]),
            rule,
            why,
            how,
            body: l.bodies[i].clone(),
            backlinks: l.backlinks_of(i),
            source: format!("projects/{}/memory/{}.md", m.project_dir, m.stem),
        })),
    }
}

/// The search documents of the memories.
pub(super) fn search_docs(l: &Links<'_>, docs: &mut crate::site::search::SearchDocs<'_>) {
    for (i, m) in l.model.memories.iter().enumerate() {
        let project = l.projects.get(&l.memory_project[i]);
        let doc = crate::site::search::memory_doc(
            m,
            &l.memory_href[i],
            project.map(|p| &*p.link.title),
            project
                .and_then(|p| p.last_active)
                .map(|t| t.timestamp())
                .unwrap_or(0),
        );
        docs.push(crate::site::search::Packed::new(&doc));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_split() {
        let (rule, why, how) =
            split_skill("Always run tests.\n\n**Why:** CI is slow.\n\n**How to apply:** run `cargo test` first.").unwrap();
        assert_eq!(rule, "Always run tests.");
        assert_eq!(why.as_deref(), Some("CI is slow."));
        assert_eq!(how.as_deref(), Some("run `cargo test` first."));
        assert!(split_skill("no markers").is_none());
    }
}
