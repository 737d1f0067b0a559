//! An edit as a diff: lines removed and added, the words that changed
//! inside a changed line marked.

use crate::knowledge::model::Edit;
use crate::site::highlight::Syntax;
use rustc_hash::FxHashMap;
use similar::{Algorithm, ChangeTag, DiffTag, DiffableStr};
use std::ops::{Deref, Range};

/// The largest edit (both sides) whose lines are coloured.
const COLOURED_EDIT: usize = 600;

/// The most lines a replaced block may have on either side for the words
/// that changed inside its lines to be marked: word marks help read a
/// small change; over a rewritten block they are noise, and finding them
/// was the costliest part of a diff.
const MARKED_LINES: usize = 12;

/// The bytes of `edits`, both sides.
pub(super) fn edit_bytes<S: Deref<Target = str>>(edits: &[Edit<S>]) -> usize {
    edits.iter().map(|e| e.old.len() + e.new.len()).sum()
}

/// Every edit of the file at `path` as a diff in HTML, edits in order with
/// a `gap` line between two. Each line is a `<span>` whose class is its
/// kind (`del`, `ins`, `same` or `gap`) around the line as escaped HTML
/// without its line end: the words that changed in `<mark>`, or, on a
/// line without marks, coloured when the file's language is known (marks
/// and colours are not shown together).
///
/// One string, not a list of lines: a diff's lines as Tera values (a map
/// and a string a line, built, walked by the template and dropped) were
/// a twentieth of a cold build's CPU time.
pub fn diff<S: Deref<Target = str>>(path: &str, edits: &[Edit<S>]) -> String {
    if edits.is_empty() {
        // Most calls change no file.
        return String::new();
    }
    // Only small edits (the common case) are coloured, never whole files
    // written: colour is cheap to make but doubles a line's bytes, and
    // colouring every edit of a gigabyte of sessions made its site a
    // fifth larger (119 -> 144 MB) and its rendering a third slower.
    let bytes = edit_bytes(edits);
    let syntax = (bytes <= COLOURED_EDIT)
        .then(|| crate::site::highlight::for_path(path))
        .flatten();
    // Both sides' text and a few dozen bytes of markup a line: the string
    // grown by doubling copied a diff's HTML about twice over.
    let mut out = String::with_capacity(bytes + bytes / 2 + 64);
    for (i, e) in edits.iter().enumerate() {
        if i > 0 {
            out.push_str("<span class=\"gap\"></span>");
        }
        let old = (*e.old).tokenize_lines();
        let new = (*e.new).tokenize_lines();
        // Sides that share no line are one replaced block, found without
        // numbering their lines (one edit in ten rewrites everything).
        if share_no_line(&old, &new) {
            block(&mut out, &old, &new, syntax);
            continue;
        }
        let mut kept = 0;
        for (o, n) in changed_lines(&old, &new) {
            lines(&mut out, ChangeTag::Equal, &old[kept..o.start], syntax);
            kept = o.end;
            match (o.is_empty(), n.is_empty()) {
                (false, false) => block(&mut out, &old[o], &new[n], syntax),
                (false, true) => lines(&mut out, ChangeTag::Delete, &old[o], syntax),
                _ => lines(&mut out, ChangeTag::Insert, &new[n], syntax),
            }
        }
        lines(&mut out, ChangeTag::Equal, &old[kept..], syntax);
    }
    out
}

/// The lines `old` and `new` do not share, as pairs of ranges (old's
/// lines replaced by new's, either one empty), in order; the lines between
/// two pairs are kept. Found by git's histogram diff (imara-diff, on the
/// lines numbered by their text), its hunks slid to where git puts them:
/// readable diffs, and about a third faster than similar's Myers diff on
/// a gigabyte's edits (whose line diffs were a tenth of rendering's
/// instructions).
fn changed_lines(old: &[&str], new: &[&str]) -> Vec<(Range<usize>, Range<usize>)> {
    let mut input = imara_diff::InternedInput::default();
    // Edits are cut at 4,000 characters a side: their lines fit a u32.
    input.reserve(old.len() as u32, new.len() as u32);
    input.update_before(old.iter().copied());
    input.update_after(new.iter().copied());
    let mut diff = imara_diff::Diff::compute(imara_diff::Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    let range = |r: Range<u32>| r.start as usize..r.end as usize;
    (diff.hunks())
        .map(|h| (range(h.before), range(h.after)))
        .collect()
}

/// Whether no line of `new` is one of `old`'s (as similar compares them:
/// with their line ends).
fn share_no_line(old: &[&str], new: &[&str]) -> bool {
    // Most edits keep a line of context at one end or the other.
    if old.first().is_some_and(|l| new.first() == Some(l))
        || old.last().is_some_and(|l| new.last() == Some(l))
    {
        return false;
    }
    let seen: rustc_hash::FxHashSet<&str> = old.iter().copied().collect();
    !new.iter().any(|l| seen.contains(l))
}

/// A replaced block, `old`'s lines by `new`'s: the words that changed
/// marked when [`marked`] marks them, else the old lines then the new.
fn block(out: &mut String, old: &[&str], new: &[&str], syntax: Option<&Syntax>) {
    if old.len().max(new.len()) <= MARKED_LINES {
        if let Some([old, new]) = marked(old, new) {
            let tagged = (old.into_iter().map(|v| (ChangeTag::Delete, v)))
                .chain(new.into_iter().map(|v| (ChangeTag::Insert, v)));
            for (tag, values) in tagged {
                line(out, tag, &values, syntax);
            }
            return;
        }
    }
    lines(out, ChangeTag::Delete, old, syntax);
    lines(out, ChangeTag::Insert, new, syntax);
}

/// Whole lines of one kind, none marked.
fn lines(out: &mut String, tag: ChangeTag, lines: &[&str], syntax: Option<&Syntax>) {
    for text in lines {
        line(out, tag, &[(false, text)], syntax);
    }
}

/// The class of a diff's line of `tag`.
fn class(tag: ChangeTag) -> &'static str {
    match tag {
        ChangeTag::Delete => "del",
        ChangeTag::Insert => "ins",
        ChangeTag::Equal => "same",
    }
}

/// A line's runs of text, each with whether it changed.
type Runs<'s> = Vec<(bool, &'s str)>;

/// The lines of a replaced block, old then new, with the words that
/// changed marked as similar's `iter_inline_changes` marks them (by its
/// defaults: words and the whitespace between them as tokens, a patience
/// diff, marks only when at least half the tokens are kept), or None when
/// it would not mark them. Most blocks are ruled out by two bounds before
/// any diff; the rest are diffed by similar's own patience diff, on tokens
/// numbered by their text (as the bounds need them), with no deadline:
/// marks must not depend on how fast the machine is.
fn marked<'s>(old: &[&'s str], new: &[&'s str]) -> Option<[Vec<Runs<'s>>; 2]> {
    // Lines first: at best the shorter side is kept whole.
    if ratio(old.len().min(new.len()), old.len() + new.len()) < 0.5 {
        return None;
    }
    // Tokens kept in order are at most the tokens both sides share, in any
    // order: a block sharing under half is known unmarked without the diff.
    // Three blocks in four of a gigabyte's edits are, and took most of the
    // time their diffs took. Counted first by their hashes' buckets (a
    // collision can only add to what looks shared), then, for blocks
    // that bound does not rule out, by their text.
    let (bound, total) = shared_by_bucket(old, new);
    if ratio(bound, total) < 0.5 {
        return None;
    }
    // Words are short and not chosen to collide: Fx, not SipHash (which
    // was a fifth of the time of the diffs).
    let mut numbers: FxHashMap<&str, u32> =
        FxHashMap::with_capacity_and_hasher(total, Default::default());
    let (old_tokens, old_ids) = tokens(old, &mut numbers, total);
    let old_numbers = numbers.len();
    let (new_tokens, new_ids) = tokens(new, &mut numbers, total);
    if ratio(shared(&old_ids, &new_ids, numbers.len()), total) < 0.5 {
        return None;
    }
    // Nor more than the longest common subsequence, a sharper bound that
    // rules out most of the rest (found with bit operations, 64 tokens a
    // step, where the diff takes a step an edit).
    if ratio(common_subsequence(&old_ids, &new_ids, old_numbers), total) < 0.5 {
        return None;
    }
    let ops = similar::capture_diff_slices_deadline(Algorithm::Patience, &old_ids, &new_ids, None);
    if similar::diff_ratio(&ops, old_ids.len(), new_ids.len()) < 0.5 {
        return None;
    }
    let mut out: [Vec<Runs<'s>>; 2] = [Vec::new(), Vec::new()];
    let sides = [(old, &old_tokens[..]), (new, &new_tokens[..])];
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        for (side, range) in [(0, o), (1, n)] {
            if range.is_empty() {
                continue;
            }
            let (lines, tokens) = sides[side];
            runs(&mut out[side], lines, &tokens[range], tag != DiffTag::Equal);
        }
    }
    Some(out)
}

/// similar's ratio of `kept` tokens of `total` (`diff_ratio`), with its
/// arithmetic: for one total, fewer kept never gives a higher ratio.
fn ratio(kept: usize, total: usize) -> f32 {
    if total == 0 {
        1.0
    } else {
        2.0 * kept as f32 / total as f32
    }
}

/// How many tokens `old` and `new` share, however ordered (numbers below
/// `numbers`).
fn shared(old: &[u32], new: &[u32], numbers: usize) -> usize {
    let mut left = vec![0u32; numbers];
    for &t in old {
        left[t as usize] += 1;
    }
    let mut shared = 0;
    for &t in new {
        if let Some(n) = left.get_mut(t as usize).filter(|n| **n > 0) {
            *n -= 1;
            shared += 1;
        }
    }
    shared
}

/// How many tokens `old` and `new` share at most, however ordered (a
/// token's bucket stands for its text: tokens of different texts in one
/// bucket count as shared), and how many they have.
fn shared_by_bucket(old: &[&str], new: &[&str]) -> (usize, usize) {
    const BUCKETS: usize = 1 << BUCKET_BITS;
    // Counts fit: a side is at most 4,000 characters, so as many tokens.
    const _: () = assert!(crate::knowledge::model::EDIT_CHARS < u16::MAX as usize);
    let mut left = [0u16; BUCKETS];
    let mut total = 0;
    for line in old {
        token_hashes(line, |h| {
            left[bucket(h)] += 1;
            total += 1;
        });
    }
    let mut shared = 0;
    for line in new {
        token_hashes(line, |h| {
            let n = &mut left[bucket(h)];
            if *n > 0 {
                *n -= 1;
                shared += 1;
            }
            total += 1;
        });
    }
    (shared, total)
}

/// [`shared_by_bucket`]'s buckets: 1,024.
const BUCKET_BITS: u32 = 10;

/// The bucket of a token's hash: mixed by one multiplication, its top
/// bits.
fn bucket(hash: u32) -> usize {
    (hash.wrapping_mul(0x9e37_79b9) >> (32 - BUCKET_BITS)) as usize
}

/// A hash of a token's bytes, one byte at a time: a rotation and an xor
/// (a multiplication at each byte was the longer chain; [`bucket`] mixes
/// the bits once).
fn hash_byte(hash: u32, b: u8) -> u32 {
    hash.rotate_left(5) ^ u32::from(b)
}

/// The hash of each token of `line` ([`words`]' tokens), in order: the
/// same text, the same hash. An ASCII line is cut and hashed in one pass
/// over its bytes; another goes word by word. With the cheaper step of
/// [`hash_byte`], a gigabyte's diffs took a twentieth less time than
/// with its words cut, then each hashed by Fx.
fn token_hashes(line: &str, mut each: impl FnMut(u32)) {
    if !line.is_ascii() {
        for word in words(line) {
            each(word.bytes().fold(0, hash_byte));
        }
        return;
    }
    let mut bytes = line.bytes();
    let Some(first) = bytes.next() else {
        return;
    };
    let space = |b: u8| b.is_ascii_whitespace() || b == 0x0b;
    let mut kind = space(first);
    let mut hash = hash_byte(0, first);
    for b in bytes {
        if space(b) != kind {
            each(hash);
            kind = !kind;
            hash = 0;
        }
        hash = hash_byte(hash, b);
    }
    each(hash);
}

/// The length of the longest common subsequence of `old` and `new`, by
/// the bit-parallel method of Allison and Dix: a bit for each token of
/// `old`, cleared once it is matched. `old`'s numbers are below `numbers`;
/// one of `new`'s at or above it matches nothing.
fn common_subsequence(old: &[u32], new: &[u32], numbers: usize) -> usize {
    let words = old.len().div_ceil(64);
    if words == 0 {
        return 0;
    }
    // Where each token stands in `old`, a mask of `words` words a token
    // (edits are cut at 4,000 characters a side: about a megabyte at most).
    let mut at = vec![0u64; numbers * words];
    for (i, &t) in old.iter().enumerate() {
        at[t as usize * words + i / 64] |= 1 << (i % 64);
    }
    let mut v = vec![u64::MAX; words];
    for &t in new {
        let Some(mask) = at.get(t as usize * words..(t as usize + 1) * words) else {
            continue;
        };
        let mut carry = false;
        for (v, &m) in v.iter_mut().zip(mask) {
            let u = *v & m;
            let (sum, c1) = v.overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(carry as u64);
            carry = c1 || c2;
            *v = sum | (*v & !m);
        }
    }
    let unmatched: usize = v.iter().map(|w| w.count_ones() as usize).sum();
    // The bits past `old`'s end stay set (nothing is matched there).
    old.len() + (words * 64 - old.len()) - unmatched
}

/// A token: the line it is in, where it starts there, and its length.
type Token = (usize, usize, usize);

/// The tokens of `lines` (similar's words and runs of whitespace), and
/// each one's number: the same text, the same number. `room`: at least
/// how many tokens there are (both sides' count: lists grown by doubling
/// were a tenth of a block's marking).
fn tokens<'s>(
    lines: &[&'s str],
    numbers: &mut FxHashMap<&'s str, u32>,
    room: usize,
) -> (Vec<Token>, Vec<u32>) {
    let mut tokens = Vec::with_capacity(room);
    let mut ids = Vec::with_capacity(room);
    for (i, line) in lines.iter().enumerate() {
        let mut at = 0;
        for word in words(line) {
            let next = numbers.len() as u32;
            ids.push(*numbers.entry(word).or_insert(next));
            tokens.push((i, at, word.len()));
            at += word.len();
        }
    }
    (tokens, ids)
}

/// similar's words of `line` (`tokenize_words`: runs of whitespace and
/// runs of anything else, as `char::is_whitespace` tells them apart) one
/// by one, with no list made for each line. ASCII is told apart byte by
/// byte (most of what is edited); a run reaching other text goes on char
/// by char.
fn words(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        let bytes = rest.as_bytes();
        let kind = match bytes.first()? {
            b if b.is_ascii() => b.is_ascii_whitespace() || *b == 0x0b,
            _ => rest.chars().next()?.is_whitespace(),
        };
        let ascii = bytes
            .iter()
            .position(|b| !b.is_ascii() || (b.is_ascii_whitespace() || *b == 0x0b) != kind)
            .unwrap_or(bytes.len());
        let end = match bytes.get(ascii) {
            Some(b) if !b.is_ascii() => rest[ascii..]
                .char_indices()
                .find(|&(_, c)| c.is_whitespace() != kind)
                .map_or(rest.len(), |(i, _)| ascii + i),
            _ => ascii,
        };
        let (word, after) = rest.split_at(end);
        rest = after;
        Some(word)
    })
}

/// Add the text of consecutive `tokens` to the runs of their lines: one
/// run a line; a changed run split at line ends, which are never marked.
fn runs<'s>(out: &mut Vec<Runs<'s>>, lines: &[&'s str], tokens: &[Token], changed: bool) {
    let mut i = 0;
    while let Some(&(line, start, _)) = tokens.get(i) {
        let mut end = start;
        while let Some(&(_, at, len)) = tokens.get(i).filter(|t| t.0 == line) {
            end = at + len;
            i += 1;
        }
        let text = &lines[line][start..end];
        if out.len() <= line {
            out.resize_with(line + 1, Vec::new);
        }
        if changed {
            for seg in text.tokenize_lines_and_newlines() {
                out[line].push((!seg.ends_with_newline(), seg));
            }
        } else {
            out[line].push((false, text));
        }
    }
}

/// One line of a diff from its runs of text, marked or not, added to
/// `out`: line ends dropped, runs alike joined, a line wholly changed not
/// marked (it needs no marks), and a line without marks coloured when
/// `syntax` is known.
fn line(out: &mut String, tag: ChangeTag, values: &[(bool, &str)], syntax: Option<&Syntax>) {
    out.push_str("<span class=\"");
    out.push_str(class(tag));
    out.push_str("\">");
    match values {
        // One run (a whole line kept, removed or added: most lines of
        // most diffs) is never marked: written without its runs read
        // again for the marks, the colour and the text (2 % of diffs).
        [(_, text)] => unmarked(out, text.trim_end_matches(['\n', '\r']), syntax),
        _ => runs_into(out, values, syntax),
    }
    out.push_str("</span>");
}

/// A line's text as one unmarked run, coloured when `syntax` is known.
fn unmarked(out: &mut String, text: &str, syntax: Option<&Syntax>) {
    let coloured =
        !text.is_empty() && syntax.is_some_and(|s| crate::site::highlight::line_into(s, text, out));
    if !coloured {
        crate::base::html::escape_text(out, text);
    }
}

/// [`line`]'s text of any number of runs.
fn runs_into(out: &mut String, values: &[(bool, &str)], syntax: Option<&Syntax>) {
    // Read as often as needed rather than gathered: a list made for each
    // line was a twentieth of a diff's time.
    let runs = || {
        (values.iter())
            .map(|&(mark, text)| (mark, text.trim_end_matches(['\n', '\r'])))
            .filter(|(_, text)| !text.is_empty())
    };
    let mut marks = runs().map(|(mark, _)| mark);
    let marked = marks.next().is_some_and(|first| marks.any(|m| m != first));
    let mut texts = runs().map(|(_, text)| text);
    let coloured = match (marked, syntax) {
        (false, Some(s)) => match (texts.next(), texts.next()) {
            (None, _) => false,
            (Some(only), None) => crate::site::highlight::line_into(s, only, out),
            _ => {
                let joined: String = runs().map(|(_, text)| text).collect();
                crate::site::highlight::line_into(s, &joined, out)
            }
        },
        _ => false,
    };
    if !coloured {
        let mut open = false;
        for (mark, text) in runs() {
            let mark = mark && marked;
            if mark != open {
                out.push_str(if mark { "<mark>" } else { "</mark>" });
                open = mark;
            }
            crate::base::html::escape_text(out, text);
        }
        if open {
            out.push_str("</mark>");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::redact::Text;
    use similar::TextDiff;

    fn edit(old: &str, new: &str) -> Edit {
        Edit {
            old: Text::test(old),
            new: Text::test(new),
        }
    }

    /// A diff's lines read back from its HTML: each one's kind and the
    /// HTML inside its span (colours nest spans in it).
    fn lines(html: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut rest = html;
        while !rest.is_empty() {
            let body = rest.strip_prefix("<span class=\"").expect("a line opens");
            let (kind, body) = body.split_once("\">").expect("its class ends");
            let (mut depth, mut at) = (1, 0);
            loop {
                let close = at + body[at..].find("</span>").expect("the span closes");
                match body[at..close].find("<span") {
                    Some(open) => (depth, at) = (depth + 1, at + open + 5),
                    None if depth == 1 => {
                        at = close;
                        break;
                    }
                    None => (depth, at) = (depth - 1, close + 7),
                }
            }
            out.push((kind.to_string(), body[..at].to_string()));
            rest = &body[at + "</span>".len()..];
        }
        out
    }

    /// Each line as its kind and text, marked words in brackets.
    fn shown(html: &str) -> Vec<String> {
        lines(html)
            .iter()
            .map(|(kind, html)| {
                let text = (html.replace("<mark>", "[").replace("</mark>", "]"))
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&");
                format!("{kind} {text}")
            })
            .collect()
    }

    #[test]
    fn a_rewritten_block_shows_its_lines_without_word_marks() {
        let old: String = (0..20).map(|i| format!("let a{i} = {i};\n")).collect();
        let new: String = (0..20).map(|i| format!("let b{i} = {i};\n")).collect();
        let html = diff("x.txt", &[edit(&old, &new)]);
        let lines = lines(&html);
        assert_eq!(lines.iter().filter(|l| l.0 == "del").count(), 20);
        assert_eq!(lines.iter().filter(|l| l.0 == "ins").count(), 20);
        assert!(!html.contains("<mark>"));
        assert!(shown(&html).contains(&"del let a3 = 3;".to_string()));
        assert!(shown(&html).contains(&"ins let b19 = 19;".to_string()));
    }

    proptest::proptest! {
        /// The bit-parallel length is the textbook table's, across word
        /// boundaries of the masks (sequences of up to 200 tokens).
        #[test]
        fn common_subsequence_is_the_tables(
            old in proptest::collection::vec(0u32..6, 0..200),
            new in proptest::collection::vec(0u32..8, 0..200),
        ) {
            let mut row = vec![0usize; new.len() + 1];
            for a in &old {
                let mut diag = 0;
                for (j, b) in new.iter().enumerate() {
                    let up = row[j + 1];
                    row[j + 1] = if a == b { diag + 1 } else { up.max(row[j]) };
                    diag = up;
                }
            }
            proptest::prop_assert_eq!(common_subsequence(&old, &new, 6), row[new.len()]);
        }
    }

    /// A replaced block's lines as [`marked`] gives them (or plain, when
    /// it does not mark them), and as similar's `iter_inline_changes` does.
    /// Lines as changes: each one's tag and runs.
    type Changes = Vec<(ChangeTag, Vec<(bool, String)>)>;

    fn both_ways(old: &str, new: &str) -> Vec<[Changes; 2]> {
        let d = TextDiff::from_lines(old, new);
        let owned = |v: &[(bool, &str)]| v.iter().map(|(m, t)| (*m, t.to_string())).collect();
        let mut out = Vec::new();
        for op in d.ops().iter().filter(|op| op.tag() == DiffTag::Replace) {
            let (_, o, n) = op.as_tag_tuple();
            let o: Vec<&str> = o.filter_map(|i| d.old_slice(i)).collect();
            let n: Vec<&str> = n.filter_map(|i| d.new_slice(i)).collect();
            let ours = match marked(&o, &n) {
                Some([o, n]) => (o.iter().map(|v| (ChangeTag::Delete, owned(v))))
                    .chain(n.iter().map(|v| (ChangeTag::Insert, owned(v))))
                    .collect(),
                None => d
                    .iter_changes(op)
                    .map(|c| (c.tag(), vec![(false, c.value().to_string())]))
                    .collect(),
            };
            let theirs = d
                .iter_inline_changes_deadline(op, None)
                .map(|c| (c.tag(), owned(c.values())))
                .collect();
            out.push([ours, theirs]);
        }
        out
    }

    #[test]
    fn words_are_marked_as_similar_marks_them() {
        for [ours, theirs] in both_ways(
            "let b = lock().unwrap();\nkeep\nfn old() {}\n",
            "let b = lock()?;\nkeep\nfn new_name() {}\nmore\n",
        ) {
            assert!(ours.iter().any(|(_, v)| v.iter().any(|(m, _)| *m)));
            assert_eq!(ours, theirs);
        }
        let rewritten = both_ways("alpha beta\n", "one two three four five\n");
        assert!(rewritten
            .iter()
            .all(|[o, _]| o.iter().all(|(_, v)| v.len() == 1)));
    }

    proptest::proptest! {
        /// Words are similar's words, whatever the whitespace around them.
        #[test]
        fn words_are_similars_words(
            line in "(a|bb|é|日本|\\(| |  |\t|\u{b}|\u{c}|\u{1c}|\u{85}|\u{a0}|\u{2003}|\r|\n){0,16}"
        ) {
            proptest::prop_assert_eq!(words(&line).collect::<Vec<_>>(), line.tokenize_words());
        }

        /// Any replaced block, of words, whitespace of every kind, line
        /// ends with and without CR, a last line without one, non-ASCII.
        #[test]
        fn marked_words_are_similars_marked_words(
            old in "((a|bb|é|日本|x1|[c-f]{1,2}|\\(|\\.| |  |\t|\r\n|\n){0,12}){0,3}",
            new in "((a|bb|é|日本|x1|[c-f]{1,2}|\\(|\\.| |  |\t|\r\n|\n){0,12}){0,3}",
        ) {
            for [ours, theirs] in both_ways(&old, &new) {
                proptest::prop_assert_eq!(ours, theirs);
            }
        }
    }

    proptest::proptest! {
        /// The buckets' count is the tokens' and their bound is at least
        /// what the tokens' texts share.
        #[test]
        fn buckets_bound_what_is_shared(
            old in proptest::collection::vec("(a|b|c d|é| |\\t)*\\n?", 0..6),
            new in proptest::collection::vec("(a|b|x y|日| |\\t)*\\n?", 0..6),
        ) {
            let old: Vec<&str> = old.iter().map(String::as_str).collect();
            let new: Vec<&str> = new.iter().map(String::as_str).collect();
            let mut numbers = FxHashMap::default();
            let (_, old_ids) = tokens(&old, &mut numbers, 0);
            let (_, new_ids) = tokens(&new, &mut numbers, 0);
            let (bound, total) = shared_by_bucket(&old, &new);
            proptest::prop_assert_eq!(total, old_ids.len() + new_ids.len());
            proptest::prop_assert!(bound >= shared(&old_ids, &new_ids, numbers.len()));
        }

        /// An edit's diff shows each side whole, in order: the old side
        /// as its kept and removed lines, the new as its kept and added
        /// ones, whether the sides share lines (at either end, in the
        /// middle, repeated) or none (when it is not diffed).
        #[test]
        fn a_diff_shows_both_sides_whole(
            old in proptest::collection::vec("(a|b|c d|é|)(\\r\\n|\\n|\\r)?", 0..16),
            new in proptest::collection::vec("(a|b|x y|日|)(\\r\\n|\\n|\\r)?", 0..16),
        ) {
            let (old, new) = (old.concat(), new.concat());
            let shown = lines(&diff("a.txt", &[edit(&old, &new)]));
            let side = |changed: &str| -> Vec<String> {
                (shown.iter())
                    .filter(|(kind, _)| kind == "same" || kind == changed)
                    .map(|(_, html)| html.replace("<mark>", "").replace("</mark>", ""))
                    .collect()
            };
            let whole = |text: &str| -> Vec<String> {
                (text.tokenize_lines().iter())
                    .map(|l| l.trim_end_matches(['\n', '\r']).to_string())
                    .collect()
            };
            proptest::prop_assert!(shown.iter().all(|(kind, _)| ["same", "del", "ins"].contains(&kind.as_str())));
            proptest::prop_assert_eq!(side("del"), whole(&old));
            proptest::prop_assert_eq!(side("ins"), whole(&new));
        }
    }

    #[test]
    fn a_function_added_before_another_keeps_the_other_whole() {
        let old = "fn a() {\n    one();\n}\n";
        let new = "fn b() {\n    two();\n}\n\nfn a() {\n    one();\n}\n";
        assert_eq!(
            shown(&diff("notes.txt", &[edit(old, new)])),
            [
                "ins fn b() {",
                "ins     two();",
                "ins }",
                "ins ",
                "same fn a() {",
                "same     one();",
                "same }",
            ]
        );
    }

    #[test]
    fn changed_words_are_marked_inside_changed_lines() {
        let lines = diff(
            "notes.txt",
            &[edit(
                "let a = 1;\nlet b = lock().unwrap();\n",
                "let a = 1;\nlet b = lock()?;\n",
            )],
        );
        // Words are what whitespace separates.
        assert_eq!(
            shown(&lines),
            [
                "same let a = 1;",
                "del let b = [lock().unwrap();]",
                "ins let b = [lock()?;]",
            ]
        );
    }

    #[test]
    fn lines_of_a_known_language_are_coloured_unless_their_words_are_marked() {
        let lines = lines(&diff(
            "src/a.rs",
            &[edit("let a = 1;\nfn f() {}\n", "let a = 2;\nfn f() {}\n")],
        ));
        let f = lines.iter().find(|l| l.0 == "same").expect("same line");
        assert!(f.1.contains("hl-"), "{f:?}");
        let changed = lines.iter().find(|l| l.0 == "del").expect("del line");
        assert!(changed.1.contains("<mark>") && !changed.1.contains("hl-"));
        assert_eq!(
            diff("a.txt", &[edit("", "x\n")]),
            "<span class=\"ins\">x</span>"
        );
    }

    #[test]
    fn lines_are_escaped_and_their_marks_closed() {
        let lines = lines(&diff("a.txt", &[edit("<a> & b\n", "<a> & \"c\"\n")]));
        assert_eq!(
            lines.iter().map(|l| l.1.as_str()).collect::<Vec<_>>(),
            [
                "&lt;a&gt; &amp; <mark>b</mark>",
                "&lt;a&gt; &amp; <mark>\"c\"</mark>"
            ]
        );
    }

    #[test]
    fn a_new_file_is_all_added_and_edits_are_set_apart() {
        let lines = diff(
            "notes.txt",
            &[edit("", "fn main() {}\n"), edit("a\n", "b\n")],
        );
        assert_eq!(
            shown(&lines),
            ["ins fn main() {}", "gap ", "del a", "ins b"]
        );
    }
}
