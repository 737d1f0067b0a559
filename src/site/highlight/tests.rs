//! The highlighter: what each language's tables colour, and that any
//! text comes back whole in flat spans.

use super::*;

/// [`code_into`] as a string of its own.
fn code(syntax: &Syntax, text: &str) -> Option<String> {
    let mut out = String::new();
    code_into(syntax, text, &mut out).then_some(out)
}

/// [`line_into`] as a string of its own.
fn line(syntax: &Syntax, text: &str) -> Option<String> {
    let mut out = String::new();
    line_into(syntax, text, &mut out).then_some(out)
}

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
    assert_eq!(for_path("/x/y/app.py").map(|s| s.name()), Some("Python"));
    assert!(for_fence("ts").is_some() && for_fence("bash").is_some());
    // Names in any case; a file's name before its extension.
    assert_eq!(
        for_fence("RuSt").map(|s| s.name()),
        for_fence("rust").map(|s| s.name())
    );
    assert_eq!(for_path(r"C:\x\MAIN.RS").map(|s| s.name()), Some("Rust"));
    assert_eq!(
        for_path("/x/Makefile").map(|s| s.name()),
        for_fence("make").map(|s| s.name())
    );
    assert!(for_path("/x/Makefile").is_some());
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
        .replace("&amp;", "&");
    (text, classes)
}

#[test]
fn one_class_a_run_the_innermost_colour_winning() {
    let py = for_fence("python").expect("python");
    let html = code(py, "def f(a):\n    return \"x\" + 1  # done\n").expect("python");
    assert!(
        html.contains("<span class=\"hl-string\">\"x\"</span>"),
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
    let tag = code(for_fence("html").expect("html"), "<p class=\"a\">hi</p>\n").expect("html");
    assert!(tag.contains("<span class=\"hl-tag\">p</span>"), "{tag}");
}

/// Each run of colour as (class, text), in order; plain text left out.
fn runs(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for piece in html.split("<span class=\"hl-").skip(1) {
        let (class, rest) = piece.split_once("\">").expect("class");
        let text = rest.split("</span>").next().unwrap_or("");
        let (text, _) = read_back(text);
        out.push((class.to_string(), text));
    }
    out
}

/// A language, a text, and runs its HTML must hold in that order.
type Case = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// What each language's tables colour, one example of each kind of run.
#[test]
fn each_language_colours_what_its_table_says() {
    let cases: &[Case] = &[
        (
            "rust",
            "pub fn parse<'a>(s: &'a str) -> Option<u8> { let r = r#\"a \"q\"\"#; 'x' } // end",
            &[
                ("storage", "pub fn"),
                ("entity", "parse"),
                ("parameter", "s"),
                ("storage", "str"),
                ("support", "Option"),
                ("string", "r#\"a \"q\"\"#"),
                ("string", "'x'"),
                ("comment", "// end"),
            ],
        ),
        (
            "python",
            "@cache\ndef f(self, a, *rest, b=0x1F):\n    return f\"{a}\" if a is None else '''x\ny'''  # c",
            &[
                ("entity", "@cache"),
                ("entity", "f"),
                ("constant", "self"),
                ("parameter", "a"),
                ("parameter", "rest"),
                ("parameter", "b"),
                ("constant", "0x1F"),
                ("string", "f\"{a}\""),
                ("string", "'''x\ny'''"),
                ("comment", "# c"),
            ],
        ),
        (
            "ts",
            "export async function load(path: string) { const t = `a\n${b}`; /* x\ny */ return null; }",
            &[
                ("keyword", "export"),
                ("storage", "async function"),
                ("entity", "load"),
                ("parameter", "path"),
                ("string", "`a\n${b}`"),
                ("comment", "/* x\ny */"),
                ("constant", "null"),
            ],
        ),
        (
            "bash",
            "export A=\"$HOME\" # set\nls -la ${DIR} $1 a#b | grep --count 'x'",
            &[
                ("storage", "export"),
                ("string", "\"$HOME\""),
                ("comment", "# set"),
                ("parameter", "-la ${DIR} $1"),
                ("parameter", "--count"),
                ("string", "'x'"),
            ],
        ),
        (
            "json",
            "{\"name\": \"x\", \"n\": -1.5e3, \"ok\": true}",
            &[
                ("support", "\"name\""),
                ("string", "\"x\""),
                ("support", "\"n\""),
                ("constant", "1.5e3"),
                ("support", "\"ok\""),
                ("constant", "true"),
            ],
        ),
        (
            "yaml",
            "on:\n  - uses: actions/checkout@v4 # pin\n    url: \"http://x\"\n    tag: a#b\ndate created: 7 pm\n- two words: x",
            &[
                ("tag", "on"),
                ("tag", "uses"),
                ("comment", "# pin"),
                ("tag", "url"),
                ("string", "\"http://x\""),
                ("tag", "tag"),
                ("tag", "date created"),
                ("tag", "two words"),
            ],
        ),
        (
            "toml",
            "[package]\nname = \"ccwiki\" # n\n[[bin]]",
            &[
                ("entity", "[package]"),
                ("tag", "name"),
                ("string", "\"ccwiki\""),
                ("comment", "# n"),
                ("entity", "[[bin]"),
            ],
        ),
        (
            "vue",
            "<!-- c --><div :class=\"a\" v-if=ok>x &amp; y</div>",
            &[
                ("comment", "<!-- c -->"),
                ("tag", "div"),
                ("entity", ":class"),
                ("string", "\"a\""),
                ("entity", "v-if"),
                ("string", "ok"),
                ("constant", "&amp;"),
                ("tag", "div"),
            ],
        ),
        (
            "md",
            "# Title\nSee `code` and ``a ` b``.\n- item\n> said\n```\nfn x\n```",
            &[
                ("entity", "# Title"),
                ("string", "`code`"),
                ("string", "``a ` b``"),
                ("keyword", "-"),
                ("comment", "> said"),
                ("string", "fn x"),
            ],
        ),
        (
            "sql",
            "select id FROM t -- c\nwhere name = 'a'",
            &[
                ("keyword", "select"),
                ("keyword", "FROM"),
                ("comment", "-- c"),
                ("keyword", "where"),
                ("string", "'a'"),
            ],
        ),
        (
            "powershell",
            "<# c #>\nGet-ChildItem -Path \"C:\\T\" | ForEach { $_.Name }",
            &[
                ("comment", "<# c #>"),
                ("parameter", "-Path"),
                ("string", "\"C:\\T\""),
                ("keyword", "ForEach"),
            ],
        ),
        (
            "c",
            "#include <x.h>\nint main(void) { return 'a'; }",
            &[
                ("keyword", "#include"),
                ("storage", "int"),
                ("storage", "void"),
                ("keyword", "return"),
                ("string", "'a'"),
            ],
        ),
        (
            "diff",
            "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@ fn\n-old\n+new\n same",
            &[
                ("comment", "diff --git a/x b/x\n--- a/x\n+++ b/x"),
                ("entity", "@@ -1 +1 @@ fn"),
                ("keyword", "-old"),
                ("tag", "+new"),
            ],
        ),
        (
            "haskell",
            "main :: IO ()\nmain = do -- go\n  putStrLn \"hi\" {- x -}",
            &[
                ("support", "IO"),
                ("keyword", "do"),
                ("comment", "-- go"),
                ("support", "putStrLn"),
                ("string", "\"hi\""),
                ("comment", "{- x -}"),
            ],
        ),
        (
            "elixir",
            "defmodule A do\n  @doc \"x\"\n  def f(a), do: {:ok, nil} # c\nend",
            &[
                ("storage", "defmodule"),
                ("entity", "A"),
                ("parameter", "@doc"),
                ("string", "\"x\""),
                ("storage", "def"),
                ("entity", "f"),
                ("constant", ":ok"),
                ("constant", "nil"),
                ("comment", "# c"),
            ],
        ),
        (
            "latex",
            "\\section{Intro} % note\n$x$",
            &[("keyword", "\\section"), ("comment", "% note"), ("string", "$x")],
        ),
        (
            "clojure",
            "(defn greet [name] (str \"hi \" name)) ; c\n:key",
            &[
                ("keyword", "defn"),
                ("entity", "greet"),
                ("string", "\"hi \""),
                ("comment", "; c"),
                ("constant", ":key"),
            ],
        ),
        (
            "bat",
            "@echo off\nREM note\nset X=%PATH%\n:loop",
            &[
                ("keyword", "echo"),
                ("comment", "REM note"),
                ("keyword", "set"),
                ("parameter", "%PATH"),
                ("entity", ":loop"),
            ],
        ),
        (
            "css",
            ".card > a { color: #fff; } @media x {}",
            &[
                ("entity", ".card"),
                ("support", "color"),
                ("constant", "#fff"),
                ("keyword", "@media"),
            ],
        ),
    ];
    for (lang, text, want) in cases {
        let syntax = for_fence(lang).expect(lang);
        let html = code(syntax, text).expect("coloured");
        let got = runs(&html);
        let mut from = 0;
        for (class, run) in *want {
            let at = got[from..]
                .iter()
                .position(|(c, t)| c == class && t == run)
                .unwrap_or_else(|| panic!("{lang}: no {class} {run:?} in order in {got:?}"));
            from += at + 1;
        }
    }
}

/// Every name of every language leads to it, and no name to two.
#[test]
fn names_and_paths_find_their_language() {
    let mut seen = std::collections::HashMap::new();
    for syntax in syntaxes() {
        for name in &syntax.names {
            assert_eq!(seen.insert(*name, syntax.name()), None, "{name} twice");
            assert_eq!(for_fence(name).map(|s| s.name()), Some(syntax.name()));
            let upper = name.to_uppercase();
            assert_eq!(for_fence(&upper).map(|s| s.name()), Some(syntax.name()));
        }
    }
    for (path, name) in [
        ("/x/Makefile", "Makefile"),
        ("C:\\src\\Dockerfile", "Dockerfile"),
        ("/home/u/.bashrc", "Shell"),
        ("a/b.test.tsx", "TypeScript"),
        ("lib.rs", "Rust"),
    ] {
        assert_eq!(for_path(path).map(|s| s.name()), Some(name), "{path}");
    }
    assert!(for_path("notes.txt").is_none() && for_path("LICENSE").is_none());
    assert_eq!(for_fence("rust,ignore").map(|s| s.name()), Some("Rust"));
}

/// A string or comment left open colours what is left of its line, or
/// of the text when it may span lines, and nothing is lost.
#[test]
fn an_open_string_or_comment_ends_where_its_kind_says() {
    let js = for_fence("js").expect("js");
    let html = code(js, "a = \"open\nb = 1").expect("js");
    assert_eq!(runs(&html)[0], ("string".into(), "\"open".into()));
    assert_eq!(runs(&html)[1], ("constant".into(), "1".into()));
    let html = code(js, "a = `open\nb = 1").expect("js");
    assert_eq!(runs(&html), vec![("string".into(), "`open\nb = 1".into())]);
    let html = code(js, "/* open\nb").expect("js");
    assert_eq!(runs(&html), vec![("comment".into(), "/* open\nb".into())]);
}

proptest::proptest! {
    /// Whatever the code, in any language: the text comes back as it
    /// was, spans are flat and balanced, and every class is one a
    /// theme knows.
    #[test]
    fn highlighted_html_is_the_text_in_flat_spans(
        code_text in proptest::string::string_regex(
            "([a-zA-Z_]{1,8}|[0-9]{1,3}|[ \t]{1,3}|\n|\r\n|[\"'`#/*<>&(){}\\[\\];:=.,+@$%!?~\\\\-]|//|/\\*|\\*/|<!--|-->|<#|#>|--\\[\\[|\\]\\]|r#\"|\"#|'''|\"\"\"|```|\\$\\{|é|😀|\u{0301}){0,40}"
        ).expect("regex"),
        lang in proptest::sample::select(langs::ALL.iter().map(|s| s.name).collect::<Vec<_>>()),
    ) {
        let syntax = syntaxes().iter().find(|s| s.name() == lang).expect("known");
        let known = [
            "hl-comment", "hl-string", "hl-constant", "hl-support", "hl-keyword",
            "hl-storage", "hl-entity", "hl-tag", "hl-parameter",
        ];
        // Bytes that start nothing are read as punctuation at once: the
        // same colours as when every reading is tried at every byte.
        let mut every_byte = Syntax::new(syntax.spec);
        every_byte.starts = [true; 256];
        proptest::prop_assert_eq!(code(&every_byte, &code_text), code(syntax, &code_text));
            if let Some(html) = code(syntax, &code_text) {
            let (text, classes) = read_back(&html);
            proptest::prop_assert_eq!(text, code_text.clone());
            for c in classes {
                proptest::prop_assert!(known.contains(&c.as_str()), "{}", c);
            }
        }
        if !code_text.contains(['\n', '\r']) {
                    if let Some(html) = line(syntax, &code_text) {
                proptest::prop_assert_eq!(read_back(&html).0, code_text.clone());
            }
        }
    }

    /// The longest line as `str::lines` cuts lines (`\r\n` and `\n`
    /// ends, a lone `\r` kept).
    #[test]
    fn longest_line_is_the_longest_of_the_lines(text in "[a\r\n]{0,40}") {
        let lines = text.lines().map(str::len).max().unwrap_or(0);
        proptest::prop_assert_eq!(longest_line(&text), lines);
    }
}

/// Every word of every language's table is found as the table has it:
/// the lengths looked at before the hash turn none of them away.
#[test]
fn every_listed_word_is_found() {
    for syntax in syntaxes() {
        for (word, listed) in &syntax.words {
            let found = syntax.kind(word);
            assert_eq!(
                (found.colour, found.defines, found.prefixes_strings),
                (listed.colour, listed.defines, listed.prefixes_strings),
                "{word} in {}",
                syntax.name()
            );
        }
        assert_eq!(syntax.kind("").colour, None);
    }
}
