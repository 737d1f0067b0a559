#!/usr/bin/env bash
# Where a cold build's time goes: one cold build of a benchmark data
# directory under `perf record`, printed as shares of its samples (by
# phase, extraction's parts, the render phase's parts) and how busy the
# cores were, 20 ms at a time. The figures "Where the time goes" in
# docs/performance.md quotes.
#
#   bash benches/profile.sh                    # target/bench-data/1GB
#   bash benches/profile.sh --data DIR         # another data directory
#   bash benches/profile.sh --hz 999           # samples a second (default 2999)
#
# Builds ccwiki with line tables (not stripped) into target/profile, reads
# the data once first (as benches/run.sh does: a profile of data half on
# the disk shows the block layer, which the benchmark never sees), builds
# into a RAM disk when there is one, and keeps the samples in
# target/profile/perf.txt for a closer look (benches/profile.py reads it).
#
# Needs perf (apt-get install linux-perf) and python3; the data of
# `bash benches/run.sh` (target/bench-data).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA="$ROOT/target/bench-data/1GB"
HZ=2999

while [ $# -gt 0 ]; do
    case "$1" in
        --data) DATA="${2?--data needs a directory}"; shift 2 ;;
        --hz) HZ="${2?--hz needs a number}"; shift 2 ;;
        -h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

if ! command -v perf > /dev/null; then
    echo "needs perf: apt-get install linux-perf" >&2
    exit 1
fi
if [ ! -d "$DATA" ]; then
    echo "no $DATA: run bash benches/run.sh first (it generates the data)" >&2
    exit 1
fi

TARGET="$ROOT/target/profile"
echo "== building ccwiki with line tables into $TARGET" >&2
(cd "$ROOT" && CARGO_PROFILE_RELEASE_STRIP=false CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
    cargo build --release --locked --quiet --target-dir "$TARGET")

scratch_in=/dev/shm
[ -d "$scratch_in" ] && [ -w "$scratch_in" ] || scratch_in=${TMPDIR:-/tmp}
scratch=$(mktemp -d "$scratch_in/ccwiki-profile.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

echo "== reading $DATA once" >&2
find "$DATA" -type f -exec cat {} + > /dev/null

echo "== a cold build under perf record ($HZ Hz)" >&2
CCWIKI_CACHE_DIR="$scratch/cache" perf record -q -F "$HZ" -g --call-graph dwarf,16384 \
    -o "$TARGET/perf.data" -- "$TARGET/release/ccwiki" build --source "$DATA" \
    --out "$scratch/site" --no-archive --quiet
perf script -i "$TARGET/perf.data" -F comm,tid,time,ip,sym --no-inline 2> /dev/null > "$TARGET/perf.txt"

echo "## Where a cold build of $(basename "$DATA") goes ($(nproc) cores, $(date +%F))"
echo
python3 "$ROOT/benches/profile.py" "$TARGET/perf.txt" "$HZ" "$(nproc)"
