//! The built-in `partials/memory_cards.html` and
//! `partials/memory_facts.html`, written without a template.
//!
//! A project page lists every memory of its project as a card, and the
//! home page and the memory lists show them too: walked by Tera, ten
//! thousand cards (each turned into a template value, then looked up
//! field by field) were most of a project page's time, and that page is
//! made again whenever one of its memories changes. The project's facts
//! (its `type: project` memories, in full) were most of what was left:
//! 2,500 of them went through Tera's `markdown` filter on one core. When
//! the templates in use show them as the built-in ones do (see
//! [`STOOD_IN_FOR`]), cards and facts are written here instead, byte for
//! byte what the built-in partials make: tests render random ones both
//! ways and compare. A theme or wiki that overrides one of those
//! templates gets them through Tera.

use crate::output::markdown::{escape, Breaks};
use crate::site::assemble::views::{
    Apart, HomeView, ListView, MemoryBody, MemoryCard, ProjectView,
};

/// The templates whose built-in text this module stands in for: the pages
/// that hand cards and facts to the partials, and the partials.
pub const STOOD_IN_FOR: [&str; 5] = [
    "home.html",
    "list.html",
    "project.html",
    "partials/memory_cards.html",
    "partials/memory_facts.html",
];

/// The cards partial used while cards come as HTML: it prints them.
pub const PRINT_CARDS: &str = "{{ memories | safe }}";

/// The facts partial used while facts come as HTML: it prints them.
pub const PRINT_FACTS: &str = "{{ facts | safe }}";

/// The home page's view with its cards as HTML, for a page whose path
/// back to the site root is `root`.
pub fn home<'m>(view: &HomeView<'m>, root: &str) -> HomeView<'m> {
    HomeView {
        knowledge: as_html(&view.knowledge, root, write),
        ..view.clone()
    }
}

/// A list page's view with its cards as HTML.
pub fn list<'m>(view: &ListView<'m>, root: &str) -> ListView<'m> {
    ListView {
        memories: as_html(&view.memories, root, write),
        ..view.clone()
    }
}

/// A project page's view with its facts and each group's cards as HTML.
pub fn project<'m>(view: &ProjectView<'m>, root: &str) -> ProjectView<'m> {
    let mut out = view.clone();
    out.facts = as_html(&view.facts, root, write_facts);
    for group in &mut out.knowledge {
        group.memories = as_html(&group.memories, root, write);
    }
    out
}

/// `list` as HTML, each item written by `write`.
fn as_html<T>(list: &Apart<T>, root: &str, write: fn(&[T], &str, &mut String)) -> Apart<T> {
    match list {
        Apart::Views(views) => {
            let mut html = String::new();
            write(views, root, &mut html);
            Apart::Html(html)
        }
        Apart::Html(html) => Apart::Html(html.clone()),
    }
}

/// Append what `{% include "partials/memory_facts.html" %}` makes of
/// `facts`, as [`write`] does for cards (the last newline is the file's).
fn write_facts(facts: &[MemoryBody<'_>], root: &str, out: &mut String) {
    for m in facts {
        out.push_str("\n<article class=\"memory fact\">\n  <h2><a href=\"");
        escape(out, root);
        escape(out, &m.href);
        out.push_str("\">");
        escape(out, m.title);
        out.push_str("</a></h2>\n  ");
        if !m.description.is_empty() {
            out.push_str("<p class=\"desc\">");
            escape(out, m.description);
            out.push_str("</p>");
        }
        out.push_str("\n  <div class=\"prose\">");
        crate::output::markdown::render_into(&m.body, root, Breaks::Reflow, out);
        out.push_str("</div>\n</article>\n");
    }
    out.push('\n');
}

/// Append what `{% include "partials/memory_cards.html" %}` makes of
/// `cards`. Each string below is the partial's text between two of its
/// tags (the last, `{% endif %}`, followed by the file's last newline).
fn write(cards: &[MemoryCard<'_>], root: &str, out: &mut String) {
    if cards.is_empty() {
        out.push_str("\n<p class=\"empty\">Nothing here yet.</p>\n\n");
        return;
    }
    out.push_str("\n<ul class=\"memory-list\">\n  ");
    for m in cards {
        out.push_str("\n  <li>\n    <span class=\"tag tag-");
        escape(out, m.kind);
        out.push_str("\">");
        escape(out, m.kind);
        out.push_str("</span>\n    <a href=\"");
        escape(out, root);
        escape(out, &m.href);
        out.push_str("\">");
        escape(out, m.title);
        out.push_str("</a>");
        if let Some(p) = &m.project {
            out.push_str(" <span class=\"in\">in <a href=\"");
            escape(out, root);
            escape(out, &p.href);
            out.push_str("\">");
            escape(out, &p.title);
            out.push_str("</a></span>");
        }
        out.push_str("\n    ");
        if !m.description.is_empty() {
            out.push_str("<p class=\"desc\">");
            escape(out, m.description);
            out.push_str("</p>");
        }
        out.push_str("\n  </li>\n  ");
    }
    out.push_str("\n</ul>\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::assemble::views::Link;
    use proptest::prelude::*;
    use std::sync::Arc;

    /// What the built-in partial `name` makes of `list`, handed to it as
    /// `var`, through Tera.
    fn partial_through_tera<T: serde::Serialize>(
        name: &str,
        var: &'static str,
        list: &[T],
        root: &str,
    ) -> String {
        let mut tera = tera::Tera::new();
        tera.autoescape_on([".html"]);
        tera.register_filter("markdown", crate::output::render::markdown_filter);
        let partial = crate::output::render::BUILTIN_TEMPLATES
            .iter()
            .find(|(n, _)| *n == name)
            .expect("the partial is built in");
        tera.add_raw_template(partial.0, partial.1).unwrap();
        let mut ctx = tera::Context::new();
        ctx.insert(var, list);
        ctx.insert("root", root);
        tera.render(partial.0, &ctx).unwrap()
    }

    /// What the built-in partial makes of `cards` through Tera.
    fn through_tera(cards: &[MemoryCard<'_>], root: &str) -> String {
        partial_through_tera("partials/memory_cards.html", "memories", cards, root)
    }

    /// Markdown worth rendering: emphasis, a link between memories, code,
    /// a list, raw HTML, what must be escaped, and nothing.
    fn markdown() -> impl Strategy<Value = String> {
        "(a|\\*b\\*|\\[c\\]\\(@/notes/c\\.html\\)|`<d>`|\n- e\n|\n\n```\nf\n```\n|<i>|&|\"|é)*"
    }

    /// A text with what must be escaped, and nothing.
    fn text() -> impl Strategy<Value = String> {
        "(a|b c|<i>|&amp;|\"|'|é|/|)*"
    }

    /// One card: title, href, description, kind, project (title, href).
    type Planned = (String, String, String, String, Option<(String, String)>);

    fn card() -> impl Strategy<Value = Planned> {
        (
            text(),
            text(),
            text(),
            text(),
            proptest::option::of((text(), text())),
        )
    }

    proptest! {
        /// Cards written are what the built-in partial makes of them: any
        /// number of cards (none too), with and without a description or
        /// a project, text and links that must be escaped.
        #[test]
        fn cards_are_written_as_the_partial_makes_them(
            planned in proptest::collection::vec(card(), 0..5),
            root in prop_oneof![Just(""), Just("../../"), Just("a\"&<")],
        ) {
            let cards: Vec<MemoryCard<'_>> = planned
                .iter()
                .map(|(title, href, description, kind, project)| MemoryCard {
                    title,
                    href: href.clone(),
                    description,
                    kind,
                    project: project.as_ref().map(|(t, h)| {
                        Arc::new(Link { title: t.as_str().into(), href: h.as_str().into() })
                    }),
                })
                .collect();
            let mut written = String::new();
            write(&cards, root, &mut written);
            prop_assert_eq!(written, through_tera(&cards, root));
        }

        /// Facts written are what the built-in partial makes of them: any
        /// number (none too), with and without a description, Markdown
        /// bodies, text and links that must be escaped.
        #[test]
        fn facts_are_written_as_the_partial_makes_them(
            planned in proptest::collection::vec((text(), text(), text(), markdown()), 0..4),
            root in prop_oneof![Just(""), Just("../../"), Just("a\"&<")],
        ) {
            let facts: Vec<MemoryBody<'_>> = planned
                .iter()
                .map(|(title, href, description, body)| MemoryBody {
                    title,
                    href: href.clone(),
                    description,
                    kind: "project",
                    body: body.clone(),
                })
                .collect();
            let mut written = String::new();
            write_facts(&facts, root, &mut written);
            let tera = partial_through_tera("partials/memory_facts.html", "facts", &facts, root);
            prop_assert_eq!(written, tera);
        }
    }
}
