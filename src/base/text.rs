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

/// The first 8 characters of an id, for display.
pub fn short_id(id: &str) -> &str {
    match id.char_indices().nth(8) {
        Some((i, _)) => &id[..i],
        None => id,
    }
}

/// Collapse whitespace to single spaces and cut at `max` characters with an ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 3));
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

/// JSON made safe to sit inside a `<script>` or a `.js` file: `<`, `>`,
/// `&`, U+2028 and U+2029 written as `\u` escapes. These characters only
/// ever occur inside JSON strings, where the escape means the same.
pub fn json_for_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_has_no_markup() {
        let raw = serde_json::to_string(&"<script>alert(1)</script> & \u{2028}").unwrap();
        let safe = json_for_script(&raw);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        assert!(!safe.contains('\u{2028}'));
        let back: String = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, "<script>alert(1)</script> & \u{2028}");
    }
}
