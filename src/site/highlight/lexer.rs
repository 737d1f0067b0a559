//! Code read into runs of one colour, in one pass over its bytes.
//!
//! Every run ends next to an ASCII byte or at the text's end, and bytes
//! from 0x80 up are always read as part of a word, so a run never splits
//! a character.

use super::langs::{Mode, Quote, Sigil};
use super::{Colour, Spans, Syntax};
use memchr::{memchr, memchr2, memchr3, memmem};

/// `code` as runs of one colour, written to `out`; false when the
/// output does not hold the whole text (never, by construction).
pub(super) fn colour(syntax: &Syntax, code: &str, out: &mut Spans) -> bool {
    let mut scan = Scan {
        text: code,
        b: code.as_bytes(),
        at: 0,
        plain: 0,
        out,
        lost: std::cell::Cell::new(false),
        special: memchr3(b'&', b'<', b'>', code.as_bytes()).unwrap_or(code.len()),
    };
    match syntax.spec.mode {
        Mode::Code => scan.code(syntax),
        Mode::Markup => scan.markup(),
        Mode::Prose => scan.prose(),
        Mode::Patch => scan.patch(),
    }
    scan.flush(code.len());
    !scan.lost.get()
}

/// `text` starts with `prefix`: its first byte compared before the rest
/// (asked at every token, and at every byte of a string for its close, a
/// call to compare the whole was a tenth of colouring).
fn opens_with(text: &[u8], prefix: &[u8]) -> bool {
    match prefix.first() {
        None => true,
        Some(first) => text.first() == Some(first) && text.starts_with(prefix),
    }
}

/// A word as read: its text, whether the language's tables coloured it,
/// and whether it defines the word after it.
struct Word<'a> {
    text: &'a str,
    listed: bool,
    defines: bool,
}

/// Words that define a function: after the function's name, the words
/// that start its parameters are parameters.
const FUNCTIONS: &[&str] = &["fn", "def", "function", "func", "fun", "sub"];

/// Which plain words are names: the one after a definer (`fn main`), and
/// in a function's parameter list, the first word of each parameter
/// (`def f(a, b=1)`).
#[derive(Default)]
struct Names {
    /// The next plain word is a name being defined; `Some(true)` when it
    /// is a function's.
    name_next: Option<bool>,
    /// A function's name was just read: a `(` opens its parameters.
    function_named: bool,
    /// Depth in the generics between a function's name and its
    /// parameters (`fn f<'a, T: Clone>(`).
    generics: u32,
    /// Inside the parameters: bracket depth, and whether the next plain
    /// word is a parameter.
    params: Option<(u32, bool)>,
}

impl Names {
    fn colour(&self) -> Option<Colour> {
        if self.name_next.is_some() {
            Some(Colour::Entity)
        } else if self.params.is_some_and(|(_, next)| next) {
            Some(Colour::Parameter)
        } else {
            None
        }
    }

    fn word(&mut self, word: Word<'_>) {
        if self.generics > 0 {
            return;
        }
        self.function_named = self.name_next == Some(true) && !word.listed;
        if let Some((_, next)) = self.params.as_mut() {
            // `&mut self`, `mut x`: a keyword leaves the name to come.
            *next &= word.listed;
        }
        self.name_next = word.defines.then(|| FUNCTIONS.contains(&word.text));
    }

    fn punctuation(&mut self, c: u8) {
        if self.function_named && (c == b'<' || self.generics > 0) {
            match c {
                b'<' => self.generics += 1,
                b'>' => self.generics -= 1,
                // Not generics after all (`a < b;`): names start again.
                b';' | b'{' | b'}' | b')' => {
                    self.generics = 0;
                    self.function_named = false;
                }
                _ => {}
            }
            return;
        }
        if let Some((depth, next)) = self.params.as_mut() {
            match c {
                b'(' | b'[' | b'{' => *depth += 1,
                b')' | b']' | b'}' => *depth = depth.saturating_sub(1),
                _ => {}
            }
            *next = match c {
                b',' => *depth == 1,
                // `*args`, `**kw`, `&self`, `...rest`: the name is to come.
                b'*' | b'&' | b'.' if *depth == 1 => *next,
                _ => false,
            };
            if *depth == 0 {
                self.params = None;
            }
        } else if c == b'(' && self.function_named {
            self.params = Some((1, true));
        }
        self.name_next = None;
        self.function_named = false;
    }

    /// Any other token: a string, a number, a comment.
    fn other(&mut self) {
        if self.generics > 0 {
            return;
        }
        self.name_next = None;
        self.function_named = false;
        if let Some((_, next)) = self.params.as_mut() {
            *next = false;
        }
    }
}

struct Scan<'a, 'o> {
    text: &'a str,
    b: &'a [u8],
    /// Where reading is.
    at: usize,
    /// Where the plain text not yet written starts.
    plain: usize,
    out: &'o mut Spans,
    /// A run could not be cut from the text: the output is not whole.
    lost: std::cell::Cell<bool>,
    /// Where the next byte HTML escapes (`&`, `<`, `>`) is, at or after
    /// the last run written (the text's length when there is none).
    special: usize,
}

pub(super) fn is_word_start(c: u8, extra: &[u8]) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 || (c == b'$' && extra.contains(&b'$'))
}

pub(super) fn is_word(c: u8, extra: &[u8]) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 || extra.contains(&c)
}

impl<'a> Scan<'a, '_> {
    /// Write the plain text before `at`, then `at..end` in `colour`;
    /// reading goes on at `end`.
    fn token(&mut self, end: usize, colour: Colour) {
        let end = end.min(self.b.len());
        self.flush(self.at);
        let clean = self.clean(self.at, end);
        self.out.push(Some(colour), self.slice(self.at, end), clean);
        self.at = end;
        self.plain = end;
    }

    fn flush(&mut self, to: usize) {
        if to > self.plain {
            let clean = self.clean(self.plain, to);
            self.out.push(None, self.slice(self.plain, to), clean);
            self.plain = to;
        }
    }

    /// Whether `from..to` holds no byte HTML escapes. Runs are written in
    /// order: the next such byte is looked for once, when the runs pass
    /// it, not in each run (most are a word or two, and escaping them one
    /// by one was a tenth of colouring).
    fn clean(&mut self, from: usize, to: usize) -> bool {
        if self.special < from {
            self.special =
                memchr3(b'&', b'<', b'>', &self.b[from..]).map_or(self.b.len(), |k| from + k);
        }
        self.special >= to
    }

    /// Runs end next to ASCII bytes, so this never fails; were it to,
    /// `lost` says so and the caller shows the text plain.
    fn slice(&self, from: usize, to: usize) -> &'a str {
        self.text.get(from..to).unwrap_or_else(|| {
            self.lost.set(true);
            ""
        })
    }

    /// Where the line holding `at` ends (its newline, or the text's end).
    fn line_end(&self, at: usize) -> usize {
        memchr(b'\n', &self.b[at..]).map_or(self.b.len(), |k| at + k)
    }

    fn after_space(&self) -> bool {
        self.at == 0 || self.b[self.at - 1].is_ascii_whitespace()
    }

    fn code(&mut self, syntax: &Syntax) {
        let spec = syntax.spec;
        let n = self.b.len();
        let mut names = Names::default();
        // Nothing but spaces since the line's start.
        let mut line_start = true;
        while self.at < n {
            let c = self.b[self.at];
            if c.is_ascii_whitespace() {
                line_start |= c == b'\n';
                self.at += 1;
                continue;
            }
            let first = std::mem::take(&mut line_start);
            if !first && !syntax.starts[c as usize] {
                self.at += 1;
                names.punctuation(c);
                continue;
            }
            if spec.sections && c == b'[' && first {
                let end = self.line_end(self.at);
                let close = memchr(b']', &self.b[self.at..end]).map_or(end, |k| self.at + k + 1);
                self.token(close, Colour::Entity);
            } else if let Some((start, end, colour)) =
                first.then(|| self.line_key(syntax)).flatten()
            {
                self.at = start;
                self.token(end, colour);
            } else if let Some(end) = self.comment(syntax) {
                self.token(end, Colour::Comment);
            } else if let Some(end) = self.string(syntax, self.at, true) {
                let colour = self.key(syntax, end).unwrap_or(Colour::String);
                self.token(end, colour);
            } else if let Some(end) = c
                .is_ascii_digit()
                .then(|| self.number(&syntax.word))
                .flatten()
            {
                self.token(end, Colour::Constant);
            } else if c.is_ascii_digit() || is_word_start(c, spec.word_extra) {
                let word = self.word(syntax, names.colour());
                names.word(word);
                continue;
            } else if let Some((end, colour)) = self.sigil(spec.sigils, spec.word_extra) {
                self.token(end, colour);
            } else {
                self.at += 1;
                names.punctuation(c);
                continue;
            }
            names.other();
        }
    }

    fn comment(&self, syntax: &Syntax) -> Option<usize> {
        let spec = syntax.spec;
        let rest = &self.b[self.at..];
        if let Some((open, close)) = spec.block_comment {
            if opens_with(rest, open.as_bytes()) {
                let body = &rest[open.len()..];
                let end = memmem::find(body, close.as_bytes())
                    .map_or(self.b.len(), |k| self.at + open.len() + k + close.len());
                return Some(end);
            }
        }
        let opens = spec
            .line_comments
            .iter()
            .any(|m| opens_with(rest, m.as_bytes()));
        (opens && (!spec.comment_after_space || self.after_space())).then(|| self.line_end(self.at))
    }

    /// The end of a string that opens at `at`, None when none does;
    /// `chars`: a character quote (`'a'`) counts.
    fn string(&self, syntax: &Syntax, at: usize, chars: bool) -> Option<usize> {
        let spec = syntax.spec;
        let rest = &self.b[at..];
        if let Some(q) = spec
            .quotes
            .iter()
            .find(|q| opens_with(rest, q.open.as_bytes()))
        {
            return Some(self.close(at + q.open.len(), q));
        }
        if chars && spec.char_quote && rest.first() == Some(&b'\'') {
            return self.char_end(at);
        }
        None
    }

    /// Where a string whose text starts at `from` ends.
    fn close(&self, from: usize, q: &Quote) -> usize {
        let (b, close) = (self.b, q.close.as_bytes());
        let mut i = from;
        while i < b.len() {
            let c = b[i];
            if Some(c) == q.escape {
                i += 2;
            } else if opens_with(&b[i..], close) {
                return i + close.len();
            } else if c == b'\n' && !q.multiline {
                return i;
            } else {
                i += 1;
            }
        }
        b.len()
    }

    /// `'a'`, `'\n'`, `'\u{1F600}'`: a character; None for a quote that
    /// does not close right away (a Rust lifetime, an apostrophe).
    fn char_end(&self, at: usize) -> Option<usize> {
        let b = self.b;
        if b.get(at + 1) == Some(&b'\\') {
            let window = &b[at + 2..b.len().min(at + 14)];
            let k = memchr2(b'\'', b'\n', window)?;
            return (window[k] == b'\'').then_some(at + 2 + k + 1);
        }
        let len = self.text.get(at + 1..)?.chars().next()?.len_utf8();
        (b.get(at + 1 + len) == Some(&b'\'')).then_some(at + 2 + len)
    }

    /// The colour of a key: a word or string right before the language's
    /// key separator (`"name":`, `name:`, `name =`).
    fn key(&self, syntax: &Syntax, end: usize) -> Option<Colour> {
        let (sep, colour, needs_space) = syntax.spec.key?;
        let b = self.b;
        let mut j = end;
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        let spaced = b.get(j + 1).is_none_or(u8::is_ascii_whitespace);
        (b.get(j) == Some(&sep) && (spaced || !needs_space)).then_some(colour)
    }

    /// A key of several words at a line's start (`date created: x` in
    /// YAML), in languages whose keys need a space after the separator:
    /// where it starts (after a list's `- `), ends, and its colour.
    fn line_key(&self, syntax: &Syntax) -> Option<(usize, usize, Colour)> {
        let (sep, colour, true) = syntax.spec.key? else {
            return None;
        };
        let b = self.b;
        let start = if b[self.at..].starts_with(b"- ") {
            self.at + 2
        } else {
            self.at
        };
        let end = self.line_end(start);
        let line = &b[start..end];
        let k = line
            .iter()
            .enumerate()
            .position(|(i, &c)| c == sep && line.get(i + 1).is_none_or(|n| *n == b' '))?;
        let key = &line[..k];
        let plain = !key.is_empty()
            && key.contains(&b' ')
            && !key.iter().any(|c| b"#\"'{}[](),@&*!|>%`".contains(c));
        plain.then_some((start, start + k, colour))
    }

    /// Where the number at `at` ends; None when it runs on into a word
    /// (`01a1-61f0` in a shell, where `-` joins words), read as that word.
    fn number(&self, word: &[bool; 256]) -> Option<usize> {
        let b = self.b;
        let hex = b[self.at] == b'0' && matches!(b.get(self.at + 1), Some(b'x' | b'X'));
        let mut i = self.at + 1;
        while i < b.len() {
            let c = b[i];
            let more = c.is_ascii_alphanumeric()
                || c == b'_'
                || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
                || ((c == b'+' || c == b'-') && !hex && matches!(b[i - 1], b'e' | b'E'));
            if !more {
                break;
            }
            i += 1;
        }
        (!b.get(i).is_some_and(|&c| word[c as usize])).then_some(i)
    }

    /// A word: a string's prefix, a key, a keyword, or plain; a plain
    /// word takes `plain` (a name being defined, a parameter).
    fn word(&mut self, syntax: &Syntax, plain: Option<Colour>) -> Word<'a> {
        let spec = syntax.spec;
        let b = self.b;
        let start = self.at;
        let mut end = start + 1;
        while end < b.len() && syntax.word[b[end] as usize] {
            end += 1;
        }
        let text = self.slice(start, end);
        let kind = syntax.kind(text);
        if end < b.len() {
            let raw = spec.raw_strings && matches!(text, "r" | "br" | "cr");
            let raw_end = raw.then(|| self.raw_string(end)).flatten();
            let prefixed = kind.prefixes_strings;
            if let Some(close) =
                raw_end.or_else(|| prefixed.then(|| self.string(syntax, end, false)).flatten())
            {
                self.token(close, Colour::String);
                return Word {
                    text,
                    listed: true,
                    defines: false,
                };
            }
        }
        let listed = self.key(syntax, end).or_else(|| syntax.colour(text, kind));
        // A call: `f(`, in a language that defines functions.
        let call = || (b.get(end) == Some(&b'(') && syntax.defines_names).then_some(Colour::Entity);
        match listed.or(plain).or_else(call) {
            Some(colour) => self.token(end, colour),
            None => self.at = end,
        }
        Word {
            text,
            listed: listed.is_some(),
            defines: kind.defines,
        }
    }

    /// Rust's `r#"…"#` from its hashes at `at`; None when no quote follows.
    fn raw_string(&self, at: usize) -> Option<usize> {
        let b = self.b;
        let hashes = b[at..].iter().take_while(|&&c| c == b'#').count();
        if b.get(at + hashes) != Some(&b'"') {
            return None;
        }
        let body = at + hashes + 1;
        let close = format!("\"{}", "#".repeat(hashes));
        Some(memmem::find(&b[body..], close.as_bytes()).map_or(b.len(), |k| body + k + close.len()))
    }

    /// A sigil and the word it leads (`$HOME`, `${x}`, `@decorator`,
    /// `--force`, `#include`), with its colour.
    fn sigil(&self, sigils: &[Sigil], extra: &[u8]) -> Option<(usize, Colour)> {
        let b = self.b;
        let c = b[self.at];
        let sigil = sigils
            .iter()
            .find(|s| s.byte == c && (!s.after_space || self.after_space()))?;
        let mut i = self.at + 1;
        if c == b'-' && b.get(i) == Some(&b'-') {
            i += 1;
        }
        let next = *b.get(i)?;
        if c == b'$' {
            if next == b'{' {
                let end = self.line_end(i);
                let close = memchr(b'}', &b[i..end])?;
                return Some((i + close + 1, sigil.colour));
            }
            if b"?@#$!*0123456789".contains(&next) {
                return Some((i + 1, sigil.colour));
            }
        }
        // `#fff`, `#1d1b16`: a colour in CSS.
        let hex = c == b'#' && next.is_ascii_hexdigit();
        if !is_word_start(next, extra) && !hex {
            return None;
        }
        while i < b.len() && is_word(b[i], extra) {
            i += 1;
        }
        Some((i, sigil.colour))
    }

    /// HTML, XML, Vue: tag names, attribute names and values, entities,
    /// comments; the text between tags is plain.
    fn markup(&mut self) {
        let b = self.b;
        while let Some(k) = memchr2(b'<', b'&', &b[self.at..]) {
            self.at += k;
            let rest = &b[self.at..];
            if rest[0] == b'&' {
                let name = rest[1..]
                    .iter()
                    .take(32)
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'#')
                    .count();
                if name > 0 && rest.get(name + 1) == Some(&b';') {
                    self.token(self.at + name + 2, Colour::Constant);
                } else {
                    self.at += 1;
                }
            } else if rest.starts_with(b"<!--") {
                let end = memmem::find(&rest[4..], b"-->").map_or(b.len(), |e| self.at + 4 + e + 3);
                self.token(end, Colour::Comment);
            } else {
                self.tag();
            }
        }
        self.at = b.len();
    }

    /// A tag from its `<`: the name, then attributes up to `>`.
    fn tag(&mut self) {
        let b = self.b;
        let mut i = self.at + 1;
        if b.get(i) == Some(&b'/') {
            i += 1;
        }
        let named = |c: u8| c.is_ascii_alphanumeric() || b"-:_.!?".contains(&c);
        if !b
            .get(i)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'!' || c == b'?')
        {
            self.at += 1;
            return;
        }
        let mut end = i;
        while end < b.len() && named(b[end]) {
            end += 1;
        }
        self.at = i;
        self.token(end, Colour::Tag);
        // After `=`, an unquoted word is a value.
        let mut value = false;
        while self.at < b.len() {
            let c = b[self.at];
            match c {
                b'>' => {
                    self.at += 1;
                    return;
                }
                b'<' => return,
                b'=' => value = true,
                b'"' | b'\'' => {
                    let end = memchr(c, &b[self.at + 1..]).map_or(b.len(), |k| self.at + k + 2);
                    self.token(end, Colour::String);
                    value = false;
                    continue;
                }
                c if c.is_ascii_whitespace() || c == b'/' => {}
                _ => {
                    let mut end = self.at;
                    while end < b.len() && !b" \t\r\n=>/<\"'".contains(&b[end]) {
                        end += 1;
                    }
                    let colour = if value {
                        Colour::String
                    } else {
                        Colour::Entity
                    };
                    self.token(end, colour);
                    value = false;
                    continue;
                }
            }
            self.at += 1;
        }
    }

    /// Markdown: headings, quotes, list markers, code (inline and
    /// fenced); the rest is plain.
    fn prose(&mut self) {
        let b = self.b;
        // The fence a code block opened with (its byte and length).
        let mut fence: Option<(u8, usize)> = None;
        while self.at < b.len() {
            let end = self.line_end(self.at);
            let indent = b[self.at..end]
                .iter()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            let start = self.at + indent;
            let line = &b[start..end];
            let run = |c: u8| line.iter().take_while(|&&x| x == c).count();
            if let Some((c, len)) = fence {
                if run(c) >= len {
                    fence = None;
                } else if end > self.at {
                    self.token(end, Colour::String);
                }
            } else if let Some(&c @ (b'`' | b'~')) = line.first().filter(|_| run(line[0]) >= 3) {
                fence = Some((c, run(c)));
            } else if line.first() == Some(&b'#')
                && run(b'#') <= 6
                && line
                    .get(run(b'#'))
                    .is_none_or(|c| *c == b' ' || *c == b'\t')
            {
                self.at = start;
                self.token(end, Colour::Entity);
            } else if line.first() == Some(&b'>') {
                self.at = start;
                self.token(end, Colour::Comment);
            } else {
                let digits = line.iter().take_while(|c| c.is_ascii_digit()).count();
                let marker = match line {
                    [b'-' | b'*' | b'+', b' ', ..] => 1,
                    _ if digits > 0 && matches!(line.get(digits), Some(b'.' | b')')) => digits + 1,
                    _ => 0,
                };
                if marker > 0 {
                    self.at = start;
                    self.token(start + marker, Colour::Keyword);
                }
                self.at = start + marker;
                self.inline_code(end);
            }
            self.at = end + 1;
        }
    }

    /// A unified diff, line by line: headers as comments, hunks as
    /// names, lines added in the colour themes give tags (green in the
    /// bundled ones), lines removed in the keywords' (red).
    fn patch(&mut self) {
        let b = self.b;
        while self.at < b.len() {
            let end = self.line_end(self.at);
            let line = &b[self.at..end];
            let header = ["+++", "---", "diff ", "index "]
                .iter()
                .any(|h| line.starts_with(h.as_bytes()));
            let colour = match line.first() {
                _ if header => Some(Colour::Comment),
                Some(b'@') if line.starts_with(b"@@") => Some(Colour::Entity),
                Some(b'+') => Some(Colour::Tag),
                Some(b'-') => Some(Colour::Keyword),
                _ => None,
            };
            if let Some(colour) = colour {
                self.token(end, colour);
            }
            self.at = end + 1;
        }
    }

    /// `` `code` `` up to `end`, a run of backticks closed by as many.
    fn inline_code(&mut self, end: usize) {
        let b = self.b;
        while let Some(k) = memchr(b'`', &b[self.at..end]) {
            let open = self.at + k;
            let len = b[open..end].iter().take_while(|&&c| c == b'`').count();
            let body = open + len;
            let ticks = &b[open..body];
            let close = memmem::find_iter(&b[body..end], ticks)
                .map(|k| body + k)
                .find(|&c| b.get(c + len) != Some(&b'`') && b[c - 1] != b'`');
            match close {
                Some(c) => {
                    self.at = open;
                    self.token(c + len, Colour::String);
                }
                None => self.at = body,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// Comparing the first byte first changes no answer.
        #[test]
        fn opens_with_is_starts_with(
            text in proptest::collection::vec(b'a'..b'd', 0..6),
            prefix in proptest::collection::vec(b'a'..b'd', 0..3),
        ) {
            proptest::prop_assert_eq!(super::opens_with(&text, &prefix), text.starts_with(&prefix));
        }
    }
}
