//! The timeline: one page per month of prompts and session starts, the
//! latest month also as the index.

use super::format::month_key;
use super::links::{project_key, Links};
use super::paging::{part_title, session_page_href, split_groups, LIST_ROWS};
use super::views::{
    EntryKind, EntryRun, Link, MonthBar, MonthLink, TimelineDay, TimelineEntry, TimelineView,
};
use super::{Page, View};
use crate::knowledge::model::{one_line, short_id};
use chrono::{DateTime, Datelike, Utc};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Sessions per month, oldest to newest, for the activity charts.
pub(super) fn activity(l: &Links<'_>) -> Vec<MonthBar> {
    let mut per_month: BTreeMap<String, usize> = BTreeMap::new();
    for &i in &l.sessions {
        if let Some(t) = l.model.sessions[i].started {
            *per_month.entry(month_key(t)).or_insert(0) += 1;
        }
    }
    let busiest = per_month.values().copied().max().unwrap_or(1).max(1);
    per_month
        .iter()
        .map(|(m, n)| MonthBar {
            month: m.clone(),
            sessions: *n,
            percent: (((*n * 100) / busiest) as u32).div_ceil(5) * 5,
            href: month_href(m),
        })
        .collect()
}

/// The first page of a month of the timeline (`month` as [`month_key`]).
fn month_href(month: &str) -> String {
    format!("timeline/{month}/index.html")
}

/// The timeline's pages: one per month (a busy month continues on pages
/// 2, 3… of [`LIST_ROWS`] entries), and the index, a copy of the newest
/// month's first page.
pub(super) fn pages<'m>(l: &Links<'m>) -> Vec<Page<'m>> {
    // Not an `Arc<[_]>`: making one copies them all.
    let all = Arc::new(entries(l));
    let months = months(&all);
    let bars: Vec<MonthLink> = months
        .iter()
        .map(|(k, _)| MonthLink {
            month: k.clone(),
            href: month_href(k),
        })
        .collect();
    // Every page in reading order, newest first: (month, which page of the
    // month when there are several, its days, its link).
    let mut parts: Vec<(String, Option<String>, Vec<TimelineDay<'m>>, Link)> = Vec::new();
    for (month, days) in months {
        let split = split_groups(days, LIST_ROWS);
        let n = split.len();
        for (i, days) in split.into_iter().enumerate() {
            let days = days
                .into_iter()
                .map(|(date, rows)| TimelineDay {
                    date,
                    entries: EntryRun {
                        all: all.clone(),
                        range: rows.first().map_or(0..0, |&f| f..f + rows.len()),
                    },
                })
                .collect();
            let link = Link {
                title: part_title(&month, i, n).into(),
                href: session_page_href(&month_href(&month), i).into(),
            };
            let part = (n > 1).then(|| format!("page {} of {n}", i + 1));
            parts.push((month.clone(), part, days, link));
        }
    }
    let links: Vec<Link> = parts.iter().map(|p| p.3.clone()).collect();
    let mut pages = Vec::with_capacity(parts.len() + 1);
    for (k, (month, part, days, link)) in parts.into_iter().enumerate() {
        let view = TimelineView {
            month: Some(month),
            part,
            months: bars.clone(),
            days: super::views::Days::Views(days),
            newer: k.checked_sub(1).map(|j| links[j].clone()),
            older: links.get(k + 1).cloned(),
        };
        if k == 0 {
            pages.push(timeline_page(
                "timeline/index.html".into(),
                "Timeline".into(),
                view.clone(),
            ));
        }
        pages.push(timeline_page(
            link.href.to_string(),
            format!("Timeline {}", link.title),
            view,
        ));
    }
    if pages.is_empty() {
        let empty = TimelineView {
            month: None,
            part: None,
            months: Vec::new(),
            days: super::views::Days::Views(Vec::new()),
            newer: None,
            older: None,
        };
        pages.push(timeline_page(
            "timeline/index.html".into(),
            "Timeline".into(),
            empty,
        ));
    }
    pages
}

fn timeline_page<'m>(path: String, title: String, view: TimelineView<'m>) -> Page<'m> {
    Page {
        path,
        template: "timeline.html",
        title,
        section: "timeline",
        view: View::Timeline(Box::new(view)),
    }
}

/// A month's days, newest first, each with its entries' places.
type Days = Vec<(String, Vec<usize>)>;

/// The months of `all` (entries newest first), newest first, each with
/// its days and the entries of each (their places in `all`).
fn months(all: &[TimelineEntry<'_>]) -> Vec<(String, Days)> {
    let mut months: Vec<(String, Days)> = Vec::new();
    // The day of the last entry: its keys are written only when it changes
    // (a long history is tens of thousands of entries in a few hundred days).
    let mut last = None;
    for (i, e) in all.iter().enumerate() {
        let date = e.ts.date_naive();
        if last != Some(date) {
            if last.is_none_or(|d: chrono::NaiveDate| {
                (d.year(), d.month()) != (date.year(), date.month())
            }) {
                months.push((month_key(e.ts), Vec::new()));
            }
            if let Some((_, days)) = months.last_mut() {
                days.push((date.format("%Y-%m-%d").to_string(), Vec::new()));
            }
            last = Some(date);
        }
        if let Some((_, rows)) = months.last_mut().and_then(|(_, days)| days.last_mut()) {
            rows.push(i);
        }
    }
    months
}

/// Every entry, newest first (the same time: by text): prompts from the
/// history, session starts from transcripts, and starts known only from
/// `sessions/<pid>.json`.
fn entries<'m>(l: &Links<'m>) -> Vec<TimelineEntry<'m>> {
    let model = l.model;
    let project_link = |cwd: &str| l.project_link(&project_key(cwd));
    let mut all =
        Vec::with_capacity(model.history.len() + model.sessions.len() + model.starts.len());
    let mut add = |ts: DateTime<Utc>, kind, text: Arc<str>, project, session| {
        let seq = all.len() as u32;
        all.push(TimelineEntry {
            ts,
            kind,
            text,
            project,
            session,
            seq,
        });
    };
    for h in &model.history {
        add(
            h.ts,
            EntryKind::Prompt,
            one_line(&h.display, 200).into(),
            h.project.as_deref().and_then(project_link),
            h.session_id.as_deref().and_then(|id| l.session_row_of(id)),
        );
    }
    let mut started: BTreeSet<&str> = BTreeSet::new();
    for s in &model.sessions {
        let (Some(row), Some(ts)) = (l.session_row_of(&s.id), s.started) else {
            continue;
        };
        started.insert(&s.id);
        let project = s.cwd.as_deref().and_then(project_link);
        add(ts, EntryKind::Start, row.title.clone(), project, Some(row));
    }
    for st in &model.starts {
        let Some(ts) = st
            .started
            .filter(|_| !started.contains(st.session_id.as_str()))
        else {
            continue;
        };
        let from = st
            .entrypoint
            .as_deref()
            .map(|e| format!(" from {e}"))
            .unwrap_or_default();
        add(
            ts,
            EntryKind::Start,
            format!("Session {} started{from}", short_id(&st.session_id)).into(),
            st.cwd.as_deref().and_then(project_link),
            l.session_row_of(&st.session_id),
        );
    }
    // Sorted in place: a stable sort would hold half of them again.
    all.sort_unstable_by(newest_first);
    all
}

/// Newest first; at the same time by text, then in the order found.
fn newest_first(a: &TimelineEntry<'_>, b: &TimelineEntry<'_>) -> std::cmp::Ordering {
    b.ts.cmp(&a.ts)
        .then_with(|| a.text.cmp(&b.text))
        .then(a.seq.cmp(&b.seq))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn entry(seq: u32, hour: u32, day: u32, month: u32, text: &str) -> TimelineEntry<'static> {
        TimelineEntry {
            ts: Utc.with_ymd_and_hms(2026, month, day, hour, 0, 0).unwrap(),
            kind: EntryKind::Start,
            text: text.into(),
            project: None,
            session: None,
            seq,
        }
    }

    proptest::proptest! {
        /// Whatever order entries are found in, each day's run holds the
        /// entries of that day, every entry is in exactly one run, and
        /// entries of the same time and text keep the order they were found in.
        #[test]
        fn days_are_runs_of_the_entries_newest_first(
            found in proptest::collection::vec((0u32..3, 1u32..4, 1u32..3, 0u8..2), 0..60),
        ) {
            let mut all: Vec<TimelineEntry> = found
                .iter()
                .enumerate()
                .map(|(i, &(h, d, m, t))| entry(i as u32, h, d, m, ["a", "b"][t as usize]))
                .collect();
            all.sort_unstable_by(newest_first);
            for w in all.windows(2) {
                let key = |e: &TimelineEntry| (std::cmp::Reverse(e.ts), e.text.clone());
                proptest::prop_assert!(key(&w[0]) <= key(&w[1]));
                if key(&w[0]) == key(&w[1]) {
                    proptest::prop_assert!(w[0].seq < w[1].seq);
                }
            }
            let mut next = 0;
            let months = months(&all);
            // One run a month, one a day: never two in a row of the same.
            for w in months.windows(2) {
                proptest::prop_assert_ne!(&w[0].0, &w[1].0);
            }
            for (_, days) in &months {
                for w in days.windows(2) {
                    proptest::prop_assert_ne!(&w[0].0, &w[1].0);
                }
            }
            for (month, days) in months {
                for (day, rows) in days {
                    for &i in &rows {
                        proptest::prop_assert_eq!(i, next);
                        next += 1;
                        proptest::prop_assert_eq!(month_key(all[i].ts), month.clone());
                        proptest::prop_assert_eq!(all[i].ts.format("%Y-%m-%d").to_string(), day.clone());
                    }
                }
            }
            proptest::prop_assert_eq!(next, all.len());
        }
    }
}
