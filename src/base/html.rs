//! HTML escaping of text shown between tags.

/// Append `text` to `out` as HTML body text: `&`, `<` and `>` escaped.
///
/// Quotes need escaping only inside attribute values, so they stay as
/// they are: a tool's output is full of them, and `&quot;` was six bytes
/// (and a stop of the escaping loop) for each. Never use this for an
/// attribute's value. The scan is memchr's, which skips the long runs
/// with nothing to escape that tool output and code are made of.
pub fn escape_text(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut done = 0;
    for at in memchr::memchr3_iter(b'&', b'<', b'>', bytes) {
        out.push_str(&text[done..at]);
        out.push_str(match bytes[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            _ => "&gt;",
        });
        done = at + 1;
    }
    out.push_str(&text[done..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn escaped(text: &str) -> String {
        let mut out = String::from("kept ");
        escape_text(&mut out, text);
        out
    }

    #[test]
    fn markup_characters_are_escaped_and_quotes_kept() {
        assert_eq!(escaped(""), "kept ");
        assert_eq!(
            escaped(r#"a < b && c > "d" 'e'"#),
            r#"kept a &lt; b &amp;&amp; c &gt; "d" 'e'"#
        );
        assert_eq!(escaped("<<>>&"), "kept &lt;&lt;&gt;&gt;&amp;");
        assert_eq!(escaped("é<ü>"), "kept é&lt;ü&gt;");
    }

    proptest! {
        /// Read back as an HTML parser reads text, the output is the input.
        #[test]
        fn escaped_text_reads_back_as_itself(text in "[a-z<>&\"' é\n]{0,200}") {
            let out = escaped(&text);
            let body = out.strip_prefix("kept ").unwrap_or_default();
            prop_assert!(!body.contains('<') && !body.contains('>'));
            let back = body.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
            prop_assert_eq!(back, text);
        }
    }
}
