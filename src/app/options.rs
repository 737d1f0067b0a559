//! Command-line flags over `ccwiki.toml` over the defaults: one merge for
//! every command, so `build` and `search` read the same data the same way.

use crate::app::build::BuildOptions;
use crate::base::error::Error;
use crate::config::Loaded;
use crate::knowledge::pipeline::Pipeline;
use std::path::PathBuf;

/// What the command line said about the data (None / empty: not given).
/// Every command that reads the data takes these flags.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DataFlags {
    /// Claude Code data directory [default: $CLAUDE_CONFIG_DIR, else ~/.claude]. Repeat for several.
    #[arg(long, short = 's', value_name = "DIR")]
    pub source: Vec<PathBuf>,
    /// Leave out projects whose path or name matches (repeatable), e.g. "*/client-*".
    #[arg(long, value_name = "GLOB")]
    pub exclude_project: Vec<String>,
    /// Keep credentials, home paths and user names as they are (for your own eyes only).
    #[arg(long)]
    pub no_redact: bool,
    /// Where to keep every source file, so that sessions Claude Code deletes stay in the wiki [default: archive in ccwiki.toml, else ~/.local/share/ccwiki/archive].
    #[arg(long, value_name = "DIR")]
    pub archive: Option<PathBuf>,
    /// Neither keep nor read an archive.
    #[arg(long, conflicts_with = "archive")]
    pub no_archive: bool,
    /// The configuration file [default: ./ccwiki.toml when it exists].
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// What the command line said about the site.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SiteFlags {
    /// Where to write the site [default: out in ccwiki.toml, else ./site].
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The wiki's title [default: title in ccwiki.toml, else "Claude Code wiki"].
    #[arg(long)]
    pub title: Option<String>,
    /// Theme: a bundled one (`ccwiki theme list`) or one in ./themes/.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Where the site will be served, e.g. /wiki/ (links stay relative either way).
    #[arg(long, value_name = "PATH")]
    pub base_path: Option<String>,
    /// Ignore and do not keep the incremental cache (a cold build).
    #[arg(long)]
    pub no_cache: bool,
    /// Treat warnings (skipped lines and files, caps, a failing cache) as
    /// errors: the new site is not put in place, exit status 1.
    #[arg(long)]
    pub strict: bool,
    /// Write a redaction report to FILE (outside the site): what was replaced, by kind and page, and what still looks private.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// `$CLAUDE_CONFIG_DIR` (a comma-separated list), else `~/.claude`.
pub fn default_sources() -> Vec<PathBuf> {
    if let Some(v) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        return v
            .to_string_lossy()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect();
    }
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .unwrap_or_default();
    vec![home.join(".claude")]
}

/// The configuration the flags name (or `./ccwiki.toml`, or none).
pub fn load_config(flags: &DataFlags) -> Result<Loaded, Error> {
    crate::config::load(flags.config.as_deref())
}

/// How to load the data: flags over the configuration over the defaults.
pub fn pipeline(flags: &DataFlags, loaded: &Loaded) -> Pipeline {
    let c = &loaded.config;
    let sources = if !flags.source.is_empty() {
        flags.source.clone()
    } else if let Some(list) = &c.source {
        list.iter().map(|s| loaded.path(s)).collect()
    } else {
        default_sources()
    };
    let mut p = Pipeline::new(sources);
    p.archive = if flags.no_archive {
        None
    } else if let Some(dir) = &flags.archive {
        Some(dir.clone())
    } else {
        match &c.archive {
            Some(crate::config::ArchiveSetting::Off(false)) => None,
            Some(crate::config::ArchiveSetting::Dir(d)) => Some(loaded.path(d)),
            _ => crate::source::archive::default_dir(),
        }
    };
    p.redact = !flags.no_redact && c.redact.unwrap_or(true);
    p.exclude = c.exclude.clone();
    p.exclude.extend(flags.exclude_project.iter().cloned());
    p.aliases = c
        .aliases
        .iter()
        .map(|(from, to)| (expand(from), expand(to)))
        .collect();
    p.prices = c.prices.iter().map(|(k, v)| (k.clone(), *v)).collect();
    p.extra_patterns = c
        .redact_patterns
        .iter()
        .map(|p| (p.kind.clone(), p.regex.clone()))
        .collect();
    p
}

/// Everything `build` needs: flags over the configuration over the defaults.
pub fn build_options(data: &DataFlags, site: &SiteFlags) -> Result<BuildOptions, Error> {
    let loaded = load_config(data)?;
    let c = &loaded.config;
    let p = pipeline(data, &loaded);
    let out = site
        .out
        .clone()
        .or_else(|| c.out.as_deref().map(|o| loaded.path(o)))
        .unwrap_or_else(|| loaded.path("site"));
    let mut opts = BuildOptions::new(p.sources, out);
    opts.redact = p.redact;
    opts.exclude = p.exclude;
    opts.extra_patterns = p.extra_patterns;
    opts.aliases = p.aliases;
    opts.prices = p.prices;
    opts.archive = p.archive;
    if let Some(t) = site.title.clone().or_else(|| c.title.clone()) {
        opts.title = t;
    }
    if let Some(t) = site.theme.clone().or_else(|| c.theme.clone()) {
        opts.theme = t;
    }
    if let Some(b) = site.base_path.clone().or_else(|| c.base_path.clone()) {
        opts.base_path = b;
    }
    opts.cache = !site.no_cache;
    opts.report = site.report.clone();
    opts.strict = site.strict || c.strict.unwrap_or(false);
    if let Some(keep) = &c.keep {
        opts.keep = keep.clone();
    }
    opts.site_dir = loaded.dir.clone();
    opts.extra = c
        .extra
        .iter()
        .filter_map(|(k, v)| serde_json::to_value(v).ok().map(|v| (k.clone(), v)))
        .collect();
    Ok(opts)
}

/// `~/x` as the home folder's `x`, for paths written in ccwiki.toml.
fn expand(path: &str) -> String {
    crate::config::expand_home(path)
        .to_string_lossy()
        .into_owned()
}
