//! The `ccwiki` command: a thin layer over the library.

use ccwiki::app::options;
use ccwiki::{build, BuildReport, Error};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
Examples:
  ccwiki build                                  build ~/.claude into ./site
  ccwiki build --source examples/demo --out site
  ccwiki build --source ~/.claude --out ~/wiki/site --no-redact
  CLAUDE_CONFIG_DIR=~/.config/claude ccwiki build";

#[derive(Parser)]
#[command(name = "ccwiki", version, about = "Turn a Claude Code data directory into a static wiki", after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the wiki.
    #[command(after_help = EXAMPLES)]
    Build(BuildArgs),
    /// Search sessions and memories directly, without building (exit 1 when nothing matches).
    #[command(after_help = SEARCH_EXAMPLES)]
    Search(SearchArgs),
    /// Start a wiki repository: ccwiki.toml, .gitignore, README.md (never overwrites).
    Init(InitArgs),
    /// List the themes, or copy a bundled one to edit.
    #[command(subcommand)]
    Theme(ThemeCommand),
}

#[derive(clap::Args)]
struct InitArgs {
    /// The folder to set up [default: .].
    #[arg(value_name = "DIR", default_value = ".")]
    dir: PathBuf,
    /// Also write a GitHub Actions workflow that publishes site/ to GitHub Pages.
    #[arg(long)]
    github_pages: bool,
}

#[derive(Subcommand)]
enum ThemeCommand {
    /// One theme per line, name first.
    List {
        /// The configuration file whose themes/ folder to include.
        #[arg(long, short = 'c', value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Copy a bundled theme (templates and static files) to edit it.
    Eject {
        /// The bundled theme to copy.
        name: String,
        /// Where to put it [default: themes/NAME].
        dir: Option<PathBuf>,
    },
}

const SEARCH_EXAMPLES: &str = "\
Examples:
  ccwiki search \"log rotation\"
  ccwiki search Edit config.ts --project tide-api --limit 5
  ccwiki search pino --json | jq '.[0].url'";

#[derive(clap::Args)]
struct SearchArgs {
    /// Words to look for; all are scored, results ranked by total.
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// Claude Code data directory [default: $CLAUDE_CONFIG_DIR, else ~/.claude]. Repeat for several.
    #[arg(long, short = 's', value_name = "DIR")]
    source: Vec<PathBuf>,
    /// Only this project (a name, or part of its path).
    #[arg(long, short = 'p', value_name = "P")]
    project: Option<String>,
    /// How many results to print.
    #[arg(long, short = 'n', default_value_t = 10)]
    limit: usize,
    /// Print results as JSON.
    #[arg(long)]
    json: bool,
    /// Leave out projects whose path or name matches (repeatable).
    #[arg(long, value_name = "GLOB")]
    exclude_project: Vec<String>,
    /// Print credentials, home paths and user names as they are (for your own terminal).
    #[arg(long)]
    no_redact: bool,
    /// The configuration file [default: ./ccwiki.toml when it exists].
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
struct BuildArgs {
    /// Claude Code data directory [default: $CLAUDE_CONFIG_DIR, else ~/.claude]. Repeat for several.
    #[arg(long, short = 's', value_name = "DIR")]
    source: Vec<PathBuf>,
    /// Where to write the site [default: out in ccwiki.toml, else ./site].
    #[arg(long, short = 'o', value_name = "DIR")]
    out: Option<PathBuf>,
    /// The wiki's title [default: title in ccwiki.toml, else "Claude Code wiki"].
    #[arg(long)]
    title: Option<String>,
    /// Theme: a bundled one (`ccwiki theme list`) or one in ./themes/.
    #[arg(long, value_name = "NAME")]
    theme: Option<String>,
    /// Where the site will be served, e.g. /wiki/ (links stay relative either way).
    #[arg(long, value_name = "PATH")]
    base_path: Option<String>,
    /// Leave out projects whose path or name matches (repeatable), e.g. "*/client-*".
    #[arg(long, value_name = "GLOB")]
    exclude_project: Vec<String>,
    /// Do not redact credentials, home paths and user names.
    #[arg(long)]
    no_redact: bool,
    /// The configuration file [default: ./ccwiki.toml when it exists].
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print only errors.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print the time each phase took.
    #[arg(long)]
    timings: bool,
    /// Ignore and do not keep the incremental cache (a cold build).
    #[arg(long)]
    no_cache: bool,
    /// Write a redaction report to FILE (outside the site): what was replaced, by kind and page, and what still looks private.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// List every skipped line and file, not just the first few.
    #[arg(long, short = 'v')]
    verbose: bool,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    match cli.command {
        Command::Build(args) => run_build(args),
        Command::Search(args) => run_search(args),
        Command::Init(args) => run_init(args),
        Command::Theme(cmd) => run_theme(cmd),
    }
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {e}");
    match e {
        Error::SourceMissing { .. } | Error::Config { .. } | Error::UnknownTheme { .. } => {
            ExitCode::from(2)
        }
        _ => ExitCode::from(1),
    }
}

fn run_init(args: InitArgs) -> ExitCode {
    match ccwiki::app::init::init(&args.dir, args.github_pages) {
        Ok(report) => {
            for (path, created) in report {
                let what = if created {
                    "created"
                } else {
                    "exists, left as it was"
                };
                println!("{what}: {}", path.display());
            }
            println!(
                "Next: edit ccwiki.toml, then run `ccwiki build` in {}",
                args.dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

fn run_theme(cmd: ThemeCommand) -> ExitCode {
    match cmd {
        ThemeCommand::List { config } => match ccwiki::config::load(config.as_deref()) {
            Ok(loaded) => {
                for t in ccwiki::output::theme::list(loaded.dir.as_deref()) {
                    let origin = match &t.origin {
                        ccwiki::output::theme::Origin::Bundled => "bundled".to_string(),
                        ccwiki::output::theme::Origin::Local(p) => p.display().to_string(),
                    };
                    println!("{}\t{}\t({origin})", t.name, t.description);
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        ThemeCommand::Eject { name, dir } => {
            let dest = dir.unwrap_or_else(|| PathBuf::from("themes").join(&name));
            match ccwiki::output::theme::eject(&name, &dest) {
                Ok(files) => {
                    println!(
                        "Copied {} files of theme {name:?} to {}",
                        files.len(),
                        dest.display()
                    );
                    println!("Use it with `theme = {name:?}` in ccwiki.toml (next to the themes/ folder) or --theme {name}.");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
    }
}

fn run_search(args: SearchArgs) -> ExitCode {
    let flags = options::DataFlags {
        source: args.source.clone(),
        exclude_project: args.exclude_project.clone(),
        no_redact: args.no_redact,
        config: args.config.clone(),
    };
    let pipeline = match options::load_config(&flags) {
        Ok(loaded) => options::pipeline(&flags, &loaded),
        Err(e) => return fail(&e),
    };
    let query = args.query.join(" ");
    match ccwiki::app::search::search_sources(
        &pipeline,
        &query,
        args.project.as_deref(),
        args.limit,
    ) {
        Ok(found) => {
            if args.json {
                match serde_json::to_string_pretty(&found) {
                    Ok(j) => println!("{j}"),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(1);
                    }
                }
            } else {
                for f in &found {
                    println!("{}. {}  ({})", f.rank, f.title, f.score);
                    let meta: Vec<&str> = [Some(f.kind), f.project.as_deref(), f.date.as_deref()]
                        .into_iter()
                        .flatten()
                        .collect();
                    println!("   {} · {}", meta.join(" · "), f.url);
                    if !f.snippet.is_empty() {
                        println!("   {}", f.snippet);
                    }
                }
            }
            if found.is_empty() {
                if !args.json {
                    eprintln!("no match for {query:?}");
                }
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => fail(&e),
    }
}

fn run_build(args: BuildArgs) -> ExitCode {
    let data = options::DataFlags {
        source: args.source.clone(),
        exclude_project: args.exclude_project.clone(),
        no_redact: args.no_redact,
        config: args.config.clone(),
    };
    let site = options::SiteFlags {
        out: args.out.clone(),
        title: args.title.clone(),
        theme: args.theme.clone(),
        base_path: args.base_path.clone(),
        no_cache: args.no_cache,
        report: args.report.clone(),
    };
    let mut opts = match options::build_options(&data, &site) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    let out = opts.out.clone();
    let bar = (!args.quiet).then(progress_bar);
    if let Some(bar) = &bar {
        let (bar, start) = (bar.clone(), std::time::Instant::now());
        opts.progress = ccwiki::Progress::new(move |phase, done, total| {
            // Only builds that take a while get a bar, and only on a terminal.
            if bar.is_hidden()
                && start.elapsed().as_secs_f32() > 1.0
                && std::io::stderr().is_terminal()
            {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            if total > 0 {
                bar.set_length(total);
                bar.set_position(done);
            }
            bar.set_message(phase.to_string());
        });
    }
    let result = build(&opts);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(report) => {
            if !args.quiet {
                print_summary(&report, &args, &out, opts.redact);
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

fn progress_bar() -> indicatif::ProgressBar {
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::hidden());
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} {msg:20} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn print_summary(r: &BuildReport, args: &BuildArgs, out: &std::path::Path, redacted: bool) {
    println!(
        "Built {} pages into {} in {:.2?}",
        r.pages,
        out.display(),
        r.elapsed()
    );
    println!(
        "  {} projects, {} sessions ({} sub-agents), {} memories, {} prompts",
        r.projects, r.sessions, r.subagents, r.memories, r.prompts
    );
    println!(
        "  {:.1} MB of transcripts ({} lines); {} files, {:.1} MB, {} unchanged since the last build",
        r.transcript_bytes as f64 / 1e6,
        r.lines,
        r.files_written,
        r.bytes_written as f64 / 1e6,
        r.files_unchanged
    );
    let c = r.cache;
    if c.reused + c.resumed > 0 {
        println!(
            "  cache: {} transcripts unchanged, {} read from where they grew, {} read in full",
            c.reused, c.resumed, c.read
        );
    }
    if r.excluded > 0 {
        println!("  {} sessions and memories left out by exclude", r.excluded);
    }
    if r.empty_sessions > 0 {
        println!("  {} session files had nothing to show", r.empty_sessions);
    }
    if !r.redactions.is_empty() {
        let parts: Vec<String> = r
            .redactions
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("  redacted: {}", parts.join(", "));
    } else if !redacted {
        println!("  redaction is OFF: check the output before publishing it");
    }
    if let Some(path) = &args.report {
        println!(
            "  redaction report: {} ({} residual suspects to check)",
            path.display(),
            r.suspects
        );
    }
    if !r.skips.is_empty() {
        let lines = r.skips.iter().filter(|s| s.line.is_some()).count();
        println!(
            "  skipped {} lines and {} files/entries:",
            lines,
            r.skips.len() - lines
        );
        let limit = if args.verbose { usize::MAX } else { 10 };
        for s in r.skips.iter().take(limit) {
            println!("    {s}");
        }
        if r.skips.len() > limit {
            println!(
                "    … and {} more (--verbose lists them all)",
                r.skips.len() - limit
            );
        }
    }
    if args.timings {
        for (phase, d) in &r.timings {
            println!("  {phase:<9} {:>9.2?}", d);
        }
    }
}
