//! Syntax highlighting at build time: code as HTML spans whose classes
//! (`hl-keyword`, `hl-string` …) the theme colours; no script on the page.
//! Used for fenced code blocks with a known language and for the lines of
//! a diff, whose language the file's extension gives.
//!
//! Code is read by a lexer of ccwiki's own, one table a language
//! (`langs`): comments, strings, numbers, keywords, definitions,
//! parameters, calls, keys, tags. On ccwiki's own Rust sources in 4 KB
//! pieces it reads about 80 MB/s, where grammar engines read one to four
//! (TextMate grammars through syntect and Oniguruma 1.7 MB/s,
//! tree-sitter 3.8 MB/s): syntect was a quarter of a cold build's time,
//! rationed to 4 KB of code a page. What a lexer does not see (a type
//! known only by its place, a language embedded in another) stays plain.

mod langs;
mod lexer;

use langs::Spec;
use std::sync::OnceLock;

/// Longest text highlighted; a longer one (a whole file pasted) is shown
/// plain: colour doubles the bytes of the HTML.
pub const MAX_BYTES: usize = 32 * 1024;

/// Longest line highlighted: minified code is shown plain.
const MAX_LINE: usize = 2_000;

/// A language known to the highlighter: its table, and its words as
/// lists to look up.
#[derive(Debug)]
pub struct Syntax {
    spec: &'static Spec,
    /// Each word the table names, and what it is (looked up once for
    /// every word of every line coloured: a hash and one compare, where
    /// a binary search compared seven or eight times, and the lists of
    /// definers and string prefixes were walked for each word besides).
    words: rustc_hash::FxHashMap<&'static str, WordKind>,
    /// For each first byte, the lengths (bit `n` for `n` bytes, under
    /// 64) its words have: a word of another length or start (most
    /// names a program gives) is none of them, without a hash (which was
    /// a tenth of colouring).
    lengths: [u64; 256],
    names: Vec<&'static str>,
    /// Whether the language has words that define a name (`fn`, `def`).
    defines_names: bool,
    /// The bytes that may start something other than punctuation (a
    /// comment, a string, a number, a word, a sigil): a byte that cannot
    /// is read as punctuation at once, not after every other reading has
    /// been tried and refused (a third of a line's bytes, in most code).
    starts: [bool; 256],
    /// The bytes that go on a word ([`lexer::is_word`]), looked up rather
    /// than worked out: read at every byte of every word, the language's
    /// extra word bytes were searched for each (a call to memchr at
    /// every word's end).
    word: [bool; 256],
}

/// What a word of a language's table is.
#[derive(Debug, Clone, Copy, Default)]
struct WordKind {
    /// Its colour by itself (for a language that ignores case, the
    /// word's lower case is looked up for it).
    colour: Option<Colour>,
    /// The next word is the name it defines (`fn`, `class`).
    defines: bool,
    /// It may stand right before a quote, as part of the string (`r"…"`).
    prefixes_strings: bool,
}

impl Syntax {
    fn new(spec: &'static Spec) -> Syntax {
        let mut words: rustc_hash::FxHashMap<&'static str, WordKind> = Default::default();
        let lists = [
            (spec.keywords, Colour::Keyword),
            (spec.storage, Colour::Storage),
            (spec.constants, Colour::Constant),
            (spec.support, Colour::Support),
        ];
        for (list, colour) in lists {
            for word in list.split_whitespace() {
                // A word in two lists takes the colour of the first.
                let kind = words.entry(word).or_default();
                kind.colour = kind.colour.or(Some(colour));
            }
        }
        for word in spec.definers.split_whitespace() {
            words.entry(word).or_default().defines = true;
        }
        for word in spec.string_prefixes.split_whitespace() {
            words.entry(word).or_default().prefixes_strings = true;
        }
        Syntax {
            spec,
            lengths: lengths(words.keys()),
            words,
            names: spec.names.split_whitespace().collect(),
            defines_names: !spec.definers.trim().is_empty(),
            starts: starts(spec),
            word: std::array::from_fn(|b| lexer::is_word(b as u8, spec.word_extra)),
        }
    }

    /// The language's name (`Rust`, `Python` …).
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// What `word`, as written, is in the table.
    fn kind(&self, word: &str) -> WordKind {
        let first = word.as_bytes().first().map_or(0, |&b| b as usize);
        if word.len() >= 64 || self.lengths[first] & (1 << word.len()) == 0 {
            return WordKind::default();
        }
        self.words.get(word).copied().unwrap_or_default()
    }

    /// The colour a word has by itself, None for a plain word; `kind` is
    /// its [`Syntax::kind`].
    fn colour(&self, word: &str, kind: WordKind) -> Option<Colour> {
        if !self.spec.ignore_case {
            return kind.colour;
        }
        // Tables of languages that ignore case are written in lower case.
        let mut buf = [0u8; 24];
        let lower = buf.get_mut(..word.len())?;
        lower.copy_from_slice(word.as_bytes());
        lower.make_ascii_lowercase();
        self.kind(std::str::from_utf8(lower).ok()?).colour
    }
}

/// [`Syntax::lengths`] of `words`.
fn lengths<'w>(words: impl Iterator<Item = &'w &'static str>) -> [u64; 256] {
    let mut lengths = [0u64; 256];
    for word in words {
        if let (Some(&first), 1..64) = (word.as_bytes().first(), word.len()) {
            lengths[first as usize] |= 1 << word.len();
        }
    }
    lengths
}

/// [`Syntax::starts`] of a language: the first bytes of its comments,
/// quotes and sigils, digits and the bytes that start a word; every byte
/// when a comment or quote opens with nothing (then anything may start
/// one).
fn starts(spec: &Spec) -> [bool; 256] {
    let mut starts = [false; 256];
    let block = spec.block_comment.map(|(open, _)| open);
    let opens = (spec.line_comments.iter().copied())
        .chain(block)
        .chain(spec.quotes.iter().map(|q| q.open));
    for open in opens {
        match open.as_bytes().first() {
            Some(&b) => starts[b as usize] = true,
            None => return [true; 256],
        }
    }
    if spec.char_quote {
        starts[b'\'' as usize] = true;
    }
    for sigil in spec.sigils {
        starts[sigil.byte as usize] = true;
    }
    for (b, start) in starts.iter_mut().enumerate() {
        let b = b as u8;
        *start |= b.is_ascii_digit() || lexer::is_word_start(b, spec.word_extra);
    }
    starts
}

fn syntaxes() -> &'static [Syntax] {
    static ALL: OnceLock<Vec<Syntax>> = OnceLock::new();
    ALL.get_or_init(|| langs::ALL.iter().map(Syntax::new).collect())
}

/// The syntax a name (lower case) is one of the names of: the first
/// language that has it. A map made once: every diff looks up its file's
/// language, and a scan of every name took 0.7 % of a cold build (names
/// are short and ours: Fx, not SipHash, which was 1 % of rendering).
fn by_name(name: &str) -> Option<&'static Syntax> {
    type Index = rustc_hash::FxHashMap<&'static str, &'static Syntax>;
    static BY_NAME: OnceLock<Index> = OnceLock::new();
    let index = BY_NAME.get_or_init(|| {
        let mut index = Index::default();
        for syntax in syntaxes() {
            for &name in &syntax.names {
                index.entry(name).or_insert(syntax);
            }
        }
        index
    });
    match name.bytes().any(|b| b.is_ascii_uppercase()) {
        true => index.get(name.to_ascii_lowercase().as_str()).copied(),
        false => index.get(name).copied(),
    }
}

/// The syntax a fence names (`rust`, `py`, `ts` …); None for plain text
/// and languages not known.
pub fn for_fence(lang: &str) -> Option<&'static Syntax> {
    let lang = lang.split([' ', ',', '{']).next()?.trim();
    by_name(lang)
}

/// The syntax of a file, by its name (`Makefile`) or extension.
pub fn for_path(path: &str) -> Option<&'static Syntax> {
    let name = path.rsplit(['/', '\\']).next()?;
    let ext = name.rsplit_once('.').map_or(name, |(_, e)| e);
    by_name(name).or_else(|| by_name(ext))
}

/// `code` as highlighted HTML (escaped, spans balanced), appended to
/// `out`; false, and `out` as it was, when it is too long to colour (or,
/// never by construction, when the lexer could not cut a run from it):
/// the caller then shows it plain. Written in place: a diff colours its
/// lines one by one into its page, and a string made and copied for each
/// line was a tenth of its time.
pub fn code_into(syntax: &Syntax, code: &str, out: &mut String) -> bool {
    if code.len() > MAX_BYTES || longest_line(code) > MAX_LINE {
        return false;
    }
    let before = out.len();
    let mut spans = Spans::after(std::mem::take(out), code.len());
    let whole = lexer::colour(syntax, code, &mut spans);
    *out = spans.finish();
    if !whole {
        out.truncate(before);
    }
    whole
}

/// The length of the longest of `code`'s [`str::lines`], found with
/// memchr (going line by line was a tenth of colouring).
fn longest_line(code: &str) -> usize {
    let bytes = code.as_bytes();
    let mut longest = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        let line = &bytes[start..end];
        longest = longest.max(line.strip_suffix(b"\r").unwrap_or(line).len());
        start = end + 1;
    }
    longest.max(bytes.len() - start)
}

/// What a piece of code is, as far as a theme colours it: one class a
/// run of text, the same for every language. A theme styles these nine
/// (`hl-keyword` ...); the rest (operators, punctuation, plain names) is
/// left as plain text, not wrapped.
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
}

/// Highlighted HTML as it is written: flat spans, one a run of text of
/// one colour, never nested.
struct Spans {
    out: String,
    /// The colour of the span left open, if any.
    open: Option<Colour>,
    /// Spaces after the open span, written once the next run tells
    /// whether they go inside it (it has the same colour) or after it.
    spaces: String,
}

impl Spans {
    /// Spans written after what `out` holds, for `len` bytes of code.
    fn after(mut out: String, len: usize) -> Spans {
        out.reserve(len + len / 2);
        Spans {
            out,
            open: None,
            spaces: String::new(),
        }
    }

    /// `text` in `colour`; `clean`: it holds nothing HTML escapes.
    fn push(&mut self, colour: Option<Colour>, text: &str, clean: bool) {
        if text.is_empty() {
            return;
        }
        if colour.is_none() && self.open.is_some() && text.bytes().all(|c| c.is_ascii_whitespace())
        {
            self.spaces.push_str(text);
            return;
        }
        if colour != self.open {
            self.close();
            if let Some(c) = colour {
                self.out.push_str("<span class=\"");
                self.out.push_str(c.class());
                self.out.push_str("\">");
            }
            self.open = colour;
        }
        self.out.push_str(&self.spaces);
        self.spaces.clear();
        match clean {
            true => self.out.push_str(text),
            false => crate::base::html::escape_text(&mut self.out, text),
        }
    }

    /// Close the open span, if any, and write the spaces after it.
    fn close(&mut self) {
        if self.open.take().is_some() {
            self.out.push_str("</span>");
        }
        self.out.push_str(&self.spaces);
        self.spaces.clear();
    }

    fn finish(mut self) -> String {
        self.close();
        self.out
    }
}

/// One line as highlighted HTML, highlighted on its own (a diff shows
/// lines out of their file: a line inside a block comment may be coloured
/// as code), appended to `out` as [`code_into`] appends.
pub fn line_into(syntax: &Syntax, line: &str, out: &mut String) -> bool {
    code_into(syntax, line.trim_end_matches(['\n', '\r']), out)
}

#[cfg(test)]
mod tests;
