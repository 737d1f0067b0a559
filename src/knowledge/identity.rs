//! Who owns the data: the home directories and user names to hide, learned
//! from all the evidence before a single text is redacted.
//!
//! Evidence, strongest first: the `cwd` of transcripts (read from the first
//! lines of each file), `sessions/*.json`, the `project` of history lines,
//! and the project folder names (`-home-dana-code`, `C--Users-Dana-x`,
//! which are all a user has when only memory files are left). A folder name
//! that a known home explains adds nothing; one that none explains gives
//! the name after `home`/`Users`. The owner's real name is the display
//! name of the account in Claude Code's settings file (see
//! [`crate::source::account`]).

use crate::knowledge::redact::Redactor;
use crate::source::discover::{Root, TranscriptFile};
use crate::source::history::RawStart;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::io::Read;

/// How much of each transcript is searched for `cwd` values.
const HEAD_BYTES: u64 = 64 << 10;

/// The owner's home directories (as spelled in the data) and real names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    pub homes: BTreeSet<String>,
    /// The display names of the accounts that wrote the data (see
    /// [`crate::source::account`]).
    pub names: BTreeSet<String>,
}

impl Identity {
    /// Learn from every root, the projects the history names and the
    /// session metadata already read.
    pub fn learn<'a>(
        roots: &[Root],
        projects: impl Iterator<Item = &'a str>,
        starts: &[RawStart],
    ) -> Identity {
        // Homes gathered on the reading threads: a list of every file's
        // `cwd` values, made there, raised the build's peak by 10 MB for
        // 100,000 files.
        let mut id = crate::base::io::many_reads(|| {
            roots
                .par_iter()
                .flat_map(|r| r.transcripts.par_iter())
                .fold(Identity::default, |mut id, t| {
                    for cwd in cwds_in_head(t) {
                        id.add_path(&cwd);
                    }
                    id
                })
                .reduce(Identity::default, |mut a, b| {
                    a.homes.extend(b.homes);
                    a
                })
        });
        for p in starts.iter().filter_map(|s| s.cwd.as_deref()) {
            id.add_path(p);
        }
        for p in projects {
            id.add_path(p);
        }
        let folders: BTreeSet<&str> = roots
            .iter()
            .flat_map(|r| {
                r.transcripts
                    .iter()
                    .map(|t| t.project_dir.as_str())
                    .chain(r.memory_dirs.iter().map(|m| m.project_dir.as_str()))
            })
            .collect();
        for f in folders {
            id.add_folder(f);
        }
        id
    }

    /// A path the owner worked in.
    pub fn add_path(&mut self, path: &str) {
        if let Some((home, _)) = Redactor::home_of(path) {
            self.homes.insert(home);
        }
    }

    /// A project folder name, when no known home explains it.
    pub fn add_folder(&mut self, folder: &str) {
        let explained = self.homes.iter().any(|h| {
            let dashed = crate::source::discover::folder_name(h);
            folder
                .get(..dashed.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(&dashed))
                && folder[dashed.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c == '-')
        });
        if explained {
            return;
        }
        if let Some(home) = home_of_folder(folder) {
            self.homes.insert(home);
        }
    }
}

/// The home a dashed folder name starts with, as a path: `-home-dana-x` is
/// `/home/dana`, `-Users-dana-x` `/Users/dana`, `C--Users-Dana-x`
/// `C:\Users\Dana`, `-var-home-dana` `/var/home/dana`.
fn home_of_folder(folder: &str) -> Option<String> {
    let parts: Vec<&str> = folder.split('-').collect();
    let name_after = |i: usize| parts.get(i).filter(|n| !n.is_empty()).copied();
    match parts.as_slice() {
        ["", "home", ..] => name_after(2).map(|n| format!("/home/{n}")),
        ["", "Users", ..] => name_after(2).map(|n| format!("/Users/{n}")),
        ["", "var", "home", ..] => name_after(3).map(|n| format!("/var/home/{n}")),
        ["", "root", ..] => Some("/root".to_string()),
        [drive, "", users, ..] if drive.len() == 1 && users.eq_ignore_ascii_case("users") => {
            name_after(3).map(|n| format!("{}:\\Users\\{n}", drive.to_ascii_uppercase()))
        }
        _ => None,
    }
}

/// The `cwd` values in the first lines of a transcript; notes the hash of
/// its first bytes on the way (see [`TranscriptFile::head`]).
fn cwds_in_head(t: &TranscriptFile) -> Vec<String> {
    thread_local! {
        /// Each reading thread's buffer, kept from one file to the next: a
        /// new one for each file cost a page fault and a page zeroed every
        /// 4 KB (the phase took a fifth longer).
        static HEAD: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    HEAD.with_borrow_mut(|head| {
        head.clear();
        // Room for the whole head at once: grown from nothing, it took
        // seven reads of a file of 700 bytes.
        head.reserve(t.size.min(HEAD_BYTES) as usize + 1);
        let read = std::fs::File::open(&t.path).and_then(|f| f.take(HEAD_BYTES).read_to_end(head));
        match read {
            Ok(_) => cwds_of(head, t),
            Err(_) => Vec::new(),
        }
    })
}

/// The `cwd` values in `head`, the first bytes of `t`; notes the hash of
/// its first bytes on the way.
fn cwds_of(head: &[u8], t: &TranscriptFile) -> Vec<String> {
    let hashed = usize::try_from(t.size.min(crate::source::discover::HEAD_HASHED)).unwrap_or(0);
    if let Some(first) = head.get(..hashed) {
        let _ = t.head.set(crate::base::hash::hash_bytes(first));
    }
    let mut out: Vec<String> = Vec::new();
    for at in memchr::memmem::find_iter(head, b"\"cwd\"") {
        let rest = &head[at + 5..];
        let start = rest
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b':'))
            .unwrap_or(rest.len());
        let mut de = serde_json::Deserializer::from_slice(&rest[start..]);
        if let Ok(cwd) = <String as serde::Deserialize>::deserialize(&mut de) {
            if !out.contains(&cwd) {
                out.push(cwd);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learning_notes_each_transcripts_first_bytes_for_the_cache() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("projects/-home-dana-p");
        std::fs::create_dir_all(&folder).expect("folder");
        let long = format!(
            "{{\"cwd\":\"/home/dana/p\",\"x\":\"{}\"}}\n",
            "y".repeat(9000)
        );
        std::fs::write(folder.join("a.jsonl"), &long).expect("write");
        std::fs::write(folder.join("b.jsonl"), "{\"cwd\":\"/home/dana/p\"}\n").expect("write");
        let roots = crate::source::discover::discover(&[dir.path().to_path_buf()])
            .expect("discover")
            .roots;
        assert!(roots[0].transcripts.iter().all(|t| t.head.get().is_none()));
        let id = Identity::learn(&roots, std::iter::empty(), &[]);
        assert!(id.homes.contains("/home/dana"));
        for t in &roots[0].transcripts {
            let bytes = std::fs::read(&t.path).expect("read");
            let first = &bytes[..bytes
                .len()
                .min(crate::source::discover::HEAD_HASHED as usize)];
            assert_eq!(t.head.get(), Some(&crate::base::hash::hash_bytes(first)));
        }
    }

    #[test]
    fn folders_give_homes_only_when_nothing_explains_them() {
        let mut id = Identity::default();
        id.add_path("/home/dana.smith/code/x");
        id.add_folder("-home-dana-smith-code-x");
        assert_eq!(id.homes.len(), 1, "{:?}", id.homes);
        id.add_folder("-Users-eve-work");
        id.add_folder("C--Users-Zoe-proj");
        id.add_folder("-tmp-x");
        let homes: Vec<&str> = id.homes.iter().map(String::as_str).collect();
        assert_eq!(homes, ["/Users/eve", "/home/dana.smith", "C:\\Users\\Zoe"]);
    }
}
