//! Syntax highlighting at build time: code as HTML spans whose classes
//! (`hl-keyword`, `hl-string` …) the theme colours; no script on the page.
//! Used for fenced code blocks with a known language and for the lines of
//! a diff, whose language the file's extension gives.

use std::sync::OnceLock;
use syntect::parsing::{
    BasicScopeStackOp, ParseState, Scope, ScopeStack, ScopeStackOp, SyntaxReference, SyntaxSet,
};
use syntect::util::LinesWithEndings;

/// Longest text highlighted; a longer one is shown plain. Highlighting is
/// the costliest step of rendering a page: a bound keeps a session of huge
/// pasted files from taking minutes.
pub const MAX_BYTES: usize = 32 * 1024;

/// How much code one page colours; the rest of its code is shown plain.
/// Highlighting runs at about 1.5 MB/s (syntect, with Oniguruma):
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
    let mut state = ParseState::new(syntax);
    let mut out = Spans::new(code.len());
    for line in LinesWithEndings::from(code) {
        let ops = state.parse_line(line, syntaxes()).ok()?;
        let mut from = 0;
        for (at, op) in ops {
            out.text(line.get(from..at)?);
            from = at;
            out.apply(&op).ok()?;
        }
        out.text(line.get(from..)?);
    }
    Some(out.finish())
}

/// What a piece of code is, as far as a theme colours it: one class a
/// run of text, the same for every language. A theme styles these nine
/// (`hl-keyword` ...); the rest of the highlighter's scopes (meta,
/// punctuation, plain names) are left as plain text, not wrapped.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Colour {
    Comment,
    String,
    Constant,
    Support,
    Keyword,
    Storage,
    Entity,
    Tag,
    Parameter,
}

impl Colour {
    fn class(self) -> &'static str {
        match self {
            Colour::Comment => "hl-comment",
            Colour::String => "hl-string",
            Colour::Constant => "hl-constant",
            Colour::Support => "hl-support",
            Colour::Keyword => "hl-keyword",
            Colour::Storage => "hl-storage",
            Colour::Entity => "hl-entity",
            Colour::Tag => "hl-tag",
            Colour::Parameter => "hl-parameter",
        }
    }

    /// The colour a scope gives its text, None when it gives none and
    /// its text takes the colour of the scope around it (an operator in
    /// a string is the string's). The first prefix that matches decides.
    fn of(scope: Scope) -> Option<Colour> {
        static PREFIXES: OnceLock<Vec<(Scope, Option<Colour>)>> = OnceLock::new();
        let prefixes = PREFIXES.get_or_init(|| {
            [
                ("keyword.operator", None),
                ("keyword", Some(Colour::Keyword)),
                ("comment", Some(Colour::Comment)),
                ("string", Some(Colour::String)),
                ("constant", Some(Colour::Constant)),
                ("support", Some(Colour::Support)),
                ("storage", Some(Colour::Storage)),
                ("entity.name.tag", Some(Colour::Tag)),
                ("entity", Some(Colour::Entity)),
                ("variable.parameter", Some(Colour::Parameter)),
            ]
            .into_iter()
            .filter_map(|(p, c)| Some((Scope::new(p).ok()?, c)))
            .collect()
        });
        prefixes
            .iter()
            .find(|(p, _)| p.is_prefix_of(scope))
            .and_then(|(_, c)| *c)
    }
}

/// Highlighted HTML as it is written: flat spans, one a run of text of
/// one colour, never nested (the scopes' own nesting is resolved here,
/// innermost colour first, as a style sheet would).
struct Spans {
    out: String,
    scopes: ScopeStack,
    /// The colour in force at each depth of `scopes`.
    colours: Vec<Option<Colour>>,
    /// The colour of the span left open, if any.
    open: Option<Colour>,
}

impl Spans {
    fn new(len: usize) -> Spans {
        Spans {
            out: String::with_capacity(len + len / 2),
            scopes: ScopeStack::new(),
            colours: Vec::new(),
            open: None,
        }
    }

    fn apply(&mut self, op: &ScopeStackOp) -> Result<(), syntect::parsing::ScopeError> {
        let colours = &mut self.colours;
        self.scopes.apply_with_hook(op, |basic, _| match basic {
            BasicScopeStackOp::Push(scope) => {
                let around = colours.last().copied().flatten();
                colours.push(Colour::of(scope).or(around));
            }
            BasicScopeStackOp::Pop => {
                colours.pop();
            }
        })
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let colour = self.colours.last().copied().flatten();
        if colour != self.open {
            if self.open.is_some() {
                self.out.push_str("</span>");
            }
            if let Some(c) = colour {
                self.out.push_str("<span class=\"");
                self.out.push_str(c.class());
                self.out.push_str("\">");
            }
            self.open = colour;
        }
        pulldown_cmark_escape::escape_html(&mut self.out, text).ok();
    }

    fn finish(mut self) -> String {
        if self.open.is_some() {
            self.out.push_str("</span>");
        }
        self.out
    }
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

    /// The text of highlighted HTML, and its classes; panics on a nested
    /// or unbalanced span.
    fn read_back(html: &str) -> (String, Vec<String>) {
        let (mut text, mut classes, mut rest) = (String::new(), Vec::new(), html);
        let mut open = false;
        while let Some(i) = rest.find('<') {
            text.push_str(&rest[..i]);
            rest = &rest[i..];
            if let Some(r) = rest.strip_prefix("</span>") {
                assert!(open, "close without open: {html}");
                open = false;
                rest = r;
            } else {
                let r = rest.strip_prefix("<span class=\"").expect(html);
                let end = r.find("\">").expect(html);
                assert!(!open, "nested span: {html}");
                open = true;
                classes.push(r[..end].to_string());
                rest = &r[end + 2..];
            }
        }
        assert!(!open, "unclosed span: {html}");
        text.push_str(rest);
        let text = text
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        (text, classes)
    }

    #[test]
    fn one_class_a_run_the_innermost_colour_winning() {
        new_page();
        let py = for_fence("python").expect("python");
        let html = code(py, "def f(a):\n    return \"x\" + 1  # done\n").expect("python");
        assert!(
            html.contains("<span class=\"hl-string\">&quot;x&quot;</span>"),
            "{html}"
        );
        assert!(html.contains("<span class=\"hl-comment\"># done"), "{html}");
        assert!(
            html.contains("<span class=\"hl-parameter\">a</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"hl-constant\">1</span>"),
            "{html}"
        );
        // An operator takes no colour of its own: `+` stays plain.
        assert!(html.contains("</span> + <span"), "{html}");
        new_page();
        let tag = code(for_fence("html").expect("html"), "<p class=\"a\">hi</p>\n").expect("html");
        assert!(tag.contains("<span class=\"hl-tag\">p</span>"), "{tag}");
    }

    proptest::proptest! {
        /// Whatever the code, in any language: the text comes back as it
        /// was, spans are flat and balanced, and every class is one a
        /// theme knows.
        #[test]
        fn highlighted_html_is_the_text_in_flat_spans(
            code_text in proptest::string::string_regex(
                "([a-z_]{1,8}|[0-9]{1,3}|[ \t]{1,3}|\n|[\"'`#/*<>&(){}\\[\\];:=.,+-]|//|/\\*|\\*/|<!--|-->|é|😀){0,40}"
            ).expect("regex"),
            lang in proptest::sample::select(vec!["rust", "python", "js", "go", "sh", "html", "c", "java", "md", "json", "yaml", "css"]),
        ) {
            let syntax = for_fence(lang).expect("known");
            let known = [
                "hl-comment", "hl-string", "hl-constant", "hl-support", "hl-keyword",
                "hl-storage", "hl-entity", "hl-tag", "hl-parameter",
            ];
            new_page();
            if let Some(html) = code(syntax, &code_text) {
                let (text, classes) = read_back(&html);
                proptest::prop_assert_eq!(text, code_text.clone());
                for c in classes {
                    proptest::prop_assert!(known.contains(&c.as_str()), "{}", c);
                }
            }
            if !code_text.contains(['\n', '\r']) {
                new_page();
                if let Some(html) = line(syntax, &code_text) {
                    proptest::prop_assert_eq!(read_back(&html).0, code_text.clone());
                }
            }
        }
    }
}
