//! `ccwiki archive`: what the archive holds, whether it is whole, and the
//! files it keeps written back.

use crate::base::error::Error;
use crate::source::archive::{is_session, live_files, source_label, Archive};
use crate::source::discover;
use chrono::{DateTime, Utc};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What `ccwiki archive status` prints.
#[derive(Debug, Default)]
pub struct Status {
    pub dir: PathBuf,
    /// Files kept, and the versions of them.
    pub files: usize,
    pub versions: usize,
    pub sessions: usize,
    /// Bytes of the files as they were, and on disk in the archive.
    pub raw_bytes: u64,
    pub stored_bytes: u64,
    /// When the oldest and the newest session was last written.
    pub oldest: Option<DateTime<Utc>>,
    pub newest: Option<DateTime<Utc>>,
    /// Sessions the sources no longer have (None: the sources could not
    /// be read).
    pub only_in_archive: Option<usize>,
}

fn time(nanos: i64) -> Option<DateTime<Utc>> {
    Some(DateTime::from_timestamp_nanos(nanos))
}

/// The archive in `dir`, compared with the data in `sources`.
pub fn status(dir: &Path, sources: &[PathBuf]) -> Result<Status, Error> {
    let archive = Archive::open_existing(dir)?;
    let mut status = Status {
        dir: dir.to_path_buf(),
        stored_bytes: archive.stored_bytes(),
        ..Status::default()
    };
    let mut times = Vec::new();
    for ((_, name), versions) in archive.files() {
        status.files += 1;
        status.versions += versions.len();
        status.raw_bytes += versions.iter().map(|v| v.len).sum::<u64>();
        if is_session(name) {
            status.sessions += 1;
            times.extend(versions.iter().map(|v| v.mtime));
        }
    }
    status.oldest = times.iter().min().and_then(|t| time(*t));
    status.newest = times.iter().max().and_then(|t| time(*t));
    status.only_in_archive = discover::discover(sources).ok().map(|mut found| {
        let live: HashSet<String> = found
            .roots
            .iter_mut()
            .flat_map(live_files)
            .map(|f| f.name)
            .collect();
        let labels = found
            .roots
            .iter()
            .map(|r| source_label(&r.source))
            .collect();
        archive
            .files_of(&labels)
            .keys()
            .filter(|n| is_session(n) && !live.contains(**n))
            .count()
    });
    Ok(status)
}

impl Status {
    /// The status as `ccwiki archive status` prints it.
    pub fn describe(&self) -> String {
        let day = |t: Option<DateTime<Utc>>| {
            t.map_or("-".to_string(), |t| t.format("%Y-%m-%d").to_string())
        };
        let mut s = format!(
            "archive {}\n  {} files ({} versions), {} sessions\n  {:.1} MB as they were, {:.1} MB stored\n  sessions from {} to {}\n",
            self.dir.display(),
            self.files,
            self.versions,
            self.sessions,
            self.raw_bytes as f64 / 1e6,
            self.stored_bytes as f64 / 1e6,
            day(self.oldest),
            day(self.newest),
        );
        match self.only_in_archive {
            Some(n) => s.push_str(&format!(
                "  {n} sessions only in the archive (deleted from the sources)\n"
            )),
            None => s.push_str(
                "  the sources could not be read: sessions only in the archive unknown\n",
            ),
        }
        s
    }
}

/// What `ccwiki archive verify` prints after the damaged objects.
pub fn describe_verified(v: &crate::source::archive::Verified) -> String {
    let mut s = format!(
        "{} objects checked, {} damaged or missing\n",
        v.objects,
        v.damaged.len()
    );
    if v.bad_journal_lines > 0 {
        s.push_str(&format!(
            "  {} journal lines could not be read (a build stopped while writing one); their files are kept again at the next build\n",
            v.bad_journal_lines
        ));
    }
    if v.unreferenced > 0 {
        s.push_str(&format!(
            "  {} objects no file refers to (a build stopped before recording them): harmless\n",
            v.unreferenced
        ));
    }
    if v.rebuilt {
        s.push_str("  the journal was lost and has been rebuilt from the objects\n");
    }
    s
}
