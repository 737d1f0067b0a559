"""Where a cold build's time goes, from `perf script` output.

Read by benches/profile.sh; prints Markdown tables:
  - the build's samples by phase (and, inside extraction, its parts);
  - the render phase's samples by part;
  - how busy the cores were, 20 ms at a time.

A sample is given to the first part (in the order listed) whose function
is on its stack; the names are ccwiki's own functions, so a renamed one
shows up as "other" rather than being counted wrong.
"""

import collections
import re
import sys

# (name, functions any of which on the stack marks it), first match wins.
# Rayon's workers do not have the function that started the work on
# their stacks: each phase is known by what its workers run. A stack the
# unwinder could not follow to a known function counts as "other".
PHASES = [
    ("render", ("Renderer::page", "write_index", "ccwiki::output::render::render")),
    ("extract", ("ccwiki::knowledge::extract::", "ccwiki::knowledge::cache::")),
    # The layouts read every session's turns back, inlined into rayon's
    # loop: the read itself is what shows.
    (
        "assemble",
        (
            "ccwiki::site::assemble::",
            "ccwiki::site::search::",
            "ccwiki::knowledge::spill::encoded::<impl ccwiki::knowledge::spill::Spill>::read_range",
            "ccwiki::knowledge::spill::encoded::Encoded::owned",
        ),
    ),
    ("identity (each transcript's first bytes)", ("ccwiki::knowledge::identity::",)),
    ("history", ("ccwiki::knowledge::history::", "ccwiki::source::history::")),
    ("discover", ("ccwiki::source::discover::", "ccwiki::base::walk::")),
    ("redaction rules compiled", ("ccwiki::knowledge::redact::engine::build",)),
    ("templates", ("Renderer::new",)),
]

EXTRACT_PARTS = [
    ("cache packs written", ("ccwiki::knowledge::cache::Cache::finish",)),
    ("redaction", ("ccwiki::knowledge::redact::text::Scrub::clean",)),
    ("skim (lines parsed)", ("ccwiki::source::skim::from_slice",)),
    ("reading the transcripts (kernel)", ("ksys_read",)),
]

RENDER_PARTS = [
    ("Markdown", ("ccwiki::output::markdown::render_into",)),
    ("diffs", ("ccwiki::site::assemble::diff::diff", "ccwiki::site::assemble::sessions::diff_now")),
    (
        "turns read back",
        (
            "ccwiki::knowledge::spill::encoded::<impl ccwiki::knowledge::spill::Spill>::read_range",
            "ccwiki::knowledge::spill::encoded::Encoded::",
        ),
    ),
    ("writing pages", ("ccwiki::output::write::Stager::put",)),
    ("Tera (pages other than sessions' and files')", ("ccwiki::output::render::Renderer::html",)),
    ("session and file pages' frames", ("ccwiki::output::pages::",)),
    ("turns' HTML around the Markdown", ("ccwiki::output::turns::write_all",)),
    ("turns' views", ("ccwiki::site::assemble::sessions::LoadedPage::view",)),
    ("search index", ("write_index",)),
]

HASH = re.compile(r"::h[0-9a-f]{16}$")
HEAD = re.compile(r"\S+\s+(\d+)\s+([\d.]+):")


def samples(path):
    """Each sample as (time in s, its stack as one string of names)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for block in text.split("\n\n"):
        lines = block.strip().split("\n")
        if len(lines) < 2:
            continue
        head = HEAD.match(lines[0].strip())
        if not head:
            continue
        names = []
        for line in lines[1:]:
            parts = line.strip().split(" ", 1)
            names.append(HASH.sub("", parts[1] if len(parts) > 1 else parts[0]))
        yield float(head.group(2)), "\n".join(names)


def first(stack, parts):
    for name, markers in parts:
        if any(marker in stack for marker in markers):
            return name
    return "other"


def table(title, counts, total):
    print(f"| {title} | samples | share |")
    print("|---|---:|---:|")
    for name, n in counts.most_common():
        print(f"| {name} | {n} | {100 * n / total:.1f} % |")
    print()


def main():
    path, hz, cores = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    all_samples = list(samples(path))
    if not all_samples:
        sys.exit("no samples in " + path)
    start = min(t for t, _ in all_samples)
    phases, extract, render = (collections.Counter() for _ in range(3))
    busy = collections.Counter()
    for t, stack in all_samples:
        phase = first(stack, PHASES)
        phases[phase] += 1
        if phase == "extract":
            extract[first(stack, EXTRACT_PARTS)] += 1
        if phase == "render":
            render[first(stack, RENDER_PARTS)] += 1
        busy[int((t - start) * 50)] += 1
    total = len(all_samples)
    print(f"{total} samples at {hz:.0f} Hz ({total / hz:.2f} s of CPU)\n")
    table("phase", phases, total)
    if extract:
        table("extraction's part", extract, sum(extract.values()))
    if render:
        table("render phase's part", render, sum(render.values()))
    full = hz * 0.020 * cores
    print("| from | cores busy |")
    print("|---:|---:|")
    for k in range(max(busy) + 1):
        print(f"| {20 * k} ms | {100 * busy[k] / full:.0f} % |")


if __name__ == "__main__":
    main()
