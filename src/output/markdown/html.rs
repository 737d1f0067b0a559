//! pulldown-cmark's HTML for the events ccwiki's Markdown makes, written
//! one event at a time as the parser gives them.
//!
//! The same bytes as `pulldown_cmark::html::push_html`, for the events
//! the options of [`super::render_into`] produce (tables, struck text,
//! task lists; no footnotes, maths, metadata or heading attributes):
//! a test holds the two to it on any input. Written here rather than fed
//! through an adapter into `push_html`: each event moved through one
//! more iterator was a copy of a large enum, and with its writer's checks
//! that was a sixth of Markdown's time.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Tag, TagEnd};
use pulldown_cmark_escape::{escape_href, escape_html, escape_html_body_text};

/// HTML written to the end of a string, and what the next block needs to
/// know of it.
pub(super) struct Html<'o> {
    out: &'o mut String,
    /// Whether what was written last ends a line: a block that starts
    /// after text on the same line starts a new one.
    end_newline: bool,
    /// Whether the table's cells being written are its head's.
    head: bool,
    /// The open table's columns' alignments, and the next cell's column.
    alignments: Vec<Alignment>,
    cell: usize,
}

impl<'o> Html<'o> {
    pub(super) fn new(out: &'o mut String) -> Html<'o> {
        Html {
            out,
            end_newline: true,
            head: true,
            alignments: Vec::new(),
            cell: 0,
        }
    }

    /// `html` as it is; it ends a line when it ends with a line end.
    pub(super) fn raw(&mut self, html: &str) {
        self.out.push_str(html);
        if !html.is_empty() {
            self.end_newline = html.ends_with('\n');
        }
    }

    /// HTML of ccwiki's own written by `write` straight into the page,
    /// taken as [`Html::raw`] takes it.
    pub(super) fn raw_with(&mut self, write: impl FnOnce(&mut String)) {
        let before = self.out.len();
        write(self.out);
        if self.out.len() > before {
            self.end_newline = self.out.ends_with('\n');
        }
    }

    /// `text` escaped.
    pub(super) fn text(&mut self, text: &str) {
        let _ = escape_html_body_text(&mut *self.out, text);
        self.end_newline = text.ends_with('\n');
    }

    /// `tag` opening a block: on a line of its own.
    fn block(&mut self, tag: &str) {
        if !self.end_newline {
            self.out.push('\n');
        }
        self.raw(tag);
    }

    /// An event as pulldown-cmark writes it.
    pub(super) fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(text) => {
                self.out.push_str("<code>");
                let _ = escape_html_body_text(&mut *self.out, &text);
                self.raw("</code>");
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => self.text(&text),
            Event::Html(html) | Event::InlineHtml(html) => self.raw(&html),
            Event::SoftBreak => self.raw("\n"),
            Event::HardBreak => self.raw("<br />\n"),
            Event::Rule => self.block("<hr />\n"),
            Event::FootnoteReference(name) => self.text(&name),
            Event::TaskListMarker(true) => {
                self.raw("<input disabled=\"\" type=\"checkbox\" checked=\"\"/>\n")
            }
            Event::TaskListMarker(false) => self.raw("<input disabled=\"\" type=\"checkbox\"/>\n"),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.block("<p>"),
            Tag::Heading { level, .. } => {
                self.block("<");
                self.raw(heading(level));
                self.raw(">");
            }
            Tag::Table(alignments) => {
                self.alignments = alignments;
                self.raw("<table>");
            }
            Tag::TableHead => {
                self.head = true;
                self.cell = 0;
                self.raw("<thead><tr>");
            }
            Tag::TableRow => {
                self.cell = 0;
                self.raw("<tr>");
            }
            Tag::TableCell => self.cell_start(),
            Tag::BlockQuote(_) => self.block("<blockquote>\n"),
            Tag::CodeBlock(kind) => self.code_start(kind),
            Tag::List(Some(1)) => self.block("<ol>\n"),
            Tag::List(Some(start)) => {
                self.block("<ol start=\"");
                self.raw(&start.to_string());
                self.raw("\">\n");
            }
            Tag::List(None) => self.block("<ul>\n"),
            Tag::Item => self.block("<li>"),
            Tag::Emphasis => self.raw("<em>"),
            Tag::Strong => self.raw("<strong>"),
            Tag::Strikethrough => self.raw("<del>"),
            // An image is made a link before it gets here (nothing on a
            // page loads from elsewhere); were one to come, it is a link.
            Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            }
            | Tag::Image {
                link_type,
                dest_url,
                title,
                ..
            } => self.link_start(link_type, &dest_url, &title),
            // Not made with the options ccwiki parses with.
            Tag::HtmlBlock
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
    }

    /// A table's cell, its column's alignment as a style.
    fn cell_start(&mut self) {
        self.raw(if self.head { "<th" } else { "<td" });
        self.raw(match self.alignments.get(self.cell) {
            Some(Alignment::Left) => " style=\"text-align: left\">",
            Some(Alignment::Center) => " style=\"text-align: center\">",
            Some(Alignment::Right) => " style=\"text-align: right\">",
            _ => ">",
        });
    }

    /// A block of code, its fence's first word as its language's class.
    fn code_start(&mut self, kind: CodeBlockKind<'_>) {
        let lang = match &kind {
            CodeBlockKind::Fenced(info) => info.split(' ').next().unwrap_or_default(),
            CodeBlockKind::Indented => "",
        };
        if lang.is_empty() {
            self.block("<pre><code>");
        } else {
            self.block("<pre><code class=\"language-");
            let _ = escape_html(&mut *self.out, lang);
            self.raw("\">");
        }
    }

    /// A link to `dest_url`, with its title when it has one.
    fn link_start(&mut self, link_type: LinkType, dest_url: &str, title: &str) {
        self.out.push_str("<a href=\"");
        if link_type == LinkType::Email {
            self.out.push_str("mailto:");
        }
        let _ = escape_href(&mut *self.out, dest_url);
        if !title.is_empty() {
            self.out.push_str("\" title=\"");
            let _ = escape_html(&mut *self.out, title);
        }
        self.raw("\">");
    }

    fn end(&mut self, tag: TagEnd) {
        let html = match tag {
            TagEnd::Paragraph => "</p>\n",
            TagEnd::Heading(level) => {
                self.raw("</");
                self.raw(heading(level));
                ">\n"
            }
            TagEnd::Table => "</tbody></table>\n",
            TagEnd::TableHead => {
                self.head = false;
                "</tr></thead><tbody>\n"
            }
            TagEnd::TableRow => "</tr>\n",
            TagEnd::TableCell => {
                self.cell += 1;
                if self.head {
                    "</th>"
                } else {
                    "</td>"
                }
            }
            TagEnd::BlockQuote(_) => "</blockquote>\n",
            TagEnd::CodeBlock => "</code></pre>\n",
            TagEnd::List(true) => "</ol>\n",
            TagEnd::List(false) => "</ul>\n",
            TagEnd::Item => "</li>\n",
            TagEnd::Emphasis => "</em>",
            TagEnd::Strong => "</strong>",
            TagEnd::Strikethrough => "</del>",
            TagEnd::Link | TagEnd::Image => "</a>",
            TagEnd::HtmlBlock
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => "",
        };
        self.raw(html);
    }
}

/// A heading's tag name (`HeadingLevel`'s `Display`, without a string
/// made for it).
fn heading(level: HeadingLevel) -> &'static str {
    match level {
        HeadingLevel::H1 => "h1",
        HeadingLevel::H2 => "h2",
        HeadingLevel::H3 => "h3",
        HeadingLevel::H4 => "h4",
        HeadingLevel::H5 => "h5",
        HeadingLevel::H6 => "h6",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use pulldown_cmark::{Options, Parser};

    /// Parsed as ccwiki parses Markdown, images made links (this writer
    /// never sees one).
    fn events(text: &str) -> impl Iterator<Item = Event<'_>> {
        let mut opts = Options::empty();
        opts.insert(Options::ENABLE_TABLES);
        opts.insert(Options::ENABLE_STRIKETHROUGH);
        opts.insert(Options::ENABLE_TASKLISTS);
        Parser::new_ext(text, opts).map(|event| match event {
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }),
            Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
            other => other,
        })
    }

    fn ours(text: &str) -> String {
        let mut out = String::new();
        let mut html = Html::new(&mut out);
        events(text).for_each(|event| html.event(event));
        out
    }

    fn pulldowns(text: &str) -> String {
        let mut out = String::new();
        pulldown_cmark::html::push_html(&mut out, events(text));
        out
    }

    #[test]
    fn every_kind_of_block_and_span_is_written_as_pulldown_writes_it() {
        let text = "# Title\n\npara *em* **strong** ~~gone~~ `code` <b>x</b> & \"q\"\n\
            line two  \nhard\n\n> quoted\n> - in a list\n\n1. one\n2. two\n\n3) three\n\n\
            - [ ] todo\n- [x] done\n\n---\n\n| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n\n\
            ```rust title\nfn main() {}\n```\n\n    indented\n\n<div>\nblock html\n</div>\n\n\
            [a](https://e.com \"t\") <https://x.y> <me@x.y> ![img](p.png)\n\n###### six\n";
        let html = ours(text);
        assert_eq!(html, pulldowns(text));
        for part in [
            "<h1>",
            "<table>",
            "<ol start=\"3\">",
            "<blockquote>",
            "<hr />",
            "<h6>",
        ] {
            assert!(html.contains(part), "{part} in {html}");
        }
    }

    /// A line of Markdown: a block's mark (none, a heading, a quote, a
    /// list item, loose or tight, a task, code, a table's row or rule)
    /// before a few inline pieces, then one or two line ends.
    fn line() -> impl Strategy<Value = String> {
        let mark = prop_oneof![
            Just(""),
            Just("# "),
            Just("### "),
            Just("> "),
            Just("> > "),
            Just("- "),
            Just("  - "),
            Just("* "),
            Just("1. "),
            Just("4) "),
            Just("- [ ] "),
            Just("- [x] "),
            Just("    "),
            Just("```"),
            Just("```rust "),
            Just("~~~"),
            Just("| "),
            Just("|---|:-:|--:|"),
            Just("---"),
            Just("<div>"),
            Just("\t"),
        ];
        let piece = prop_oneof![
            Just("word"),
            Just(" "),
            Just("*em*"),
            Just("**strong**"),
            Just("~~gone~~"),
            Just("~x~"),
            Just("`code`"),
            Just("[a](https://e.com \"t\")"),
            Just("![i](p.png)"),
            Just("<https://x.y>"),
            Just("<me@x.y>"),
            Just("<b>"),
            Just("&amp;"),
            Just("&"),
            Just("\"q\""),
            Just(" | "),
            Just("é"),
            Just("\\*"),
            Just("  "),
            Just("---"),
            Just("- "),
        ];
        let end = prop_oneof![Just("\n"), Just("\n\n")];
        (mark, proptest::collection::vec(piece, 0..5), end)
            .prop_map(|(mark, pieces, end)| format!("{mark}{}{end}", pieces.concat()))
    }

    proptest! {
        /// On any text made of such lines.
        #[test]
        fn the_html_is_pulldowns(lines in proptest::collection::vec(line(), 0..12)) {
            let text = lines.concat();
            prop_assert_eq!(ours(&text), pulldowns(&text));
        }
    }
}
