//! One way from data directories to [`Knowledge`], for every command:
//! discover the files, read what identifies the owner, build the redactor,
//! triage the memories, extract the transcripts (through the cache), read
//! history and session metadata, leave out what `exclude` says. Config
//! merging happens before (the caller fills [`Pipeline`]); privacy and
//! redaction happen here, once.

use crate::base::error::Error;
use crate::base::progress::Progress;
use crate::base::skip::Skip;
use crate::knowledge::cache::{Cache, CacheStats};
use crate::knowledge::exclude::Excluder;
use crate::knowledge::identity::Identity;
use crate::knowledge::model::{HistoryEntry, Knowledge, SessionStart};
use crate::knowledge::redact::{Owner, PatternError, Prepared, RedactConfig, Redactor, Tally};
use crate::knowledge::spill::Spill;
use crate::knowledge::{extract, history, triage};
use crate::source::archive::Archive;
use crate::source::{discover, history as source_history};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn pattern_error(e: crate::knowledge::redact::PatternError) -> Error {
    Error::Pattern {
        kind: e.kind,
        message: e.message,
    }
}

/// What to load, and how.
#[derive(Debug, Clone, Default)]
pub struct Pipeline {
    /// Data roots to read (`~/.claude`, …).
    pub sources: Vec<PathBuf>,
    /// Scrub credentials, home paths and user names (on by default).
    pub redact: bool,
    /// Extra redaction patterns: (kind, regex).
    pub extra_patterns: Vec<(String, String)>,
    /// Project globs to leave out entirely.
    pub exclude: Vec<String>,
    /// Keep an incremental cache, keyed by this output directory.
    pub cache_for: Option<PathBuf>,
    /// Where the cache and the temporary turns go; None: the user's cache
    /// directory (see [`crate::base::dirs::cache_root`]).
    pub cache_dir: Option<PathBuf>,
    /// Other paths of a project and the path they stand for (`[aliases]`).
    pub aliases: Vec<(String, String)>,
    /// The archive to keep every source file in and read deleted ones
    /// from; None: no archive.
    pub archive: Option<PathBuf>,
    /// Prices over the built-in table (`[prices]`), by model name prefix.
    pub prices: Vec<(String, crate::config::Price)>,
    /// Where to report progress.
    pub progress: Progress,
}

/// What the archive did in a build.
#[derive(Debug, Default, Clone)]
pub struct ArchiveReport {
    pub dir: PathBuf,
    /// Files new to the archive (or grown), and their bytes.
    pub new_files: usize,
    pub bytes_read: u64,
    /// Sessions only the archive still has.
    pub archive_only_sessions: usize,
    /// Files merged from copies that differ.
    pub merged: usize,
}

/// What loading found worth reporting.
#[derive(Debug, Default)]
pub struct LoadReport {
    pub skips: Vec<Skip>,
    /// Transcript lines read.
    pub lines: u64,
    pub transcript_bytes: u64,
    pub cache: CacheStats,
    /// How the cache served the history's prompts.
    pub prompts: history::PromptStats,
    /// Sessions and memories left out by `exclude`.
    pub excluded: usize,
    /// Replacements made by redaction, by kind.
    pub redactions: BTreeMap<String, u64>,
    /// Wall time per phase, in order.
    pub timings: Vec<(&'static str, Duration)>,
    /// The data roots read, as the user would name them.
    pub roots: Vec<PathBuf>,
    /// How the sources were read, worth a line in the summary.
    pub notes: Vec<String>,
    /// What the archive did, when there is one.
    pub archive: Option<ArchiveReport>,
}

fn timed<T>(report: &mut LoadReport, phase: &'static str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    report.timings.push((phase, start.elapsed()));
    out
}

impl Pipeline {
    /// Settings with the defaults for everything but the sources.
    pub fn new(sources: Vec<PathBuf>) -> Pipeline {
        Pipeline {
            sources,
            redact: true,
            ..Pipeline::default()
        }
    }

    /// Check what can be checked before any data is read: the user's
    /// patterns and globs.
    pub fn check(&self) -> Result<(), Error> {
        Excluder::new(&self.exclude)?;
        if !self.redact {
            return Ok(());
        }
        let patterns = RedactConfig {
            extra_patterns: self.extra_patterns.clone(),
            ..RedactConfig::default()
        };
        Redactor::check_patterns(&patterns).map_err(pattern_error)
    }

    /// Whose data it is, for the redactor: the homes and names learned.
    fn owner(identity: &Identity) -> Owner {
        Owner {
            home_dirs: identity.homes.iter().cloned().collect(),
            usernames: Vec::new(),
            real_names: identity.names.iter().cloned().collect(),
        }
    }

    /// The rules that do not depend on whose data it is, compiled while
    /// that is learned; None when nothing is redacted.
    fn prepare(&self) -> Option<Result<Prepared, PatternError>> {
        self.redact.then(|| Redactor::prepare(&self.extra_patterns))
    }

    /// The redactor of the rules [`Pipeline::prepare`] compiled and the
    /// owner's homes and names.
    fn redactor(
        &self,
        prepared: Option<Result<Prepared, PatternError>>,
        identity: &Identity,
    ) -> Result<Redactor, Error> {
        let Some(prepared) = prepared else {
            return Ok(Redactor::disabled());
        };
        Redactor::for_owner(prepared.map_err(pattern_error)?, Self::owner(identity))
            .map_err(pattern_error)
    }

    /// Every data root of the sources, and the archive's view of what
    /// they no longer have.
    fn sources(&self, report: &mut LoadReport) -> Result<discover::Sources, Error> {
        // An archive made before is opened (its journal read: 10,000 lines
        // for 10,000 files) while the data directory is walked; a new one
        // is made only once the sources are known to be apart from it.
        let (found, opened) = timed(report, "discover", || {
            rayon::join(
                || discover::discover(&self.sources),
                || match Archive::open_existing(self.archive.as_ref()?) {
                    Err(Error::NoArchive { .. }) => None,
                    opened => Some(opened),
                },
            )
        });
        let mut sources = found?;
        if let Some(dir) = &self.archive {
            apart_from_archive(dir, &mut sources)?;
        }
        report.skips.extend(sources.skips.iter().cloned());
        report.notes.extend(sources.notes.iter().cloned());
        report.roots = sources.roots.iter().map(|r| r.shown_path()).collect();
        report.transcript_bytes = sources.transcript_bytes();
        if let Some(dir) = &self.archive {
            let start = Instant::now();
            let archive = match opened {
                Some(opened) => opened?,
                None => Archive::open(dir)?,
            };
            report.archive = Some(with_archive(archive, &mut sources, &mut report.skips)?);
            report.timings.push(("archive", start.elapsed()));
        }
        sources.forget_listings();
        Ok(sources)
    }

    /// The versions of a file the sources (and the archive) hold, in full
    /// and unredacted: for its owner's terminal only.
    pub fn file_versions(
        &self,
        q: &crate::knowledge::recover::Query,
    ) -> Result<(Vec<crate::knowledge::recover::Version>, LoadReport), Error> {
        let mut report = LoadReport::default();
        let sources = self.sources(&mut report)?;
        let versions = crate::knowledge::recover::versions(&sources.roots, q, &mut report.skips);
        Ok((versions, report))
    }

    /// Find every data root and its files (the archive's view included),
    /// nothing read yet: what [`Pipeline::load_from`] reads.
    pub fn discover(&self) -> Result<(discover::Sources, LoadReport), Error> {
        let mut report = LoadReport::default();
        let sources = self.sources(&mut report)?;
        Ok((sources, report))
    }

    /// Read everything, redacted.
    pub fn load(&self) -> Result<(Knowledge, LoadReport), Error> {
        let (discovered, ahead) = rayon::join(|| self.discover(), || self.read_ahead());
        let (sources, report) = discovered?;
        self.load_from(sources, report, ahead)
    }

    /// What needs nothing [`Pipeline::discover`] finds, made while it
    /// walks (a core is idle then): the redaction rules that do not
    /// depend on whose data it is, and the memories' cache, read (2.3 MB
    /// decoded for 10,000 memories). Both held a rebuild's one core while
    /// the other waited after discovery.
    pub fn read_ahead(&self) -> ReadAhead {
        let (prepared, triage) = rayon::join(
            || self.prepare(),
            || {
                (self.cache_for.as_deref())
                    .map(|out| triage::TriageCache::read(out, self.cache_dir.as_deref()))
            },
        );
        // A build with nothing cached for its site redacts every text, and
        // needs nearly every rule: compiled now, while discovery walks, not
        // on the way to the first texts (the history's prompts waited 7 ms
        // for them). A rebuild compiles what its changed texts need.
        let cached = (self.cache_for.as_deref())
            .and_then(|out| crate::base::dirs::site_cache_dir(out, self.cache_dir.as_deref()))
            .is_some_and(|dir| dir.is_dir());
        if let (false, Some(Ok(prepared))) = (cached, &prepared) {
            prepared.compile();
        }
        ReadAhead { prepared, triage }
    }

    /// Whose data this is, learned from where its prompts and sessions
    /// were typed (the history is read as identity's input); the redactor
    /// of `prepared` rules that follows; and the history and session
    /// starts, redacted.
    fn learn(
        &self,
        sources: &discover::Sources,
        prepared: Option<Result<Prepared, PatternError>>,
        report: &mut LoadReport,
    ) -> Result<Learned, Error> {
        let mut skips = Vec::new();
        let cache = match &self.cache_for {
            Some(out) => history::HistoryCache::open(out, self.cache_dir.as_deref()),
            None => history::HistoryCache::disabled(),
        };
        let (read, raw_starts, identity) = timed(report, "identity", || {
            let read = history::read(&sources.roots, cache);
            let raw_starts = read_starts(sources, &mut skips);
            let mut identity = Identity::learn(&sources.roots, read.projects(), &raw_starts);
            identity.names = crate::source::account::display_names(&sources.roots, &mut skips);
            (read, raw_starts, identity)
        });
        let redactor = timed(report, "redactor", || self.redactor(prepared, &identity))?;
        let mut tally = Tally::default();
        let mut prompts = history::PromptStats::default();
        let (history, starts) = timed(report, "history", || {
            let entries = history::redact(read, &redactor, &mut tally, &mut skips, &mut prompts);
            (entries, extract::starts(raw_starts, &redactor, &mut tally))
        });
        report.skips.extend(skips);
        report.prompts = prompts;
        Ok(Learned {
            redactor,
            history,
            starts,
            tally,
        })
    }

    /// Read everything [`Pipeline::discover`] found, redacted, with what
    /// [`Pipeline::read_ahead`] made.
    pub fn load_from(
        &self,
        sources: discover::Sources,
        mut report: LoadReport,
        ahead: ReadAhead,
    ) -> Result<(Knowledge, LoadReport), Error> {
        let ReadAhead {
            prepared,
            triage: read_triage,
        } = ahead;
        let learned = self.learn(&sources, prepared, &mut report);
        let Learned {
            redactor,
            history,
            starts,
            mut tally,
        } = learned?;
        // Globs name paths as the user knows them: redact them like the
        // paths they are matched against.
        let globs: Vec<String> = self
            .exclude
            .iter()
            .map(|g| redactor.redact(g).into_owned())
            .collect();
        let excluder = Excluder::new(&globs)?;

        let (triaged, triage_cache) = timed(&mut report, "triage", || {
            triage_with(&sources, &redactor, read_triage)
        });
        tally.add(&triaged.tally);
        let mut cache = match &self.cache_for {
            Some(out) => Cache::open(out, self.cache_dir.as_deref(), &redactor),
            None => Cache::disabled(),
        };
        // Without anywhere to put them, turns stay in memory: slower for a
        // big data directory, but the build goes on.
        let spill = Spill::new(self.cache_dir.as_deref()).unwrap_or_else(|e| {
            report.skips.push(Skip::file(
                std::env::temp_dir(),
                format!("cannot keep temporary files ({e}); holding every turn in memory"),
            ));
            Spill::none()
        });
        let extracted = timed(&mut report, "extract", || {
            extract::extract_cached(
                &sources.roots,
                &redactor,
                &mut cache,
                &self.progress,
                &spill,
            )
        });
        tally.add(&extracted.tally);
        if let Some(why) = spill.failure() {
            report.skips.push(Skip::file(
                spill.dir(),
                format!("cannot write the temporary file of turns ({why}); the rest were held in memory"),
            ));
        }
        report.cache = cache.stats;
        report.lines = extracted.lines;
        report.skips.extend(triaged.skips);
        report.skips.extend(extracted.skips);
        let mut setup_skips = Vec::new();
        let setup = timed(&mut report, "setup", || {
            crate::knowledge::setup::read(&sources.roots, &redactor, &mut setup_skips, &mut tally)
        });
        report.skips.extend(setup_skips);
        let mut knowledge = Knowledge {
            memories: triaged.memories,
            sessions: extracted.sessions,
            history,
            starts,
            setup,
            prices: self.prices.clone(),
            spill,
            copies: Default::default(),
        };
        crate::knowledge::aliases::Aliases::new(&self.aliases, &redactor)
            .apply_to(&mut knowledge, &redactor);
        report.excluded = crate::knowledge::exclude::apply(&mut knowledge, &excluder);
        report.redactions = tally.by_kind(&redactor);
        knowledge.copies = timed(&mut report, "cache", || cache.save());
        // Written while the site is made (2.3 MB for 10,000 memories).
        knowledge.copies.run(move || triage_cache.save());
        Ok((knowledge, report))
    }
}

/// The memories triaged, through the cache `read` (when there is one),
/// and that cache with this build's entries, to be saved.
fn triage_with(
    sources: &discover::Sources,
    redactor: &Redactor,
    read: Option<triage::ReadCache>,
) -> (triage::Triaged, triage::TriageCache) {
    let mut cache = match read {
        Some(read) => triage::TriageCache::open(read, redactor),
        None => triage::TriageCache::disabled(),
    };
    (triage::triage(&sources.roots, redactor, &mut cache), cache)
}

/// What [`Pipeline::read_ahead`] makes for [`Pipeline::load_from`].
pub struct ReadAhead {
    /// The rules that need no owner; None when nothing is redacted.
    prepared: Option<Result<Prepared, PatternError>>,
    /// The memories' cache, read; None without a cache.
    triage: Option<triage::ReadCache>,
}

/// History and session metadata, raw. They are small: read first, for
/// the identity as much as for the timeline.
/// What [`Pipeline::learn`] gives.
struct Learned {
    redactor: Redactor,
    history: Vec<HistoryEntry>,
    starts: Vec<SessionStart>,
    /// What redacting the history and session starts replaced.
    tally: Tally,
}

fn read_starts(
    sources: &discover::Sources,
    skips: &mut Vec<Skip>,
) -> Vec<source_history::RawStart> {
    sources
        .roots
        .iter()
        .flat_map(|r| &r.session_starts)
        .filter_map(|s| source_history::read_session_start(s, skips))
        .collect()
}

/// The archive's view is a data root: never read it as a source (it is
/// added, as the archive, by [`with_archive`]), and never keep the archive
/// inside one.
fn apart_from_archive(dir: &std::path::Path, sources: &mut discover::Sources) -> Result<(), Error> {
    let at = crate::base::dirs::resolved(dir);
    sources
        .roots
        .retain(|r| !crate::base::dirs::resolved(&r.path).starts_with(&at));
    match sources
        .roots
        .iter()
        .find(|r| at.starts_with(crate::base::dirs::resolved(&r.path)))
    {
        Some(r) => Err(Error::ArchiveInside {
            archive: dir.to_path_buf(),
            other: r.path.clone(),
            what: "the data directory",
        }),
        None => Ok(()),
    }
}

/// Keep what is new in `archive`, then add what only the archive has
/// (and merged copies) to `sources`.
fn with_archive(
    mut archive: Archive,
    sources: &mut discover::Sources,
    skips: &mut Vec<Skip>,
) -> Result<ArchiveReport, Error> {
    let kept = archive.keep(&mut sources.roots)?;
    for (path, why) in &kept.failed {
        skips.push(Skip::file(path, format!("not archived: {why}")));
    }
    let view = archive.view(&kept)?;
    sources.leave_out(&view.replaced);
    if let Some(root) = &view.root {
        match discover::discover(std::slice::from_ref(root)) {
            Ok(found) => {
                for mut r in found.roots {
                    r.index = sources.roots.len();
                    sources.roots.push(r);
                }
                skips.extend(found.skips);
            }
            // Only files a wiki does not show (settings, file history).
            Err(Error::NoData { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(ArchiveReport {
        dir: archive.dir().to_path_buf(),
        new_files: kept.new_files,
        bytes_read: kept.bytes_read,
        archive_only_sessions: view.archive_only_sessions,
        merged: view.merged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_refuses_a_bad_pattern_or_kind_before_any_work() {
        let with = |kind: &str, regex: &str| Pipeline {
            extra_patterns: vec![(kind.to_string(), regex.to_string())],
            ..Pipeline::new(Vec::new())
        };
        assert!(with("ticket", "ACME-[0-9]{4,}").check().is_ok());
        let bad_regex = with("ticket", "ACME-[0-9").check().unwrap_err();
        assert!(bad_regex.to_string().contains("ticket"), "{bad_regex}");
        assert!(with("bad kind!", "x").check().is_err());
        // Without redaction the patterns are not used, so not checked.
        let mut off = with("ticket", "ACME-[0-9");
        off.redact = false;
        assert!(off.check().is_ok());
    }
}
