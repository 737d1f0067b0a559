//! Markdown to HTML for text that came from transcripts and memory files.
//!
//! Content is untrusted: raw HTML in it is shown as text, never passed
//! through; link targets with a script-capable scheme are dropped; images
//! become plain links so a page never loads anything from another host.
//! Internal links written `@/path` are made relative to the page.

mod html;

use crate::site::highlight::Syntax;
use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// How a text's single line breaks show.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Breaks {
    /// As CommonMark says: a space, the paragraph reflowed. For documents
    /// (memory files, setup docs), whose lines may be wrapped by hand.
    Reflow,
    /// As typed: each line a line, as the terminal showed it. For a
    /// session's text (prompts, answers, summaries): a pasted log or a
    /// list without Markdown's marks ran into one line otherwise (a
    /// quarter of the corpus's prompts, one answer in twenty-five).
    AsTyped,
}

/// Render `text` as HTML. `root` is the page's path back to the site root.
pub fn render(text: &str, root: &str, breaks: Breaks) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    render_into(text, root, breaks, &mut out);
    out
}

/// [`render`], appended to `out`.
pub fn render_into(text: &str, root: &str, breaks: Breaks, out: &mut String) {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    out.reserve(text.len() + text.len() / 4);
    let mut html = html::Html::new(out);
    let mut links = Links::default();
    // A fenced block of a known language, gathered to be highlighted whole.
    let mut code: Option<(&Syntax, CowStr, String)> = None;
    // For each open struck span: whether it strikes (see `strikes`).
    let mut struck: Vec<bool> = Vec::new();
    for (ev, at) in Parser::new_ext(text, opts).into_offset_iter() {
        match ev {
            Event::Start(Tag::Strikethrough) | Event::End(TagEnd::Strikethrough) => {
                match strikes(matches!(ev, Event::Start(_)), text, at, &mut struck) {
                    true => html.event(ev),
                    false => html.text("~"),
                }
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) => {
                match crate::site::highlight::for_fence(&lang) {
                    Some(syntax) => code = Some((syntax, lang, String::new())),
                    None => html.event(Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))),
                }
            }
            Event::Text(t) if code.is_some() => {
                if let Some((_, _, body)) = code.as_mut() {
                    body.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) if code.is_some() => {
                if let Some((syntax, lang, body)) = code.take() {
                    html.raw_with(|out| code_block(syntax, &lang, &body, out));
                }
            }
            Event::SoftBreak if breaks == Breaks::AsTyped => html.event(Event::HardBreak),
            // Raw HTML from content is shown, not interpreted.
            Event::Html(h) | Event::InlineHtml(h) => html.text(&h),
            Event::Text(t) => {
                links.text(&t);
                html.text(&t);
            }
            // An image becomes a link to it: nothing loads from elsewhere.
            Event::Start(Tag::Link {
                dest_url,
                title,
                id,
                ..
            })
            | Event::Start(Tag::Image {
                dest_url,
                title,
                id,
                ..
            }) => links.start(&mut html, dest_url, title, id, root),
            Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => links.end(&mut html),
            other => html.event(other),
        }
    }
}

/// The links open where the parser is, outermost first: None for one
/// kept; for one left out, its target and the text seen so far (the text
/// stays, the target follows as code when it says more).
#[derive(Default)]
struct Links {
    open: Vec<Option<(String, String)>>,
}

impl Links {
    /// A link (or an image, made a link) to `dest_url` opens.
    fn start<'a>(
        &mut self,
        html: &mut html::Html<'_>,
        dest_url: CowStr<'a>,
        title: CowStr<'a>,
        id: CowStr<'a>,
        root: &str,
    ) {
        let leads_nowhere = leads_outside_the_site(&dest_url);
        (self.open).push(leads_nowhere.then(|| (dest_url.to_string(), String::new())));
        if !leads_nowhere {
            html.event(Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url: safe_url(dest_url, root),
                title,
                id,
            }));
        }
    }

    /// Text inside the innermost open link.
    fn text(&mut self, text: &str) {
        if let Some(Some((_, seen))) = self.open.last_mut() {
            seen.push_str(text);
        }
    }

    /// The innermost open link closes.
    fn end(&mut self, html: &mut html::Html<'_>) {
        match self.open.pop().flatten() {
            None => html.event(Event::End(TagEnd::Link)),
            Some((target, seen)) if target.trim() == seen.trim() || target.trim().is_empty() => {}
            Some((target, _)) => html.raw_with(|out| {
                out.push_str(" <code class=\"link-target\">");
                crate::base::html::escape_text(out, target.trim());
                out.push_str("</code>");
            }),
        }
    }
}

/// `text`, one line of a list (a session's digest, a prompt in the
/// timeline), as inline HTML: code spans, emphasis, strong and struck
/// text marked up, everything else as text. A link is its text (the line
/// may itself be a link), raw HTML is shown, and a line that starts like
/// a block (`1. `, `- `, `# `, `> `, a fence, `[x]: y`) stays that text:
/// a one-line text is a line in a list, not a page.
pub fn inline_into(text: &str, out: &mut String) {
    // A line's blanks at either end are not shown (the parser drops them).
    let text = text.trim_matches([' ', '\t']);
    // Without a byte that starts inline Markdown (code, emphasis, struck
    // text, a link or image, an autolink or raw HTML, an entity, an
    // escape), the HTML is the text escaped: most lines.
    let inline = memchr::memchr3(b'`', b'*', b'_', text.as_bytes()).is_some()
        || (text.bytes()).any(|b| matches!(b, b'~' | b'[' | b'<' | b'&' | b'\\'));
    if inline {
        inline_parsed(text, out);
    } else {
        crate::base::html::escape_text(out, text);
    }
}

/// [`inline_into`] through the parser, whatever the line holds.
fn inline_parsed(text: &str, out: &mut String) {
    let line = inline_only(text);
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    let mut struck: Vec<bool> = Vec::new();
    for (event, at) in Parser::new_ext(&line, opts).into_offset_iter() {
        let tag = match event {
            Event::Start(Tag::Strikethrough) | Event::End(TagEnd::Strikethrough) => {
                let opens = matches!(event, Event::Start(_));
                match (strikes(opens, &line, at, &mut struck), opens) {
                    (false, _) => "~",
                    (true, true) => "<del>",
                    (true, false) => "</del>",
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => {
                crate::base::html::escape_text(out, &t);
                continue;
            }
            Event::Code(c) => {
                out.push_str("<code>");
                crate::base::html::escape_text(out, &c);
                out.push_str("</code>");
                continue;
            }
            Event::SoftBreak | Event::HardBreak => " ",
            Event::Start(Tag::Emphasis) => "<em>",
            Event::End(TagEnd::Emphasis) => "</em>",
            Event::Start(Tag::Strong) => "<strong>",
            Event::End(TagEnd::Strong) => "</strong>",
            _ => "",
        };
        out.push_str(tag);
    }
}

/// Whether the start (`opens`) or the end of the struck span at `at` of
/// `text` strikes: only a span written `~~text~~` does. One tilde on each
/// side strikes too in GitHub's Markdown, but in transcripts a tilde is a
/// home (`cat ~/a ~/b`, and every home the redactor replaces) or "about"
/// (`~5 min`): a pair of them struck the path between, and both tildes
/// were lost. Those stay text. `open`: whether each open span strikes.
fn strikes(opens: bool, text: &str, at: std::ops::Range<usize>, open: &mut Vec<bool>) -> bool {
    if !opens {
        return open.pop().unwrap_or(true);
    }
    let kept = text.get(at).is_some_and(|span| span.starts_with("~~"));
    open.push(kept);
    kept
}

/// `line` with a backslash before what would make it start a block
/// (each of these is ASCII punctuation, which a backslash makes plain).
fn inline_only(line: &str) -> std::borrow::Cow<'_, str> {
    let b = line.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let spaced = |at: usize| b.get(at).is_none_or(|c| *c == b' ' || *c == b'\t');
    let fence = |c: u8| b.len() >= 3 && b[..3].iter().all(|&x| x == c);
    let hashes = b.iter().take_while(|&&c| c == b'#').count();
    let at = match b.first() {
        // An ordered list item: `1.` or `1)` after up to nine digits.
        Some(c) if c.is_ascii_digit() => {
            (digits <= 9 && matches!(b.get(digits), Some(b'.' | b')')) && spaced(digits + 1))
                .then_some(digits)
        }
        Some(b'-' | b'+' | b'*') if spaced(1) => Some(0),
        Some(b'-' | b'*' | b'_') if crate::base::text::is_thematic_break(line) => Some(0),
        Some(&c @ (b'`' | b'~')) if fence(c) => Some(0),
        Some(b'#') if (1..=6).contains(&hashes) && spaced(hashes) => Some(0),
        Some(b'>' | b'[') => Some(0),
        _ => None,
    };
    match at {
        Some(at) => std::borrow::Cow::Owned(format!("{}\\{}", &line[..at], &line[at..])),
        None => std::borrow::Cow::Borrowed(line),
    }
}

/// A fenced block as `<pre><code>`, coloured when it is not too long,
/// appended to `out`.
fn code_block(syntax: &Syntax, lang: &str, body: &str, out: &mut String) {
    out.push_str("<pre><code class=\"language-");
    out.push_str(&crate::base::slugs::slugify(lang));
    out.push_str("\">");
    if !crate::site::highlight::code_into(syntax, body, out) {
        crate::base::html::escape_text(out, body);
    }
    out.push_str("</code></pre>\n");
}

/// Tera's escaping of `{{ x }}` in an HTML template (the `fast` feature's),
/// appended to `out`.
pub(crate) fn escape(out: &mut String, text: &str) {
    // Writing to a String cannot fail.
    let _ = pulldown_cmark_escape::escape_html(&mut *out, text);
}

/// A relative link in content (`docs/install.md`, `spec/x.rb:118`) points
/// at the user's files, not at a page of the site: it would be a broken
/// link, so it is shown as its text. Links to the web, to mail, to an
/// anchor on the page and ccwiki's own `@/` links are kept.
fn leads_outside_the_site(url: &str) -> bool {
    let u = url.trim();
    let lower = u.get(..8).unwrap_or(u).to_ascii_lowercase();
    let kept = lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("mailto:")
        || u.starts_with('#')
        || u.starts_with("@/");
    !kept && is_safe_url(u)
}

/// Keep http(s), mailto, fragments and relative links; resolve `@/`; drop the rest.
fn safe_url<'a>(url: CowStr<'a>, root: &str) -> CowStr<'a> {
    if let Some(internal) = url.strip_prefix("@/") {
        // Only a plain relative path is an internal link: no scheme, no host.
        let plain = !internal.starts_with(['/', '\\']) && !internal.contains(':');
        return if plain && is_safe_url(internal) {
            CowStr::from(format!("{root}{internal}"))
        } else {
            CowStr::from("#")
        };
    }
    if is_safe_url(&url) {
        url
    } else {
        CowStr::from("#")
    }
}

/// Whether a link target is safe to put in an `href`.
pub fn is_safe_url(url: &str) -> bool {
    // Browsers ignore control characters and whitespace inside a scheme.
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .take(32)
        .collect::<String>()
        .to_ascii_lowercase();
    let scheme_end = cleaned.find([':', '/', '?', '#']);
    match scheme_end {
        Some(i) if cleaned.as_bytes()[i] == b':' => {
            let scheme = &cleaned[..i];
            matches!(scheme, "http" | "https" | "mailto")
        }
        // `&#106;avascript:` style entity tricks have no scheme until decoded:
        // refuse anything that decodes to a colon before a slash.
        _ => !cleaned.contains("&#") && !cleaned.contains("&colon"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reflowed(text: &str, root: &str) -> String {
        render(text, root, Breaks::Reflow)
    }

    /// A session's text keeps its lines (a pasted log ran into one); a
    /// document's paragraph is reflowed, as CommonMark says; a blank line
    /// still parts paragraphs, and code keeps its lines either way.
    #[test]
    fn text_as_typed_keeps_its_lines() {
        let text = "errors:\n  hook error\n  hook error\n\nnext\n\n```\na\nb\n```\n";
        assert_eq!(
            render(text, "", Breaks::AsTyped),
            "<p>errors:<br />\nhook error<br />\nhook error</p>\n<p>next</p>\n<pre><code>a\nb\n</code></pre>\n"
        );
        assert_eq!(
            reflowed(text, ""),
            "<p>errors:\nhook error\nhook error</p>\n<p>next</p>\n<pre><code>a\nb\n</code></pre>\n"
        );
    }

    /// Seen on real prompts: `cat ~/.claude/projects/~/x` (its second
    /// home replaced by the redactor) struck the path and lost both tildes.
    #[test]
    fn one_tilde_each_side_strikes_nothing() {
        for text in [
            "cat ~/.claude/projects/~/d04.jsonl",
            "sed \"s|$HOME|~|g\"); x=~/y",
            "CommandLine : \"~\\AppData\\x\" \"--dir=~\\y\"",
            "about (~5 min) and ~10~ more",
        ] {
            let h = reflowed(text, "");
            assert!(!h.contains("<del>"), "{text}: {h}");
            assert_eq!(
                h.matches('~').count(),
                text.matches('~').count(),
                "{text}: {h}"
            );
            let mut line = String::new();
            inline_into(text, &mut line);
            assert!(!line.contains("<del>"), "{text}: {line}");
            assert_eq!(
                line.matches('~').count(),
                text.matches('~').count(),
                "{text}: {line}"
            );
        }
        // two on each side still strike, here and inside a single-tilde pair
        assert!(reflowed("a ~~gone~~ b", "").contains("<del>gone</del>"));
        let h = reflowed("~x ~~gone~~ y~", "");
        assert!(
            h.contains("<del>gone</del>") && h.matches('~').count() == 2,
            "{h}"
        );
    }

    #[test]
    fn raw_html_is_text() {
        let h = reflowed(
            "hi <script>alert(1)</script> <img src=x onerror=alert(1)>",
            "",
        );
        assert!(!h.contains("<script"), "{h}");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("&lt;script&gt;"), "{h}");
    }

    #[test]
    fn dangerous_links_are_dropped() {
        for md in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](java\tscript:alert(1))",
            "[x](vbscript:msgbox)",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](&#106;avascript:alert(1))",
            "![x](javascript:alert(1))",
        ] {
            let h = reflowed(md, "");
            for href in h.split("href=\"").skip(1) {
                let target = href.split('"').next().unwrap_or("");
                assert!(is_safe_url(target), "{md} -> {h}");
                assert!(!target.contains(':'), "{md} -> {h}");
            }
        }
        assert!(
            reflowed("[x](https://example.com/a)", "").contains("href=\"https://example.com/a\"")
        );
        assert!(reflowed("[x](#frag)", "").contains("href=\"#frag\""));
    }

    #[test]
    fn images_become_links_and_internal_links_resolve() {
        let h = reflowed("![shot](https://example.com/a.png)", "../");
        assert!(!h.contains("<img"), "{h}");
        assert!(
            h.contains("<a href=\"https://example.com/a.png\">shot</a>"),
            "{h}"
        );
        let h = reflowed("[skill](@/skills/x/index.html)", "../../");
        assert!(h.contains("href=\"../../skills/x/index.html\""), "{h}");
        for evil in [
            "[x](@/javascript:alert(1))",
            "[x](@//evil.example/x)",
            "[x](@/\\\\evil/x)",
        ] {
            for root in ["", "../"] {
                let h = reflowed(evil, root);
                assert!(h.contains("href=\"#\""), "{evil} -> {h}");
            }
        }
    }

    #[test]
    fn links_to_the_users_files_are_text_with_their_target_as_code() {
        let h = reflowed(
            "see [the guide](docs/installation.md) and [spec/x.rb](spec/x.rb)",
            "../",
        );
        assert!(!h.contains("href"), "{h}");
        assert!(
            h.contains("the guide <code class=\"link-target\">docs/installation.md</code>"),
            "{h}"
        );
        assert!(h.contains("and spec/x.rb</p>"), "the same text once: {h}");
        let h = reflowed("![diagram](img/a.png) [x](<a b\"<i>.md>)", "");
        assert!(!h.contains("href") && !h.contains("<i>"), "{h}");
        assert!(
            h.contains("diagram <code class=\"link-target\">img/a.png</code>"),
            "{h}"
        );
        // The web, mail, anchors and ccwiki's own links stay links.
        for md in [
            "[a](https://x.org)",
            "[a](mailto:a@x.org)",
            "[a](#p3)",
            "[a](@/notes/x/index.html)",
        ] {
            assert!(reflowed(md, "").contains("href="), "{md}");
        }
    }

    fn line(text: &str) -> String {
        let mut out = String::new();
        inline_into(text, &mut out);
        out
    }

    #[test]
    fn a_line_shows_code_and_emphasis_and_stays_one_line() {
        assert_eq!(
            line("Committed as `462255fb`, **done** and *checked* ~~not~~"),
            "Committed as <code>462255fb</code>, <strong>done</strong> and <em>checked</em> <del>not</del>"
        );
        assert_eq!(
            line("no markup \"here\" > there"),
            "no markup \"here\" &gt; there"
        );
        assert_eq!(line("raw <b>&amp;"), "raw &lt;b&gt;&amp;");
        assert_eq!(
            line("see [the docs](https://x.y) and <i>`a<b`</i>"),
            "see the docs and &lt;i&gt;<code>a&lt;b</code>&lt;/i&gt;"
        );
        // A line that starts like a block keeps what starts it.
        for (md, shown) in [
            ("1. Fix `a`", "1. Fix <code>a</code>"),
            ("12) Fix `a`", "12) Fix <code>a</code>"),
            ("- item `a`", "- item <code>a</code>"),
            ("* item `a`", "* item <code>a</code>"),
            ("+ item `a`", "+ item <code>a</code>"),
            ("# title `a`", "# title <code>a</code>"),
            ("> quoted `a`", "&gt; quoted <code>a</code>"),
            ("[a]: b `c`", "[a]: b <code>c</code>"),
            ("```rust", "```rust"),
            ("~~~", "~~~"),
            ("***", "***"),
            ("- - -", "- - -"),
            ("___", "___"),
            ("_\t_\t_", "_\t_\t_"),
            ("---\t", "---"),
        ] {
            assert_eq!(line(md), shown, "{md}");
        }
        assert_eq!(line("**bold** start"), "<strong>bold</strong> start");
        assert_eq!(line("snake_case_name"), "snake_case_name");
    }

    proptest::proptest! {
        /// A line without inline Markdown is not parsed, and shows as it
        /// would parsed.
        #[test]
        fn a_line_left_unparsed_shows_as_parsed(text in "([a-z ]|>|#|-|1\\.|!|\"|'|:|é|\\]|\\(|\\)|&|&amp;|&#33;|<|`|\\*|_|~|\\[|\\\\)*") {
            let mut parsed = String::new();
            inline_parsed(text.trim_matches([' ', '\t']), &mut parsed);
            proptest::prop_assert_eq!(line(&text), parsed);
        }

        /// Whatever a line holds, its HTML has no tag but the inline ones
        /// it makes, each closed, and every `<` of the text escaped.
        #[test]
        fn a_line_makes_only_inline_tags(text in "([a-z ]|`|\\*|_|~|<|>|&|\\[|\\]|\\(|\\)|#|-|1\\.|!|\\\\|\"|:)*") {
            let html = line(&text);
            let mut rest = html.as_str();
            let mut open = Vec::new();
            while let Some(at) = rest.find('<') {
                let end = rest[at..].find('>').map(|e| at + e).expect("a tag ends");
                let tag = &rest[at + 1..end];
                match tag.strip_prefix('/') {
                    Some(name) => proptest::prop_assert_eq!(open.pop(), Some(name.to_string()), "{}", html),
                    None => {
                        proptest::prop_assert!(["code", "em", "strong", "del"].contains(&tag), "{}", html);
                        open.push(tag.to_string());
                    }
                }
                rest = &rest[end + 1..];
            }
            proptest::prop_assert!(open.is_empty(), "{}", html);
        }
    }
}
