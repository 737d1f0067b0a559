//! Hashes that are the same on every run and every machine (XXH3): cache
//! keys, page fingerprints, content comparison.

/// A hash of bytes.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// [`hash_bytes`] of `parts` one after another, without joining them.
pub fn hash_parts(parts: &[&[u8]]) -> u64 {
    match parts {
        [one] => hash_bytes(one),
        _ => {
            let mut h = xxhash_rust::xxh3::Xxh3Default::new();
            for part in parts {
                h.update(part);
            }
            h.digest()
        }
    }
}

/// A hash of a path, as the caches key files by it. A path that is not
/// UTF-8 is hashed as its lossy text: two such paths that read alike have
/// one key, as a collision would.
pub fn path_key(path: &std::path::Path) -> u64 {
    hash_bytes(path.to_string_lossy().as_bytes())
}

/// A hasher for [`std::hash::Hash`] values.
pub fn hasher() -> impl std::hash::Hasher {
    xxhash_rust::xxh3::Xxh3Default::new()
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// Bytes cut anywhere into parts hash as they do whole.
        #[test]
        fn parts_hash_as_the_bytes_they_make(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..2000),
            cuts in proptest::collection::vec(0usize..2000, 0..6),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut parts = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                parts.push(&bytes[from..cut]);
                from = cut;
            }
            proptest::prop_assert_eq!(super::hash_parts(&parts), super::hash_bytes(&bytes));
        }
    }
}
