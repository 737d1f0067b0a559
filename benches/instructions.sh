#!/usr/bin/env bash
# Instructions two builds take, counted by cachegrind: a figure that does
# not move with the machine's load, for telling apart changes of a few
# percent where wall and CPU times cannot (on a shared 2-core machine they
# swing by a fifth from one hour to the next).
#
#   bash benches/instructions.sh                 # target/release/ccwiki
#   bash benches/instructions.sh OLD NEW ...     # several binaries, side by side
#
# For each binary:
#   cold     a build of the 100MB data without cache or archive;
#   memory   a rebuild after one changed memory file of the 10,000 (two
#            builds first fill the cache and the archive; a line is added
#            to one memory file of a copy of the data; the third build is
#            counted).
# Counts repeat within about 0.3 % from run to run for the cold build,
# and within about 1.5 % for the memory rebuild (the threads' order
# varies): run it twice before reading a change of a percent there.
# They are instructions, not time: a change that trades instructions for
# memory stalls (or the other way) needs a timed check too
# (benches/run.sh). Under valgrind the CPU shows no AVX-512, so the
# skim takes its 16-byte path; compare binaries with each other, never
# with the timed figures.
#
# Needs valgrind (apt-get install valgrind) and the data of
# `bash benches/run.sh --sizes 100MB --shapes` (target/bench-data).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
COLD="$ROOT/target/bench-data/100MB"
MEMORY="$ROOT/target/bench-data/10k-memory-files"

if ! command -v valgrind > /dev/null; then
    echo "needs valgrind: apt-get install valgrind" >&2
    exit 1
fi
for data in "$COLD" "$MEMORY"; do
    if [ ! -e "$data.ok" ]; then
        echo "no $data: run bash benches/run.sh --sizes 100MB --shapes first" >&2
        exit 1
    fi
done

# counted BINARY ARGS...: the instructions of one run, under cachegrind.
counted() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 \
        | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}

# millions N: N as millions with one decimal.
millions() {
    awk -v n="$1" 'BEGIN { printf "%.1f M", n / 1e6 }'
}

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
    (cd "$ROOT" && cargo build --release --quiet)
    bins=("$ROOT/target/release/ccwiki")
fi

printf '%-40s %14s %14s\n' binary cold memory
for bin in "${bins[@]}"; do
    work=$(mktemp -d)
    cold=$(counted "$bin" build -q --no-cache --no-archive --source "$COLD" --out "$work/cold")
    cp -a "$MEMORY" "$work/data"
    export CCWIKI_CACHE_DIR="$work/cache" CCWIKI_ARCHIVE_DIR="$work/archive"
    "$bin" build -q --source "$work/data" --out "$work/site"
    "$bin" build -q --source "$work/data" --out "$work/site"
    note=$(find "$work/data/projects" -path '*/memory/*.md' ! -name MEMORY.md | sort | sed -n 1p)
    echo "One more line." >> "$note"
    memory=$(counted "$bin" build -q --source "$work/data" --out "$work/site")
    unset CCWIKI_CACHE_DIR CCWIKI_ARCHIVE_DIR
    rm -rf "$work"
    printf '%-40s %14s %14s\n' "$(basename "$bin")" "$(millions "$cold")" "$(millions "$memory")"
done
