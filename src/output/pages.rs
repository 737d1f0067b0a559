//! The built-in session and file pages, `base.html` around them, written
//! without a template.
//!
//! A session page's turns and a file page's diffs are written apart
//! already (see [`crate::output::turns`], [`crate::output::splice`]); what
//! was left to Tera was the frame around them: the site's header, the
//! facts, the pager, the sub-agents' summaries, the changes' headings. For
//! that, each page's view was made a template value and walked: a tenth of
//! rendering a gigabyte of sessions (its 523 session pages and 573 file
//! pages; a build with the frames left out rendered 10 % faster). When the
//! templates in use show these pages as the built-in ones do (see
//! [`SESSION_STOOD_IN_FOR`], [`FILE_STOOD_IN_FOR`]), the frames are written
//! here instead, byte for byte what the built-in templates make: tests
//! render random views both ways and compare. A theme or wiki that
//! overrides one of those templates gets them through Tera.
//!
//! The turns and diffs stay markers here, as they are for Tera: the page
//! is spliced the same way whichever wrote its frame.

use crate::output::markdown::{escape, render_into, Breaks};
use crate::output::timeline::link_open;
use crate::output::turns::nonempty;
use crate::site::assemble::views::{FileView, Link, SessionView, Turns};

/// The templates whose built-in text a session page's writer stands in
/// for: the page, the layout it extends, the partials it includes (the
/// turns partial and the diff partial it includes, whose output the turns
/// writer stands in for).
pub const SESSION_STOOD_IN_FOR: [&str; 5] = [
    "base.html",
    "session.html",
    "partials/session_pager.html",
    "partials/turns.html",
    "partials/diff.html",
];

/// The templates whose built-in text a file page's writer stands in for.
pub const FILE_STOOD_IN_FOR: [&str; 3] = ["base.html", "file.html", "partials/diff.html"];

/// A link in the site's navigation, as `base.html` lists them.
#[derive(Debug, serde::Serialize)]
pub struct NavItem {
    pub title: &'static str,
    pub href: &'static str,
    pub section: &'static str,
}

/// What `base.html` shows of a page besides its content.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    pub site_title: &'a str,
    pub nav: &'a [NavItem],
    /// The page's path back to the site root (`../../`).
    pub root: &'a str,
    pub title: &'a str,
    pub section: &'a str,
    /// The search index shard to load first.
    pub search_first: Option<&'a str>,
}

/// Append what the built-in `session.html` makes of `view`, or false
/// (with `out` as it was) when a list of its turns is still views (the
/// turns writer has not written it).
pub fn session(frame: &Frame<'_>, view: &SessionView<'_>, out: &mut String) -> bool {
    let mut lists = std::iter::once(&view.turns).chain(view.subagents.iter().map(|a| &a.turns));
    if lists.any(|t| printed(t).is_none()) {
        return false;
    }
    base(frame, out, |out| session_content(frame.root, view, out));
    true
}

/// Append what the built-in `file.html` makes of `view` (its diffs as
/// the view holds them: markers, or HTML).
pub fn file(frame: &Frame<'_>, view: &FileView<'_>, out: &mut String) {
    base(frame, out, |out| file_content(frame.root, view, out));
}

/// The HTML the turns writer left for a list of turns, which the turns
/// partial prints (`{{ turns | safe }}`): None for views, which it cannot
/// print.
fn printed<'t>(turns: &'t Turns<'_>) -> Option<&'t str> {
    match turns {
        Turns::Html(html) => Some(html),
        Turns::Views(_) => None,
    }
}

/// `{{ n | pluralize }}`.
fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `{{ n }}`.
fn number(out: &mut String, n: impl Into<u64>) {
    use std::fmt::Write;
    let _ = write!(out, "{}", n.into());
}

/// `<a href="{{ root }}{{ link.href }}">{{ link.title }}</a>`, `before`
/// and `after` the title inside the link.
fn link(out: &mut String, root: &str, link: &Link, before: &str, after: &str) {
    link_open(out, "<a href=\"", root, &link.href);
    out.push_str(before);
    escape(out, &link.title);
    out.push_str(after);
    out.push_str("</a>");
}

/// Each of `items` written by `each`, `, ` between two (`{% if not
/// loop.last %}, {% endif %}`).
fn listed<T>(out: &mut String, items: &[T], mut each: impl FnMut(&mut String, &T)) {
    for (i, item) in items.iter().enumerate() {
        each(out, item);
        if i + 1 < items.len() {
            out.push_str(", ");
        }
    }
}

/// `base.html` around what `content` writes (its `content` block).
fn base(f: &Frame<'_>, out: &mut String, content: impl FnOnce(&mut String)) {
    let root = f.root;
    out.push_str(concat!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ",
        "style-src 'self'; script-src 'self'; img-src 'self' data:; base-uri 'none'; ",
        "form-action 'none'\">\n<meta name=\"referrer\" content=\"no-referrer\">\n",
        "<meta name=\"generator\" content=\"ccwiki\">\n<title>",
    ));
    escape(out, f.title);
    out.push_str(" · ");
    escape(out, f.site_title);
    out.push_str("</title>\n<link rel=\"stylesheet\" href=\"");
    escape(out, root);
    out.push_str("static/style.css\">\n<script src=\"");
    escape(out, root);
    out.push_str("static/search.js\" defer");
    if let Some(first) = nonempty(f.search_first) {
        out.push_str(" data-first=\"");
        escape(out, first);
        out.push('"');
    }
    out.push_str("></script>\n\n</head>\n<body class=\"section-");
    escape(out, f.section);
    out.push_str(concat!(
        "\">\n<a class=\"skip-link\" href=\"#main\">Skip to content</a>\n",
        "<header class=\"site-header\">\n  <div class=\"bar\">\n    <a class=\"brand\" href=\"",
    ));
    escape(out, root);
    out.push_str("index.html\">");
    escape(out, f.site_title);
    out.push_str("</a>\n    <nav class=\"site-nav\" aria-label=\"Main\">\n      <ul>\n        ");
    for item in f.nav {
        out.push_str("\n        <li><a href=\"");
        escape(out, root);
        escape(out, item.href);
        out.push('"');
        if item.section == f.section {
            out.push_str(" aria-current=\"page\"");
        }
        out.push('>');
        escape(out, item.title);
        out.push_str("</a></li>\n        ");
    }
    out.push_str("\n      </ul>\n    </nav>\n    <form class=\"search\" role=\"search\" action=\"");
    escape(out, root);
    out.push_str(concat!(
        "index.html\">\n",
        "      <label class=\"visually-hidden\" for=\"search-input\">Search the wiki</label>\n",
        "      <input type=\"search\" id=\"search-input\" name=\"q\" placeholder=\"Search (press /)\" ",
        "autocomplete=\"off\" spellcheck=\"false\">\n",
        "    </form>\n  </div>\n</header>\n<main id=\"main\" class=\"content\">\n",
    ));
    content(out);
    out.push_str(concat!(
        "\n</main>\n<footer class=\"site-footer\">\n",
        "  <p>Generated by ccwiki from a Claude Code data directory. <a href=\"",
    ));
    escape(out, root);
    out.push_str("notes/index.html\">All notes</a></p>\n</footer>\n</body>\n</html>\n");
}

/// The `content` block of `session.html`.
fn session_content(root: &str, v: &SessionView<'_>, out: &mut String) {
    out.push_str("\n<article class=\"session\">\n<header class=\"page-header\">\n  <p class=\"kicker\">Session");
    if let Some(project) = &v.project {
        out.push_str(" in ");
        link(out, root, project, "", "");
    }
    out.push_str("</p>\n  <h1>");
    escape(out, &v.title);
    out.push_str("</h1>\n  <dl class=\"facts\">\n    ");
    facts(root, v, out);
    out.push_str("\n  </dl>\n  ");
    if !v.tools.is_empty() {
        out.push_str("<ul class=\"chips\" aria-label=\"Tools used\">");
        for t in &v.tools {
            out.push_str("<li><code>");
            escape(out, &t.name);
            out.push_str("</code> <span>");
            number(out, t.count);
            out.push_str("</span></li>");
        }
        out.push_str("</ul>");
    }
    out.push_str("\n  ");
    if !v.setup.is_empty() {
        out.push_str("<p class=\"setup-used\">Used ");
        listed(out, &v.setup, |out, l| {
            link(out, root, l, "<code>", "</code>")
        });
        out.push_str("</p>");
    }
    out.push_str("\n  ");
    digest(root, v, out);
    out.push_str("\n</header>\n\n");
    pager(root, v, out);
    out.push_str("\n\n");
    if let Some(turns) = nonempty(printed(&v.turns)) {
        out.push_str("<section class=\"conversation\" aria-label=\"Conversation\">\n");
        out.push_str(turns);
        out.push_str("\n</section>");
    }
    out.push_str("\n\n");
    subagents(root, v, out);
    out.push('\n');
    pager(root, v, out);
    out.push_str("\n<p class=\"source\">Session id <code>");
    escape(out, v.id);
    out.push_str("</code></p>\n</article>\n");
}

/// The facts of `session.html`'s header (`<dl class="facts">`).
fn facts(root: &str, v: &SessionView<'_>, out: &mut String) {
    if let Some(date) = nonempty(v.date.as_deref()) {
        out.push_str("<div><dt>Started</dt><dd><time>");
        escape(out, date);
        out.push_str("</time></dd></div>");
    }
    out.push_str("\n    ");
    if let Some(duration) = nonempty(v.duration.as_deref()) {
        out.push_str("<div><dt>Duration</dt><dd>");
        escape(out, duration);
        out.push_str("</dd></div>");
    }
    out.push_str("\n    ");
    for (label, names) in [("Model", &v.models), ("Branch", &v.branches)] {
        if !names.is_empty() {
            out.push_str("<div><dt>");
            out.push_str(label);
            out.push_str("</dt><dd>");
            listed(out, names, |out, name| {
                out.push_str("<code>");
                escape(out, name);
                out.push_str("</code>");
            });
            out.push_str("</dd></div>");
        }
        out.push_str("\n    ");
    }
    out.push_str("<div><dt>Turns</dt><dd>");
    number(out, v.prompts);
    out.push_str(" prompt");
    out.push_str(plural(v.prompts));
    out.push_str(", ");
    number(out, v.assistant_turns);
    out.push_str(" response");
    out.push_str(plural(v.assistant_turns));
    out.push_str("</dd></div>\n    ");
    if v.tokens_out != 0 {
        out.push_str("<div><dt>Tokens</dt><dd>");
        escape(out, &crate::base::text::grouped(v.tokens_in));
        out.push_str(" in, ");
        escape(out, &crate::base::text::grouped(v.tokens_out));
        out.push_str(" out</dd></div>");
    }
    out.push_str("\n    ");
    if let Some(cost) = nonempty(v.cost.as_deref()) {
        let lead = "<div><dt>Estimated cost</dt><dd><a href=\"";
        link_open(out, lead, root, "usage/index.html");
        escape(out, cost);
        out.push_str("</a></dd></div>");
    }
    out.push_str("\n    ");
    if !v.versions.is_empty() {
        out.push_str("<div><dt>Claude Code</dt><dd>");
        listed(out, &v.versions, |out, version| escape(out, version));
        out.push_str("</dd></div>");
    }
}

/// The sub-agents of `session.html`, each with its turns.
fn subagents(root: &str, v: &SessionView<'_>, out: &mut String) {
    if v.subagents.is_empty() {
        return;
    }
    out.push_str("\n<section class=\"subagents\" aria-labelledby=\"subagents-h\">\n  <h2 id=\"subagents-h\">Sub-agents</h2>\n  ");
    for a in &v.subagents {
        out.push_str("\n  <details class=\"subagent\" id=\"agent-");
        number(out, a.number as u64);
        out.push_str("\">\n    <summary><span class=\"tag\">");
        escape(out, a.role);
        out.push_str("</span> ");
        if let Some(kind) = nonempty(a.agent_type) {
            out.push_str("<code>");
            escape(out, kind);
            out.push_str("</code> ");
        }
        escape(out, nonempty(a.description).unwrap_or(a.id));
        out.push_str(" <span class=\"meta\">");
        number(out, a.assistant_turns);
        out.push_str(" response");
        out.push_str(plural(a.assistant_turns));
        out.push_str("</span></summary>\n    ");
        if let Some(call) = nonempty(a.called_from.as_deref()) {
            link_open(out, "<p class=\"called-from\"><a href=\"", root, call);
            out.push_str("↑ The call that started it</a></p>");
        }
        // The line of `{% set turns = a.turns %}`, then the turns partial.
        out.push_str("\n    \n    ");
        out.push_str(printed(&a.turns).unwrap_or_default());
        out.push_str("\n  </details>\n  ");
    }
    out.push_str("\n</section>\n");
}

/// The digest of the session's first page: its facet, summary, what
/// happened while the user was away, where it ended.
fn digest(root: &str, v: &SessionView<'_>, out: &mut String) {
    let facet = v.facet.as_ref();
    let shown = v.prev.is_none()
        && (facet.is_some()
            || [v.summary, v.away, v.outcome]
                .into_iter()
                .any(|t| nonempty(t).is_some()));
    if !shown {
        return;
    }
    out.push_str("<div class=\"digest\">\n    ");
    if let Some(f) = facet {
        if let Some(goal) = nonempty(f.goal) {
            out.push_str("<span class=\"digest-label\">Goal</span><p>");
            escape(out, goal);
            if let Some(outcome) = nonempty(f.outcome.as_deref()) {
                out.push_str(" <span class=\"tag\">");
                escape(out, outcome);
                out.push_str("</span>");
            }
            out.push_str("</p>");
        }
    }
    out.push_str("\n    ");
    if let Some(summary) = facet.and_then(|f| nonempty(f.summary)) {
        out.push_str("<span class=\"digest-label\">In brief</span><p>");
        escape(out, summary);
        out.push_str("</p>");
    }
    out.push_str("\n    ");
    if let Some(categories) = facet.map(|f| &f.categories).filter(|c| !c.is_empty()) {
        out.push_str("<ul class=\"chips\" aria-label=\"Categories\">");
        for c in categories {
            out.push_str("<li>");
            escape(out, c);
            out.push_str("</li>");
        }
        out.push_str("</ul>");
    }
    out.push_str("\n    ");
    if let Some(summary) = nonempty(v.summary) {
        out.push_str("<span class=\"digest-label\">Summary</span><p>");
        escape(out, summary);
        out.push_str("</p>");
    }
    out.push_str("\n    ");
    prose(out, "While you were away", v.away, root);
    out.push_str("\n    ");
    prose(out, "Where it ended", v.outcome, root);
    out.push_str("\n  </div>");
}

/// `{% if text %}<span class="digest-label">label</span><div
/// class="prose">{{ text | markdown(root=root, breaks=true) }}</div>{% endif %}`.
fn prose(out: &mut String, label: &str, text: Option<&str>, root: &str) {
    if let Some(text) = nonempty(text) {
        out.push_str("<span class=\"digest-label\">");
        out.push_str(label);
        out.push_str("</span><div class=\"prose\">");
        render_into(text, root, Breaks::AsTyped, out);
        out.push_str("</div>");
    }
}

/// `partials/session_pager.html`.
fn pager(root: &str, v: &SessionView<'_>, out: &mut String) {
    if v.pages > 1 {
        out.push_str("\n<nav class=\"pager\" aria-label=\"Pages of this session\">\n  ");
        match &v.prev {
            Some(prev) => {
                out.push_str("<a href=\"");
                escape(out, root);
                escape(out, &prev.href);
                out.push_str("\" rel=\"prev\">← ");
                escape(out, &prev.title);
                out.push_str("</a>");
            }
            None => out.push_str("<span></span>"),
        }
        out.push_str("\n  <span class=\"meta\">Page ");
        number(out, v.page_number as u64);
        out.push_str(" of ");
        number(out, v.pages as u64);
        out.push_str("</span>\n  ");
        match &v.next {
            Some(next) => {
                out.push_str("<a href=\"");
                escape(out, root);
                escape(out, &next.href);
                out.push_str("\" rel=\"next\">");
                escape(out, &next.title);
                out.push_str(" →</a>");
            }
            None => out.push_str("<span></span>"),
        }
        out.push_str("\n</nav>\n");
    }
    out.push('\n');
}

/// The `content` block of `file.html`.
fn file_content(root: &str, v: &FileView<'_>, out: &mut String) {
    out.push_str("\n<article class=\"file-page\">\n<header class=\"page-header\">\n  <p class=\"kicker\">File");
    if let Some(project) = &v.project {
        out.push_str(" in ");
        link(out, root, project, "", "");
    }
    out.push_str("</p>\n  <h1><code>");
    escape(out, v.path);
    out.push_str("</code></h1>\n  <p class=\"lede\">");
    let changes = v.changes.len() as u64;
    number(out, changes);
    out.push_str(" change");
    out.push_str(plural(changes));
    out.push_str(" by Claude Code");
    if !v.backups.is_empty() {
        let backups = v.backups.len() as u64;
        out.push_str(", ");
        number(out, backups);
        out.push_str(" backup");
        out.push_str(plural(backups));
        out.push_str(" kept");
    }
    out.push_str(concat!(
        ". To get a version back (a deleted file, say), run <code>ccwiki recover &lt;path&gt; ",
        "--list</code> on the machine that holds the data: it prints what ccwiki can rebuild, ",
        "from whole writes, edits applied on top, and Claude Code's backups.",
    ));
    if v.elided > 0 {
        out.push_str(" The diffs of the ");
        number(out, v.elided as u64);
        out.push_str(concat!(
            " oldest changes are on their sessions' pages: this page shows those of the ",
            "latest, as many as fit on one page.",
        ));
    }
    out.push_str("</p>\n</header>\n");
    for (i, c) in v.changes.iter().enumerate() {
        out.push_str("\n<section class=\"change\" aria-label=\"Change ");
        number(out, i as u64 + 1);
        out.push_str("\">\n  <h2 class=\"change-head\"><span class=\"tag\">");
        escape(out, c.tool);
        out.push_str("</span> ");
        if let Some(time) = nonempty(c.time.as_deref()) {
            out.push_str("<time>");
            escape(out, time);
            out.push_str("</time>");
        }
        out.push_str(" in ");
        link(out, root, &c.session, "", "");
        out.push_str("</h2>\n  ");
        if c.elided {
            out.push_str("<p class=\"meta\">Its diff is on the session's page.</p>");
        } else {
            out.push_str("<pre class=\"diff\">");
            out.push_str(&c.diff);
            out.push_str("</pre>\n");
        }
        out.push_str("\n</section>\n");
    }
    out.push('\n');
    backups(root, v, out);
    out.push_str("\n</article>\n");
}

/// The backups of `file.html`.
fn backups(root: &str, v: &FileView<'_>, out: &mut String) {
    if !v.backups.is_empty() {
        out.push_str(concat!(
            "\n<section aria-labelledby=\"backups-h\">\n  <h2 id=\"backups-h\">Backups</h2>\n",
            "  <table class=\"usage\"><thead><tr><th scope=\"col\">Version</th>",
            "<th scope=\"col\">Taken</th><th scope=\"col\">Session</th></tr></thead>\n  <tbody>",
        ));
        for b in &v.backups {
            out.push_str("<tr><th scope=\"row\">v");
            number(out, b.version);
            if !b.kept {
                out.push_str(" <span class=\"meta\">(the file did not exist yet)</span>");
            }
            out.push_str("</th><td>");
            if let Some(time) = nonempty(b.time.as_deref()) {
                out.push_str("<time>");
                escape(out, time);
                out.push_str("</time>");
            }
            out.push_str("</td><td>");
            link(out, root, &b.session, "", "");
            out.push_str("</td></tr>");
        }
        out.push_str("</tbody></table>\n</section>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::render::{PageInfo, RenderOptions, Renderer};
    use crate::site::assemble::views::{BackupRow, ChangeView, FacetView, SubagentView, ToolCount};
    use proptest::prelude::*;
    use std::sync::Arc;

    fn renderer(title: &str) -> Renderer {
        let theme = crate::output::theme::resolve("default", None).expect("the default theme");
        let opts = RenderOptions {
            title: title.into(),
            ..RenderOptions::default()
        };
        Renderer::new(&opts, &theme).expect("the built-in templates")
    }

    /// What Tera makes of `view` with the built-in `template`, and what
    /// `write` makes of it, for the page `info` tells of.
    fn both<V: serde::Serialize>(
        site_title: &str,
        info: &PageInfo<'_>,
        template: &str,
        view: &V,
        write: impl FnOnce(&Frame<'_>, &V, &mut String),
    ) -> (String, String) {
        let r = renderer(site_title);
        assert!(r.writes_sessions() && r.writes_files());
        let mut through_tera = Vec::new();
        r.html_for(info, template, view, &mut through_tera)
            .expect("the template renders");
        let mut written = String::new();
        write(&r.frame(info), view, &mut written);
        (String::from_utf8(through_tera).expect("UTF-8"), written)
    }

    /// Text with what HTML and Tera's truth tests care about: markup
    /// characters, quotes, slashes, newlines, and nothing.
    fn text() -> impl Strategy<Value = &'static str> {
        "(a|b c|<i>|&amp;|\"|'|é|/|\n){0,4}".prop_map(|s| &*s.leak())
    }

    fn owned() -> impl Strategy<Value = String> {
        text().prop_map(str::to_string)
    }

    /// Markdown the digest renders: code, emphasis, a link, raw HTML.
    fn markdown() -> impl Strategy<Value = &'static str> {
        "(a|`<b>`|\\*c\\*|\\[d\\]\\(https://e\\.com\\)|<i>|\n\n- f){0,4}".prop_map(|s| &*s.leak())
    }

    fn link() -> impl Strategy<Value = Link> {
        (text(), text()).prop_map(|(title, href)| Link {
            title: title.into(),
            href: href.into(),
        })
    }

    fn count() -> impl Strategy<Value = u64> {
        prop_oneof![Just(0), Just(1), Just(2), Just(1_234_567)]
    }

    /// A list of turns as the turns writer leaves it: HTML (none, a
    /// marker, or text that is not one).
    fn turns() -> impl Strategy<Value = Turns<'static>> {
        let html = prop_oneof![
            Just(String::new()),
            Just("[]".to_string()),
            Just(crate::output::splice::marker(0)),
            owned(),
        ];
        html.prop_map(Turns::Html)
    }

    fn subagent() -> impl Strategy<Value = SubagentView<'static>> {
        (
            (count(), text(), proptest::option::of(text())),
            (proptest::option::of(text()), count(), turns()),
            proptest::option::of(owned()),
        )
            .prop_map(
                |((number, id, agent_type), (description, assistant_turns, turns), called_from)| {
                    SubagentView {
                        number: number as usize,
                        id,
                        role: "sub-agent",
                        layout: "nested",
                        agent_type,
                        description,
                        assistant_turns,
                        turns,
                        called_from,
                    }
                },
            )
    }

    fn facet() -> impl Strategy<Value = FacetView<'static>> {
        (
            proptest::option::of(text()),
            proptest::option::of(owned()),
            proptest::option::of(text()),
            proptest::collection::vec(owned(), 0..3),
        )
            .prop_map(|(goal, outcome, summary, categories)| FacetView {
                goal,
                outcome,
                summary,
                categories,
            })
    }

    fn session_view() -> impl Strategy<Value = SessionView<'static>> {
        let head = (
            owned(),
            text(),
            proptest::option::of(link().prop_map(Arc::new)),
            proptest::option::of(owned()),
            proptest::option::of(owned()),
            proptest::collection::vec(text(), 0..3),
            proptest::collection::vec(text(), 0..3),
            proptest::collection::vec(text(), 0..3),
        );
        let counts = (
            count(),
            count(),
            count(),
            count(),
            proptest::option::of(owned()),
        );
        let digest = (
            proptest::option::of(text()),
            proptest::option::of(markdown()),
            proptest::option::of(markdown()),
            proptest::option::of(facet()),
        );
        let lists = (
            proptest::collection::vec(link(), 0..3),
            proptest::collection::vec((owned(), count()), 0..3),
            turns(),
            proptest::collection::vec(subagent(), 0..3),
        );
        let paging = (
            0usize..3,
            0usize..3,
            proptest::option::of(link()),
            proptest::option::of(link()),
        );
        (head, counts, digest, lists, paging).prop_map(
            |(
                (title, id, project, date, duration, models, branches, versions),
                (prompts, assistant_turns, tokens_in, tokens_out, cost),
                (summary, outcome, away, facet),
                (setup, tools, turns, subagents),
                (page_number, pages, prev, next),
            )| SessionView {
                title,
                id,
                project,
                date,
                duration,
                models,
                branches,
                versions,
                entrypoint: None,
                prompts,
                assistant_turns,
                tokens_in,
                tokens_out,
                cost,
                summary,
                outcome,
                away,
                facet,
                setup,
                tools: (tools.into_iter())
                    .map(|(name, count)| ToolCount { name, count })
                    .collect(),
                turns,
                subagents,
                page_number,
                pages,
                prev,
                next,
            },
        )
    }

    fn file_view() -> impl Strategy<Value = FileView<'static>> {
        let change = (
            proptest::option::of(owned()),
            text(),
            link(),
            prop_oneof![
                Just(String::new()),
                Just("<span class=\"ins\">x &amp; y</span>".to_string()),
                Just(crate::output::splice::marker(1)),
            ],
            any::<bool>(),
        )
            .prop_map(|(time, tool, session, diff, elided)| ChangeView {
                time,
                tool,
                session,
                diff: diff.into(),
                elided,
            });
        let backup = (
            proptest::option::of(owned()),
            0u32..3,
            any::<bool>(),
            link(),
        )
            .prop_map(|(time, version, kept, session)| BackupRow {
                time,
                version,
                kept,
                session,
            });
        (
            text(),
            proptest::option::of(link().prop_map(Arc::new)),
            proptest::collection::vec(change, 0..3),
            0usize..3,
            proptest::collection::vec(backup, 0..3),
        )
            .prop_map(|(path, project, changes, elided, backups)| FileView {
                path,
                project,
                changes,
                elided,
                backups,
            })
    }

    /// What `base.html` is handed of a page: its root, title, section and
    /// the search shard to load first (or none, or an empty one).
    fn page_info() -> impl Strategy<Value = PageInfo<'static>> {
        (
            prop_oneof![Just(""), Just("../../"), Just("a\"&<")],
            text(),
            prop_oneof![Just("sessions"), Just("projects"), Just("elsewhere")],
            proptest::option::of(owned()),
        )
            .prop_map(|(root, title, section, search_first)| PageInfo {
                root: root.to_string(),
                title,
                section,
                path: "sessions/s/index.html",
                search_first,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// A session page written is what the built-in templates make of
        /// its view: every fact given or not, lists of none, one and
        /// several, the digest on the first page only, any page of
        /// several, sub-agents with and without turns, and text that must
        /// be escaped everywhere.
        #[test]
        fn a_session_page_is_written_as_its_templates_make_it(
            view in session_view(),
            info in page_info(),
            site_title in text(),
        ) {
            let (through_tera, written) = both(site_title, &info, "session.html", &view, |f, v, out| {
                assert!(session(f, v, out), "turns as the turns writer leaves them");
            });
            prop_assert_eq!(through_tera, written);
        }

        /// A file page written is what the built-in templates make of its
        /// view: changes elided or not, with and without a time, backups
        /// kept or not.
        #[test]
        fn a_file_page_is_written_as_its_templates_make_it(
            view in file_view(),
            info in page_info(),
            site_title in text(),
        ) {
            let (through_tera, written) = both(site_title, &info, "file.html", &view, |f, v, out| {
                file(f, v, out);
            });
            prop_assert_eq!(through_tera, written);
        }
    }

    /// A page with no turns of its own and a sub-agent without turns, as
    /// the turns writer hands it on: no conversation section, and nothing
    /// printed in the sub-agent (an empty list once printed as `[]`),
    /// the same whichever writes the page.
    #[test]
    fn no_turns_print_nothing() {
        let info = PageInfo {
            root: "../".into(),
            title: "T",
            section: "sessions",
            path: "sessions/s/index.html",
            search_first: None,
        };
        let mut view = session_with(Turns::Views(vec![]));
        view.subagents.push(SubagentView {
            number: 1,
            id: "agent",
            role: "sub-agent",
            layout: "nested",
            agent_type: None,
            description: None,
            assistant_turns: 0,
            turns: Turns::Views(vec![]),
            called_from: None,
        });
        let mut written = crate::output::turns::Written::default();
        crate::output::turns::write_all(&mut view, &info.root, &mut written);
        assert_eq!(written.count(), 0);
        let (through_tera, written) = both("Wiki", &info, "session.html", &view, |f, v, out| {
            assert!(session(f, v, out));
        });
        assert_eq!(through_tera, written);
        assert!(!written.contains("[]"), "{written}");
        assert!(!written.contains("class=\"conversation\""));
        let agent = &written[written.find("id=\"agent-1\"").expect("the sub-agent")..];
        let shown = &agent[agent.find("</summary>").expect("its summary")..];
        let shown = &shown[..shown.find("</details>").expect("its end")];
        assert_eq!(shown.trim(), "</summary>");
    }

    /// A session page with `turns` and nothing else.
    fn session_with(turns: Turns<'static>) -> SessionView<'static> {
        SessionView {
            title: "T".into(),
            id: "s",
            project: None,
            date: None,
            duration: None,
            models: vec![],
            branches: vec![],
            versions: vec![],
            entrypoint: None,
            prompts: 1,
            assistant_turns: 0,
            tokens_in: 0,
            tokens_out: 0,
            cost: None,
            summary: None,
            outcome: None,
            away: None,
            facet: None,
            setup: vec![],
            tools: vec![],
            turns,
            subagents: vec![],
            page_number: 1,
            pages: 1,
            prev: None,
            next: None,
        }
    }

    /// A session page whose turns are still views is left to Tera, with
    /// nothing written.
    #[test]
    fn turns_still_views_are_left_to_the_template() {
        let r = renderer("Wiki");
        let info = PageInfo {
            root: "../".into(),
            title: "T",
            section: "sessions",
            path: "sessions/s/index.html",
            search_first: None,
        };
        let prompt = crate::site::assemble::views::TurnView::Prompt {
            time: None,
            text: "hello",
            anchor: String::new(),
        };
        let view = session_with(Turns::Views(vec![prompt]));
        let mut out = String::from("kept");
        assert!(!session(&r.frame(&info), &view, &mut out));
        assert_eq!(out, "kept");
    }
}
