//! The `ccwiki` command: a thin layer over the library.

use ccwiki::app::check::CheckOptions;
use ccwiki::app::options;
use ccwiki::{build, Error};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
Examples:
  ccwiki build                                  build ~/.claude into ./site
  ccwiki build --source examples/demo --out site
  ccwiki build --source ~/.claude --out ~/wiki/site --no-redact
  CLAUDE_CONFIG_DIR=~/.config/claude ccwiki build

Exit status:
  0  built (skipped lines and files are reported as warnings, not fatal)
  1  --strict and there were warnings: the previous site is left as it was
  2  refused before writing anything: bad input, options or output directory
  3  failed while writing: the previous site is left as it was";

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
    /// Build into a private folder, serve it on 127.0.0.1 and rebuild (and reload open pages) when the data changes.
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(ServeArgs),
    /// Check that every link, anchor and asset of a built site resolves (exit 1 when one does not).
    Check(CheckArgs),
    /// What the archive keeps: status, verify, export.
    #[command(subcommand)]
    Archive(ArchiveCommand),
    /// Print a file back from what the sessions recorded of it (writes, edits, Claude Code's backups), e.g. one you deleted.
    #[command(after_help = RECOVER_EXAMPLES)]
    Recover(RecoverArgs),
    /// Search sessions and memories directly, without building (exit 1 when nothing matches).
    #[command(after_help = SEARCH_EXAMPLES)]
    Search(SearchArgs),
    /// Start a wiki repository: ccwiki.toml, .gitignore, README.md (never overwrites).
    Init(InitArgs),
    /// List the themes, or copy a bundled one to edit.
    #[command(subcommand)]
    Theme(ThemeCommand),
    /// Print a shell completion script, e.g. `ccwiki completions bash > ~/.local/share/bash-completion/completions/ccwiki`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `ccwiki man > ~/.local/share/man/man1/ccwiki.1`.
    Man,
    /// Remove the previous copies of a site that `build` moved aside (what
    /// `build` starts in the background; refuses any other folder).
    #[command(hide = true)]
    RemovePrevious {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
}

const SERVE_EXAMPLES: &str = "\
Examples:
  ccwiki serve                                  ~/.claude at http://127.0.0.1:1111/
  ccwiki serve --source examples/demo --open
  ccwiki serve --port 0                         any free port";

#[derive(clap::Args)]
struct ServeArgs {
    #[command(flatten)]
    data: options::DataFlags,
    /// The port to listen on (0: any free one).
    #[arg(long, short = 'p', default_value_t = 1111)]
    port: u16,
    /// The interface to listen on; anything but 127.0.0.1 shows your data to the network.
    #[arg(long, default_value = "127.0.0.1")]
    interface: std::net::IpAddr,
    /// Open the wiki in the default browser.
    #[arg(long)]
    open: bool,
    /// The wiki's title [default: title in ccwiki.toml, else "Claude Code wiki"].
    #[arg(long)]
    title: Option<String>,
    /// Theme: a bundled one (`ccwiki theme list`) or one in ./themes/.
    #[arg(long, value_name = "NAME")]
    theme: Option<String>,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The built site [default: ./site].
    #[arg(value_name = "SITE", default_value = "site")]
    site: PathBuf,
    /// Where the site is served, for links that start with it (the 404 page's).
    #[arg(long, value_name = "PATH", default_value = "/")]
    base_path: String,
    /// Also ask every link to the web (off by default: a check needs no network).
    #[arg(long)]
    external: bool,
    /// Seconds to wait for each web address, with --external.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    timeout: u64,
}

#[derive(Subcommand)]
enum ArchiveCommand {
    /// Files, sessions, bytes (as they were and stored), the oldest and newest session, and how many only the archive still has.
    Status {
        #[command(flatten)]
        data: options::DataFlags,
    },
    /// Check every object against its checksum (exit 1 on damage).
    Verify {
        #[command(flatten)]
        data: options::DataFlags,
    },
    /// Write every kept file back, byte for byte, in the layout of ~/.claude (never over an existing file).
    Export {
        /// Where to write them (e.g. a new folder, then copy what you need into ~/.claude).
        dir: PathBuf,
        #[command(flatten)]
        data: options::DataFlags,
    },
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

const RECOVER_EXAMPLES: &str = "\
Examples:
  ccwiki recover src/app.rs --project tide-api --list
  ccwiki recover /home/me/code/tide-api/src/app.rs > app.rs
  ccwiki recover src/app.rs -p tide-api --at '2026-11-04 09:30' > app.rs

The content is printed as the sessions recorded it: not redacted.";

#[derive(clap::Args)]
struct RecoverArgs {
    /// The file as the sessions wrote it: absolute, or relative to its project.
    #[arg(value_name = "PATH")]
    path: String,
    #[command(flatten)]
    data: options::DataFlags,
    /// The project (its folder, or the end of it), for a relative PATH.
    #[arg(long, short = 'p', value_name = "P")]
    project: Option<String>,
    /// The newest version at or before this time (2026-11-04, 2026-11-04 09:30, or RFC 3339; UTC).
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    /// List the versions ccwiki can rebuild instead of printing one.
    #[arg(long, conflicts_with = "at")]
    list: bool,
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
    #[command(flatten)]
    data: options::DataFlags,
    /// Only this project (a name, or part of its path).
    #[arg(long, short = 'p', value_name = "P")]
    project: Option<String>,
    /// How many results to print.
    #[arg(long, short = 'n', default_value_t = 10)]
    limit: usize,
    /// Print results as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct BuildArgs {
    #[command(flatten)]
    data: options::DataFlags,
    #[command(flatten)]
    site: options::SiteFlags,
    /// Print only errors.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print the time each phase took.
    #[arg(long)]
    timings: bool,
    /// List every skipped line and file, not just the first few.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Then check every link of the site, as `ccwiki check` does (exit 1 when one is broken).
    #[arg(long)]
    check: bool,
}

/// jemalloc instead of the system allocator: a build makes and drops
/// millions of small strings on every core, where glibc's malloc and free
/// took a tenth of the time (100,000 tiny sessions: 13.2 s -> 11.0 s and
/// 700 -> 590 MB; a gigabyte of transcripts: 4.3 s -> 4.15 s).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read when it starts: pages freed go back to the
/// system after a second rather than ten (with the default, peak memory
/// was higher than with glibc's malloc; at once, purging cost a fifth of
/// the time). On Linux, one arena per CPU rather than four: a thread
/// allocates where it runs, and memory freed by one worker is reused by
/// the next on that CPU (100,000 tiny sessions peaked at 181–188 MB
/// instead of 188–195, the same speed). Other systems lack the per-CPU
/// arenas, and jemalloc would warn at every start.
#[cfg(all(not(target_env = "msvc"), target_os = "linux"))]
#[unsafe(export_name = "_rjem_malloc_conf")]
static MALLOC_CONF: Option<&'static u8> =
    Some(&b"dirty_decay_ms:1000,muzzy_decay_ms:0,percpu_arena:percpu\0"[0]);

/// jemalloc's options elsewhere (see the Linux ones).
#[cfg(all(not(target_env = "msvc"), not(target_os = "linux")))]
#[unsafe(export_name = "_rjem_malloc_conf")]
static MALLOC_CONF: Option<&'static u8> = Some(&b"dirty_decay_ms:1000,muzzy_decay_ms:0\0"[0]);

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
        Command::Serve(args) => run_serve(args),
        Command::Check(args) => run_check(args),
        Command::Archive(cmd) => run_archive(cmd),
        Command::Recover(args) => run_recover(args),
        Command::Search(args) => run_search(args),
        Command::Init(args) => run_init(args),
        Command::Theme(cmd) => run_theme(cmd),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "ccwiki", &mut script);
            print_bytes(&script)
        }
        Command::RemovePrevious { dirs } => {
            let warnings = ccwiki::output::write::remove_all_previous(&dirs);
            for w in &warnings {
                eprintln!("warning: {w}");
            }
            match warnings.is_empty() {
                true => ExitCode::SUCCESS,
                false => ExitCode::FAILURE,
            }
        }
        Command::Man => {
            let man = clap_mangen::Man::new(<Cli as clap::CommandFactory>::command());
            let mut page = Vec::new();
            match man.render(&mut page) {
                Ok(()) => print_bytes(&page),
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

/// Write `bytes` to standard output; a reader that stopped early (`| head`)
/// is no error.
fn print_bytes(bytes: &[u8]) -> ExitCode {
    use std::io::Write;
    match std::io::stdout().write_all(bytes) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
        _ => ExitCode::SUCCESS,
    }
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::from(e.exit_code())
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

fn run_recover(args: RecoverArgs) -> ExitCode {
    use ccwiki::app::recover::{parse_time, recover, Wanted};
    let pipeline = match options::load_config(&args.data) {
        Ok(loaded) => options::pipeline(&args.data, &loaded),
        Err(e) => return fail(&e),
    };
    let wanted = match (&args.at, args.list) {
        (_, true) => Wanted::List,
        (Some(at), false) => match parse_time(at) {
            Ok(t) => Wanted::Content(Some(t)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        (None, false) => Wanted::Content(None),
    };
    let query = ccwiki::knowledge::recover::Query {
        path: args.path,
        project: args.project,
    };
    match recover(&pipeline, &query, &wanted) {
        Ok((out, notes)) => {
            for n in notes {
                eprintln!("note: {n}");
            }
            print_bytes(out.as_bytes())
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_search(args: SearchArgs) -> ExitCode {
    let pipeline = match options::load_config(&args.data) {
        Ok(loaded) => options::pipeline(&args.data, &loaded),
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
    let mut opts = match options::build_options(&args.data, &args.site) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
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
    // The command returns as soon as the new site is in place.
    opts.leave_previous = true;
    opts.process_ends = true;
    let result = build(&opts);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(report) => {
            if !report.previous.is_empty() {
                remove_in_background(&report.previous);
            }
            if !args.quiet {
                print!("{}", report.summary(&opts, args.verbose, args.timings));
                println!(
                    "Open {} in a browser, or serve it with live reload:\n  {}",
                    opts.out.join("index.html").display(),
                    serve_command(&args)
                );
            }
            if args.check {
                let check = CheckOptions {
                    base_path: opts.base_path.clone(),
                    external: None,
                };
                return check_and_say(&opts.out, &check, args.quiet);
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

/// Remove the previous copies of the site in a process of its own (a
/// site of a hundred thousand pages takes a second to remove), so that
/// the command returns as soon as the new site is in place. Where no
/// process can be started, here and now. A copy the process could not
/// remove is removed by the next build.
fn remove_in_background(previous: &[std::path::PathBuf]) {
    use std::process::{Command, Stdio};
    let started = std::env::current_exe().and_then(|exe| {
        Command::new(exe)
            .arg("remove-previous")
            .args(previous)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
    });
    if started.is_err() {
        for w in ccwiki::output::write::remove_all_previous(previous) {
            eprintln!("warning: {w}");
        }
    }
}

/// The `ccwiki serve` that shows what this build built.
fn serve_command(args: &BuildArgs) -> String {
    let mut words = vec!["ccwiki".to_string(), "serve".to_string()];
    let d = &args.data;
    let mut flag = |name: &str, value: &std::ffi::OsStr| {
        words.push(name.to_string());
        words.push(shell_word(&value.to_string_lossy()));
    };
    for source in &d.source {
        flag("--source", source.as_os_str());
    }
    for glob in &d.exclude_project {
        flag("--exclude-project", glob.as_ref());
    }
    if let Some(config) = &d.config {
        flag("--config", config.as_os_str());
    }
    if let Some(title) = &args.site.title {
        flag("--title", title.as_ref());
    }
    if let Some(theme) = &args.site.theme {
        flag("--theme", theme.as_ref());
    }
    if d.no_redact {
        words.push("--no-redact".to_string());
    }
    words.join(" ")
}

/// `word` as a POSIX shell reads it back: bare when it is plain, else in
/// single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn run_serve(args: ServeArgs) -> ExitCode {
    let site = options::SiteFlags {
        title: args.title,
        theme: args.theme,
        ..options::SiteFlags::default()
    };
    let build = match options::build_options(&args.data, &site) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    let opts = ccwiki::serve::ServeOptions {
        build,
        interface: args.interface,
        port: args.port,
        open: args.open,
    };
    let say: ccwiki::serve::Say = std::sync::Arc::new(|line: &str| eprintln!("{line}"));
    match ccwiki::serve::serve(&opts, say, |_| {}) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// The archive the flags (or ccwiki.toml, or the default) name, and the sources.
fn archive_of(data: &options::DataFlags) -> Result<(PathBuf, Vec<PathBuf>), Error> {
    let loaded = options::load_config(data)?;
    let p = options::pipeline(data, &loaded);
    let dir = p.archive.ok_or_else(|| Error::NoArchive {
        path: PathBuf::from("(none: --no-archive or archive = false)"),
    })?;
    Ok((dir, p.sources))
}

fn run_archive(cmd: ArchiveCommand) -> ExitCode {
    match cmd {
        ArchiveCommand::Status { data } => {
            let status = archive_of(&data)
                .and_then(|(dir, sources)| ccwiki::app::archive::status(&dir, &sources));
            match status {
                Ok(s) => {
                    print!("{}", s.describe());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        ArchiveCommand::Verify { data } => {
            let verified = archive_of(&data)
                .and_then(|(dir, _)| ccwiki::source::archive::Archive::open_existing(&dir))
                .map(|a| a.verify());
            match verified {
                Ok(v) => {
                    for line in &v.damaged {
                        println!("damaged: {line}");
                    }
                    print!("{}", ccwiki::app::archive::describe_verified(&v));
                    if v.damaged.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    }
                }
                Err(e) => fail(&e),
            }
        }
        ArchiveCommand::Export { dir, data } => {
            let exported = archive_of(&data).and_then(|(archive, sources)| {
                ccwiki::source::archive::Archive::open_existing(&archive)?.export(&sources, &dir)
            });
            match exported {
                Ok(x) => {
                    for p in &x.existing {
                        println!("exists, left as it was: {}", p.display());
                    }
                    for p in &x.refused {
                        println!("refused (leaves the folder): {}", p.display());
                    }
                    println!(
                        "Wrote {} files ({:.1} MB) into {}",
                        x.files,
                        x.bytes as f64 / 1e6,
                        dir.display()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
    }
}

fn run_check(args: CheckArgs) -> ExitCode {
    let opts = CheckOptions {
        base_path: args.base_path,
        external: args
            .external
            .then(|| std::time::Duration::from_secs(args.timeout.max(1))),
    };
    check_and_say(&args.site, &opts, false)
}

/// Check `site`, print every broken link and a count; exit 1 when any.
fn check_and_say(site: &std::path::Path, opts: &CheckOptions, quiet: bool) -> ExitCode {
    match ccwiki::app::check::check_site(site, opts) {
        Ok(report) => {
            for b in &report.broken {
                println!("{b}");
            }
            if !quiet || !report.broken.is_empty() {
                let web = if opts.external.is_some() {
                    format!(", {} web addresses", report.external)
                } else {
                    String::new()
                };
                println!(
                    "Checked {} pages, {} links{web}: {} broken",
                    report.pages,
                    report.links,
                    report.broken.len()
                );
            }
            if report.broken.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
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
