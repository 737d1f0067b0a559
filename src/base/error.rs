//! Errors that stop a build. Problems with single lines or files are not
//! errors: they are [`crate::base::skip::Skip`]s, counted and reported.

use std::path::PathBuf;

/// A failure that ends the build. Each variant names the file involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The source directory does not exist or is not a directory.
    #[error("source directory {} not found: pass --source DIR or set CLAUDE_CONFIG_DIR", path.display())]
    SourceMissing { path: PathBuf },
    /// The folder that would hold the site cannot be written to.
    #[error("cannot write the site {}: its folder {} refuses it ({source}); choose another --out or make that folder writable", out.display(), parent.display())]
    OutputParent {
        out: PathBuf,
        parent: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The source is a file, not a folder.
    #[error("{} is a file, not a folder: pass the Claude Code data directory (the folder that holds projects/, usually ~/.claude)", path.display())]
    SourceNotDir { path: PathBuf },
    /// The source holds nothing Claude Code writes.
    #[error("{} holds no Claude Code data: expected projects/<folder>/<session>.jsonl, memory files or history.jsonl; pass the folder that holds projects/ (usually ~/.claude)", path.display())]
    NoData { path: PathBuf },
    /// Reading or writing a file failed.
    #[error("{} is not a built site (no such folder): pass the --out of a build", path.display())]
    NotASite { path: PathBuf },

    #[error("cannot serve on {addr}: {source}; choose another --port (0 takes any free one)")]
    Listen {
        addr: String,
        source: std::io::Error,
    },

    #[error("the archive {} is inside {what} {}: it holds raw, unredacted data; choose an --archive elsewhere (the default is ~/.local/share/ccwiki/archive)", archive.display(), other.display())]
    ArchiveInside {
        archive: PathBuf,
        other: PathBuf,
        what: &'static str,
    },

    #[error("no archive in {}: a build makes one (pass --archive DIR if yours is elsewhere)", path.display())]
    NoArchive { path: PathBuf },

    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The output directory exists and was not made by ccwiki.
    #[error("{} exists and was not made by ccwiki (no {} marker): refusing to replace it; choose another --out or remove it yourself", path.display(), crate::base::dirs::MARKER)]
    ForeignOutput { path: PathBuf },
    /// The output directory would overlap the source.
    #[error("output directory {} overlaps the source {}: choose an --out outside the source", out.display(), source_dir.display())]
    OutputInSource { out: PathBuf, source_dir: PathBuf },
    /// The configuration file is not valid.
    #[error("{}: {message}", path.display())]
    Config { path: PathBuf, message: String },
    /// A theme was asked for that is neither bundled nor in `themes/`.
    #[error("unknown theme {name:?}: `ccwiki theme list` shows the themes you can use")]
    UnknownTheme { name: String },
    /// A template failed to parse or render.
    #[error("template error: {0}")]
    Template(String),
    /// A redaction pattern from the configuration is not a valid regex.
    #[error("redaction pattern {kind:?}: {message}")]
    Pattern { kind: String, message: String },
    /// The build failed after it began writing; the previous site is
    /// left as it was.
    #[error("{source} (the previous site is left as it was)")]
    Midway {
        #[source]
        source: Box<Error>,
    },
    /// `--strict`: the build found something to warn about, so the new site
    /// was not put in place.
    #[error("--strict: {count} warning(s), the first: {first}; the new site was not put in place (the previous one is left as it was)")]
    Strict { count: usize, first: String },
    /// The redaction report would be written inside the site.
    #[error("report {} is inside the site {}: the report quotes what may be private, write it elsewhere", report.display(), out.display())]
    ReportInSite { report: PathBuf, out: PathBuf },
}

impl Error {
    /// The error for a source that is not a folder: missing, or a file.
    pub fn bad_source(path: &std::path::Path) -> Error {
        let path = path.to_path_buf();
        if path.exists() {
            Error::SourceNotDir { path }
        } else {
            Error::SourceMissing { path }
        }
    }

    /// The process exit code for this error: 3 when the build failed after
    /// it began writing (the previous site intact), 2 when it refused
    /// before writing anything.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Midway { .. } => 3,
            Error::Strict { .. } => 1,
            _ => 2,
        }
    }

    fn midway(self) -> Error {
        match self {
            Error::Midway { .. } => self,
            e => Error::Midway {
                source: Box::new(e),
            },
        }
    }

    /// Mark `result`'s error as one that happened after writing began.
    pub fn after_writing_began<T>(result: Result<T, Error>) -> Result<T, Error> {
        result.map_err(Error::midway)
    }

    /// Wrap an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
