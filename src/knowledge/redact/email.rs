//! E-mail addresses, and the name written before one (`Jane Doe
//! <jane@acme.io>`): who wrote a commit, who a customer is.
//!
//! They reach transcripts mostly through tool output (`git log`'s
//! `Author:` lines, `package.json`, mail and CRM exports), and they name
//! people: the owner, colleagues, customers. Every address is replaced,
//! except those that name no one: machine senders (`noreply@…`, the
//! `git@host` of an SSH remote) and the reserved example domains
//! (`example.com`, `*.test`…), which documentation and tests use.
//!
//! A plain scan from each `@` (or its URL escape `%40`), like the URL
//! rule's: `@` is everywhere in code (decorators, npm scopes, `HEAD@{1}`,
//! `pkg@1.2.3`), and each is checked where it stands, so clean text costs
//! a `memchr`.

use memchr::memmem;
use std::sync::LazyLock;

/// A found address: the bytes to replace, and whether a name written
/// before it is part of them (then the whole is a `person`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Found {
    pub start: usize,
    pub end: usize,
    pub with_name: bool,
}

/// The longest local part looked at (RFC 5321 allows 64 bytes): a scan
/// back stops there, so a run of `%40%40…` is not walked again at each.
const LOCAL_MAX: usize = 64;
/// The longest domain looked at.
const DOMAIN_MAX: usize = 255;
/// The longest name before `<address>`, and its most words: more is a
/// sentence (`please send the report to <…>`), not a name.
const NAME_MAX: usize = 64;
const NAME_WORDS: usize = 4;

/// Local parts of machine senders and SSH remotes, lower-cased.
const MACHINE_LOCALS: &[&str] = &["noreply", "no-reply", "donotreply", "do-not-reply", "git"];
/// Reserved for documentation (RFC 2606, RFC 6761): no one's address.
const EXAMPLE_DOMAINS: &[&str] = &["example.com", "example.net", "example.org"];
const RESERVED_TLDS: &[&str] = &["example", "test", "invalid", "localhost"];

static ESCAPED_AT: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"%40"));

/// Whether `text` may hold an address (the screen's test, when there is
/// no screen).
pub(super) fn may_hold(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr(b'@', b).is_some() || ESCAPED_AT.find(b).is_some()
}

/// Every address of `text` to replace, in order, not overlapping.
pub(super) fn find(text: &str) -> Vec<Found> {
    let b = text.as_bytes();
    let mut ats: Vec<(usize, usize)> = memchr::memchr_iter(b'@', b).map(|i| (i, 1)).collect();
    if ESCAPED_AT.find(b).is_some() {
        ats.extend(ESCAPED_AT.find_iter(b).map(|i| (i, 3)));
        ats.sort_unstable();
    }
    let mut found: Vec<Found> = Vec::new();
    for (at, len) in ats {
        if found.last().is_some_and(|f| at < f.end) {
            continue;
        }
        let Some((start, end)) = address(b, at, len) else {
            continue;
        };
        if found.last().is_some_and(|f| start < f.end) {
            continue;
        }
        let found_here = match name_before(text, start, end) {
            Some(name) if found.last().is_none_or(|f| name >= f.end) => Found {
                start: name,
                end: end + 1,
                with_name: true,
            },
            _ => Found {
                start,
                end,
                with_name: false,
            },
        };
        found.push(found_here);
    }
    found
}

fn local_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-')
}

fn domain_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
}

/// The address whose `@` (`len` bytes: `@` or `%40`) is at `at`, as
/// (start, end), if it is one to replace.
fn address(b: &[u8], at: usize, len: usize) -> Option<(usize, usize)> {
    let floor = at.saturating_sub(LOCAL_MAX);
    let mut start = at;
    while start > floor && local_char(b[start - 1]) {
        start -= 1;
    }
    start = past_json_escape(b, start);
    while start < at && b[start] == b'.' {
        start += 1;
    }
    let local = &b[start..at];
    // A local part ends with no dot (Ember's `items.@each` is none).
    if local.is_empty() || local.ends_with(b".") {
        return None;
    }
    let from = at + len;
    let lim = (from + DOMAIN_MAX).min(b.len());
    let mut end = from;
    while end < lim && domain_char(b[end]) {
        end += 1;
    }
    // A sentence's full stop, a dash after the address.
    while end > from && matches!(b[end - 1], b'.' | b'-') {
        end -= 1;
    }
    let domain = std::str::from_utf8(&b[from..end]).ok()?;
    let local = std::str::from_utf8(local).ok()?;
    (is_domain(domain) && !names_no_one(local, domain)).then_some((start, end))
}

/// A domain: two labels or more, none empty, the last of letters only
/// (`pkg@1.2.3`, `image@sha256`, `dana@laptop` are none).
fn is_domain(domain: &str) -> bool {
    let mut labels = domain.split('.');
    let Some(tld) = labels.next_back() else {
        return false;
    };
    let tld_ok = (2..=24).contains(&tld.len()) && tld.bytes().all(|c| c.is_ascii_alphabetic());
    let mut others = 0;
    for label in labels {
        if label.is_empty() || label.starts_with('-') {
            return false;
        }
        others += 1;
    }
    tld_ok && others > 0
}

/// Machine senders, SSH remotes and the reserved example domains.
fn names_no_one(local: &str, domain: &str) -> bool {
    let local = local.to_ascii_lowercase();
    let domain = domain.to_ascii_lowercase();
    let tld = domain.rsplit('.').next().unwrap_or_default();
    MACHINE_LOCALS.contains(&local.as_str())
        || RESERVED_TLDS.contains(&tld)
        || EXAMPLE_DOMAINS.iter().any(|d| {
            // The domain itself, or one under it.
            domain
                .strip_suffix(d)
                .is_some_and(|sub| sub.is_empty() || sub.ends_with('.'))
        })
}

/// Where the name written before `<address>` starts (the address is
/// `text[start..end]`), if there is one: `Author: Jane Doe <…>`,
/// `authors = ["Jane Doe <…>"]`, or quoted, `"Doe, Jane" <…>`. Unquoted,
/// one to four words of letters, digits, `.`, `-`, `_` and `'`, starting
/// with a letter, after a punctuation mark, a tab or a line's start.
fn name_before(text: &str, start: usize, end: usize) -> Option<usize> {
    let b = text.as_bytes();
    if start == 0 || b[start - 1] != b'<' || b.get(end) != Some(&b'>') {
        return None;
    }
    let mut stop = start - 1;
    while stop > 0 && b[stop - 1] == b' ' {
        stop -= 1;
    }
    if stop > 0 && b[stop - 1] == b'"' {
        return quoted_name(text, stop - 1);
    }
    let floor = stop.saturating_sub(NAME_MAX);
    let mut open = text[..stop]
        .char_indices()
        .rev()
        .take_while(|&(i, c)| i >= floor && (name_char(c) || c == ' '))
        .last()
        .map_or(stop, |(i, _)| i);
    open = past_json_escape(b, open);
    while open < stop && b[open] == b' ' {
        open += 1;
    }
    let name = &text[open..stop];
    let first_letter = name.chars().next().is_some_and(char::is_alphabetic);
    (first_letter && name.split(' ').filter(|w| !w.is_empty()).count() <= NAME_WORDS)
        .then_some(open)
}

/// Where the quoted name whose closing quote is at `close` starts (its
/// opening quote), if it holds a letter and fits on a line.
fn quoted_name(text: &str, close: usize) -> Option<usize> {
    let b = text.as_bytes();
    let floor = close.saturating_sub(NAME_MAX);
    let open = memchr::memrchr(b'"', &b[floor..close])? + floor;
    let name = &text[open + 1..close];
    let one_line = !name.contains(['\n', '\\']);
    (one_line && name.chars().any(char::is_alphabetic)).then_some(open)
}

/// `at`, or one byte on when a JSON escape's `\` stands before it: the
/// `n` of `\ndana@…` or `\nJane Doe <…>` is not part of what follows.
fn past_json_escape(b: &[u8], at: usize) -> usize {
    let escaped = at >= 1 && b[at - 1] == b'\\' && matches!(b.get(at), Some(b'n' | b't' | b'r'));
    at + usize::from(escaped)
}

fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '\'')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The replaced spans of `text`, as strings.
    fn spans(text: &str) -> Vec<&str> {
        find(text).iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn addresses_are_found_where_they_stand() {
        assert_eq!(
            spans("mail dana.k+ci@acme-corp.io."),
            ["dana.k+ci@acme-corp.io"]
        );
        assert_eq!(spans("a@b.co,c@d.org"), ["a@b.co", "c@d.org"]);
        assert_eq!(spans("mailto:dana%40acme.io"), ["dana%40acme.io"]);
        assert_eq!(spans(r#"{"email":"dana@acme.io"}"#), ["dana@acme.io"]);
        assert_eq!(spans(r"line\ndana@acme.io"), ["dana@acme.io"]);
        assert_eq!(
            spans("https://dana@bitbucket.org/x"),
            ["dana@bitbucket.org"]
        );
        assert_eq!(
            spans("97425372+Jason-liu@users.noreply.github.com"),
            ["97425372+Jason-liu@users.noreply.github.com"]
        );
    }

    #[test]
    fn what_names_no_one_stays() {
        for clean in [
            "Co-Authored-By: Claude <noreply@anthropic.com>",
            "git@github.com:owner/repo.git",
            "user@example.com and ops@mail.example.org, a@b.test",
            "@types/node @angular/core pkg@1.2.3 image@sha256:ab HEAD@{1}",
            "dana@laptop:~$ ls",
            "model.@each.goalType",
            "n @ 1..=5",
            "[REDACTED:url-credentials]@db.acme.io",
        ] {
            assert_eq!(spans(clean), Vec::<&str>::new(), "{clean}");
        }
    }

    #[test]
    fn a_name_before_the_address_goes_with_it() {
        assert_eq!(
            spans("Author: Brady Holt <brady@ynab.com>\nDate: x"),
            ["Brady Holt <brady@ynab.com>"]
        );
        assert_eq!(
            spans("  23\tJane Doe <jd@acme.io>"),
            ["Jane Doe <jd@acme.io>"]
        );
        assert_eq!(
            spans(r#"authors = ["Jane O'Brien <jd@acme.io>"]"#),
            ["Jane O'Brien <jd@acme.io>"]
        );
        assert_eq!(
            spans(r#"From: "Doe, Jane" <jd@acme.io>"#),
            [r#""Doe, Jane" <jd@acme.io>"#]
        );
        assert_eq!(
            spans(r#"From: "Jane Doe" <jd@acme.io>"#),
            [r#""Jane Doe" <jd@acme.io>"#]
        );
        assert_eq!(spans(r"x\nJane <jd@acme.io>"), ["Jane <jd@acme.io>"]);
        // A sentence is not a name; the address still goes.
        assert_eq!(
            spans("please send the report to <jd@acme.io>"),
            ["jd@acme.io"]
        );
        assert_eq!(spans("= <jd@acme.io>"), ["jd@acme.io"]);
    }

    #[test]
    fn long_runs_are_bounded() {
        let run = "%40".repeat(100_000);
        assert!(find(&run).is_empty());
        let local = "a".repeat(200);
        let text = format!("{local}@acme.io");
        let f = find(&text);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].end - f[0].start, LOCAL_MAX + "@acme.io".len());
    }
}
