//! Writing JSON lines by hand, byte by byte, and where they go.

use super::*;

pub(crate) fn pad(l: &mut Vec<u8>, n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = 20;
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    while 20 - i < width {
        i -= 1;
        buf[i] = b'0';
    }
    l.extend_from_slice(&buf[i..]);
}

pub(crate) fn num(l: &mut Vec<u8>, n: u64) {
    pad(l, n, 1);
}

/// Append `s` escaped as the inside of a JSON string.
pub(crate) fn esc(l: &mut Vec<u8>, s: &[u8]) {
    let mut start = 0;
    for (i, &c) in s.iter().enumerate() {
        let rep: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        l.extend_from_slice(&s[start..i]);
        if rep.is_empty() {
            l.extend_from_slice(b"\\u00");
            l.push(HEX[(c >> 4) as usize]);
            l.push(HEX[(c & 15) as usize]);
        } else {
            l.extend_from_slice(rep);
        }
        start = i + 1;
    }
    l.extend_from_slice(&s[start..]);
}

/// Append `s` as a quoted JSON string.
pub(crate) fn q(l: &mut Vec<u8>, s: &str) {
    l.push(b'"');
    esc(l, s.as_bytes());
    l.push(b'"');
}

/// Append already-escaped bytes as a quoted JSON string.
pub(crate) fn qe(l: &mut Vec<u8>, escaped: &[u8]) {
    l.push(b'"');
    l.extend_from_slice(escaped);
    l.push(b'"');
}

pub(crate) trait Ext {
    fn s<T: AsRef<str> + ?Sized>(&mut self, s: &T) -> &mut Self;
}

impl Ext for Vec<u8> {
    fn s<T: AsRef<str> + ?Sized>(&mut self, s: &T) -> &mut Self {
        self.extend_from_slice(s.as_ref().as_bytes());
        self
    }
}

// ---------------------------------------------------------------- output

/// A buffered file that counts what it wrote.
pub(crate) struct Out {
    pub(crate) w: BufWriter<File>,
    pub(crate) n: u64,
    pub(crate) path: PathBuf,
}

impl Out {
    pub(crate) fn create(path: &Path) -> Res<Out> {
        let f = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Out {
            w: BufWriter::with_capacity(1 << 20, f),
            n: 0,
            path: path.to_path_buf(),
        })
    }
    pub(crate) fn b(&mut self, bytes: &[u8]) -> Res<()> {
        self.n += bytes.len() as u64;
        self.w
            .write_all(bytes)
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()).into())
    }
    pub(crate) fn finish(self) -> Res<u64> {
        let (n, path) = (self.n, self.path.clone());
        let f = self
            .w
            .into_inner()
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        drop(f);
        Ok(n)
    }
}

pub(crate) const KINDS: [&str; 12] = [
    "assistant",
    "user",
    "progress",
    "queue-operation",
    "attachment",
    "file-history-snapshot",
    "system",
    "last-prompt",
    "ai-title",
    "summary",
    "custom-title",
    "permission-mode",
];
pub(crate) const K_ASSISTANT: usize = 0;
pub(crate) const K_USER: usize = 1;
pub(crate) const K_PROGRESS: usize = 2;
pub(crate) const K_QUEUE: usize = 3;
pub(crate) const K_ATTACHMENT: usize = 4;
pub(crate) const K_SNAPSHOT: usize = 5;
pub(crate) const K_SYSTEM: usize = 6;
pub(crate) const K_LAST_PROMPT: usize = 7;
pub(crate) const K_AI_TITLE: usize = 8;
pub(crate) const K_SUMMARY: usize = 9;
pub(crate) const K_CUSTOM_TITLE: usize = 10;
pub(crate) const K_PERMISSION: usize = 11;

#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) files: u64,
    pub(crate) bytes: u64,
    pub(crate) lines: u64,
    pub(crate) kinds: [u64; KINDS.len()],
    pub(crate) sessions: u64,
    pub(crate) subagents: u64,
}

impl Stats {
    pub(crate) fn file(&mut self, bytes: u64) {
        self.files += 1;
        self.bytes += bytes;
    }
}

pub(crate) fn write_file(stats: &mut Stats, path: &Path, bytes: &[u8]) -> Res<()> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    stats.file(bytes.len() as u64);
    Ok(())
}

pub(crate) fn mkdir(path: &Path) -> Res<()> {
    fs::create_dir_all(path).map_err(|e| format!("cannot create {}: {e}", path.display()).into())
}
