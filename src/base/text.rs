//! Small text helpers shared by every layer.

/// The earlier of two optional values (either one when the other is None).
pub fn min_opt<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The later of two optional values (either one when the other is None).
pub fn max_opt<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The first 8 characters of an id, for display.
pub fn short_id(id: &str) -> &str {
    match id.char_indices().nth(8) {
        Some((i, _)) => &id[..i],
        None => id,
    }
}

/// Characters of a line looked at for a title: a title is short, and a
/// bound keeps the work linear whatever the line holds.
const TITLE_SCAN: usize = 400;

/// The first line of a prompt worth a title: Markdown syntax, HTML-like
/// tags, slash commands and caveats left out; None when no line says
/// anything.
pub fn title_line(text: &str) -> Option<String> {
    let mut in_fence = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let cut = line
            .char_indices()
            .nth(TITLE_SCAN)
            .map_or(line.len(), |(i, _)| i);
        let plain = strip_markdown(&line[..cut]);
        let plain = plain.trim();
        let says_something = plain.chars().any(char::is_alphanumeric)
            && !plain.starts_with("Caveat:")
            && !is_slash_command(plain);
        if says_something {
            return Some(plain.to_string());
        }
    }
    None
}

/// `/init`, `/compact keep the tests`: a command, not a question.
fn is_slash_command(line: &str) -> bool {
    line.strip_prefix('/').is_some_and(|rest| {
        rest.split_whitespace()
            .next()
            .is_some_and(|w| w.chars().all(|c| c.is_alphanumeric() || "-_:".contains(c)))
    })
}

/// A Markdown line as plain text: block markers (`#`, `>`, list bullets),
/// emphasis and code marks, tags and link targets dropped.
fn strip_markdown(line: &str) -> String {
    let mut l = line.trim_start_matches(['#', '>', ' ', '\t']);
    for bullet in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] {
        if let Some(rest) = l.strip_prefix(bullet) {
            l = rest;
            break;
        }
    }
    let digits = l.len() - l.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        if let Some(rest) = l[digits..]
            .strip_prefix(". ")
            .or(l[digits..].strip_prefix(") "))
        {
            l = rest;
        }
    }
    let marks = Marks::of(l);
    let mut out = String::with_capacity(l.len());
    let mut rest = l;
    while let Some(c) = rest.chars().next() {
        let at = l.len() - rest.len();
        rest = &rest[c.len_utf8()..];
        match c {
            '`' => {}
            // `**bold**` loses its marks; `a * b`, `2*3`, `*.rs`,
            // `src/**/*.ts` and `*args` keep theirs.
            '*' if marks.emphasis.contains(&at) => {
                rest = rest.trim_start_matches('*');
            }
            // `~~struck~~` loses its marks; one `~` is a home (`~/.claude`:
            // the redactor writes every home so) or "about", and stays.
            '~' if rest.starts_with('~') => rest = rest.trim_start_matches('~'),
            // `[text](target)`, `![alt](target)`: the text stays, the
            // target goes; other brackets (`a[0]`, `[WIP]`) are text.
            '[' if marks.links.contains(&at) => {}
            '!' if marks.links.contains(&(at + 1)) => {}
            ']' if marks.link_ends.contains(&at) => match rest.find(')') {
                Some(end) => rest = &rest[end + 1..],
                None => out.push(c),
            },
            // `<tag>`, `</tag>`: dropped; a lone `<` (a < b) stays.
            '<' if rest.starts_with(|t: char| t.is_ascii_alphabetic() || t == '/') => {
                match rest.find('>') {
                    Some(end) => rest = &rest[end + 1..],
                    None => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Where a line's inline Markdown marks are (byte offsets).
struct Marks {
    /// Where each run of `*` that marks emphasis starts: one that opens
    /// a word paired with a later one that closes a word.
    emphasis: Vec<usize>,
    /// The `[` of each link (its `]` is followed by `(`).
    links: Vec<usize>,
    /// The `]` of each link.
    link_ends: Vec<usize>,
}

impl Marks {
    fn of(line: &str) -> Marks {
        let b = line.as_bytes();
        let blank = |c: Option<char>| c.is_none_or(char::is_whitespace);
        let mut emphasis = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut i = 0;
        while let Some(k) = memchr::memchr(b'*', &b[i..]) {
            let start = i + k;
            let end = start + b[start..].iter().take_while(|&&c| c == b'*').count();
            // A run opens a word when a blank (then maybe opening marks)
            // is before it and no blank after; it closes one the other
            // way round (`*so*.`, `(**this**),`; not `*.rs` or `2*3`).
            let next = line[end..].chars().next();
            let last = line[..start].chars().next_back();
            let before = line[..start].trim_end_matches(|c| "([{\"'".contains(c));
            let after = line[end..].trim_start_matches(|c| ".,;:!?)]}\"'".contains(c));
            let opens = !blank(next) && blank(before.chars().next_back());
            let closes = !blank(last) && blank(after.chars().next());
            match open.pop() {
                Some(opener) if closes => emphasis.extend([opener, start]),
                opener => {
                    open.extend(opener);
                    if opens {
                        open.push(start);
                    }
                }
            }
            i = end;
        }
        let (mut links, mut link_ends) = (Vec::new(), Vec::new());
        let mut i = 0;
        while let Some(k) = memchr::memchr(b'[', &b[i..]) {
            let start = i + k;
            i = start + 1;
            let Some(close) = memchr::memchr(b']', &b[i..]).map(|k| i + k) else {
                break;
            };
            if b.get(close + 1) == Some(&b'(') {
                links.push(start);
                link_ends.push(close);
                i = close + 1;
            }
        }
        Marks {
            emphasis,
            links,
            link_ends,
        }
    }
}

/// Whether `line` is a thematic break: three or more of one of `-`, `*`,
/// `_`, spaces and tabs between them and nothing else.
pub fn is_thematic_break(line: &str) -> bool {
    let marks = || line.bytes().filter(|c| !matches!(c, b' ' | b'\t'));
    let Some(first) = marks().next() else {
        return false;
    };
    matches!(first, b'-' | b'*' | b'_') && marks().all(|c| c == first) && marks().count() >= 3
}

/// Collapse whitespace to single spaces and cut at `max` characters with an ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    if let Some(line) = one_line_single_spaced(text, max) {
        return line;
    }
    let mut out = String::with_capacity(text.len().min(max + 3));
    let mut count = 0;
    for word in text.split_whitespace() {
        if count > 0 {
            out.push(' ');
            count += 1;
        }
        // Nearly every word is ASCII: copied whole, or cut, not a
        // character at a time (the timeline shortens every prompt).
        if word.is_ascii() {
            let room = max.saturating_sub(count);
            if word.len() <= room {
                out.push_str(word);
                count += word.len();
                continue;
            }
            out.push_str(&word[..room]);
            out.push('…');
            return out;
        }
        for c in word.chars() {
            if count >= max {
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// [`one_line`] of ASCII words between single spaces, as nearly every
/// prompt is (the timeline shortens every one of them at every build):
/// the text is its own one line, cut at `max` (after the space there, if
/// there is one: the space comes before the ellipsis, as in [`one_line`]).
/// None for any other text.
fn one_line_single_spaced(text: &str, max: usize) -> Option<String> {
    let bytes = text.as_bytes();
    // Vertical tab and form feed are whitespace too.
    let single_spaced = text.is_ascii()
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
        && memchr::memchr3(b'\t', b'\n', b'\r', bytes).is_none()
        && memchr::memchr2(0x0B, 0x0C, bytes).is_none()
        && memchr::memmem::find(bytes, b"  ").is_none();
    if !single_spaced {
        return None;
    }
    let Some(&at) = bytes.get(max) else {
        return Some(text.to_string());
    };
    let end = if at == b' ' { max + 1 } else { max };
    let mut out = String::with_capacity(end + 3);
    out.push_str(&text[..end]);
    out.push('…');
    Some(out)
}

/// JSON made safe to sit inside a `<script>` or a `.js` file: `<`, `>`,
/// `&`, U+2028 and U+2029 written as `\u` escapes. These characters only
/// ever occur inside JSON strings, where the escape means the same.
pub fn json_for_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    // Clean runs are copied whole (a search index is megabytes of text),
    // found with SIMD searches (byte by byte, this was a twentieth of the
    // instructions of a rebuild after one changed memory file); U+2028 and
    // U+2029 are the bytes E2 80 A8 and E2 80 A9.
    let bytes = json.as_bytes();
    let mut markup = memchr::memchr3_iter(b'<', b'>', b'&', bytes).peekable();
    let mut wide = memchr::memchr_iter(0xE2, bytes).peekable();
    let mut copied = 0;
    loop {
        let i = match (markup.peek(), wide.peek()) {
            (Some(&m), Some(&w)) if w < m => wide.next(),
            (Some(_), _) => markup.next(),
            (None, _) => wide.next(),
        };
        let Some(i) = i else { break };
        let escape = match bytes[i] {
            b'<' => "\\u003c",
            b'>' => "\\u003e",
            b'&' => "\\u0026",
            _ => match bytes.get(i + 1..i + 3) {
                Some([0x80, 0xA8]) => "\\u2028",
                Some([0x80, 0xA9]) => "\\u2029",
                _ => continue,
            },
        };
        out.push_str(&json[copied..i]);
        out.push_str(escape);
        copied = i + if bytes[i] == 0xE2 { 3 } else { 1 };
    }
    out.push_str(&json[copied..]);
    out
}

/// `text` up to its `max`-th character.
pub fn cut_chars(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    take_chars(text, max).0
}

/// The first `max` characters of `text` and how many characters that is,
/// in one pass over the bytes (a character starts at every byte that is
/// not a continuation byte `10xxxxxx`). Whole blocks are counted at once,
/// branch-free (the compiler makes it vector code): only the block the
/// cut falls in is walked byte by byte. Tool output is cut this way by
/// the gigabyte.
pub fn take_chars(text: &str, max: usize) -> (&str, usize) {
    const BLOCK: usize = 32;
    let bytes = text.as_bytes();
    let starts = |bytes: &[u8]| bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
    // No more bytes than characters wanted: all of it, counted at once (a
    // JSON string is decoded a run between escapes at a time, most of
    // them short).
    if bytes.len() <= max {
        return (text, starts(bytes));
    }
    let mut n = 0;
    let mut i = 0;
    for block in bytes.chunks_exact(BLOCK) {
        let starts = starts(block);
        if n + starts > max {
            break;
        }
        n += starts;
        i += BLOCK;
    }
    for (k, b) in bytes[i..].iter().enumerate() {
        if b & 0xc0 != 0x80 {
            if n == max {
                return (&text[..i + k], n);
            }
            n += 1;
        }
    }
    (text, n)
}

/// `%xx` escapes decoded (a link's path, a request's); None when an escape
/// is cut or not hex, or the result is not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_puts_a_comma_every_three_digits_from_the_right() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        for n in [12_345u64, 100_000, u64::MAX] {
            let g = grouped(n);
            let groups: Vec<&str> = g.split(',').collect();
            assert_eq!(g.replace(',', ""), n.to_string());
            assert!((1..=3).contains(&groups[0].len()), "{g}");
            assert!(groups[1..].iter().all(|d| d.len() == 3), "{g}");
        }
    }

    #[test]
    fn script_json_has_no_markup() {
        let raw = serde_json::to_string(&"<script>alert(1)</script> & \u{2028}").unwrap();
        let safe = json_for_script(&raw);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        assert!(!safe.contains('\u{2028}'));
        let back: String = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, "<script>alert(1)</script> & \u{2028}");
    }

    /// [`one_line`] a character at a time: what it must still do.
    fn one_line_by_chars(text: &str, max: usize) -> String {
        let mut out = String::new();
        let mut count = 0;
        for word in text.split_whitespace() {
            if count > 0 {
                out.push(' ');
                count += 1;
            }
            for c in word.chars() {
                if count >= max {
                    out.push('…');
                    return out;
                }
                out.push(c);
                count += 1;
            }
        }
        out
    }

    proptest::proptest! {
        /// Counted by blocks, the cut is where a character-by-character
        /// count puts it, in any mix of one- to four-byte characters.
        #[test]
        fn take_chars_cuts_where_characters_are_counted(
            text in "(a|é|日|\u{1F600}|[ -~]{1,40}){0,60}",
            max in 0usize..400,
        ) {
            let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
            let want = (&text[..end], text[..end].chars().count());
            proptest::prop_assert_eq!(take_chars(&text, max), want);
            proptest::prop_assert_eq!(cut_chars(&text, max), want.0);
        }

        /// Words of ASCII and not, with any whitespace between them, cut
        /// at any length, read as when they were cut a character at a time.
        #[test]
        fn one_line_is_the_text_cut_a_character_at_a_time(
            text in "([a-z]{0,6}|é|日本|\\s{1,3}|\u{2003}){0,40}",
            max in 0usize..60,
        ) {
            proptest::prop_assert_eq!(one_line(&text, max), one_line_by_chars(&text, max));
        }

        /// The same of words between single spaces, as most prompts are.
        #[test]
        fn one_line_of_single_spaced_words_is_the_text_cut_a_character_at_a_time(
            text in "([a-z]{1,6}( [a-z]{1,6}){0,30})?",
            max in 0usize..120,
        ) {
            proptest::prop_assert_eq!(one_line(&text, max), one_line_by_chars(&text, max));
        }

        /// The same of words between one or two spaces, with spaces before
        /// or after them.
        #[test]
        fn one_line_of_spaced_words_is_the_text_cut_a_character_at_a_time(
            text in "( {0,2}[a-z]{1,6}){0,30} {0,2}",
            max in 0usize..120,
        ) {
            proptest::prop_assert_eq!(one_line(&text, max), one_line_by_chars(&text, max));
        }

        /// The same of ASCII text, with every ASCII whitespace (vertical
        /// tab too).
        #[test]
        fn one_line_of_ascii_is_the_text_cut_a_character_at_a_time(
            text in "([a-z]{0,6}| {1,3}|[\t\n\r\x0B\x0C]){0,40}",
            max in 0usize..60,
        ) {
            proptest::prop_assert_eq!(one_line(&text, max), one_line_by_chars(&text, max));
        }

        /// Escaped as one character at a time would, at any place, beside
        /// any other character (others starting with E2 too: `€`, `…`).
        #[test]
        fn script_json_escapes_exactly_the_five(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("<".to_string()),
                    proptest::strategy::Just(">".to_string()),
                    proptest::strategy::Just("&".to_string()),
                    proptest::strategy::Just("\u{2028}".to_string()),
                    proptest::strategy::Just("\u{2029}".to_string()),
                    proptest::strategy::Just("€…\u{2027}".to_string()),
                    ".{0,12}",
                ],
                0..24,
            )
        ) {
            let json = parts.concat();
            let expected: String = json
                .chars()
                .map(|c| match c {
                    '<' => "\\u003c".to_string(),
                    '>' => "\\u003e".to_string(),
                    '&' => "\\u0026".to_string(),
                    '\u{2028}' => "\\u2028".to_string(),
                    '\u{2029}' => "\\u2029".to_string(),
                    c => c.to_string(),
                })
                .collect();
            proptest::prop_assert_eq!(json_for_script(&json), expected);
        }
    }

    #[test]
    fn thematic_breaks_are_three_marks_of_one_kind() {
        for rule in ["---", "- - -", "*****", "_\t_ _", " ***\t"] {
            assert!(is_thematic_break(rule), "{rule:?}");
        }
        for not in ["", "--", "--x", "-*-", "- - x", "==="] {
            assert!(!is_thematic_break(not), "{not:?}");
        }
    }

    #[test]
    fn titles_come_from_the_first_line_that_says_something() {
        let t = |s: &str| title_line(s);
        assert_eq!(
            t("# Fix the **login** bug\nmore").as_deref(),
            Some("Fix the login bug")
        );
        assert_eq!(
            t("## \n\n> quote `code` here").as_deref(),
            Some("quote code here")
        );
        assert_eq!(
            t("/init\nthen explain the repo").as_deref(),
            Some("then explain the repo")
        );
        assert_eq!(
            t("<command-name>/clear</command-name>\n- [ ] see [the docs](docs/a.md) for ![x](y.png) details").as_deref(),
            Some("see the docs for x details")
        );
        assert_eq!(
            t("Caveat: The messages below were generated by the user\n1. rename snake_case_names")
                .as_deref(),
            Some("rename snake_case_names")
        );
        assert_eq!(
            t("```\nfn main() {}\n```\nwhy does this fail?").as_deref(),
            Some("why does this fail?")
        );
        assert_eq!(t("is a < b here?").as_deref(), Some("is a < b here?"));
        assert_eq!(
            t("Read ~/.claude/x.jsonl, ~~not~~ in ~5 min").as_deref(),
            Some("Read ~/.claude/x.jsonl, not in ~5 min")
        );
        // Marks that are text stay: a product, globs, Python's stars,
        // brackets that make no link.
        for text in [
            "is 2*3 the same as 3 * 2?",
            "match *.rs and src/**/*.ts",
            "why take *args and **kwargs",
            "read a[0] and the [WIP] list",
            "a lone * and [ here",
        ] {
            assert_eq!(t(text).as_deref(), Some(text));
        }
        assert_eq!(
            t("*really* fix (**this**), see [the docs](x.md) and ![alt](y.png).").as_deref(),
            Some("really fix (this), see the docs and alt.")
        );
        assert_eq!(t("/compact\n---\n## \n"), None);
        assert_eq!(t(""), None);
        // A long line costs no more than its first few hundred characters.
        let long = format!("{}x", "[".repeat(1_000_000));
        assert_eq!(t(&long), None);
    }
}
