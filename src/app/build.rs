//! The whole build: every phase in order, timed, with a report.

use crate::app::audit;
use crate::base::dirs::resolved;
use crate::base::error::Error;
pub use crate::base::progress::Progress;
use crate::base::skip::Skip;
use crate::knowledge::model::Knowledge;
use crate::knowledge::pipeline::Pipeline;
use crate::output::{render, write};
use crate::site::assemble;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to build, from where, to where.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Data roots to read (`~/.claude`, …).
    pub sources: Vec<PathBuf>,
    /// The output directory.
    pub out: PathBuf,
    /// The wiki's title.
    pub title: String,
    /// Scrub credentials, home paths and user names (on by default).
    pub redact: bool,
    /// Extra redaction patterns: (kind, regex).
    pub extra_patterns: Vec<(String, String)>,
    /// Project globs to leave out entirely.
    pub exclude: Vec<String>,
    /// Other paths of a project and the path they stand for (`[aliases]`).
    pub aliases: Vec<(String, String)>,
    /// Prices over the built-in table (`[prices]`).
    pub prices: Vec<(String, crate::config::Price)>,
    /// The theme's name: bundled, or in the wiki repository's `themes/`.
    pub theme: String,
    /// Where the site is served (informational: links are relative).
    pub base_path: String,
    /// The wiki repository (the folder of `ccwiki.toml`), for overrides.
    pub site_dir: Option<PathBuf>,
    /// Free values for templates (`site.extra`).
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// Keep an incremental cache (on by default).
    pub cache: bool,
    /// The site whose cache to use when it is not `out`: `serve` builds
    /// a private copy of the user's site and shares that site's cache.
    pub cache_site: Option<PathBuf>,
    /// Where the cache and the build's temporary files go; None: the
    /// user's cache directory (`$CCWIKI_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/ccwiki`, else `~/.cache/ccwiki`).
    pub cache_dir: Option<PathBuf>,
    /// Names at the site's root that a rebuild keeps from the previous site.
    pub keep: Vec<String>,
    /// Where to write the redaction report (outside the site), if at all.
    pub report: Option<PathBuf>,
    /// Warnings fail the build: the previous site stays in place.
    pub strict: bool,
    /// The archive that keeps every source file (and gives back the ones
    /// Claude Code deleted); None: none (the command line's default is
    /// [`crate::source::archive::default_dir`]).
    pub archive: Option<PathBuf>,
    /// Where to report progress (nowhere by default).
    pub progress: Progress,
    /// Leave the previous site, once the new one is in place, for the
    /// caller to remove ([`BuildReport::previous`]) instead of removing it
    /// before returning: `ccwiki build` hands it to a process of its own
    /// and returns as soon as the new site is there.
    pub leave_previous: bool,
    /// The process ends soon after the build returns (`ccwiki build`):
    /// what the build made is left for the system to take back with the
    /// process, not freed piece by piece first. Never set where builds
    /// repeat in one process (`ccwiki serve`).
    pub process_ends: bool,
}

impl BuildOptions {
    /// How these options load the data.
    pub fn pipeline(&self) -> Pipeline {
        Pipeline {
            sources: self.sources.clone(),
            redact: self.redact,
            extra_patterns: self.extra_patterns.clone(),
            exclude: self.exclude.clone(),
            aliases: self.aliases.clone(),
            prices: self.prices.clone(),
            cache_for: self
                .cache
                .then(|| self.cache_site.clone().unwrap_or_else(|| self.out.clone())),
            cache_dir: self.cache_dir.clone(),
            archive: self.archive.clone(),
            progress: self.progress.clone(),
        }
    }

    /// Options with the defaults for everything but the paths.
    pub fn new(sources: Vec<PathBuf>, out: PathBuf) -> Self {
        BuildOptions {
            sources,
            out,
            title: "Claude Code wiki".to_string(),
            redact: true,
            extra_patterns: Vec::new(),
            exclude: Vec::new(),
            aliases: Vec::new(),
            prices: Vec::new(),
            theme: "default".to_string(),
            base_path: "/".to_string(),
            site_dir: None,
            extra: serde_json::Map::new(),
            cache: true,
            cache_site: None,
            cache_dir: None,
            report: None,
            strict: false,
            keep: ["CNAME", ".nojekyll", ".well-known"]
                .map(String::from)
                .to_vec(),
            archive: None,
            progress: Progress::default(),
            leave_previous: false,
            process_ends: false,
        }
    }
}

/// What a build did.
#[derive(Debug, Default)]
pub struct BuildReport {
    pub projects: usize,
    pub sessions: usize,
    /// Session files with nothing to show (no prompt, no answer).
    pub empty_sessions: usize,
    pub memories: usize,
    pub subagents: usize,
    /// Sessions and memories left out by `exclude`.
    pub excluded: usize,
    pub prompts: u64,
    pub assistant_turns: u64,
    pub pages: usize,
    pub files_written: usize,
    /// Files whose bytes did not change, kept from the previous site.
    pub files_unchanged: usize,
    /// Of those, pages not made again: made from the same inputs.
    pub pages_kept: usize,
    /// How the incremental cache served the transcripts.
    pub cache: crate::knowledge::cache::CacheStats,
    /// How the cache served the history's prompts.
    pub prompt_cache: crate::knowledge::history::PromptStats,
    pub bytes_written: u64,
    pub transcript_bytes: u64,
    pub lines: u64,
    pub skips: Vec<Skip>,
    /// Replacements made by redaction, by kind.
    pub redactions: BTreeMap<String, u64>,
    /// Residual suspects the redaction report lists (with `report`).
    pub suspects: usize,
    /// Wall time per phase, in order.
    pub timings: Vec<(&'static str, Duration)>,
    /// The data roots read, as the user would name them.
    pub roots: Vec<PathBuf>,
    /// How the sources were read, worth a line in the summary.
    pub notes: Vec<String>,
    /// What the archive did, when there is one.
    pub archive: Option<crate::knowledge::pipeline::ArchiveReport>,
    /// Nothing changed since the last build: the site was left as it was
    /// (the counts are the last build's).
    pub unchanged: bool,
    /// With [`BuildOptions::leave_previous`]: the previous site, moved
    /// aside, and the copies earlier builds left (one the last build's
    /// remover may still be removing), for the caller to remove with
    /// [`crate::output::write::remove_previous`].
    pub previous: Vec<PathBuf>,
}

impl BuildReport {
    /// Total wall time.
    pub fn elapsed(&self) -> Duration {
        self.timings.iter().map(|(_, d)| *d).sum()
    }

    /// Take in what loading the sources reported.
    fn add_load(&mut self, loaded: crate::knowledge::pipeline::LoadReport) {
        self.timings.extend(loaded.timings);
        self.skips.extend(loaded.skips);
        self.transcript_bytes = loaded.transcript_bytes;
        self.cache = loaded.cache;
        self.prompt_cache = loaded.prompts;
        self.lines = loaded.lines;
        self.excluded = loaded.excluded;
        self.redactions = loaded.redactions;
        self.roots = loaded.roots;
        self.notes = loaded.notes;
        self.archive = loaded.archive;
    }
}

fn timed<T>(report: &mut BuildReport, phase: &'static str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    report.timings.push((phase, start.elapsed()));
    out
}

/// Refuse, before any work, a missing source, an output that overlaps a
/// source, a foreign output directory, a report inside the site; put back
/// a site that a killed build left aside. Returns the copies earlier
/// builds left beside the site (see [`write::recover`]).
fn check_paths(opts: &BuildOptions) -> Result<Vec<PathBuf>, Error> {
    let out = resolved(&opts.out);
    for s in &opts.sources {
        if !s.is_dir() {
            return Err(Error::bad_source(s));
        }
        let src = resolved(s);
        if out.starts_with(&src) || src.starts_with(&out) {
            return Err(Error::OutputInSource {
                out: opts.out.clone(),
                source_dir: s.clone(),
            });
        }
    }
    if let Some(archive) = &opts.archive {
        let at = resolved(archive);
        if at.starts_with(&out) || out.starts_with(&at) {
            return Err(Error::ArchiveInside {
                archive: archive.clone(),
                other: opts.out.clone(),
                what: "the site",
            });
        }
    }
    let left = write::recover(&opts.out)?;
    write::check_output(&opts.out)?;
    if let Some(r) = &opts.report {
        audit::check_report_path(r, &opts.out)?;
    }
    Ok(left)
}

/// Remove the copies of the site that were moved aside (`dirs`), or
/// leave them to the caller ([`BuildOptions::leave_previous`]).
fn tidy(opts: &BuildOptions, dirs: Vec<PathBuf>, report: &mut BuildReport) {
    if opts.leave_previous {
        report.previous.extend(dirs);
    } else if !dirs.is_empty() {
        for w in timed(report, "tidy", || write::remove_all_previous(&dirs)) {
            report.skips.push(Skip::file(&opts.out, w));
        }
    }
}

/// What goes into the new site besides the pages (the user's kept files,
/// the `root/` folders of the wiki repository and of its theme), and the
/// last word of `--strict` before the swap.
fn finish_staging(
    opts: &BuildOptions,
    theme_dir: Option<&Path>,
    stager: &write::Stager,
    report: &mut BuildReport,
) -> Result<(), Error> {
    Error::after_writing_began(stager.keep(&opts.keep))?;
    // Files placed at the site's root as they are: the repository's first,
    // so that they win over the theme's.
    let own = opts.site_dir.as_ref().map(|d| d.join("root"));
    let roots = [own.clone(), theme_dir.map(|d| d.join("root"))];
    for root in roots.into_iter().flatten().filter(|r| r.is_dir()) {
        for clash in Error::after_writing_began(stager.copy_root(&root))? {
            let rel = clash.strip_prefix(&root).unwrap_or(&clash);
            if own
                .as_ref()
                .is_some_and(|o| o != &root && o.join(rel).is_file())
            {
                continue;
            }
            report.skips.push(Skip::file(
                clash,
                "a generated page has the same path: the page is kept",
            ));
        }
    }
    if opts.strict {
        if let Some(first) = report.skips.iter().min() {
            // The caller's `?` drops the stager, which removes the new
            // site unseen.
            return Err(Error::Strict {
                count: report.skips.len(),
                first: first.to_string(),
            });
        }
    }
    Ok(())
}

/// What discovery found: the same as the last build, or something to build.
enum Discovered {
    Unchanged(BuildReport),
    Changed(
        crate::source::discover::Sources,
        crate::knowledge::pipeline::LoadReport,
        u128,
    ),
}

/// Find the sources and compare them (with the options and the site) with
/// what the last build read.
fn discover(
    opts: &BuildOptions,
    pipeline: &crate::knowledge::pipeline::Pipeline,
) -> Result<Discovered, Error> {
    let (sources, mut discovered) = pipeline.discover()?;
    let start = Instant::now();
    let fingerprint = super::unchanged::fingerprint(opts, &sources);
    let same = super::unchanged::check(opts, fingerprint);
    discovered.timings.push(("compare", start.elapsed()));
    if let Some(mut same) = same {
        same.timings = discovered.timings;
        same.notes = discovered.notes;
        same.archive = discovered.archive;
        return Ok(Discovered::Unchanged(same));
    }
    super::unchanged::forget(opts);
    Ok(Discovered::Changed(sources, discovered, fingerprint))
}

/// Count what the site holds, for the report.
fn count(report: &mut BuildReport, site: &assemble::Site<'_>, model: &Knowledge) {
    report.skips.extend(site.skips.iter().cloned());
    report.projects = site.projects;
    report.sessions = site.sessions;
    report.empty_sessions = site.empty_sessions;
    report.memories = model.memories.len();
    report.subagents = model.sessions.iter().map(|s| s.subagents.len()).sum();
    report.prompts = model.sessions.iter().map(|s| s.prompts).sum();
    report.assistant_turns = model
        .sessions
        .iter()
        .map(|s| s.assistant_turns + s.subagents.iter().map(|a| a.assistant_turns).sum::<u64>())
        .sum();
    report.pages = site.page_count();
}

/// Swap the new site in, and remove the previous one (or leave it to the
/// caller); what the site now holds, for the next build's no-op check.
fn commit(
    opts: &BuildOptions,
    stager: write::Stager,
    manifest: &crate::output::manifest::Manifest,
    report: &mut BuildReport,
) -> Result<Vec<(String, u64, i64)>, Error> {
    let written = Error::after_writing_began(timed(report, "write", || stager.commit()))?;
    report.files_written = written.files;
    report.files_unchanged = written.unchanged;
    report.pages_kept = written.kept;
    report.bytes_written = written.bytes;
    tidy(opts, written.previous.into_iter().collect(), report);
    manifest.save(written.manifest);
    Ok(written.files_left)
}

/// Build the wiki described by `opts`.
pub fn build(opts: &BuildOptions) -> Result<BuildReport, Error> {
    let mut report = BuildReport::default();
    let left = check_paths(opts)?;
    let pipeline = opts.pipeline();
    pipeline.check()?;
    let theme = crate::output::theme::resolve(&opts.theme, opts.site_dir.as_deref())?;
    let render_options = render::RenderOptions {
        title: opts.title.clone(),
        base_path: opts.base_path.clone(),
        extra: opts.extra.clone(),
        site_dir: opts.site_dir.clone(),
    };
    // The templates are compiled, and what needs no sources is read
    // ahead, while the data directory is walked: one after the other,
    // they held every build's first milliseconds on one core. A
    // template's error still comes first.
    let (renderer, (discovered, ahead)) = rayon::join(
        || render::Renderer::new(&render_options, &theme),
        || rayon::join(|| discover(opts, &pipeline), || pipeline.read_ahead()),
    );
    let renderer = renderer?;
    let (sources, discovered, fingerprint) = match discovered? {
        Discovered::Unchanged(mut same) => {
            tidy(opts, left, &mut same);
            return Ok(same);
        }
        Discovered::Changed(sources, report, fingerprint) => (sources, report, fingerprint),
    };
    tidy(opts, left, &mut report);
    let (mut model, loaded) = pipeline.load_from(sources, discovered, ahead)?;
    report.add_load(loaded);

    // What the last build wrote, opened before the site is assembled: its
    // file is read whole and decoded, 10-20 MB for a moment, which on top
    // of the assembled site of 100,000 sessions was a rebuild's peak.
    let mut manifest = if opts.cache {
        crate::output::manifest::Manifest::open(&opts.out, opts.cache_dir.as_deref())
    } else {
        crate::output::manifest::Manifest::disabled()
    };
    let layouts = if opts.cache {
        assemble::Layouts::open(&opts.out, opts.cache_dir.as_deref())
    } else {
        assemble::Layouts::disabled()
    };
    let site = timed(&mut report, "assemble", || {
        assemble::assemble_with(&model, &layouts)
    })?;
    layouts.save();
    count(&mut report, &site, &model);

    opts.progress.report("rendering", 0, 0);
    let stager = write::Stager::begin(&opts.out, std::mem::take(&mut manifest.previous))?;
    let rendered = timed(&mut report, "render", || {
        render::render(&site, &renderer, &stager)
    });
    Error::after_writing_began(rendered)?;
    let theme_dir = match &theme.origin {
        crate::output::theme::Origin::Local(dir) => Some(dir.as_path()),
        crate::output::theme::Origin::Bundled => None,
    };
    finish_staging(opts, theme_dir, &stager, &mut report)?;
    let files_left = commit(opts, stager, &manifest, &mut report)?;
    if let Some(path) = &opts.report {
        let found = timed(&mut report, "audit", || audit::audit_site(&opts.out))?;
        let md = audit::report_markdown(&opts.out, &report.redactions, &found);
        std::fs::write(path, md).map_err(|e| Error::io(path, e))?;
        report.suspects = found.suspects.len();
    }
    report.skips.sort();
    report.skips.dedup();
    super::unchanged::remember(opts, fingerprint, &report, files_left);
    // Freeing a hundred thousand sessions takes a noticeable part of a
    // second: the caller has its report without waiting for that, and a
    // process about to end does not free them at all (the system takes
    // its memory back whole).
    if opts.process_ends {
        std::mem::forget(site);
    } else {
        drop(site);
    }
    // Large files' turns went on being copied into the cache while the
    // site was made: done before the process can end.
    std::mem::take(&mut model.copies).wait();
    if opts.process_ends {
        std::mem::forget(model);
    } else {
        let _ = std::thread::Builder::new().spawn(move || drop(model));
    }
    Ok(report)
}
