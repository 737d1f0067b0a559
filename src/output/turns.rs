//! The built-in `partials/turns.html`, written without a template.
//!
//! A session page is mostly its turns, and walking them with Tera (every
//! turn and block turned into a template value, then looked up field by
//! field) took a third of rendering. When the templates in use show turns
//! as the built-in ones do (see [`STOOD_IN_FOR`]), the turns are
//! written here instead, byte for byte what the built-in template makes:
//! a test renders random turns both ways and compares. A theme or wiki
//! that overrides one of those templates gets them through Tera, as before.

use crate::base::html::escape_text;
use crate::output::markdown::{escape, render_into, Breaks};
use crate::output::splice::marker;
#[cfg(test)]
use crate::site::assemble::views::SubagentView;
use crate::site::assemble::views::{BlockView, ClockText, SessionView, TurnView, Turns};

/// The templates whose built-in text this module stands in for: the
/// session page, which hands `turns` to the turns partial, that partial,
/// and the diff partial it includes.
pub const STOOD_IN_FOR: [&str; 3] = ["session.html", "partials/turns.html", "partials/diff.html"];

/// The turns partial used while turns come as HTML: it prints them.
pub const PRINT_TURNS: &str = "{{ turns | safe }}";

/// Write the session page's turns, and its sub-agents', as HTML, into
/// `written` (what it held is dropped, its room kept: a page's turns are
/// hundreds of kilobytes, and growing a new buffer for each page copied
/// them again and again): `root` is the page's path back to the site
/// root. The page's template gets a marker in the place of each list of
/// turns, and the HTML is spliced in its place as the page is written
/// ([`crate::output::splice::splice`] with [`Written::list`]): a page's
/// turns through Tera (made a template value, then copied out by `safe`)
/// were copied twice more for nothing.
pub fn write_all(view: &mut SessionView<'_>, root: &str, written: &mut Written) {
    written.html.clear();
    written.ends.clear();
    for turns in lists(view) {
        if let Turns::Views(views) = turns {
            // No turns are no HTML: the page's `{% if turns %}` leaves its
            // conversation out (a later page of a long session may hold
            // only sub-agents), and a sub-agent without turns prints
            // nothing (an empty list printed as HTML was `[]`).
            if views.is_empty() {
                *turns = Turns::Html(String::new());
                continue;
            }
            write(views, root, &mut written.html);
            *turns = Turns::Html(marker(written.ends.len()));
            written.ends.push(written.html.len());
        }
    }
}

/// The turns of a session page written as HTML: each list in the place
/// of its marker, in the order [`write_all`] met them.
#[derive(Debug, Default)]
pub struct Written {
    /// The lists one after another.
    html: String,
    /// Where each list ends in `html`.
    ends: Vec<usize>,
}

impl Written {
    /// How many lists there are.
    pub fn count(&self) -> usize {
        self.ends.len()
    }

    /// The `i`th list's HTML.
    pub fn list(&self, i: usize) -> &str {
        let start = i.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.html[start..self.ends[i]]
    }

    /// Hand the turns to `view` as HTML in their markers' place: for the
    /// template to print, when they cannot be spliced.
    pub fn unmark(&self, view: &mut SessionView<'_>) {
        let mut next = 0;
        for turns in lists(view) {
            if let Turns::Html(m) = turns {
                if next < self.ends.len() && *m == marker(next) {
                    *m = self.list(next).to_string();
                    next += 1;
                }
            }
        }
    }
}

/// A session page's lists of turns, its own then its sub-agents'.
fn lists<'v, 'm>(view: &'v mut SessionView<'m>) -> impl Iterator<Item = &'v mut Turns<'m>> {
    std::iter::once(&mut view.turns).chain(view.subagents.iter_mut().map(|a| &mut a.turns))
}

/// Append what `{% include "partials/turns.html" %}` makes of `turns`.
fn write(turns: &[TurnView<'_>], root: &str, out: &mut String) {
    // Each string below is the template's text between two of its tags;
    // where it is not plain, a comment names the tag it follows.
    for t in turns {
        out.push('\n'); // after `{% for t in turns %}`
        match t {
            TurnView::Prompt { time, text, anchor } => {
                out.push_str("\n<div class=\"turn prompt\" id=\"");
                escape(out, anchor);
                out.push_str("\">\n  <div class=\"who\">You");
                time_in(out, " <time>", *time);
                out.push_str("</div>\n  <div class=\"prose\">");
                render_into(text, root, Breaks::AsTyped, out);
                out.push_str("</div>\n</div>\n");
            }
            TurnView::Assistant {
                time,
                blocks,
                anchor,
                continued,
                ..
            } => assistant(*time, blocks, anchor, *continued, root, out),
            TurnView::Command { name, args, .. } => {
                out.push_str(
                    "\n<div class=\"turn command\"><span class=\"who\">You ran</span> <code>",
                );
                escape_text(out, name);
                if !args.is_empty() {
                    out.push(' ');
                    escape_text(out, args);
                }
                out.push_str("</code></div>\n");
            }
            TurnView::Output { text } => {
                out.push_str(
                    "\n<details class=\"turn output\"><summary>Command output</summary><pre>",
                );
                escape_text(out, text);
                out.push_str("</pre></details>\n");
            }
            TurnView::Compaction {
                time,
                micro,
                summary,
            } => {
                out.push_str(
                    "\n<div class=\"turn compaction\" role=\"separator\">\n  <p class=\"marker\">",
                );
                out.push_str(match micro {
                    true => "Context micro-compacted",
                    false => "Conversation compacted",
                });
                time_in(out, " at <time>", *time);
                out.push_str("</p>\n  ");
                if let Some(summary) = summary.filter(|s| !s.is_empty()) {
                    out.push_str("<details><summary>Summary kept by the model</summary><div class=\"prose\">");
                    render_into(summary, root, Breaks::AsTyped, out);
                    out.push_str("</div></details>");
                }
                out.push_str("\n</div>\n");
            }
        }
        out.push('\n'); // after the turn's `{% endif %}`
    }
    out.push('\n'); // after `{% endfor %}`, the template's last line
}

/// An assistant turn: who speaks (unless it goes on from the turn
/// before), then its blocks.
fn assistant(
    time: Option<ClockText>,
    blocks: &[BlockView<'_>],
    anchor: &str,
    continued: bool,
    root: &str,
    out: &mut String,
) {
    out.push_str("\n<div class=\"turn assistant");
    if continued {
        out.push_str(" continued");
    }
    out.push_str("\" id=\"");
    escape(out, anchor);
    out.push_str("\">\n  ");
    if !continued {
        out.push_str("<div class=\"who\">Claude");
        time_in(out, " <time>", time);
        out.push_str("</div>");
    }
    out.push_str("\n  ");
    for b in blocks {
        out.push_str("\n  "); // after `{% for b in t.blocks %}`
        block(b, root, out);
        out.push_str("\n  "); // after the block's `{% endif %}`
    }
    out.push_str("\n</div>\n");
}

/// One block of an assistant turn.
fn block(b: &BlockView<'_>, root: &str, out: &mut String) {
    match b {
        BlockView::Text { text } => {
            out.push_str("<div class=\"prose\">");
            render_into(text, root, Breaks::AsTyped, out);
            out.push_str("</div>\n  ");
        }
        BlockView::Tool {
            name,
            arg,
            input,
            result,
            cut,
            error,
            agent_href,
            anchor,
            diff,
            ..
        } => {
            out.push_str("<details class=\"tool");
            if *error {
                out.push_str(" failed");
            }
            out.push('"');
            if let Some(anchor) = nonempty(anchor.as_deref()) {
                out.push_str(" id=\"");
                escape(out, anchor);
                out.push('"');
            }
            out.push_str("><summary><span class=\"tool-name\">");
            escape_text(out, name);
            out.push_str("</span> <code class=\"tool-arg\">");
            escape_text(out, arg);
            out.push_str("</code>");
            if *error {
                out.push_str(" <span class=\"tool-error\">error</span>");
            }
            out.push_str("</summary>\n  ");
            if let Some(href) = nonempty(agent_href.as_deref()) {
                out.push_str("<p class=\"tool-agent\"><a href=\"");
                escape(out, root);
                escape(out, href);
                out.push_str("\">↓ The sub-agent it started</a></p>");
            }
            out.push_str("\n  ");
            if !input.is_empty() {
                out.push_str("<pre class=\"tool-input\">");
                escape_text(out, input);
                out.push_str("</pre>");
            }
            out.push_str("\n  ");
            if !diff.is_empty() {
                // `partials/diff.html`, which prints the diff `| safe`.
                out.push_str("<pre class=\"diff\">");
                out.push_str(diff);
                out.push_str("</pre>\n");
            }
            out.push_str("\n  ");
            if let Some(result) = nonempty(*result) {
                out.push_str("<p class=\"tool-result-label\">");
                out.push_str(if *error { "Error" } else { "Result" });
                if let Some(cut) = nonempty(cut.as_deref()) {
                    out.push_str(" (the start of ");
                    escape_text(out, cut);
                    out.push(')');
                }
                out.push_str("</p><pre class=\"tool-result\">");
                escape_text(out, result);
                out.push_str("</pre>");
            } else if !input.is_empty() {
                out.push_str("<p class=\"tool-result-label\">No result recorded</p>");
            }
            out.push_str("\n  </details>\n  ");
        }
    }
}

/// `{% if time %}LEAD{{ time }}</time>{% endif %}`: a clock's digits
/// need no escaping.
fn time_in(out: &mut String, lead: &str, time: Option<ClockText>) {
    if let Some(time) = time {
        out.push_str(lead);
        out.push_str(time.as_str());
        out.push_str("</time>");
    }
}

/// A template's `{% if x %}` of an optional text: an empty one is false.
pub(crate) fn nonempty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::render::{markdown_filter, text_filter, BUILTIN_TEMPLATES};
    use proptest::prelude::*;

    /// A Tera with the built-in turns and diff partials, as pages have them.
    fn tera() -> tera::Tera {
        let mut tera = tera::Tera::new();
        tera.autoescape_on([".html"]);
        tera.register_filter("markdown", markdown_filter);
        tera.register_filter("text", text_filter);
        let partials = BUILTIN_TEMPLATES
            .iter()
            .filter(|(n, _)| *n == "partials/turns.html" || *n == "partials/diff.html");
        tera.add_raw_templates(partials.map(|(n, src)| (n.to_string(), src.to_string())))
            .unwrap();
        tera.add_raw_template("page.html", "{% include \"partials/turns.html\" %}")
            .unwrap();
        tera
    }

    fn through_tera(tera: &tera::Tera, turns: &[TurnView<'_>], root: &str) -> String {
        let mut ctx = tera::Context::new();
        ctx.insert("turns", turns);
        ctx.insert("root", root);
        tera.render("page.html", &ctx).unwrap()
    }

    /// Text with what HTML, Markdown and Tera's truth tests care about:
    /// markup characters, quotes, newlines, fences, links, and empty text.
    fn text() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just(String::new()),
            "[a-z <>&\"'`*_#\\[\\]()\n-]{1,24}",
            Just("```rust\nfn main() {}\n```\n".to_string()),
            Just("[a link](https://example.com) and [yours](src/x.rs)".to_string()),
            Just("- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |".to_string()),
        ]
        .prop_map(|s| &*s.leak())
    }

    fn owned() -> impl Strategy<Value = String> {
        text().prop_map(str::to_string)
    }

    fn block() -> impl Strategy<Value = BlockView<'static>> {
        prop_oneof![
            text().prop_map(|text| BlockView::Text { text }),
            (
                (text(), text(), text(), proptest::option::of(text())),
                (proptest::option::of(owned()), any::<bool>()),
                (
                    proptest::option::of(owned()),
                    proptest::option::of(owned()),
                    prop_oneof![
                        Just(String::new()),
                        Just("<span class=\"add\">+ x</span>".to_string())
                    ],
                ),
            )
                .prop_map(
                    |((name, arg, input, result), (cut, error), (agent_href, anchor, diff))| {
                        BlockView::Tool {
                            name,
                            arg,
                            input,
                            result,
                            cut,
                            error,
                            launches: None,
                            agent_href,
                            anchor,
                            diff,
                        }
                    }
                ),
        ]
    }

    fn turn() -> impl Strategy<Value = TurnView<'static>> {
        let time =
            || proptest::option::of((0u32..24, 0u32..60).prop_map(|(h, m)| ClockText::new(h, m)));
        prop_oneof![
            (time(), text(), owned()).prop_map(|(time, text, anchor)| TurnView::Prompt {
                time,
                text,
                anchor
            }),
            (
                time(),
                proptest::collection::vec(block(), 0..4),
                owned(),
                any::<bool>()
            )
                .prop_map(|(time, blocks, anchor, continued)| TurnView::Assistant {
                    time,
                    model: None,
                    blocks,
                    anchor,
                    continued,
                }),
            (time(), text(), text()).prop_map(|(time, name, args)| TurnView::Command {
                time,
                name,
                args
            }),
            text().prop_map(|text| TurnView::Output { text }),
            (time(), any::<bool>(), proptest::option::of(text())).prop_map(
                |(time, micro, summary)| TurnView::Compaction {
                    time,
                    micro,
                    summary,
                }
            ),
        ]
    }

    proptest! {
        #[test]
        fn written_turns_are_what_the_built_in_template_makes(
            turns in proptest::collection::vec(turn(), 0..6),
            root in prop_oneof![Just(""), Just("../../"), Just("a\"&<")],
        ) {
            let mut written = String::new();
            write(&turns, root, &mut written);
            prop_assert_eq!(written, through_tera(&tera(), &turns, root));
        }
    }

    /// A session page's view with `turns` and a sub-agent for each of
    /// `agents`, as lists of views.
    fn session<'m>(turns: Vec<TurnView<'m>>, agents: Vec<Vec<TurnView<'m>>>) -> SessionView<'m> {
        let subagents = agents
            .into_iter()
            .enumerate()
            .map(|(i, turns)| SubagentView {
                number: i + 1,
                id: "agent",
                role: "",
                layout: "",
                agent_type: None,
                description: None,
                assistant_turns: 0,
                turns: Turns::Views(turns),
                called_from: None,
            });
        SessionView {
            title: String::new(),
            id: "s",
            project: None,
            date: None,
            duration: None,
            models: Vec::new(),
            branches: Vec::new(),
            versions: Vec::new(),
            entrypoint: None,
            prompts: 0,
            assistant_turns: 0,
            tokens_in: 0,
            tokens_out: 0,
            cost: None,
            summary: None,
            outcome: None,
            away: None,
            facet: None,
            setup: Vec::new(),
            tools: Vec::new(),
            turns: Turns::Views(turns),
            subagents: subagents.collect(),
            page_number: 1,
            pages: 1,
            prev: None,
            next: None,
        }
    }

    fn prompt(text: &'static str) -> TurnView<'static> {
        TurnView::Prompt {
            time: None,
            text,
            anchor: "t".to_string(),
        }
    }

    /// What a list of turns holds as HTML (a marker, or the turns).
    fn html<'v>(turns: &'v Turns<'_>) -> &'v str {
        match turns {
            Turns::Html(html) => html,
            Turns::Views(_) => panic!("still views"),
        }
    }

    /// `page` with `written`'s lists in their markers' place, as the page
    /// is written.
    fn spliced(written: &Written, page: &[u8]) -> Option<String> {
        let pieces = crate::output::splice::splice(page, written.count(), |i| written.list(i))?;
        Some(String::from_utf8(pieces.concat()).expect("UTF-8"))
    }

    #[test]
    fn turns_are_spliced_in_their_markers_place_or_handed_back() {
        let mut view = session(vec![prompt("one")], vec![vec![prompt("two")], vec![]]);
        let mut written = Written::default();
        write_all(&mut view, "../", &mut written);
        let markers = [&view.turns, &view.subagents[0].turns].map(|t| html(t).to_string());
        assert_eq!(markers, [marker(0), marker(1)]);
        // No turns are no HTML: the template leaves them out, or prints nothing.
        assert_eq!(html(&view.subagents[1].turns), "");
        // A template shows the sub-agents before the session's own turns.
        let page = format!("<h1>s</h1>{1}<hr><main>{0}</main>", markers[0], markers[1]);
        let out = spliced(&written, page.as_bytes()).expect("spliced");
        let turns = |turns: &[TurnView<'_>]| {
            let mut html = String::new();
            write(turns, "../", &mut html);
            html
        };
        let (one, two) = (turns(&[prompt("one")]), turns(&[prompt("two")]));
        assert!(one.contains("one") && two.contains("two"));
        assert_eq!(out, format!("<h1>s</h1>{two}<hr><main>{one}</main>"));
        written.unmark(&mut view);
        assert_eq!(html(&view.turns), one);
        assert_eq!(html(&view.subagents[0].turns), two);
        assert_eq!(html(&view.subagents[1].turns), "");

        // A page of sub-agents only: the first list written is theirs.
        let mut view = session(vec![], vec![vec![prompt("three")]]);
        write_all(&mut view, "../", &mut written);
        assert_eq!(html(&view.turns), "");
        assert_eq!(html(&view.subagents[0].turns), marker(0));
        let out = spliced(&written, format!("<i>{}</i>", marker(0)).as_bytes());
        let three = turns(&[prompt("three")]);
        assert_eq!(out, Some(format!("<i>{three}</i>")));
    }

    #[test]
    fn a_marker_not_found_once_is_not_spliced() {
        let mut view = session(vec![prompt("one")], vec![vec![prompt("two")]]);
        let mut written = Written::default();
        write_all(&mut view, "", &mut written);
        let (m0, m1) = (marker(0), marker(1));
        let forged = |n: &str| format!("{}{n}-->", crate::output::splice::marker_prefix());
        let pages = [
            format!("{m0}{m1}{m0}"),
            m0.clone(),
            format!("{m1}<p>{m1}{m0}"),
            format!("{m0}{m1}{}", forged("2")),
            format!("{}{m1}", forged("00")),
            format!("{m0}{m1}{}", forged("")),
            format!("{m0}{}", marker(1).replace("-->", "->")),
        ];
        for page in pages {
            assert_eq!(spliced(&written, page.as_bytes()), None, "{page}");
        }
        assert!(spliced(&written, format!("{m1}{m0}").as_bytes()).is_some());
    }
}
