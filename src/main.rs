//! The `ccwiki` command: a thin layer over the library.

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
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "ccwiki", &mut script);
            print_bytes(&script)
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
    let result = build(&opts);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(report) => {
            if !args.quiet {
                print!("{}", report.summary(&opts, args.verbose, args.timings));
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
