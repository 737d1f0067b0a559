//! Hashes that are the same on every run and every machine (XXH3): cache
//! keys, page fingerprints, content comparison.

/// A hash of bytes.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// A hasher for [`std::hash::Hash`] values.
pub fn hasher() -> impl std::hash::Hasher {
    xxhash_rust::xxh3::Xxh3Default::new()
}
