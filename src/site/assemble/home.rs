//! The home page and "About you".

use super::format::day;
use super::links::Links;
use super::views::{AboutView, HomeView, MonthBar, NotFoundView, ProjectCard, Totals};
use super::{Page, View};
use crate::knowledge::model::MemoryKind;

/// Home and About.
pub(super) fn pages<'m>(
    l: &Links<'m>,
    cards: &[ProjectCard],
    activity: &[MonthBar],
) -> Vec<Page<'m>> {
    let model = l.model;
    let about = l.memories_where(|k| *k == MemoryKind::User);
    // The range of activity: from the first session or prompt to the last
    // activity of any project (as their pages show it).
    let starts: Vec<_> = l
        .sessions
        .iter()
        .filter_map(|&i| model.sessions[i].started)
        .chain(model.history.iter().map(|h| h.ts))
        .collect();
    let last = l.projects.values().filter_map(|p| p.last_active).max();
    let totals = Totals {
        projects: l.projects.len(),
        sessions: l.sessions.len(),
        memories: model.memories.len(),
        skills: l.memories_where(|k| *k == MemoryKind::Feedback).len(),
        references: l.memories_where(|k| *k == MemoryKind::Reference).len(),
        prompts: l
            .sessions
            .iter()
            .map(|&i| model.sessions[i].prompts)
            .sum::<u64>()
            + l.history_prompts as u64,
        first_day: day(starts.iter().min().copied()),
        last_day: day(starts.iter().max().copied().max(last)),
    };
    // Newest knowledge: memories of the most recently active projects first.
    let mut knowledge: Vec<usize> = (0..model.memories.len()).collect();
    let recency = |i: usize| {
        l.projects
            .get(&l.memory_project[i])
            .and_then(|p| p.last_active)
    };
    knowledge.sort_by(|a, b| {
        recency(*b)
            .cmp(&recency(*a))
            .then_with(|| model.memories[*a].name.cmp(&model.memories[*b].name))
    });
    let home = HomeView {
        totals,
        projects: cards.iter().take(12).cloned().collect(),
        knowledge: knowledge
            .iter()
            .take(8)
            .map(|&i| l.memory_card(i))
            .collect::<Vec<_>>()
            .into(),
        recent: l
            .sessions
            .iter()
            .take(10)
            .map(|&i| l.session_row(i))
            .collect(),
        activity: activity.iter().rev().take(12).rev().cloned().collect(),
        about: about.iter().map(|&i| l.memory_card(i)).collect(),
    };
    vec![
        not_found(),
        Page {
            path: "index.html".into(),
            template: "home.html",
            title: "Home".into(),
            section: "home",
            view: View::Home(Box::new(home)),
        },
        Page {
            path: "about/index.html".into(),
            template: "about.html",
            title: "About you".into(),
            section: "about",
            view: View::About(Box::new(AboutView {
                memories: about.iter().map(|&i| l.memory_body(i)).collect(),
            })),
        },
    ]
}

/// The page a server shows for an address with nothing at it.
fn not_found<'m>() -> Page<'m> {
    Page {
        path: "404.html".into(),
        template: "404.html",
        title: "Page not found".into(),
        section: "",
        view: View::NotFound(NotFoundView { kind: "not-found" }),
    }
}
