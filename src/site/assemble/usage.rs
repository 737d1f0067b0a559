//! Tokens and their estimated cost: per session, project, model and week,
//! priced from `prices.toml` (a model not in it has an unknown price).

use super::links::Links;
use super::views::{HeatCell, Heatmap, UsageRow, UsageView, WeekBar, WeekChart};
use super::{Page, View};
use crate::base::text::grouped;
use crate::knowledge::model::{ModelUsage, Usage};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
struct Prices {
    cache_write_5m: f64,
    cache_write_1h: f64,
    cache_read: f64,
    family: Vec<Family>,
}

#[derive(Debug, Deserialize)]
struct Family {
    prefix: String,
    input: f64,
    output: f64,
}

fn prices() -> &'static Prices {
    static PRICES: OnceLock<Prices> = OnceLock::new();
    PRICES.get_or_init(|| {
        // The table is part of the program: a test checks that it reads.
        toml::from_str(include_str!("prices.toml")).unwrap_or(Prices {
            cache_write_5m: 0.0,
            cache_write_1h: 0.0,
            cache_read: 0.0,
            family: Vec::new(),
        })
    })
}

/// The user's own prices, by model name prefix (`[prices]`).
pub type OwnPrices = [(String, crate::config::Price)];

/// What `usage` of `model` costs, in dollars; None for an unknown model.
/// The user's prices come first (the longest prefix that fits), then the
/// built-in table.
pub fn cost(own: &OwnPrices, model: &str, u: &Usage) -> Option<f64> {
    let p = prices();
    let (input, output) = own
        .iter()
        .filter(|(prefix, _)| model.starts_with(prefix.as_str()))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, price)| (price.input, price.output))
        .or_else(|| {
            p.family
                .iter()
                .find(|f| model.starts_with(&f.prefix))
                .map(|f| (f.input, f.output))
        })?;
    let write_5m = u.cache_creation.saturating_sub(u.cache_write_1h);
    let tokens = u.input as f64 * input
        + u.output as f64 * output
        + write_5m as f64 * input * p.cache_write_5m
        + u.cache_write_1h as f64 * input * p.cache_write_1h
        + u.cache_read as f64 * input * p.cache_read;
    Some(tokens / 1e6)
}

/// `$1.23` for the models with a price, with "+ unknown price" when a
/// model used has none; None when nothing was used.
pub fn cost_text(own: &OwnPrices, by_model: &ModelUsage) -> Option<String> {
    let (mut sum, mut known, mut unknown) = (0.0, false, false);
    for (model, u) in by_model.iter().filter(|(_, u)| u.total() > 0) {
        match cost(own, model, u) {
            Some(c) => (sum, known) = (sum + c, true),
            None => unknown = true,
        }
    }
    match (known, unknown) {
        (false, false) => None,
        (false, true) => Some("unknown price".to_string()),
        (true, false) => Some(dollars(sum)),
        (true, true) => Some(format!("{} + unknown price", dollars(sum))),
    }
}

fn dollars(d: f64) -> String {
    if d >= 100.0 {
        format!("${d:.0}")
    } else {
        format!("${d:.2}")
    }
}

fn row(own: &OwnPrices, name: String, href: Option<String>, by_model: &ModelUsage) -> UsageRow {
    let mut u = Usage::default();
    for m in by_model.values() {
        u.add(m);
    }
    UsageRow {
        name,
        href,
        input: grouped(u.input),
        output: grouped(u.output),
        cache_write: grouped(u.cache_creation),
        cache_read: grouped(u.cache_read),
        tokens: u.total(),
        cost: cost_text(own, by_model).unwrap_or_default(),
        share: 0.0,
    }
}

/// Bar lengths as a share (0–100) of the largest row's tokens.
fn scale(rows: &mut [UsageRow]) {
    let max = rows.iter().map(|r| r.tokens).max().unwrap_or(0);
    for r in rows {
        r.share = share(r.tokens, max);
    }
}

/// `tokens` as a share (0–100, one decimal) of `max`.
fn share(tokens: u64, max: u64) -> f64 {
    (tokens as f64 * 100.0 / max.max(1) as f64 * 10.0).round() / 10.0
}

/// Every session's usage, summed: in all, by project, by week, tokens by day.
#[derive(Default)]
struct Sums<'a> {
    all: ModelUsage,
    by_project: BTreeMap<&'a str, ModelUsage>,
    /// Keyed by the week's Monday.
    by_week: BTreeMap<chrono::NaiveDate, ModelUsage>,
    by_day: BTreeMap<chrono::NaiveDate, u64>,
}

fn sums<'a>(l: &'a Links<'_>) -> Sums<'a> {
    let mut all = ModelUsage::new();
    let mut by_project: BTreeMap<&str, ModelUsage> = BTreeMap::new();
    let mut by_week: BTreeMap<chrono::NaiveDate, ModelUsage> = BTreeMap::new();
    let mut by_day: BTreeMap<chrono::NaiveDate, u64> = BTreeMap::new();
    for &i in &l.sessions {
        let s = &l.model.sessions[i];
        crate::knowledge::model::add_usage(&mut all, &s.usage_by_model);
        if let Some(key) = l.session_project[i].as_deref() {
            crate::knowledge::model::add_usage(
                by_project.entry(key).or_default(),
                &s.usage_by_model,
            );
        }
        if let Some(start) = s.started {
            *by_day.entry(start.date_naive()).or_default() +=
                s.usage_by_model.values().map(Usage::total).sum::<u64>();
            let monday = start.date_naive().week(chrono::Weekday::Mon).first_day();
            crate::knowledge::model::add_usage(
                by_week.entry(monday).or_default(),
                &s.usage_by_model,
            );
        }
    }
    Sums {
        all,
        by_project,
        by_week,
        by_day,
    }
}

pub fn page<'m>(l: &Links<'m>) -> Page<'m> {
    let Sums {
        all,
        by_project,
        by_week,
        by_day,
    } = sums(l);
    let models: Vec<UsageRow> = all
        .iter()
        .filter(|(_, u)| u.total() > 0)
        .map(|(m, u)| {
            let name = if m.is_empty() {
                "unknown model".to_string()
            } else {
                m.to_string()
            };
            row(
                &l.model.prices,
                name,
                None,
                &ModelUsage::from([(m.clone(), *u)]),
            )
        })
        .collect();
    let mut projects: Vec<UsageRow> = by_project
        .iter()
        .filter_map(|(key, u)| {
            let link = l.project_link(key)?;
            Some(row(
                &l.model.prices,
                link.title.to_string(),
                Some(link.href.to_string()),
                u,
            ))
        })
        .collect();
    projects.sort_by_key(|r| std::cmp::Reverse(r.tokens));
    scale(&mut projects);
    let mut weeks: Vec<UsageRow> = by_week
        .iter()
        .map(|(monday, u)| row(&l.model.prices, monday.to_string(), None, u))
        .collect();
    // Each row's share of the highest week's, as before the chart scaled
    // its own (a template of the user's may draw it).
    scale(&mut weeks);
    let week_chart = week_chart(&by_week, &weeks);
    Page {
        path: "usage/index.html".to_string(),
        template: "usage.html",
        title: "Usage".to_string(),
        section: "usage",
        view: View::Usage(Box::new(UsageView {
            total: row(&l.model.prices, "All sessions".to_string(), None, &all),
            models,
            projects,
            week_chart,
            weeks,
            heatmap: heatmap(&by_day),
        })),
    }
}

/// Weeks the week chart spans at most: the last three years of activity.
const CHART_WEEKS: i64 = 156;

/// The bars of `weeks` (the rows of `by_week`'s weeks, in its order),
/// one slot per week from the first active week to the last (at most
/// [`CHART_WEEKS`] back), so a quiet week is a gap, not a neighbour's bar
/// moved closer. Bars are scaled by the highest week shown.
fn week_chart(by_week: &BTreeMap<chrono::NaiveDate, ModelUsage>, weeks: &[UsageRow]) -> WeekChart {
    let Some(&last) = by_week.keys().next_back() else {
        return WeekChart::default();
    };
    let from = last - chrono::Duration::weeks(CHART_WEEKS - 1);
    let shown: Vec<(chrono::NaiveDate, &UsageRow)> = by_week
        .keys()
        .copied()
        .zip(weeks)
        .filter(|&(monday, _)| monday >= from)
        .collect();
    let (Some(&(first, _)), Some(&(peak_week, peak))) =
        (shown.first(), shown.iter().max_by_key(|(_, w)| w.tokens))
    else {
        return WeekChart::default();
    };
    let slot = |monday: chrono::NaiveDate| (monday - first).num_weeks() as usize;
    let bars = shown
        .iter()
        .map(|&(monday, w)| {
            let height = share(w.tokens, peak.tokens);
            WeekBar {
                x: slot(monday) * 14,
                height,
                y: 100.0 - height,
                label: format!("week of {monday}: {} tokens", grouped(w.tokens)),
            }
        })
        .collect();
    WeekChart {
        width: (slot(last) + 1) * 14,
        bars,
        first: first.to_string(),
        last: last.to_string(),
        peak: format!("{} tokens, week of {peak_week}", grouped(peak.tokens)),
    }
}

/// Days shown in the heatmap: the last year of activity.
const HEATMAP_WEEKS: i64 = 53;

/// A calendar of the last year of activity: a column per week, a row per
/// weekday (Monday first), darker for more tokens; and the days with any.
fn heatmap(by_day: &BTreeMap<chrono::NaiveDate, u64>) -> Heatmap {
    use chrono::Datelike;
    let Some((&last, _)) = by_day.iter().next_back() else {
        return Heatmap::default();
    };
    let end = last.week(chrono::Weekday::Mon).last_day();
    let start = end - chrono::Duration::days(HEATMAP_WEEKS * 7 - 1);
    let shown: Vec<(chrono::NaiveDate, u64)> =
        by_day.range(start..).map(|(d, t)| (*d, *t)).collect();
    let max = shown.iter().map(|(_, t)| *t).max().unwrap_or(0).max(1);
    let first = shown
        .first()
        .map_or(start, |(d, _)| d.week(chrono::Weekday::Mon).first_day());
    let weeks = ((end - first).num_days() / 7 + 1) as usize;
    let cells = shown
        .iter()
        .map(|(d, t)| {
            let week = ((*d - first).num_days() / 7) as usize;
            HeatCell {
                x: week * 13,
                y: d.weekday().num_days_from_monday() as usize * 13,
                level: 1 + (t * 4).saturating_sub(1) / max,
                label: format!("{d}: {} tokens", grouped(*t)),
            }
        })
        .collect();
    Heatmap {
        width: weeks * 13,
        cells,
        months: month_labels(first, weeks),
        days: shown
            .iter()
            .rev()
            .map(|(d, t)| (d.to_string(), grouped(*t)))
            .collect(),
    }
}

/// The heatmap's month names: over each week column a month starts in,
/// and over the first column unless a name follows within two columns
/// (three letters are two columns wide).
fn month_labels(first: chrono::NaiveDate, weeks: usize) -> Vec<(usize, String)> {
    use chrono::Datelike;
    let starts = (0..weeks).filter_map(|w| {
        let monday = first + chrono::Duration::weeks(w as i64);
        let first_of_month = (0..7)
            .map(|d| monday + chrono::Duration::days(d))
            .find(|d| d.day() == 1)?;
        Some((w, first_of_month))
    });
    let mut months: Vec<(usize, String)> = starts
        .map(|(w, day)| (w * 13, day.format("%b").to_string()))
        .collect();
    if months.first().is_none_or(|&(x, _)| x > 2 * 13) {
        months.insert(0, (0, first.format("%b").to_string()));
    }
    months
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_price_table_reads_and_unknown_models_are_never_guessed() {
        assert!(prices().family.len() >= 8);
        let u = Usage {
            input: 1_000_000,
            output: 1_000_000,
            cache_read: 1_000_000,
            cache_creation: 1_000_000,
            cache_write_1h: 500_000,
        };
        // 3 + 15 + 0.5 × 3 × 1.25 + 0.5 × 3 × 2 + 3 × 0.1
        let c = cost(&[], "claude-sonnet-4-5-20250929", &u).unwrap();
        assert!((c - (3.0 + 15.0 + 1.875 + 3.0 + 0.3)).abs() < 1e-9, "{c}");
        assert_eq!(cost(&[], "claude-opus-4-6", &u), None);
        assert_eq!(cost(&[], "claude-opus-4", &u), None);
        let mixed = ModelUsage::from([
            (
                crate::knowledge::redact::Text::test("claude-haiku-4-5-20251001"),
                u,
            ),
            (crate::knowledge::redact::Text::test("claude-opus-4-6"), u),
        ]);
        assert!(cost_text(&[], &mixed).unwrap().ends_with("+ unknown price"));
        // The user's prices: a model the table lacks, and one it has, over it.
        let price = |input, output| crate::config::Price { input, output };
        let own = [
            ("claude-opus-4".to_string(), price(1.0, 1.0)),
            ("claude-opus-4-6".to_string(), price(5.0, 25.0)),
            ("claude-sonnet-4-5".to_string(), price(0.0, 0.0)),
        ];
        let only = Usage {
            input: 1_000_000,
            output: 1_000_000,
            ..Usage::default()
        };
        assert_eq!(
            cost(&own, "claude-opus-4-6-x", &only),
            Some(30.0),
            "longest prefix"
        );
        assert_eq!(cost(&own, "claude-sonnet-4-5-20250929", &only), Some(0.0));
        assert_eq!(
            cost_text(&own, &mixed).map(|t| t.contains("unknown")),
            Some(false)
        );
    }

    #[test]
    fn the_week_chart_leaves_quiet_weeks_as_gaps_and_shows_three_years_at_most() {
        let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let used = |input: u64| {
            ModelUsage::from([(
                crate::knowledge::redact::Text::test("m"),
                Usage {
                    input,
                    ..Usage::default()
                },
            )])
        };
        let by_week = BTreeMap::from([
            (day("2020-01-06"), used(9_000)), // four years before: not charted
            (day("2026-10-05"), used(100)),
            (day("2026-10-19"), used(400)), // a quiet week before it
            (day("2026-10-26"), used(200)),
        ]);
        let weeks: Vec<UsageRow> = by_week
            .iter()
            .map(|(m, u)| row(&[], m.to_string(), None, u))
            .collect();
        let chart = week_chart(&by_week, &weeks);
        let bars: Vec<(usize, f64)> = chart.bars.iter().map(|b| (b.x, b.height)).collect();
        assert_eq!(bars, [(0, 25.0), (28, 100.0), (42, 50.0)]);
        assert_eq!(chart.width, 56);
        assert_eq!(
            (chart.first.as_str(), chart.last.as_str()),
            ("2026-10-05", "2026-10-26")
        );
        assert_eq!(chart.peak, "400 tokens, week of 2026-10-19");
        assert_eq!(chart.bars[1].label, "week of 2026-10-19: 400 tokens");
        assert!(week_chart(&BTreeMap::new(), &[]).bars.is_empty());
    }

    #[test]
    fn the_heatmap_places_days_by_week_and_weekday_and_shades_by_tokens() {
        let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let h = heatmap(&BTreeMap::from([
            (day("2026-11-02"), 100), // a Monday
            (day("2026-11-11"), 400), // the next week's Wednesday
            (day("2024-01-01"), 5),   // more than a year before: not shown
        ]));
        let cells: Vec<(usize, usize, u64)> = h.cells.iter().map(|c| (c.x, c.y, c.level)).collect();
        assert_eq!(cells, [(0, 0, 1), (13, 26, 4)]);
        assert_eq!(h.width, 26);
        assert_eq!(h.days[0], ("2026-11-11".to_string(), "400".to_string()));
        // November starts in the first week: one name, no October.
        assert_eq!(h.months, [(0, "Nov".to_string())]);
        // A year: a name for each month, the first column's too.
        let months = month_labels(day("2025-10-06"), 53);
        assert_eq!(months.len(), 13);
        assert_eq!(months[0], (0, "Oct".to_string()));
        assert_eq!(months[1], (3 * 13, "Nov".to_string())); // Saturday 1 November
        assert_eq!(months[12], (51 * 13, "Oct".to_string()));
        // A name two columns or less ahead leaves the first column's out.
        assert_eq!(
            month_labels(day("2026-09-21"), 3),
            [(13, "Oct".to_string())]
        );
    }
}
