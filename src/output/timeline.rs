//! The built-in `partials/timeline_days.html`, written without a template.
//!
//! A timeline page is mostly its entries (thousands a page), and Tera
//! turning each into a template value, then looking it up field by field,
//! was most of a timeline page's time. When the templates in use show the
//! days as the built-in ones do, they are written here instead, byte for
//! byte what the built-in partial makes: a test renders random days both
//! ways and compares. A theme or wiki that overrides the timeline page or
//! the partial gets them through Tera, as before.

use crate::output::markdown::{escape, inline_into};
use crate::site::assemble::views::{Days, TimelineDay, TimelineView};

/// The templates whose built-in text this module stands in for: the
/// timeline page, which hands `days` to the partial, and the partial.
pub const DAYS_STOOD_IN_FOR: [&str; 2] = ["timeline.html", "partials/timeline_days.html"];

/// The days partial used while days come as HTML: it prints them.
pub const PRINT_DAYS: &str = "{{ days | safe }}";

/// `view` with its days as HTML, for a page whose path back to the site
/// root is `root`.
pub fn with_days_written<'m>(view: &TimelineView<'m>, root: &str) -> TimelineView<'m> {
    let mut html = String::new();
    if let Days::Views(days) = &view.days {
        write(days, root, &mut html);
    }
    TimelineView {
        month: view.month.clone(),
        part: view.part.clone(),
        months: view.months.clone(),
        days: Days::Html(html),
        newer: view.newer.clone(),
        older: view.older.clone(),
    }
}

/// Append what `{% include "partials/timeline_days.html" %}` makes of
/// `days`. Each string below is the partial's text between two of its
/// tags.
fn write(days: &[TimelineDay<'_>], root: &str, out: &mut String) {
    if days.is_empty() {
        out.push_str("\n<p class=\"empty\">No history yet.</p>\n");
        return;
    }
    for d in days {
        out.push_str("\n<section class=\"day\" aria-label=\"");
        escape(out, &d.date);
        out.push_str("\">\n  <h2><time>");
        escape(out, &d.date);
        out.push_str("</time></h2>\n  <ol class=\"entries\">\n  ");
        for e in d.entries.entries() {
            out.push_str("\n    <li class=\"entry entry-");
            out.push_str(e.kind.name());
            out.push_str("\">\n      <time>");
            e.push_time(out); // digits and a colon: nothing to escape
            out.push_str("</time>\n      <span class=\"what\">");
            match &e.session {
                Some(row) => {
                    link_open(out, "<a href=\"", root, &row.href);
                    inline_into(&e.text, out);
                    out.push_str("</a>");
                }
                None => inline_into(&e.text, out),
            }
            out.push_str("</span>\n      ");
            if let Some(p) = &e.project {
                link_open(out, "<a class=\"in\" href=\"", root, &p.href);
                escape(out, &p.title);
                out.push_str("</a>");
            }
            out.push_str("\n    </li>\n  ");
        }
        out.push_str("\n  </ol>\n</section>\n");
    }
}

/// `lead`, then `{{ root }}{{ href }}">`.
pub(crate) fn link_open(out: &mut String, lead: &str, root: &str, href: &str) {
    out.push_str(lead);
    escape(out, root);
    escape(out, href);
    out.push_str("\">");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::model::Session;
    use crate::site::assemble::views::{EntryKind, EntryRun, Link, SessionRow, TimelineEntry};
    use chrono::TimeZone;
    use proptest::prelude::*;
    use std::sync::Arc;

    /// What the built-in partial makes of `days` through Tera.
    fn through_tera(days: &[TimelineDay<'_>], root: &str) -> String {
        let mut tera = tera::Tera::new();
        tera.autoescape_on([".html"]);
        tera.register_filter("markdown_line", crate::output::render::markdown_line_filter);
        let partial = crate::output::render::BUILTIN_TEMPLATES
            .iter()
            .find(|(n, _)| *n == "partials/timeline_days.html")
            .expect("the partial is built in");
        tera.add_raw_template(partial.0, partial.1).unwrap();
        let mut ctx = tera::Context::new();
        ctx.insert("days", days);
        ctx.insert("root", root);
        tera.render(partial.0, &ctx).unwrap()
    }

    /// A text with what must be escaped, Markdown that a line shows
    /// (code, emphasis, a line that starts like a list), and nothing.
    fn text() -> impl Strategy<Value = String> {
        "(a|b c|<i>|&amp;|\"|'|é|/|`x`|\\*|_|~~|1. |- |# |)*"
    }

    /// One entry: (minutes into the day, a prompt or a start, its text,
    /// its session's title and href, its project's).
    type Planned = (
        u32,
        bool,
        String,
        Option<(String, String)>,
        Option<(String, String)>,
    );

    fn entry() -> impl Strategy<Value = Planned> {
        (
            0u32..1440,
            any::<bool>(),
            text(),
            proptest::option::of((text(), text())),
            proptest::option::of((text(), text())),
        )
    }

    proptest! {
        /// Days written are what the built-in partial makes of them: any
        /// number of days (none too), entries with and without a session
        /// or a project, text and links that must be escaped.
        #[test]
        fn days_are_written_as_the_partial_makes_them(
            days in proptest::collection::vec((text(), proptest::collection::vec(entry(), 0..4)), 0..4),
            root in prop_oneof![Just(""), Just("../../"), Just("a\"&<")],
        ) {
            let session = Session::default();
            let day = chrono::Utc.with_ymd_and_hms(2026, 3, 4, 0, 0, 0).unwrap();
            let link = |(title, href): &(String, String)| Link {
                title: title.as_str().into(),
                href: href.as_str().into(),
            };
            let all: Vec<TimelineEntry<'_>> = days
                .iter()
                .flat_map(|(_, entries)| entries)
                .map(|(minute, prompt, text, row, project)| TimelineEntry {
                    ts: day + chrono::Duration::minutes(i64::from(*minute)),
                    kind: if *prompt { EntryKind::Prompt } else { EntryKind::Start },
                    text: text.as_str().into(),
                    project: project.as_ref().map(|p| Arc::new(link(p))),
                    session: row.as_ref().map(|r| {
                        let l = link(r);
                        Arc::new(SessionRow {
                            title: l.title.as_ref().into(),
                            href: l.href.as_ref().into(),
                            session: &session,
                            project: None,
                            about: None,
                        })
                    }),
                    seq: 0,
                })
                .collect();
            let all = Arc::new(all);
            let mut start = 0;
            let views: Vec<TimelineDay<'_>> = days
                .iter()
                .map(|(date, entries)| {
                    let range = start..start + entries.len();
                    start = range.end;
                    TimelineDay { date: date.clone(), entries: EntryRun { all: all.clone(), range } }
                })
                .collect();
            let mut written = String::new();
            write(&views, root, &mut written);
            prop_assert_eq!(written, through_tera(&views, root));
        }
    }
}
