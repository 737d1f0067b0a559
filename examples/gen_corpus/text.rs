//! The text generator: prose and code from the vocabulary.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Ts,
    Py,
    Go,
}

impl Lang {
    pub(crate) fn ext(self) -> &'static str {
        match self {
            Lang::Rust => "rs",
            Lang::Ts => "ts",
            Lang::Py => "py",
            Lang::Go => "go",
        }
    }
    pub(crate) fn fence(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Ts => "typescript",
            Lang::Py => "python",
            Lang::Go => "go",
        }
    }
    pub(crate) fn idx(self) -> usize {
        self as usize
    }
    pub(crate) fn indent(self) -> usize {
        match self {
            Lang::Ts => 2,
            Lang::Go => 1,
            _ => 4,
        }
    }
}

/// How text is written: for which language, and JSON-escaped or raw.
#[derive(Clone, Copy)]
pub(crate) struct Style {
    pub(crate) lang: Lang,
    pub(crate) esc: bool,
}

impl Style {
    pub(crate) fn nl(self) -> &'static [u8] {
        if self.esc {
            b"\\n"
        } else {
            b"\n"
        }
    }
}

pub(crate) enum Piece {
    Lit { raw: Vec<u8>, esc: Vec<u8> },
    Ident,
    Type,
    Num,
    Phrase,
    Sentence,
    Hex7,
    Hex40,
    Ext,
}

/// A line template: literal text with `@i` (identifier), `@T` (type name),
/// `@n` (number), `@s` (phrase), `@S` (sentence), `@h`/`@H` (short/long
/// hash) and `@e` (file extension) holes.
pub(crate) struct Tpl {
    pub(crate) pieces: Vec<Piece>,
    pub(crate) opens: bool,
    pub(crate) closes: bool,
}

pub(crate) fn tpl(s: &str) -> Tpl {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut chars = s.chars().peekable();
    let flush = |lit: &mut String, pieces: &mut Vec<Piece>| {
        if !lit.is_empty() {
            let mut e = Vec::new();
            esc(&mut e, lit.as_bytes());
            pieces.push(Piece::Lit {
                raw: lit.as_bytes().to_vec(),
                esc: e,
            });
            lit.clear();
        }
    };
    while let Some(c) = chars.next() {
        if c == '@' {
            let hole = match chars.peek() {
                Some('i') => Some(Piece::Ident),
                Some('T') => Some(Piece::Type),
                Some('n') => Some(Piece::Num),
                Some('s') => Some(Piece::Phrase),
                Some('S') => Some(Piece::Sentence),
                Some('h') => Some(Piece::Hex7),
                Some('H') => Some(Piece::Hex40),
                Some('e') => Some(Piece::Ext),
                _ => None,
            };
            if let Some(h) = hole {
                chars.next();
                flush(&mut lit, &mut pieces);
                pieces.push(h);
                continue;
            }
        }
        lit.push(c);
    }
    flush(&mut lit, &mut pieces);
    let t = s.trim_end();
    Tpl {
        pieces,
        opens: t.ends_with('{') || t.ends_with(':') || t.ends_with('('),
        closes: s.starts_with('}') || s.starts_with(')'),
    }
}

pub(crate) struct Gen {
    pub(crate) snake: Vec<String>,
    pub(crate) camel: Vec<String>,
    pub(crate) types: Vec<String>,
    pub(crate) frames: Vec<Vec<Word>>,
    pub(crate) prompt_frames: Vec<Vec<Word>>,
    pub(crate) code: [Vec<Tpl>; 4],
    pub(crate) outputs: Vec<Vec<Tpl>>,
    pub(crate) commands: Vec<(Tpl, usize, u8)>,
}

/// A piece of a prose frame: literal text (never needs escaping) or a word hole.
pub(crate) enum Word {
    Lit(&'static str),
    /// `{n}`
    Noun,
    /// `{v}`
    Verb,
    /// `{V}`
    VerbCap,
    /// `{vs}`
    Verbs,
    /// `{a}`
    Adj,
    /// `{c}`: an identifier in backticks.
    Code,
    /// `{f}`: a file name in backticks.
    File,
    /// `{num}`
    Num,
}

pub(crate) fn frame(s: &'static str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').unwrap_or(0);
        if open > 0 {
            out.push(Word::Lit(&rest[..open]));
        }
        out.push(match &rest[open + 1..close] {
            "n" => Word::Noun,
            "v" => Word::Verb,
            "V" => Word::VerbCap,
            "vs" => Word::Verbs,
            "a" => Word::Adj,
            "c" => Word::Code,
            "f" => Word::File,
            _ => Word::Num,
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Word::Lit(rest));
    }
    out
}

pub(crate) fn third_person(v: &str) -> String {
    if v.ends_with('s') || v.ends_with('x') || v.ends_with("sh") || v.ends_with("ch") {
        format!("{v}es")
    } else if let Some(stem) = v.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{v}s")
    }
}

pub(crate) fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

impl Gen {
    pub(crate) fn new(r: &mut Rng) -> Gen {
        let mut snake = Vec::new();
        let mut camel = Vec::new();
        let mut types = Vec::new();
        for _ in 0..1500 {
            let (v, n) = (r.word(VERBS), r.word(NOUNS));
            let n = n.replace(' ', "_");
            match r.below(3) {
                0 => {
                    snake.push(format!("{v}_{n}"));
                    camel.push(format!("{v}{}", capitalize(&n)));
                }
                1 => {
                    let a = r.word(ADJS);
                    snake.push(format!("{a}_{n}"));
                    camel.push(format!("{a}{}", capitalize(&n)));
                }
                _ => {
                    snake.push(n.clone());
                    camel.push(n.clone());
                }
            }
            let (a, n2) = (r.word(ADJS), r.word(NOUNS));
            types.push(format!(
                "{}{}",
                capitalize(a),
                capitalize(&n2.replace(' ', ""))
            ));
        }
        for (s, c) in snake.iter_mut().zip(camel.iter_mut()) {
            if s.contains(' ') {
                *s = s.replace(' ', "_");
                *c = c.replace(' ', "");
            }
        }
        let code =
            [RUST_CODE, TS_CODE, PY_CODE, GO_CODE].map(|l| l.iter().map(|s| tpl(s)).collect());
        Gen {
            snake,
            camel,
            types,
            frames: FRAMES.iter().map(|f| frame(f)).collect(),
            prompt_frames: PROMPT_FRAMES.iter().map(|f| frame(f)).collect(),
            code,
            outputs: OUTPUTS
                .iter()
                .map(|o| o.iter().map(|s| tpl(s)).collect())
                .collect(),
            commands: COMMANDS.iter().map(|(c, k, l)| (tpl(c), *k, *l)).collect(),
        }
    }

    pub(crate) fn ident<'a>(&'a self, r: &mut Rng, lang: Lang) -> &'a str {
        match lang {
            Lang::Rust | Lang::Py => r.pick(&self.snake).as_str(),
            Lang::Ts | Lang::Go => r.pick(&self.camel).as_str(),
        }
    }

    pub(crate) fn file_name(&self, r: &mut Rng, lang: Lang) -> String {
        let base = r.pick(&self.snake);
        match lang {
            Lang::Ts => format!("{}.{}", self.camel_of(base), lang.ext()),
            _ => format!("{base}.{}", lang.ext()),
        }
    }

    pub(crate) fn camel_of(&self, snake: &str) -> String {
        let mut out = String::new();
        for (i, part) in snake.split('_').enumerate() {
            if i == 0 {
                out.push_str(part);
            } else {
                out.push_str(&capitalize(part));
            }
        }
        out
    }

    /// One line from a template.
    pub(crate) fn line(&self, r: &mut Rng, out: &mut Vec<u8>, t: &Tpl, st: Style) {
        for p in &t.pieces {
            match p {
                Piece::Lit { raw, esc } => out.extend_from_slice(if st.esc { esc } else { raw }),
                Piece::Ident => {
                    out.s(self.ident(r, st.lang));
                }
                Piece::Type => {
                    out.s(r.pick(&self.types));
                }
                Piece::Num => {
                    let n = if r.chance(0.7) {
                        r.below(100)
                    } else {
                        r.below(10_000)
                    };
                    num(out, n);
                }
                Piece::Phrase => {
                    let (a, n) = (r.word(ADJS), r.word(NOUNS));
                    match r.below(3) {
                        0 => out.s(a).s(" ").s(n),
                        1 => out.s("failed to ").s(r.word(VERBS)).s(" ").s(n),
                        _ => out.s(r.word(VERBS)).s(" the ").s(a).s(" ").s(n),
                    };
                }
                Piece::Sentence => self.sentence(r, out, st, false),
                Piece::Hex7 => {
                    out.s(&hex(r, 7));
                }
                Piece::Hex40 => {
                    out.s(&hex(r, 40));
                }
                Piece::Ext => {
                    out.s(st.lang.ext());
                }
            }
        }
    }

    /// One prose sentence.
    pub(crate) fn sentence(&self, r: &mut Rng, out: &mut Vec<u8>, st: Style, prompt: bool) {
        let frames = if prompt {
            &self.prompt_frames
        } else {
            &self.frames
        };
        let f = r.pick(frames);
        let start = out.len();
        for p in f {
            match p {
                Word::Lit(text) => {
                    out.s(text);
                }
                Word::Noun => {
                    out.s(r.word(NOUNS));
                }
                Word::Verb => {
                    out.s(r.word(VERBS));
                }
                Word::VerbCap => {
                    out.s(&capitalize(r.word(VERBS)));
                }
                Word::Verbs => {
                    out.s(&third_person(r.word(VERBS)));
                }
                Word::Adj => {
                    out.s(r.word(ADJS));
                }
                Word::Code => {
                    out.push(b'`');
                    out.s(self.ident(r, st.lang));
                    if r.chance(0.5) {
                        out.s("()");
                    }
                    out.push(b'`');
                }
                Word::File => {
                    out.push(b'`');
                    if r.chance(0.5) {
                        out.s("src/");
                    }
                    out.s(&self.file_name(r, st.lang));
                    out.push(b'`');
                }
                Word::Num => num(out, r.range(2, 400)),
            }
        }
        if let Some(c) = out.get_mut(start) {
            c.make_ascii_uppercase();
        }
        if r.chance(1.0 / 4000.0) {
            out.s(" (see ").s(r.word(NEEDLES)).s(")");
        }
    }

    pub(crate) fn paragraph(&self, r: &mut Rng, out: &mut Vec<u8>, st: Style, sentences: u64) {
        for i in 0..sentences {
            if i > 0 {
                out.push(b' ');
            }
            self.sentence(r, out, st, false);
        }
    }

    /// Code lines until `bytes` are written; `spans` receives each line's range.
    pub(crate) fn code(
        &self,
        r: &mut Rng,
        out: &mut Vec<u8>,
        st: Style,
        bytes: usize,
        mut spans: Option<&mut Vec<(usize, usize)>>,
    ) {
        let tpls = &self.code[st.lang.idx()];
        let start = out.len();
        let mut depth = 0usize;
        let mut first = true;
        while out.len() - start < bytes || first {
            if !first {
                out.extend_from_slice(st.nl());
            }
            first = false;
            let ls = out.len();
            if depth > 0 && r.chance(0.16) {
                depth -= 1;
                if st.lang != Lang::Py {
                    push_indent(out, depth * st.lang.indent(), st);
                    out.s(match (st.lang, r.below(4)) {
                        (Lang::Ts, 0) => "});",
                        (Lang::Rust, 0) => "};",
                        _ => "}",
                    });
                }
            } else if r.chance(0.06) {
                // blank line
            } else {
                let t = r.pick(tpls);
                if t.closes && depth > 0 {
                    depth -= 1;
                }
                push_indent(out, depth * st.lang.indent(), st);
                self.line(r, out, t, st);
                if t.opens && depth < 6 {
                    depth += 1;
                }
            }
            if let Some(s) = spans.as_deref_mut() {
                s.push((ls, out.len()));
            }
        }
    }

    /// Command output lines until `bytes` are written.
    pub(crate) fn output(
        &self,
        r: &mut Rng,
        out: &mut Vec<u8>,
        st: Style,
        kind: usize,
        bytes: usize,
    ) {
        let start = out.len();
        let mut first = true;
        while out.len() - start < bytes || first {
            if !first {
                out.extend_from_slice(st.nl());
            }
            first = false;
            if kind == 9 {
                // rg: path:line: code
                out.s("src/").s(&self.file_name(r, st.lang)).s(":");
                num(out, r.range(1, 900));
                out.s(":");
                let t = r.pick(&self.code[st.lang.idx()]);
                self.line(r, out, t, st);
            } else {
                let t = r.pick(&self.outputs[kind]);
                self.line(r, out, t, st);
            }
        }
    }

    /// Markdown of about `bytes`: paragraphs, headings, lists, code fences.
    pub(crate) fn markdown(&self, r: &mut Rng, out: &mut Vec<u8>, st: Style, bytes: usize) {
        let start = out.len();
        let nl = st.nl();
        let n = r.range(1, 3);
        self.paragraph(r, out, st, n);
        while out.len() - start < bytes {
            out.extend_from_slice(nl);
            out.extend_from_slice(nl);
            match r.below(5) {
                0 => {
                    out.s(r.pick(&["## ", "### "]));
                    out.s(r.pick(&[
                        "Summary",
                        "What changed",
                        "Root cause",
                        "Next steps",
                        "Findings",
                        "Plan",
                    ]));
                    out.extend_from_slice(nl);
                    out.extend_from_slice(nl);
                    for _ in 0..r.range(2, 6) {
                        out.s("- **").s(r.word(NOUNS)).s("**: ");
                        self.sentence(r, out, st, false);
                        out.extend_from_slice(nl);
                    }
                }
                1 => {
                    out.s("```").s(st.lang.fence());
                    out.extend_from_slice(nl);
                    let b = r.range(80, 900) as usize;
                    self.code(r, out, st, b, None);
                    out.extend_from_slice(nl);
                    out.s("```");
                }
                2 => {
                    for i in 1..=r.range(2, 5) {
                        num(out, i);
                        out.s(". ");
                        self.sentence(r, out, st, false);
                        out.extend_from_slice(nl);
                    }
                }
                _ => {
                    let n = r.range(2, 5);
                    self.paragraph(r, out, st, n);
                }
            }
        }
    }

    /// A user prompt (raw text) and, when it has one, the pasted part.
    pub(crate) fn prompt(&self, r: &mut Rng, lang: Lang) -> (String, Option<String>) {
        let st = Style { lang, esc: false };
        let mut out = Vec::new();
        self.sentence(r, &mut out, st, true);
        if r.chance(0.4) {
            end_sentence(&mut out);
            out.push(b' ');
            let n = r.range(1, 3);
            self.paragraph(r, &mut out, st, n);
        }
        let mut pasted = None;
        if r.chance(0.12) {
            let mut p = Vec::new();
            if r.chance(0.5) {
                let b = r.range(100, 1500) as usize;
                self.code(r, &mut p, st, b, None);
            } else {
                let b = r.range(100, 1500) as usize;
                self.output(r, &mut p, st, 1, b);
            }
            out.s("\n\n");
            out.extend_from_slice(&p);
            pasted = Some(String::from_utf8_lossy(&p).into_owned());
        }
        (String::from_utf8_lossy(&out).into_owned(), pasted)
    }

    /// A title: `Fix Stale Cache In Parser`.
    pub(crate) fn title(&self, r: &mut Rng) -> String {
        let v = capitalize(r.word(VERBS));
        let a = capitalize(r.word(ADJS));
        let n = capitalize(r.word(NOUNS));
        match r.below(3) {
            0 => format!("{v} {a} {n}"),
            1 => format!("{v} {n} {}", capitalize(r.word(NOUNS))),
            _ => format!("{a} {n} {} Fix", capitalize(r.word(NOUNS))),
        }
    }
}

/// Add a full stop unless the text already ends a sentence.
pub(crate) fn end_sentence(out: &mut Vec<u8>) {
    if !matches!(out.last(), Some(b'.' | b'?' | b'!')) {
        out.push(b'.');
    }
}

pub(crate) fn push_indent(out: &mut Vec<u8>, n: usize, st: Style) {
    if st.lang == Lang::Go {
        for _ in 0..n {
            out.extend_from_slice(if st.esc { b"\\t" } else { b"\t" });
        }
    } else {
        out.resize(out.len() + n, b' ');
    }
}
