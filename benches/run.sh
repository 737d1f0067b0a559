#!/usr/bin/env bash
# ccwiki benchmarks: one command that prints figures.
#
#   bash benches/run.sh                           # 100MB and 1GB
#   bash benches/run.sh --sizes "100MB 1GB 4GB"   # pick the sizes
#   bash benches/run.sh --big                     # add one 1GB session file alone (10MB beside it),
#                                                 # and 3GB + one 1GB session file (peak RSS case)
#   bash benches/run.sh --compare                 # add claude-code-log and claude-code-transcripts on the 100MB data
#   bash benches/run.sh --shapes                  # add 100,000 tiny sessions, 10,000 memory files and a 50,000-prompt history
#   bash benches/run.sh --keep                    # keep the built sites under target/bench-out
#   bash benches/run.sh --runs 3                  # cold builds, rg runs and rebuilds after a change (default 2)
#   bash benches/run.sh --no-wait                 # do not wait for idle CPUs before each run
#   bash benches/run.sh --out-dir /dev/shm/bench  # write the sites there (default target/bench-out):
#                                                 # on a RAM disk, render figures leave the file system out
#
# What it does, for each size:
#   1. builds ccwiki and the corpus generator in release mode (once);
#   2. generates the data into target/bench-data/<size> (reused when already
#      complete: a stamp beside the directory, never inside it);
#   3. cold build: the output directory and ccwiki's incremental cache are
#      removed first, then `ccwiki build --source DIR --out OUT --quiet` under
#      /usr/bin/time -v; run twice (--runs), the faster wall time is reported,
#      with the higher peak RSS;
#   4. one `--timings` build (cold as well) to print ccwiki's per-phase times;
#      cold builds run with --no-archive;
#   5. a cold build that fills a new archive (target/bench-archive/<size>),
#      reported on its own line with its MB/s and the archive's size;
#   6. a rebuild with nothing changed (with the archive, and without it to
#      show what the archive adds), then a rebuild after one new session,
#      best of --runs: a median-sized session file of the data is copied to
#      a new uuid (the session id inside rewritten too) and the site is
#      rebuilt in place (with --timings, so the phases show what the cache
#      saved); each run adds one more copy, and the copies are deleted after
#      the last so the data stays pristine. Whatever the binary caches is
#      used. Each session's prompt is added to history.jsonl too, as Claude
#      Code writes it, and cut off again afterwards.
#   7. the floor: `rg -c --no-ignore --hidden '"type"' DIR` (rg recurses by
#      itself; its -r is --replace), run straight after each cold build of
#      step 3 (so both see the machine as it is that minute), best of --runs.
# Before each measured run the script flushes what earlier runs left to
# write (sync), reads every file of the data once (untimed: the figures are
# with the page cache warm) and waits (up to 60 s) for the CPUs to be
# at most 15% busy, and every figure line shows the CPU time (user + system)
# next to the wall time: CPU time is what to compare when the machine was
# shared. "Cold" means no previous output and no cache; the OS page cache is
# NOT dropped (the data was just generated or read, so it is in memory:
# these are CPU figures, not disk figures).
#
# ccwiki's cache goes to target/bench-cache/<size> (CCWIKI_CACHE_DIR), never
# to ~/.cache. The data directories are only read, apart from the session
# files added (and removed) for the rebuild figure.
#
# MB/s = transcript bytes (the .jsonl files under projects/, what ccwiki
# reports as "read N MB of transcripts") / wall seconds. 1 MB = 10^6 bytes.
# The rg MB/s uses the same byte count; rg also reads the few small other
# files (history.jsonl, memory notes), so that is a slight understatement.
#
# Needs: cargo, GNU time (/usr/bin/time) and ripgrep; both are installed with
# apt-get when missing. --compare needs python3 with venv and network to PyPI.

set -euo pipefail

SIZES="100MB 1GB"
KEEP=0
COMPARE=0
BIG=0
SHAPES=0
RUNS=2
WAIT_MAX=60
OUT_DIR=""

usage() {
    sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --sizes) SIZES="${2?--sizes needs a value (\"\" for none), e.g. \"100MB 1GB\"}"; shift 2 ;;
        --sizes=*) SIZES="${1#--sizes=}"; shift ;;
        --keep) KEEP=1; shift ;;
        --compare) COMPARE=1; shift ;;
        --big) BIG=1; shift ;;
        --shapes) SHAPES=1; shift ;;
        --runs) RUNS="${2:?--runs needs a number}"; shift 2 ;;
        --no-wait) WAIT_MAX=0; shift ;;
        --out-dir) OUT_DIR="${2:?--out-dir needs a directory}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
done

if [ -n "$OUT_DIR" ]; then OUT_DIR="$(realpath -m -- "$OUT_DIR")"; fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET="$ROOT/target"
DATA_ROOT="$TARGET/bench-data"
OUT_ROOT="${OUT_DIR:-$TARGET/bench-out}"
CACHE_ROOT="$TARGET/bench-cache"
ARCHIVE_ROOT="$TARGET/bench-archive"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ccwiki-bench.XXXXXX")"
ADDED=()   # session files added for the rebuild figures, removed on exit
GREW=""    # "LENGTH FILE": a history that got prompts, cut back on exit

cleanup() {
    unadd
    unprompt
    rm -rf -- "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*" >&2; }

# ------------------------------------------------------------------ tools

need_apt() { # need_apt COMMAND PACKAGE
    command -v "$1" >/dev/null 2>&1 && return 0
    say "== installing $2 (apt-get)"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >/dev/null
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}
[ -x /usr/bin/time ] || need_apt /usr/bin/time time
need_apt rg ripgrep

load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    say "warning: load average is $load: something else is using the CPU, figures will be noisy"
fi

# warn_memory DIR: the figures are CPU figures only while DIR's files stay in
# the page cache; say so when the memory available is less than they take
# (a RAM disk's files count as used memory: sites left there add up).
warn_memory() {
    local need avail
    need=$(du -sk -- "$1" 2>/dev/null | cut -f1)
    avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
    [ -n "$need" ] && [ -n "$avail" ] || return 0
    if [ "$avail" -lt "$need" ]; then
        say "warning: $((avail / 1024)) MB of memory available for the $((need / 1024)) MB of $1: part of it will be read from the disk in every run, figures will be slower"
    fi
}

say "== building ccwiki and the generator (release)"
cargo build --release --example gen_corpus
cargo build --release
# Run private copies, so a rebuild of target/ during the benchmark changes nothing.
cp "$TARGET/release/ccwiki" "$TMP/ccwiki"
cp "$TARGET/release/examples/gen_corpus" "$TMP/gen_corpus"
CCWIKI="$TMP/ccwiki"
GEN="$TMP/gen_corpus"

# ------------------------------------------------------------------ helpers

# Busy share of all CPUs over the next second, in percent (from /proc/stat).
cpu_busy() {
    local a b
    a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
    sleep 1
    b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ")
        busy = y[1] - x[1]; idle = y[2] - x[2]
        printf "%.0f", (busy + idle > 0) ? 100 * busy / (busy + idle) : 0 }'
}

# Wait (up to $WAIT_MAX seconds) until the CPUs are mostly idle, so that
# another job on the machine does not end up in the figures. Sets BUSY to
# the share seen last (percent).
wait_idle() {
    BUSY=0
    [ "$WAIT_MAX" -gt 0 ] || return 0
    local waited=0
    while :; do
        BUSY=$(cpu_busy)
        [ "$BUSY" -le 15 ] && return 0
        waited=$((waited + 1))
        if [ "$waited" -ge "$WAIT_MAX" ]; then
            say "   (the CPUs are still ${BUSY}% busy after ${WAIT_MAX} s: measuring anyway)"
            return 0
        fi
    done
}

# measure LOG CMD...: run CMD under /usr/bin/time -v, stdout+stderr to LOG.
# Sets WALL (seconds), CPU (user + system seconds), RSS_MB (peak resident
# set, MB) and RC.
measure() {
    local log="$1"; shift
    local tf="$TMP/time.txt"
    local t0 t1
    # What earlier runs left to write back (a removed site of 100,000
    # pages, a cache) goes to disk now, not during this run.
    sync
    # The data read once, untimed: these are CPU figures with the page
    # cache warm, and a machine that reclaims idle memory (a virtual
    # machine's balloon, DAMON) drops part of it between runs (a first
    # cold build of 1 GB took 1.24 s against 0.99 s for the second).
    # Every file, not only the transcripts: the 10,000 memory files' cold
    # build read them from the disk (triage 1.08 s against 0.10-0.28 s).
    if [ -n "${WARM_DIR:-}" ]; then
        find "$WARM_DIR" -type f -exec cat {} + >/dev/null 2>&1 || true
    fi
    wait_idle
    RC=0
    t0=$EPOCHREALTIME
    /usr/bin/time -v -o "$tf" "$@" >"$log" 2>&1 || RC=$?
    t1=$EPOCHREALTIME
    # Wall time from the shell's clock (microseconds; /usr/bin/time rounds to 10 ms).
    WALL=$(awk -v a="${t0/,/.}" -v b="${t1/,/.}" 'BEGIN { printf "%.3f", b - a }')
    RSS_MB=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tf")
    CPU=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$tf")
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 <= b + 0) ? a : b }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0) ? a : b }'; }
# beats BEST: whether the last measure's WALL is the best of the runs so
# far (none yet when BEST is empty).
beats() { [ -z "$1" ] || [ "$(min "$1" "$WALL")" = "$WALL" ]; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", b / 1e6 / s; else print "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f×", a / b; else print "-" }'; }

transcript_bytes() { # bytes of the .jsonl files under DIR/projects
    find "$1/projects" -type f -name '*.jsonl' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f", s }'
}

# ensure_data LABEL GEN-ARGS...: generate target/bench-data/LABEL unless a
# complete copy with the same arguments is already there.
ensure_data() {
    local label="$1"; shift
    local dir="$DATA_ROOT/$label" stamp="$DATA_ROOT/$label.ok"
    local want="gen_corpus $*"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dir/.gen_corpus" ]; then
        say "== data $label: reusing $dir"
        return 0
    fi
    rm -f -- "$stamp"
    if [ -e "$dir" ] && [ ! -f "$dir/.gen_corpus" ]; then
        # Ours (under target/bench-data) but not a generator output: start over.
        rm -rf -- "$dir"
    fi
    mkdir -p "$DATA_ROOT"
    say "== data $label: generating ($want)"
    "$GEN" "$@" --out "$dir" >&2
    printf '%s' "$want" >"$stamp"
}

# A session file (not a sub-agent) whose size is the median of all sessions.
median_session() {
    find "$1/projects" -mindepth 2 -maxdepth 2 -type f -name '*.jsonl' ! -name 'agent-*' -printf '%s %p\n' \
        | sort -n | awk '{ a[NR] = $0 } END { if (NR) print a[int((NR + 1) / 2)] }'
}

# A session's prompt added to the history of data directory $1, as Claude
# Code writes it when a prompt is typed: in the project of the history's
# last prompt (a project the data does not know would be a new identity to
# redact, and every cache would start again). Cut back with unprompt.
prompt_history() {
    local h="$1/history.jsonl" sid="$2"
    [ -s "$h" ] || return 0
    # Its length before the first prompt added: unprompt cuts back to it.
    [ -n "$GREW" ] || GREW="$(stat -c %s "$h") $h"
    python3 - "$h" "$sid" <<'PY'
import json, sys, time
path, sid = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    f.seek(max(0, f.seek(0, 2) - 65536))
    last = json.loads(f.read().splitlines()[-1])
line = {"display": "one more prompt", "pastedContents": {},
        "timestamp": int(time.time() * 1000), "project": last.get("project"), "sessionId": sid}
with open(path, "a") as f:
    f.write(json.dumps(line) + "\n")
PY
}

unprompt() {
    if [ -n "$GREW" ]; then truncate -s "${GREW%% *}" -- "${GREW#* }"; GREW=""; fi
}

unadd() {
    local f
    for f in ${ADDED[@]+"${ADDED[@]}"}; do rm -f -- "$f"; done
    ADDED=()
}

new_uuid() {
    if [ -r /proc/sys/kernel/random/uuid ]; then cat /proc/sys/kernel/random/uuid
    else python3 -c 'import uuid; print(uuid.uuid4())'; fi
}

# ------------------------------------------------------------------ one size

ROWS=()
FLOOR=()
REBUILDS=()
ARCHIVES=()
CPUS=()
RENDERS=()
SHAPE_ROWS=()

# render_row LABEL TIMINGS-LOG: pages, HTML written and the render phase's
# time as ccwiki reported them, and the rate.
render_row() {
    awk -v label="$1" '
        /^Built [0-9]+ pages/ { pages = $2 }
        /files, [0-9.]+ MB,/ { for (i = 1; i < NF; i++) if ($(i + 1) == "MB,") mb = $i }
        $1 == "render" {
            v = $2
            if (v ~ /ms$/) { sub(/ms$/, "", v); t = v / 1000 }
            else if (v ~ /µs$/) { sub(/µs$/, "", v); t = v / 1e6 }
            else { sub(/s$/, "", v); t = v + 0 }
        }
        END {
            if (pages && t) printf "| %s | %d | %.1f | %.0f | %.3f | %.0f |\n", label, pages, mb, mb * 1000 / pages, t, pages / t
        }' "$2"
}

# fill_archive LABEL DIR OUTP OUT LOGS: the archive's first fill, a cold
# build (OUTP and the cache removed first) that archives all of DIR into a
# new archive, $ARCHIVE_ROOT/LABEL, exported for the builds after it.
# WALL, CPU and RSS_MB are the fill's.
fill_archive() {
    export CCWIKI_ARCHIVE_DIR="$ARCHIVE_ROOT/$1"
    rm -rf -- "$3" "$CCWIKI_CACHE_DIR" "$CCWIKI_ARCHIVE_DIR"; mkdir -p "$3"
    measure "$5/fill.log" "$CCWIKI" build --source "$2" --out "$4" --quiet
    if [ "$RC" -ne 0 ]; then say "ccwiki build (archive fill) failed (exit $RC):"; cat "$5/fill.log" >&2; exit 1; fi
}

bench() { # bench LABEL GEN-ARGS...
    local label="$1"; shift
    ensure_data "$label" "$@"
    local dir="$DATA_ROOT/$label"
    WARM_DIR="$dir"
    local outp="$OUT_ROOT/$label" out="$OUT_ROOT/$label/site"
    local bytes; bytes=$(transcript_bytes "$dir")
    local logs="$TMP/$label"; mkdir -p "$logs"
    say ""
    say "== $label: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') of transcripts in $dir"
    warn_memory "$dir"

    # Cold builds: no previous output, best of $RUNS. The floor, rg
    # counting '"type"' over the same directory, is measured straight
    # after each (best of $RUNS too): the machine's speed drifts by the
    # hour, and a ratio of runs made minutes apart carried that drift.
    local best="" bestcpu="" peak=0 i rgbest="" rgcpu=""
    export CCWIKI_CACHE_DIR="$CACHE_ROOT/$label"
    for i in $(seq 1 "$RUNS"); do
        rm -rf -- "$outp" "$CCWIKI_CACHE_DIR"; mkdir -p "$outp"
        measure "$logs/cold$i.log" "$CCWIKI" build --source "$dir" --out "$out" --quiet --no-archive
        if [ "$RC" -ne 0 ]; then say "ccwiki build failed (exit $RC):"; cat "$logs/cold$i.log" >&2; exit 1; fi
        say "   cold build $i: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB"
        best=$([ -z "$best" ] && echo "$WALL" || min "$best" "$WALL")
        bestcpu=$([ -z "$bestcpu" ] && echo "$CPU" || min "$bestcpu" "$CPU")
        peak=$(max "$peak" "$RSS_MB")
        measure "$logs/rg$i.log" rg -c --no-ignore --hidden '"type"' "$dir"
        if [ "$RC" -gt 1 ]; then say "rg failed (exit $RC):"; cat "$logs/rg$i.log" >&2; exit 1; fi
        say "   rg -c '\"type\"' $i: ${WALL} s (CPU ${CPU} s)"
        rgbest=$([ -z "$rgbest" ] && echo "$WALL" || min "$rgbest" "$WALL")
        rgcpu=$([ -z "$rgcpu" ] && echo "$CPU" || min "$rgcpu" "$CPU")
    done

    # Per-phase breakdown (a cold build as well).
    rm -rf -- "$outp" "$CCWIKI_CACHE_DIR"; mkdir -p "$outp"
    measure "$logs/timings.log" "$CCWIKI" build --source "$dir" --out "$out" --timings --no-archive
    if [ "$RC" -ne 0 ]; then say "ccwiki build --timings failed (exit $RC):"; cat "$logs/timings.log" >&2; exit 1; fi
    peak=$(max "$peak" "$RSS_MB")
    say "   --timings build: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB; ccwiki says:"
    sed 's/^/     /' "$logs/timings.log" >&2
    RENDERS+=("$(render_row "$label" "$logs/timings.log")")

    # The archive's first fill: a cold build that also archives everything
    # (its own line: a one-time cost), then its size against the data's.
    fill_archive "$label" "$dir" "$outp" "$out" "$logs"
    local fill="$WALL" all stored
    all=$(du -sb "$dir" | cut -f1)
    stored=$(du -sb "$CCWIKI_ARCHIVE_DIR/objects" | cut -f1)
    say "   cold build with the archive's first fill: ${fill} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB; $(mbps "$all" "$fill") MB/s of data; archive $(awk -v b="$stored" 'BEGIN { printf "%.1f MB", b / 1e6 }') = $(awk -v a="$stored" -v b="$all" 'BEGIN { printf "%.1f%%", a * 100 / b }') of the data"

    # Rebuild with nothing changed, into the existing site, with the
    # archive (as users run it) and without (what the archive adds).
    measure "$logs/same.log" "$CCWIKI" build --source "$dir" --out "$out" --quiet
    if [ "$RC" -ne 0 ]; then say "ccwiki rebuild failed (exit $RC):"; cat "$logs/same.log" >&2; exit 1; fi
    local same="$WALL"
    say "   rebuild, nothing changed: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB"
    # Twice: the first one sees other options than the build before it.
    "$CCWIKI" build --source "$dir" --out "$out" --quiet --no-archive >/dev/null 2>&1 || true
    measure "$logs/same-bare.log" "$CCWIKI" build --source "$dir" --out "$out" --quiet --no-archive
    local samebare="$WALL"
    say "   rebuild, nothing changed, --no-archive: ${WALL} s (CPU ${CPU} s)"
    ARCHIVES+=("| $label | $best | $fill | $(mbps "$all" "$fill") | $samebare | $same | $(awk -v b="$stored" 'BEGIN { printf "%.1f", b / 1e6 }') | $(awk -v a="$stored" -v b="$all" 'BEGIN { printf "%.1f%%", a * 100 / b }') |")

    # Rebuild after one new session, into the existing site, best of
    # $RUNS: each run adds one more session (the earlier ones stay until
    # the last run, so that each run is one new session and nothing else).
    local pick size src newid old dst rebuild="" best_log=""
    pick=$(median_session "$dir")
    size=${pick%% *}; src=${pick#* }
    old=$(basename "$src" .jsonl)
    for i in $(seq 1 "$RUNS"); do
        newid=$(new_uuid)
        dst="$(dirname "$src")/$newid.jsonl"
        ADDED+=("$dst")
        sed "s/$old/$newid/g" "$src" >"$dst"
        prompt_history "$dir" "$newid"
        measure "$logs/rebuild$i.log" "$CCWIKI" build --source "$dir" --out "$out" --timings
        if [ "$RC" -ne 0 ]; then say "ccwiki rebuild failed (exit $RC):"; cat "$logs/rebuild$i.log" >&2; exit 1; fi
        say "   rebuild after one new session ($(awk -v b="$size" 'BEGIN { printf "%.2f MB", b / 1e6 }')) $i: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB"
        if beats "$rebuild"; then
            rebuild="$WALL"; best_log="$logs/rebuild$i.log"
        fi
    done
    unadd; unprompt
    say "   rebuild after one new session, best of the runs: ${rebuild} s; ccwiki says:"
    sed 's/^/     /' "$best_log" >&2

    say "   rg -c '\"type\"', best of the runs beside the cold builds: ${rgbest} s (CPU ${rgcpu} s), $(mbps "$bytes" "$rgbest") MB/s"

    ROWS+=("| $label | $bytes | $best | $(mbps "$bytes" "$best") | $peak | $rebuild | $rgbest | $(ratio "$best" "$rgbest") |")
    FLOOR+=("| $label | $rgbest | $(mbps "$bytes" "$rgbest") | $best | $(mbps "$bytes" "$best") | $(ratio "$best" "$rgbest") |")
    REBUILDS+=("| $label | $best | $same | $rebuild |")
    CPUS+=("| $label | $bestcpu | $rgcpu | $(ratio "$bestcpu" "$rgcpu") | $(mbps "$bytes" "$bestcpu") |")
    [ "$KEEP" -eq 1 ] || rm -rf -- "$outp" "$CCWIKI_CACHE_DIR" "$CCWIKI_ARCHIVE_DIR"
}

for s in $SIZES; do
    bench "$s" --size "$s"
done
if [ "$BIG" -eq 1 ]; then
    # The target "one 1 GB session file": the session alone, with 10 MB
    # of ordinary data beside it (a data directory is never that file only).
    bench "1GB-session" --size 10MB --big-session 1GB
    bench "3GB+1GB-session" --size 3GB --big-session 1GB
fi

# ------------------------------------------------------------------ extreme shapes

# shape LABEL KIND: data from benches/shapes.py; a cold build without the
# archive, a cold build that fills a new archive (its first fill), then,
# with the archive as users run it, a rebuild with
# nothing changed, a rebuild after one changed file (a memory file, or a
# session that got a prompt, added to the history too when there is one;
# best of --runs, each run a line more), and one with nothing changed
# straight after the last (while the previous copy
# of the site is still being removed), each with its wall time, CPU time
# and peak RSS. Sites on the
# out dir (a RAM disk with --out-dir /dev/shm/...: the file system left out).
shape() {
    local label="$1" kind="$2"
    local dir="$DATA_ROOT/$label" stamp="$DATA_ROOT/$label.ok"
    if [ ! -f "$stamp" ]; then
        rm -rf -- "$dir"
        say "== generating $label (benches/shapes.py $kind)"
        python3 "$ROOT/benches/shapes.py" "$kind" "$dir"
        echo "$kind" >"$stamp"
    fi
    WARM_DIR="$dir"
    local outp="$OUT_ROOT/$label" out="$OUT_ROOT/$label/site" logs="$TMP/$label"
    mkdir -p "$logs"
    export CCWIKI_CACHE_DIR="$CACHE_ROOT/$label"
    rm -rf -- "$outp" "$CCWIKI_CACHE_DIR"; mkdir -p "$outp"
    say ""
    say "== $label"
    warn_memory "$dir"
    measure "$logs/cold.log" "$CCWIKI" build --source "$dir" --out "$out" --no-archive --timings
    if [ "$RC" -ne 0 ]; then say "ccwiki build failed (exit $RC):"; cat "$logs/cold.log" >&2; exit 1; fi
    local cold="$WALL" coldrss="$RSS_MB"
    say "   cold: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB"
    sed 's/^/     /' "$logs/cold.log" >&2
    # The archive's first fill, a cold build that archives everything (a
    # one-time cost); the rebuilds after it run with the archive, as users
    # run them.
    fill_archive "$label" "$dir" "$outp" "$out" "$logs"
    local fill="$WALL" fillrss="$RSS_MB"
    say "   cold build with the archive's first fill: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB"
    measure "$logs/same.log" "$CCWIKI" build --source "$dir" --out "$out" --quiet
    local same="$WALL" samerss="$RSS_MB"
    say "   rebuild, nothing changed: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB"
    # One file changed: a line added to it (put back afterwards).
    local one
    if [ "$kind" = memory ]; then
        one="$dir/projects/-home-u-code-big/memory/note_00042.md"
    else
        one=$(find "$dir/projects" -type f -name '*.jsonl' | sort | awk 'NR == 1')
    fi
    cp -- "$one" "$TMP/one.bak"
    # Best of $RUNS, each run a line more (the highest peak RSS of them).
    local changed="" changedrss=0 written="" i
    for i in $(seq 1 "$RUNS"); do
        if [ "$kind" = memory ]; then
            echo "One more line ($i)." >>"$one"
        else
            printf '%s\n' "{\"type\":\"user\",\"uuid\":\"u9-$i\",\"message\":{\"role\":\"user\",\"content\":\"one more ($i)\"}}" >>"$one"
            prompt_history "$dir" "$(basename "$one" .jsonl)"
        fi
        measure "$logs/one$i.log" "$CCWIKI" build --source "$dir" --out "$out"
        if [ "$RC" -ne 0 ]; then say "ccwiki rebuild failed (exit $RC):"; cat "$logs/one$i.log" >&2; exit 1; fi
        local these
        these=$(grep -o '[0-9]* files, [0-9.]* MB, [0-9]* unchanged' "$logs/one$i.log" | head -1)
        say "   rebuild, one file changed $i: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB ($these)"
        changedrss=$(max "$changedrss" "$RSS_MB")
        if beats "$changed"; then
            changed="$WALL"; written="$these"
        fi
    done
    # Straight after it, nothing changed: the build that changed the site
    # left its previous copy to a process of its own, still at work.
    measure "$logs/again.log" "$CCWIKI" build --source "$dir" --out "$out" --quiet
    local again="$WALL"
    say "   rebuild, nothing changed, straight after: ${WALL} s (CPU ${CPU} s)"
    cp -- "$TMP/one.bak" "$one"; unprompt
    SHAPE_ROWS+=("| $label | $cold | $coldrss | $fill | $fillrss | $same | $samerss | $changed | $changedrss | $again | $written |")
    [ "$KEEP" -eq 1 ] || rm -rf -- "$outp" "$CCWIKI_CACHE_DIR" "$CCWIKI_ARCHIVE_DIR"
    unset CCWIKI_ARCHIVE_DIR
}

if [ "$SHAPES" -eq 1 ]; then
    shape "100k-tiny-sessions" tiny
    shape "10k-memory-files" memory
    shape "50k-prompt-history" history
fi

# ------------------------------------------------------------------ the neighbours

CMP=""
if [ "$COMPARE" -eq 1 ]; then
    ensure_data 100MB --size 100MB
    dir="$DATA_ROOT/100MB"
    WARM_DIR="$dir"
    bytes=$(transcript_bytes "$dir")
    venv="$TARGET/bench-venv"
    if [ ! -x "$venv/bin/claude-code-log" ] || [ ! -x "$venv/bin/claude-code-transcripts" ]; then
        say "== installing claude-code-log and claude-code-transcripts into $venv"
        [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
        "$venv/bin/pip" install -q --upgrade pip >&2
        "$venv/bin/pip" install -q claude-code-log claude-code-transcripts >&2
    fi
    version=$("$venv/bin/pip" show claude-code-log 2>/dev/null | awk '/^Version:/ { print $2 }')
    tversion=$("$venv/bin/pip" show claude-code-transcripts 2>/dev/null | awk '/^Version:/ { print $2 }')
    say ""
    say "== claude-code-log $version on the 100MB data"
    # Its documented whole-archive run is plain `claude-code-log`: it converts
    # every project under ~/.claude/projects to HTML, writing the pages (and
    # its cache) beside the transcripts. So each run gets a fresh HOME holding
    # a copy of projects/, which keeps the benchmark data pristine and the run
    # cold (no cache, no previous HTML).
    cbest="" ccpu="" cpeak=0
    for i in $(seq 1 "$RUNS"); do
        home="$TMP/ccl-home-$i"
        rm -rf -- "$home"; mkdir -p "$home/.claude"
        cp -r "$dir/projects" "$home/.claude/projects"
        [ -f "$dir/history.jsonl" ] && cp "$dir/history.jsonl" "$home/.claude/"
        measure "$TMP/ccl$i.log" env HOME="$home" "$venv/bin/claude-code-log"
        if [ "$RC" -ne 0 ]; then say "claude-code-log failed (exit $RC):"; tail -20 "$TMP/ccl$i.log" >&2; exit 1; fi
        nhtml=$(find "$home/.claude/projects" -name '*.html' | wc -l)
        say "   run $i: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB (largest single process), $nhtml HTML files"
        cbest=$([ -z "$cbest" ] && echo "$WALL" || min "$cbest" "$WALL")
        ccpu=$([ -z "$ccpu" ] && echo "$CPU" || min "$ccpu" "$CPU")
        cpeak=$(max "$cpeak" "$RSS_MB")
        rm -rf -- "$home"
    done
    say "== claude-code-transcripts $tversion on the 100MB data"
    # Its whole-archive run: `claude-code-transcripts all` reads a projects
    # folder and writes an index, a page per project and the transcripts.
    # Sub-agent files are left out unless asked: --include-agents, as ccwiki
    # shows them too.
    tbest="" tcpu="" tpeak=0
    for i in $(seq 1 "$RUNS"); do
        tout="$TMP/cct-$i"
        rm -rf -- "$tout"
        measure "$TMP/cct$i.log" "$venv/bin/claude-code-transcripts" all --source "$dir/projects" \
            --output "$tout" --include-agents --quiet
        if [ "$RC" -ne 0 ]; then say "claude-code-transcripts failed (exit $RC):"; tail -20 "$TMP/cct$i.log" >&2; exit 1; fi
        nhtml=$(find "$tout" -name '*.html' | wc -l)
        say "   run $i: ${WALL} s (CPU ${CPU} s), peak RSS ${RSS_MB} MB, $nhtml HTML files"
        tbest=$([ -z "$tbest" ] && echo "$WALL" || min "$tbest" "$WALL")
        tcpu=$([ -z "$tcpu" ] && echo "$CPU" || min "$tcpu" "$CPU")
        tpeak=$(max "$tpeak" "$RSS_MB")
        rm -rf -- "$tout"
    done
    # ccwiki on the same data, for the same table.
    outp="$OUT_ROOT/100MB-compare"; wbest="" wcpu="" wpeak=0
    export CCWIKI_CACHE_DIR="$CACHE_ROOT/100MB-compare"
    for i in $(seq 1 "$RUNS"); do
        rm -rf -- "$outp" "$CCWIKI_CACHE_DIR"; mkdir -p "$outp"
        measure "$TMP/cmp-ccwiki$i.log" "$CCWIKI" build --source "$dir" --out "$outp/site" --no-archive --quiet
        wbest=$([ -z "$wbest" ] && echo "$WALL" || min "$wbest" "$WALL")
        wcpu=$([ -z "$wcpu" ] && echo "$CPU" || min "$wcpu" "$CPU")
        wpeak=$(max "$wpeak" "$RSS_MB")
    done
    [ "$KEEP" -eq 1 ] || rm -rf -- "$outp" "$CCWIKI_CACHE_DIR"
    CMP=$(printf '%s\n' \
        "| tool | data | bytes | wall s | MB/s | CPU s | peak RSS MB |" \
        "|---|---|---:|---:|---:|---:|---:|" \
        "| ccwiki | 100MB | $bytes | $wbest | $(mbps "$bytes" "$wbest") | $wcpu | $wpeak |" \
        "| claude-code-log $version | 100MB | $bytes | $cbest | $(mbps "$bytes" "$cbest") | $ccpu | $cpeak |" \
        "| claude-code-transcripts $tversion | 100MB | $bytes | $tbest | $(mbps "$bytes" "$tbest") | $tcpu | $tpeak |" \
        "" \
        "claude-code-log takes $(ratio "$cbest" "$wbest") ccwiki's wall time and $(ratio "$ccpu" "$wcpu") its CPU time on this data;" \
        "claude-code-transcripts $(ratio "$tbest" "$wbest") and $(ratio "$tcpu" "$wcpu")." \
        "Its peak RSS is that of its largest single process (it runs worker processes).")
fi

# ------------------------------------------------------------------ report

echo
echo "## ccwiki benchmark ($(nproc) cores, $(date -u +%Y-%m-%d), load average $load at start, $(cut -d' ' -f1 /proc/loadavg) at end)"
echo
echo "| size | bytes | ccwiki cold s | MB/s | peak RSS MB | rebuild s | rg s | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
if [ ${#ROWS[@]} -gt 0 ]; then printf '%s\n' "${ROWS[@]}"; fi
echo
echo "bytes: transcript bytes (.jsonl under projects/). cold: best of $RUNS, no previous output, page cache warm."
echo "peak RSS: the highest of the cold and --timings builds. rebuild: one new session added to an existing site (cache kept), best of $RUNS."
echo "ratio: ccwiki cold s / rg s (rg -c '\"type\"' over the same directory, best of $RUNS)."
if [ ${#FLOOR[@]} -gt 0 ]; then
    echo
    echo "| size | rg s | rg MB/s | ccwiki s | ccwiki MB/s | ratio |"
    echo "|---|---:|---:|---:|---:|---:|"
    printf '%s\n' "${FLOOR[@]}"
fi
if [ ${#REBUILDS[@]} -gt 0 ]; then
    echo
    echo "| size | cold s | rebuild, nothing changed s | rebuild, one new session s |"
    echo "|---|---:|---:|---:|"
    printf '%s\n' "${REBUILDS[@]}"
fi
if [ ${#ARCHIVES[@]} -gt 0 ]; then
    echo
    echo "The archive: a cold build without it, the same build filling it the first time (MB/s of the whole"
    echo "data directory), a rebuild with nothing new without and with it, and its size against the data's."
    echo
    echo "| size | cold s, no archive | cold s, first fill | fill MB/s | no-op s, no archive | no-op s, archive | archive MB | of the data |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${ARCHIVES[@]}"
fi
if [ ${#RENDERS[@]} -gt 0 ]; then
    echo
    echo "Rendering (the --timings build's render phase: every page rendered, written, with the search index)."
    echo
    echo "| size | pages | HTML MB | KB per page | render s | pages/s |"
    echo "|---|---:|---:|---:|---:|---:|"
    printf '%s\n' "${RENDERS[@]}"
fi
if [ ${#CPUS[@]} -gt 0 ]; then
    echo
    echo "CPU time (user + system, best of $RUNS): robust to other load; MB/s per CPU-second."
    echo
    echo "| size | ccwiki CPU s | rg CPU s | ratio | ccwiki MB per CPU-s |"
    echo "|---|---:|---:|---:|---:|"
    printf '%s\n' "${CPUS[@]}"
fi
if [ ${#SHAPE_ROWS[@]} -gt 0 ]; then
    echo
    echo "Extreme shapes (benches/shapes.py): cold without the archive, then a cold build filling a new archive, and"
    echo "the rebuilds with it, as users run them. One file changed: best of $RUNS (each run a line more), with the"
    echo "highest peak RSS of them."
    echo
    echo "| shape | cold s | cold peak RSS MB | first fill s | its peak RSS MB | no-op s | no-op RSS MB | one file changed s | its peak RSS MB | no-op straight after s | files written then |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    printf '%s\n' "${SHAPE_ROWS[@]}"
fi
if [ -n "$CMP" ]; then
    echo
    echo "$CMP"
fi
