//! Syntax highlighting at build time: code as HTML spans whose classes
//! (`hl-keyword`, `hl-string` …) the theme colours; no script on the page.
//! Used for fenced code blocks with a known language and for the lines of
//! a diff, whose language the file's extension gives.

use std::sync::OnceLock;
use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// Longest text highlighted; a longer one is shown plain. Highlighting is
/// the costliest step of rendering a page: a bound keeps a session of huge
/// pasted files from taking minutes.
pub const MAX_BYTES: usize = 32 * 1024;

/// How much code one page colours; the rest of its code is shown plain.
/// Highlighting runs at about 1.5 MB/s (syntect's pure-Rust regexes):
/// without a bound per page, code-heavy sessions made a cold build twenty
/// times slower. Short blocks and small edits, the common case, are
/// coloured; a page of long files is not.
pub const PAGE_BUDGET: usize = 4 * 1024;

thread_local! {
    /// What is left of the budget of the page this thread renders.
    static BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(PAGE_BUDGET) };
}

/// A new page starts: its budget is whole again.
pub fn new_page() {
    BUDGET.with(|b| b.set(PAGE_BUDGET));
}

/// Take `bytes` from the page's budget; false when not that much is left.
fn spend(bytes: usize) -> bool {
    BUDGET.with(|b| {
        let left = b.get();
        let ok = bytes <= left;
        if ok {
            b.set(left - bytes);
        }
        ok
    })
}

/// A language known to the highlighter.
pub type Syntax = SyntaxReference;

/// Longest line highlighted (minified code is shown plain).
const MAX_LINE: usize = 2_000;

/// Classes are prefixed so they never meet a theme's own.
const STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "hl-" };

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The syntax a fence names (`rust`, `py`, `ts` …); None for plain text.
pub fn for_fence(lang: &str) -> Option<&'static SyntaxReference> {
    let lang = lang.split([' ', ',', '{']).next()?.trim();
    if lang.is_empty() || matches!(lang, "text" | "txt" | "plain" | "plaintext") {
        return None;
    }
    let set = syntaxes();
    set.find_syntax_by_token(lang)
        .or_else(|| match lang {
            "ts" | "tsx" | "typescript" | "jsx" => set.find_syntax_by_extension("js"),
            "shell" | "console" | "zsh" => set.find_syntax_by_extension("sh"),
            "toml" | "ini" => set.find_syntax_by_extension("ini"),
            _ => None,
        })
        .filter(|s| s.name != "Plain Text")
}

/// The syntax of a file, by its extension (or name: `Makefile`).
pub fn for_path(path: &str) -> Option<&'static SyntaxReference> {
    let name = path.rsplit(['/', '\\']).next()?;
    let ext = name.rsplit_once('.').map_or(name, |(_, e)| e);
    for_fence(ext)
        .or_else(|| syntaxes().find_syntax_by_extension(ext))
        .filter(|s| s.name != "Plain Text")
}

/// `code` as highlighted HTML (escaped, spans balanced), None when it is
/// too long or cannot be highlighted.
pub fn code(syntax: &SyntaxReference, code: &str) -> Option<String> {
    if code.len() > MAX_BYTES || code.lines().any(|l| l.len() > MAX_LINE) || !spend(code.len()) {
        return None;
    }
    let mut g = ClassedHTMLGenerator::new_with_class_style(syntax, syntaxes(), STYLE);
    for line in LinesWithEndings::from(code) {
        g.parse_html_for_line_which_includes_newline(line).ok()?;
    }
    Some(g.finalize())
}

/// One line as highlighted HTML, highlighted on its own (a diff shows
/// lines out of their file: a line inside a block comment may be coloured
/// as code).
pub fn line(syntax: &SyntaxReference, line: &str) -> Option<String> {
    let html = code(
        syntax,
        &format!("{}\n", line.trim_end_matches(['\n', '\r'])),
    )?;
    // The one newline is the line's end, possibly inside a span (a comment).
    Some(html.replace('\n', ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_get_classes_and_text_stays_escaped() {
        let rust = for_fence("rust").expect("rust");
        let html = code(rust, "fn main() { let s = \"<b>&\"; }\n").expect("highlights");
        assert!(
            html.contains("hl-keyword") || html.contains("hl-storage"),
            "{html}"
        );
        assert!(html.contains("&lt;b&gt;&amp;"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert_eq!(
            html.matches("<span").count(),
            html.matches("</span>").count()
        );
        assert!(for_fence("text").is_none() && for_fence("").is_none());
        assert!(for_fence("no-such-language").is_none());
        assert_eq!(
            for_path("/x/y/app.py").map(|s| s.name.as_str()),
            Some("Python")
        );
        assert!(for_fence("ts").is_some() && for_fence("bash").is_some());
    }

    #[test]
    fn too_long_is_left_plain() {
        let rust = for_fence("rust").expect("rust");
        assert!(code(rust, &"a".repeat(MAX_BYTES + 1)).is_none());
        assert!(code(rust, &format!("let x = \"{}\";\n", "a".repeat(MAX_LINE))).is_none());
        let one = line(rust, "let x = 1; // done").expect("line");
        assert!(!one.contains('\n') && one.contains("hl-comment"), "{one}");
    }
}
