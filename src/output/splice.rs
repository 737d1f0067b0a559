//! HTML made apart from a page's template, put in its place afterwards.
//!
//! A page's largest parts (a session's turns, a file's diffs) cost most
//! when they go through Tera: made a template value, then copied out by
//! `safe`. The page's view holds a [`marker`] in their place instead, the
//! template runs, and [`splice`] puts each part where its marker came out.
//!
//! Parts made apart must be what the templates would make of them: that
//! holds only while the templates that show them are the built-in ones
//! ([`shows_as_built_in`]).

/// Whether each template of `names` resolves to its built-in text:
/// `resolved` gives the text a template name resolves to, and `built_in`
/// the built-in text.
pub fn shows_as_built_in<'r, 'b>(
    names: &[&str],
    resolved: impl Fn(&str) -> Option<&'r str>,
    built_in: impl Fn(&str) -> Option<&'b str>,
) -> bool {
    (names.iter()).all(|name| resolved(name).is_some_and(|text| Some(text) == built_in(name)))
}

/// The text standing in a page's template output for its `i`th part: an
/// HTML comment no content makes (text is escaped) and no theme can know
/// (a number drawn once a run).
pub fn marker(i: usize) -> String {
    format!("{}{i}-->", marker_prefix())
}

/// What every marker starts with.
pub(crate) fn marker_prefix() -> &'static str {
    static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PREFIX.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let drawn = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        format!("<!--ccwiki part {drawn:016x} ")
    })
}

/// `page` (its template's output) with the marker of each of its `count`
/// parts replaced by `part(i)`: the pieces the page is made of, in order,
/// for the caller to write as they lie (a page's turns copied into one
/// buffer with its template's output were copied once more for nothing).
/// None unless each marker is in `page` once (text in a theme could name
/// one: no marker can be told from its copy then). One pass over `page`,
/// however many parts: a page can hold thousands.
pub fn splice<'a, 'p: 'a>(
    page: &'a [u8],
    count: usize,
    part: impl Fn(usize) -> &'p str,
) -> Option<Vec<&'a [u8]>> {
    let prefix = marker_prefix();
    let mut at = Vec::with_capacity(count);
    let mut seen = vec![false; count];
    for start in memchr::memmem::find_iter(page, prefix.as_bytes()) {
        let rest = &page[start + prefix.len()..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        // Only a number as `marker` writes it: no leading zero.
        let written = digits == 1 || rest.first().is_some_and(|&b| b != b'0');
        let number = std::str::from_utf8(&rest[..digits])
            .ok()
            .filter(|_| written);
        let i = number.and_then(|n| n.parse::<usize>().ok());
        let i = i.filter(|&i| {
            rest[digits..].starts_with(b"-->") && !seen.get(i).copied().unwrap_or(true)
        })?;
        seen[i] = true;
        at.push((start, start + prefix.len() + digits + 3, i));
    }
    if at.len() != count {
        return None;
    }
    let mut pieces = Vec::with_capacity(2 * count + 1);
    let mut from = 0;
    for (start, end, i) in at {
        pieces.push(&page[from..start]);
        pieces.push(part(i).as_bytes());
        from = end;
    }
    pieces.push(&page[from..]);
    Some(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_built_in_templates_are_stood_in_for() {
        let built_in = crate::output::render::builtin;
        for names in [
            &crate::output::turns::STOOD_IN_FOR[..],
            &crate::output::timeline::DAYS_STOOD_IN_FOR[..],
            &crate::output::render::DIFFS_SPLICED_IN[..],
            &crate::output::pages::SESSION_STOOD_IN_FOR[..],
            &crate::output::pages::FILE_STOOD_IN_FOR[..],
        ] {
            assert!(shows_as_built_in(names, built_in, built_in), "{names:?}");
            for changed in names {
                let resolved = |name: &str| match name == *changed {
                    true => Some("{{ turns }}"),
                    false => built_in(name),
                };
                assert!(!shows_as_built_in(names, resolved, built_in), "{changed}");
            }
            assert!(!shows_as_built_in(names, |_| None, |_| None));
        }
    }
}
