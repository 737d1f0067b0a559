//! What ccwiki keeps between builds (the transcript cache, the page
//! manifest, spilled turns): one compact binary encoding (postcard), and
//! one way to replace such a file whole.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde::Serialize;
use std::path::Path;

/// `value`, encoded, sealed with a checksum of the encoding (what is kept
/// between builds can be torn or corrupted on disk).
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, postcard::Error> {
    let mut bytes = postcard::to_stdvec(value)?;
    seal(&mut bytes);
    Ok(bytes)
}

/// Seal `bytes`, an encoding made piece by piece with [`encode_into`], as
/// [`encode`] seals its own.
pub fn seal(bytes: &mut Vec<u8>) {
    let sum = crate::base::hash::hash_bytes(bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
}

/// [`encode`] `value` straight into `w`, never holding the encoding whole
/// (a reader state of a 1 GB session is tens of MB); the number of bytes
/// written. Same bytes as [`encode`].
pub fn encode_to<T: Serialize, W: std::io::Write>(value: &T, w: W) -> std::io::Result<u64> {
    let mut sealing = Sealing {
        inner: w,
        sum: xxhash_rust::xxh3::Xxh3Default::new(),
        len: 0,
    };
    // Postcard writes field by field: buffered first, the seal hashes
    // blocks, not a few bytes at a time (a tenth of a cache's writing).
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut sealing);
    postcard::to_io(value, &mut buffered).map_err(std::io::Error::other)?;
    std::io::Write::flush(&mut buffered)?;
    drop(buffered);
    let sum = sealing.sum.digest().to_le_bytes();
    sealing.inner.write_all(&sum)?;
    Ok(sealing.len + sum.len() as u64)
}

/// A writer that hashes and counts what goes through it.
struct Sealing<W> {
    inner: W,
    sum: xxhash_rust::xxh3::Xxh3Default,
    len: u64,
}

impl<W: std::io::Write> std::io::Write for Sealing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sum.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Append `value`, encoded (unsealed: for a file that lives only as long
/// as the build), to `buf`.
pub fn encode_into<T: Serialize>(value: &T, buf: &mut Vec<u8>) -> Result<(), postcard::Error> {
    // Through `io::Write`, which copies a string's bytes at once, not
    // through `Extend`, which pushed them one at a time (every turn's text
    // is encoded on its way to the spill).
    postcard::to_io(value, buf).map(drop)
}

/// A value decoded from all of `bytes`, as [`encode`] sealed it; None for
/// bytes that do not hold one (a file of an older version, a torn write, a
/// flipped bit).
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    let sum = u64::from_le_bytes(sum.try_into().ok()?);
    if crate::base::hash::hash_bytes(body) != sum {
        return None;
    }
    postcard::from_bytes(body).ok()
}

/// The value at the start of `bytes`, and how many bytes it took; it may
/// borrow from them.
pub fn decode_prefix<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
) -> Result<(T, usize), postcard::Error> {
    let (value, rest) = postcard::take_from_bytes(bytes)?;
    Ok((value, bytes.len() - rest.len()))
}

/// The value kept in `path`, if it holds one.
pub fn read<T: DeserializeOwned>(path: &Path) -> Option<T> {
    decode(&std::fs::read(path).ok()?)
}

/// The file `name` in the cache folder of output directory `out` (under
/// `root`, else the user's cache directory), and the value it holds if
/// `fits` accepts it (the same format, version and rules); None when there
/// is no cache folder at all.
pub fn open_site_file<T: DeserializeOwned>(
    out: &Path,
    root: Option<&Path>,
    name: &str,
    fits: impl FnOnce(&T) -> bool,
) -> Option<(std::path::PathBuf, Option<T>)> {
    let path = crate::base::dirs::site_cache_dir(out, root)?.join(name);
    let value = read::<T>(&path).filter(fits);
    Some((path, value))
}

/// Replace `path` with `bytes` whole: written beside it, then renamed, so a
/// reader sees the old file or the new one, never half of one. Returns
/// whether it worked; the caller decides what failure costs.
pub fn replace(path: &Path, bytes: &[u8]) -> bool {
    replace_by(path, |w| std::io::Write::write_all(w, bytes))
}

/// [`replace`] `path` with `value` sealed as [`encode`] seals it, encoded
/// straight into the file: the cache's index of a hundred thousand files,
/// held encoded as well, was the peak of such a build.
pub fn replace_with<T: Serialize>(path: &Path, value: &T) -> bool {
    replace_by(path, |w| encode_to(value, w).map(|_| ()))
}

fn replace_by(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> bool {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        if std::fs::create_dir_all(dir).is_err() {
            return false;
        }
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|f| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
        write(&mut w)?;
        w.flush()
    });
    if written.is_ok() && std::fs::rename(&tmp, path).is_ok() {
        return true;
    }
    let _ = std::fs::remove_file(&tmp);
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_round_and_prefixes_say_their_length() {
        let mut buf = Vec::new();
        encode_into(&("a".to_string(), 7u64), &mut buf).unwrap();
        let first = buf.len();
        encode_into(&("bc".to_string(), 8u64), &mut buf).unwrap();
        let (v, used): ((String, u64), usize) = decode_prefix(&buf).unwrap();
        assert_eq!((v, used), (("a".to_string(), 7), first));
        let (v, _): ((String, u64), usize) = decode_prefix(&buf[used..]).unwrap();
        assert_eq!(v, ("bc".to_string(), 8));
        assert_eq!(decode::<(String, u64)>(&[0xff, 0xff]), None);
        // A flipped bit anywhere is caught by the seal.
        let sealed = encode(&("abc".to_string(), 5u64)).unwrap();
        assert_eq!(decode(&sealed), Some(("abc".to_string(), 5u64)));
        for i in 0..sealed.len() {
            let mut bad = sealed.clone();
            bad[i] ^= 0x10;
            assert_eq!(decode::<(String, u64)>(&bad), None, "flip at {i}");
        }
    }

    proptest::proptest! {
        #[test]
        fn streaming_seals_the_same_bytes(value: Vec<(String, u64, Option<bool>)>) {
            let mut streamed = Vec::new();
            let len = encode_to(&value, &mut streamed).unwrap();
            proptest::prop_assert_eq!(len, streamed.len() as u64);
            proptest::prop_assert_eq!(&streamed, &encode(&value).unwrap());
        }

        /// Appended after what a buffer holds, a value's bytes are
        /// postcard's, and what was there stays.
        #[test]
        fn appending_adds_postcards_bytes(before: Vec<u8>, value: Vec<(String, u64, Option<bool>)>) {
            let mut buf = before.clone();
            encode_into(&value, &mut buf).unwrap();
            let mut expected = before;
            expected.extend_from_slice(&postcard::to_stdvec(&value).unwrap());
            proptest::prop_assert_eq!(buf, expected);
        }
    }

    #[test]
    fn replace_swaps_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/x.bin");
        assert!(replace(&path, &encode(&vec![1u32, 2, 3]).unwrap()));
        assert_eq!(read::<Vec<u32>>(&path), Some(vec![1, 2, 3]));
        assert!(replace(&path, &encode(&vec![4u32]).unwrap()));
        assert_eq!(read::<Vec<u32>>(&path), Some(vec![4]));
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }
}
