//! Hashes that are the same on every run and every machine (XXH3): cache
//! keys, page fingerprints, checksums of what is stored.

/// A hash of bytes.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
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
