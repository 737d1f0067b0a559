//! A hash of a page's context, to tell whether the page can be kept from
//! the previous build.
//!
//! The context is encoded the way the cache is (postcard: strings and
//! sequences carry their length, options and enums a tag) straight into
//! the hasher, through a buffer: no JSON, no string escaping, nothing held.
//! For one view type the encoding is unambiguous, so equal hashes mean
//! equal contexts, as long as views never skip a field when serialising
//! (none does: a skipped field could be mistaken for the next one).

use serde::Serialize;
use std::hash::Hasher;
use std::io::Write;

/// Hands whole blocks to the hasher: streaming hashers are slow one byte
/// at a time.
struct HashWriter<'h, H: Hasher>(&'h mut H);

impl<H: Hasher> Write for HashWriter<'_, H> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Hash `value` into `hasher`; false when it cannot be encoded.
pub fn hash_into<T: Serialize + ?Sized>(value: &T, hasher: &mut impl Hasher) -> bool {
    let mut buffered = std::io::BufWriter::with_capacity(8 << 10, HashWriter(hasher));
    postcard::to_io(value, &mut buffered).is_ok() && buffered.flush().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn fp<T: Serialize>(v: &T) -> u64 {
        let mut h = DefaultHasher::new();
        assert!(hash_into(v, &mut h));
        h.finish()
    }

    #[derive(Serialize, Clone)]
    struct Page<'a> {
        title: &'a str,
        time: Option<&'a str>,
        text: &'a str,
        tags: Vec<&'a str>,
    }

    #[test]
    fn equal_values_hash_equal_and_any_change_shows() {
        let base = Page {
            title: "a",
            time: None,
            text: "b",
            tags: vec!["x", "y"],
        };
        assert_eq!(fp(&base), fp(&base.clone()));
        let variants = [
            Page {
                title: "b",
                ..base.clone()
            },
            Page {
                time: Some("a"),
                title: "",
                ..base.clone()
            },
            Page {
                text: "",
                tags: vec!["b", "x", "y"],
                ..base.clone()
            },
            Page {
                tags: vec!["xy"],
                ..base.clone()
            },
            Page {
                tags: vec!["x", "y", ""],
                ..base.clone()
            },
            Page {
                title: "ab",
                text: "",
                ..base.clone()
            },
        ];
        let mut seen = vec![fp(&base)];
        for v in &variants {
            let h = fp(v);
            assert!(!seen.contains(&h), "collision");
            seen.push(h);
        }
        // Options, strings and sequences do not run into one another.
        assert_ne!(fp(&(None::<&str>, "a")), fp(&(Some(""), "a")));
        assert_ne!(
            fp(&(vec!["a"], vec!["b"])),
            fp(&(vec!["a", "b"], Vec::<&str>::new()))
        );
        // Long values pass through the buffer whole.
        let long = "z".repeat(100_000);
        assert_ne!(fp(&(long.as_str(), 1)), fp(&(long.as_str(), 2)));
    }
}
