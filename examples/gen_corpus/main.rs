//! Generate a synthetic Claude Code data directory (`~/.claude`) of a given
//! size, for benchmarks.
//!
//! ```sh
//! cargo run --release --example gen_corpus -- --size 1GB --out /tmp/cc-1g
//! cargo run --release --example gen_corpus -- --size 100MB --out /tmp/cc-big --big-session 1GB
//! ```
//!
//! The output has the shape of a real data directory (see the corpus under
//! `../shared/corpus`): `projects/<dir>/<session>.jsonl` transcripts over
//! several projects, sub-agents in all three layouts (inline sidechain lines
//! for 1.0.x, `agent-<id>.jsonl` beside the sessions for 2.0.x,
//! `<session>/subagents/agent-<id>.jsonl` plus `.meta.json` for 2.1.x),
//! `memory/` folders with a `MEMORY.md` index, `history.jsonl` and a few
//! `sessions/<pid>.json`. Records carry the real fields and the real mix of
//! types; text is prose and code built from a vocabulary, not random bytes.
//!
//! Same arguments, same bytes: everything comes from one seeded PRNG and
//! nothing reads the clock except the timing printed at the end. Every file
//! is streamed through a `BufWriter`; only one record is held in memory.
//!
//! Rare words for search benchmarks ("needles") appear in about one prose
//! sentence in 4,000: see [`NEEDLES`].

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod json;
mod lines;
mod memory;
mod rng;
mod text;
mod tools;
mod turns;
mod vocab;

use json::*;
use lines::*;
use memory::*;
use rng::*;
use text::*;
use tools::*;
use turns::*;
use vocab::*;

pub(crate) type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub(crate) const USAGE: &str =
    "usage: gen_corpus --size SIZE --out DIR [--seed N] [--big-session SIZE]

  --size SIZE          total bytes to write (KB, MB, GB suffixes; decimal: 1MB = 1000000)
  --out DIR            output directory: created, or empty, or a previous gen_corpus output
  --seed N             random seed (default 1); the same arguments give byte-identical output
  --big-session SIZE   also write one single session file of about SIZE, on top of --size";

/// The file that marks a directory as ours, so a rerun may replace it.
pub(crate) const MARKER: &str = ".gen_corpus";

/// Rare words for search benchmarks: each appears in about 1 in 4,000 sentences.
#[rustfmt::skip]
pub(crate) const NEEDLES: &[&str] = &[
    "quokka-cache", "zanzibar-retry", "heisenbug", "flux-capacitor", "snark-hunt", "XYZZY_PLUGH",
];

pub(crate) fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("gen_corpus: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_corpus: {e}");
            ExitCode::from(1)
        }
    }
}

// ---------------------------------------------------------------- arguments

pub(crate) struct Args {
    pub(crate) size: u64,
    pub(crate) out: PathBuf,
    pub(crate) seed: u64,
    pub(crate) big: Option<u64>,
}

pub(crate) fn parse_args() -> Result<Option<Args>, String> {
    let mut size = None;
    let mut out = None;
    let mut seed = 1u64;
    let mut big = None;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if key == "-h" || key == "--help" {
            return Ok(None);
        }
        let mut value = || -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{key} needs a value"))
        };
        match key.as_str() {
            "--size" => size = Some(parse_size(&value()?)?),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--seed" => {
                let v = value()?;
                seed = v
                    .parse()
                    .map_err(|_| format!("--seed wants a whole number, not {v:?}"))?;
            }
            "--big-session" => big = Some(parse_size(&value()?)?),
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    let size = size.ok_or("--size is required")?;
    let out = out.ok_or("--out is required")?;
    Ok(Some(Args {
        size,
        out,
        seed,
        big,
    }))
}

/// `100MB`, `1GB`, `1.5gb`, `20000KB`, `123456` (bytes). Decimal units.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let u = s.trim().to_ascii_uppercase();
    let units: [(&str, f64); 7] = [
        ("GB", 1e9),
        ("MB", 1e6),
        ("KB", 1e3),
        ("G", 1e9),
        ("M", 1e6),
        ("K", 1e3),
        ("B", 1.0),
    ];
    let (num, mult) = units
        .iter()
        .find_map(|(suffix, m)| u.strip_suffix(suffix).map(|n| (n, *m)))
        .unwrap_or((u.as_str(), 1.0));
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v * mult >= 1.0 => Ok((v * mult).round() as u64),
        _ => Err(format!(
            "bad size {s:?}: use a number with KB, MB or GB (e.g. 100MB, 1GB)"
        )),
    }
}

// ---------------------------------------------------------------- the run

pub(crate) fn prepare_out(out: &Path) -> Res<()> {
    if out.exists() {
        if !out.is_dir() {
            return Err(format!("{} exists and is not a directory", out.display()).into());
        }
        let mut entries = fs::read_dir(out)
            .map_err(|e| format!("cannot read {}: {e}", out.display()))?
            .peekable();
        if entries.peek().is_some() {
            if !out.join(MARKER).is_file() {
                return Err(format!(
                    "refusing to write into {}: it is not empty and not a gen_corpus output (no {MARKER} file). Pick an empty or new directory.",
                    out.display()
                )
                .into());
            }
            for name in ["projects", "sessions"] {
                let p = out.join(name);
                if p.exists() {
                    fs::remove_dir_all(&p)
                        .map_err(|e| format!("cannot remove {}: {e}", p.display()))?;
                }
            }
            for name in ["history.jsonl", MARKER] {
                let p = out.join(name);
                if p.exists() {
                    fs::remove_file(&p)
                        .map_err(|e| format!("cannot remove {}: {e}", p.display()))?;
                }
            }
        }
    }
    mkdir(out)
}

/// Planned session sizes: mostly 50 KB–5 MB (log-triangular), 4 % 20–80 MB.
pub(crate) fn plan_sizes(r: &mut Rng, budget: u64) -> Vec<u64> {
    let cap = (budget as f64 / 8.0).max(60e3);
    let mut sizes = Vec::new();
    let mut sum = 0u64;
    while sum < budget {
        let s = if r.chance(0.04) {
            r.log_uniform(20e6, 80e6)
        } else {
            let u = (r.unit() + r.unit()) / 2.0;
            (50e3f64.ln() + u * (5e6f64.ln() - 50e3f64.ln())).exp()
        };
        let s = s.min(cap) as u64;
        sizes.push(s);
        sum += s;
    }
    sizes
}

pub(crate) fn run(a: &Args) -> Res<()> {
    let started = Instant::now();
    prepare_out(&a.out)?;
    let mut stats = Stats::default();
    let marker = format!(
        "gen_corpus output (safe to delete)\nsize={}\nseed={}\nbig_session={}\n",
        a.size,
        a.seed,
        a.big.unwrap_or(0)
    );
    write_file(&mut stats, &a.out.join(MARKER), marker.as_bytes())?;
    let mut r = Rng::new(a.seed);
    let g = Gen::new(&mut r);

    let n_projects = ((a.size as f64 / 1e9 * 8.0).round() as usize).max(3);
    let projects: Vec<Project> = (0..n_projects)
        .map(|i| make_project(&g, &mut r, i))
        .collect();
    for p in &projects {
        mkdir(&a.out.join("projects").join(&p.dir))?;
        memories(&g, &mut r, p, &a.out, &mut stats)?;
    }

    // Sub-agent files add roughly a tenth on top of the planned session sizes.
    let plan = plan_sizes(&mut r, (a.size as f64 * 0.9) as u64);
    let n = plan.len();
    let weights: Vec<u32> = (0..n_projects)
        .map(|i| (1000.0 / (i as f64 + 1.0).powf(0.8)) as u32)
        .collect();
    let mut owner: Vec<usize> = (0..n).map(|_| r.weighted(&weights)).collect();
    // Every project gets at least one session (spread over time).
    if n >= n_projects {
        for p in 0..n_projects {
            owner[p * n / n_projects] = p;
        }
    }

    let mut w = W {
        r: Rng::new(0),
        t: 0,
        scale: 1.0,
        stats,
        line: Vec::with_capacity(1 << 16),
        hist: Out::create(&a.out.join("history.jsonl"))?,
    };
    let mut leaves: Vec<Option<String>> = vec![None; n_projects];
    let mut starts: Vec<(i64, String, String)> = Vec::new();
    let total = |w: &W| w.stats.bytes + w.hist.n;
    let mut i = 0usize;
    loop {
        let remaining = a.size.saturating_sub(total(&w));
        if remaining < 20_000 || (i >= n && remaining < a.size / 100) {
            break;
        }
        let target = if i < n { plan[i] } else { 1_000_000 }.min(remaining);
        let f = ((i as f64 + 0.5) / n as f64).min(0.999);
        let pi = if i < n { owner[i] } else { i % n_projects };
        let p = &projects[pi];
        let mut sr = Rng::new(a.seed ^ (i as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        let era = if f < 0.10 {
            Era::V10
        } else if f < 0.25 {
            Era::V20
        } else {
            Era::V21
        };
        let (lo, hi, t0, t1) = era_window(era);
        let local = (f - lo) / (hi - lo);
        let slot = (t1 - t0) as f64 / ((hi - lo) * n as f64);
        let start = t0 + (local * (t1 - t0) as f64) as i64 + (sr.unit() * slot * 0.1) as i64;
        let versions = match era {
            Era::V10 => V10,
            Era::V20 => V20,
            Era::V21 => V21,
        };
        let vi = ((local * versions.len() as f64) as usize).min(versions.len() - 1);
        w.r = sr;
        w.t = start;
        // Fit the session into 80 % of its slot: about 3 KB and 25 s per line.
        let natural = target as f64 / 3_000.0 * 25_000.0;
        w.scale = (slot * 0.8 / natural).min(1.0);
        let s = make_session(&g, p, &mut w.r, era, vi, versions[vi], &a.out);
        let (leaf, _) = session(&s, &mut w, target, a.size, leaves[pi].as_deref())?;
        leaves[pi] = leaf;
        starts.push((start, s.id.clone(), p.cwd.clone()));
        i += 1;
    }
    let regular = total(&w);

    let (mut big_file, mut big_agents) = (0, 0);
    if let Some(big) = a.big {
        // One huge session after everything else.
        let p = &projects[0];
        w.r = Rng::new(a.seed ^ 0xB16_B16);
        w.t = ms_at(2026, 5, 16);
        w.scale = 0.05;
        let s = make_session(
            &g,
            p,
            &mut w.r,
            Era::V21,
            V21.len() - 1,
            V21[V21.len() - 1],
            &a.out,
        );
        big_file = session(&s, &mut w, big, u64::MAX, None)?.1;
        big_agents = total(&w) - regular - big_file;
        starts.push((ms_at(2026, 5, 16), s.id.clone(), p.cwd.clone()));
    }

    // sessions/<pid>.json for the last few sessions.
    let sdir = a.out.join("sessions");
    mkdir(&sdir)?;
    let mut pid = 20_000 + r.below(20_000);
    for (k, (t, id, cwd)) in starts.iter().rev().take(5).enumerate() {
        pid += r.range(50, 900);
        let mut j = Vec::new();
        j.s("{\"pid\":");
        num(&mut j, pid);
        j.s(",\"sessionId\":\"").s(id).s("\",\"cwd\":");
        q(&mut j, cwd);
        j.s(",\"startedAt\":");
        if k % 2 == 0 {
            num(&mut j, *t as u64);
            j.s(",\"kind\":\"interactive\",\"entrypoint\":\"cli\"}");
        } else {
            j.push(b'"');
            iso(&mut j, *t);
            j.s("\"}");
        }
        write_file(&mut w.stats, &sdir.join(format!("{pid}.json")), &j)?;
    }

    let hist = w.hist;
    let mut stats = w.stats;
    let hn = hist.finish()?;
    stats.file(hn);
    let secs = started.elapsed().as_secs_f64();
    // Ignore a closed stdout (`| head`): the files are written either way.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "gen_corpus: wrote {} files, {} bytes ({:.1} MB), {} transcript lines in {:.2} s ({:.0} MB/s) to {}",
        stats.files,
        stats.bytes,
        stats.bytes as f64 / 1e6,
        stats.lines,
        secs,
        stats.bytes as f64 / 1e6 / secs.max(1e-9),
        a.out.display()
    );
    let _ = writeln!(
        out,
        "  {} projects, {} sessions, {} sub-agents; regular part {:.1} MB of {:.1} MB asked{}",
        n_projects,
        stats.sessions,
        stats.subagents,
        regular as f64 / 1e6,
        a.size as f64 / 1e6,
        match a.big {
            Some(_) => format!(
                ", plus one {:.1} MB session file (and {:.1} MB of its sub-agents and history)",
                big_file as f64 / 1e6,
                big_agents as f64 / 1e6
            ),
            None => String::new(),
        }
    );
    let mix: Vec<String> = KINDS
        .iter()
        .zip(stats.kinds.iter())
        .filter(|(_, &c)| c > 0)
        .map(|(k, &c)| format!("{k} {:.1}%", c as f64 * 100.0 / stats.lines.max(1) as f64))
        .collect();
    let _ = writeln!(out, "  lines: {}", mix.join(" · "));
    Ok(())
}

pub(crate) fn make_session<'a>(
    g: &'a Gen,
    p: &'a Project,
    r: &mut Rng,
    era: Era,
    vi: usize,
    version: &'static str,
    root: &Path,
) -> S<'a> {
    let id = uuid(r);
    let branch = if r.chance(0.5) {
        "main".to_string()
    } else {
        r.pick(&p.branches).clone()
    };
    let slug = (era == Era::V21).then(|| {
        format!(
            "{}-{}-{}",
            r.word(SLUG_ADJS),
            r.word(SLUG_VERBS),
            r.word(SLUG_NOUNS)
        )
    });
    let entry = (era == Era::V21 && vi >= V21_ENTRYPOINT).then(|| {
        *r.pick(&[
            "cli",
            "cli",
            "cli",
            "cli",
            "claude-vscode",
            "claude-vscode",
            "sdk-cli",
        ])
    });
    let model = match era {
        Era::V10 => *r.pick(&[
            "claude-sonnet-4-20250514",
            "claude-sonnet-4-20250514",
            "claude-opus-4-20250514",
            "claude-opus-4-1-20250805",
        ]),
        Era::V20 => *r.pick(&[
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-5-20251101",
        ]),
        Era::V21 => *r.pick(&[
            "claude-opus-4-5-20251101",
            "claude-opus-4-6",
            "claude-opus-4-6",
            "claude-sonnet-4-5-20250929",
        ]),
    };
    S {
        g,
        p,
        id,
        era,
        vi,
        version,
        branch,
        slug,
        entry,
        model,
        dir: root.join("projects").join(&p.dir),
    }
}
