//! Safe, unique URL slugs. Every path segment the wiki writes comes from here,
//! so nothing derived from data can leave the output directory: a slug holds
//! only `a-z`, `0-9` and `-`, is never empty, never a reserved device name,
//! and at most [`MAX_LEN`] bytes. Nor is it `index`: a page named by its
//! slug (`skills/<slug>.html`) must not take the place of its folder's list
//! (`skills/index.html`).

// Keyed by names from the data: hashed with a seed drawn at random (not
// Fx's fixed one), so names crafted to collide cannot make lookups slow.
use foldhash::HashSet;

/// Longest slug, in bytes.
pub const MAX_LEN: usize = 64;

const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9", "static",
    "search", "index",
];

/// Slugify `text`: lowercase ASCII words joined by dashes.
pub fn slugify(text: &str) -> String {
    let mut s = slug::slugify(text);
    if s.len() > MAX_LEN {
        s.truncate(MAX_LEN);
        while s.ends_with('-') {
            s.pop();
        }
    }
    if s.is_empty() {
        s = "untitled".to_string();
    }
    if RESERVED.contains(&s.as_str()) {
        s.push_str("-page");
    }
    s
}

/// Hands out slugs unique within one folder of the site.
#[derive(Debug, Default)]
pub struct SlugSet {
    taken: HashSet<String>,
}

impl SlugSet {
    /// A unique slug for `text`, adding `-2`, `-3`… on collisions.
    pub fn claim(&mut self, text: &str) -> String {
        let base = slugify(text);
        if self.taken.insert(base.clone()) {
            return base;
        }
        for n in 2.. {
            let candidate = format!("{base}-{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
        }
        unreachable!("an unbounded counter always finds a free slug")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_stay_inside() {
        for evil in [
            "../../etc/passwd",
            "/abs/path",
            "C:\\Windows\\system32",
            "a\0b",
            "CON",
            "nul",
            "..",
            "",
            "   ",
            "<script>alert(1)</script>",
            "Index",
            &"x".repeat(500),
        ] {
            let s = slugify(evil);
            assert!(!s.is_empty());
            assert!(s.len() <= MAX_LEN);
            assert!(
                s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{s}"
            );
            assert!(!RESERVED.contains(&s.as_str()), "{s}");
            assert_ne!(s, "..");
        }
    }

    #[test]
    fn case_only_differences_get_distinct_slugs() {
        let mut set = SlugSet::default();
        assert_eq!(set.claim("Readme"), "readme");
        assert_eq!(set.claim("README"), "readme-2");
        assert_eq!(set.claim("readme"), "readme-3");
    }
}
