//! The timeline: one page per month of prompts and session starts, the
//! latest month also as the index.

use super::format::month_key;
use super::links::{project_key, Links};
use super::views::{Link, MonthBar, TimelineDay, TimelineEntry, TimelineView};
use super::{Page, View};
use crate::knowledge::model::{one_line, short_id};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet};

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
            href: format!("timeline/{m}/index.html"),
        })
        .collect()
}

/// Day (`YYYY-MM-DD`) → its timeline entries with their times.
type DayMap = BTreeMap<String, Vec<(DateTime<Utc>, TimelineEntry)>>;

/// The timeline's pages: one per month, and the index.
pub(super) fn pages<'m>(l: &Links<'m>, activity: &[MonthBar]) -> Vec<Page<'m>> {
    let months = entries(l);
    let keys: Vec<String> = months.keys().cloned().collect();
    let bars: Vec<MonthBar> = keys
        .iter()
        .rev()
        .map(|k| {
            let bar = activity.iter().find(|a| a.month == *k);
            MonthBar {
                month: k.clone(),
                sessions: bar.map_or(0, |a| a.sessions),
                percent: bar.map_or(0, |a| a.percent),
                href: format!("timeline/{k}/index.html"),
            }
        })
        .collect();
    let link = |i: usize| Link {
        title: keys[i].clone(),
        href: format!("timeline/{}/index.html", keys[i]),
    };
    let n = keys.len();
    let mut pages = Vec::with_capacity(n + 1);
    let mut latest = None;
    for (pos, (month, days)) in months.into_iter().enumerate() {
        let view = TimelineView {
            month: Some(month.clone()),
            months: bars.clone(),
            days: days_newest_first(days),
            newer: (pos + 1 < n).then(|| link(pos + 1)),
            older: (pos > 0).then(|| link(pos - 1)),
        };
        if pos + 1 == n {
            latest = Some(view.clone());
        }
        pages.push(Page {
            path: format!("timeline/{month}/index.html"),
            template: "timeline.html",
            title: format!("Timeline {month}"),
            section: "timeline",
            view: View::Timeline(view),
        });
    }
    pages.push(Page {
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
    pages
}

fn days_newest_first(days: DayMap) -> Vec<TimelineDay> {
    days.into_iter()
        .rev()
        .map(|(date, mut entries)| {
            entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.text.cmp(&b.1.text)));
            TimelineDay {
                date,
                entries: entries.into_iter().map(|(_, e)| e).collect(),
            }
        })
        .collect()
}

/// Month → day → entries: prompts from the history, session starts from
/// transcripts, and starts known only from `sessions/<pid>.json`.
fn entries(l: &Links<'_>) -> BTreeMap<String, DayMap> {
    let model = l.model;
    let project_link = |cwd: &str| l.project_link(&project_key(cwd));
    let mut months: BTreeMap<String, DayMap> = BTreeMap::new();
    let mut add = |ts: DateTime<Utc>, kind: &'static str, text: String, project, session| {
        months
            .entry(month_key(ts))
            .or_default()
            .entry(ts.format("%Y-%m-%d").to_string())
            .or_default()
            .push((
                ts,
                TimelineEntry {
                    time: ts.format("%H:%M").to_string(),
                    kind,
                    text,
                    project,
                    session,
                },
            ));
    };
    for h in &model.history {
        add(
            h.ts,
            "prompt",
            one_line(&h.display, 200),
            h.project.as_deref().and_then(project_link),
            h.session_id.as_deref().and_then(|id| l.session_link(id)),
        );
    }
    let mut started: BTreeSet<&str> = BTreeSet::new();
    for s in &model.sessions {
        let (Some(link), Some(ts)) = (l.session_link(&s.id), s.started) else {
            continue;
        };
        started.insert(&s.id);
        let project = s.cwd.as_deref().and_then(project_link);
        add(ts, "start", link.title.clone(), project, Some(link));
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
            "start",
            format!("Session {} started{from}", short_id(&st.session_id)),
            st.cwd.as_deref().and_then(project_link),
            l.session_link(&st.session_id),
        );
    }
    months
}
