#!/usr/bin/env bash
# Hostile inputs at two sizes, 1x and 10x: time and peak memory of each
# build, so that every text transform can be seen to stay linear (10x the
# input, about 10x the time) and memory bounded. Prints figures; asserts
# nothing (timing belongs here, not in tests).
#
#   bash benches/hostile.sh            # the cases at 1x and 10x
#   FUZZ=20000 bash benches/hostile.sh # then the robustness properties with
#                                      # 20,000 cases each (a long fuzz run)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN="$PWD/target/release/ccwiki"
WORK="$PWD/target/bench-hostile"
rm -rf "$WORK" && mkdir -p "$WORK"

# case name, scale → a data directory in $WORK/<name>-<scale>
make_case() {
  python3 - "$1" "$2" "$WORK/$1-$2" <<'PY'
import json, os, sys
name, scale, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
mem = os.path.join(root, "projects", "-home-u-p", "memory")
proj = os.path.join(root, "projects", "-home-u-p")
os.makedirs(mem, exist_ok=True)
def line(content):
    return json.dumps({"type": "user", "sessionId": "s", "uuid": "u", "cwd": "/home/u/p",
                       "timestamp": "2026-01-01T00:00:00Z",
                       "message": {"role": "user", "content": content}}) + "\n"
if name == "wikilinks":
    body = "".join(f"line {i} see [[B]] and [[missing{i % 50}]]\n" for i in range(4000 * scale))
    open(os.path.join(mem, "a.md"), "w").write("---\nname: A\ntype: project\n---\n" + body)
    open(os.path.join(mem, "b.md"), "w").write("---\nname: B\ntype: project\n---\nb\n")
elif name == "memories":
    idx = []
    for i in range(1000 * scale):
        open(os.path.join(mem, f"m{i}.md"), "w").write(
            f"---\nname: Memory {i}\ndescription: about {i}\ntype: project\n---\nBody [[Memory {i + 1}]].\n")
        idx.append(f"- [Memory {i}](m{i}.md) — about {i}")
    open(os.path.join(mem, "MEMORY.md"), "w").write("\n".join(idx) + "\n")
elif name == "prompt":
    open(os.path.join(proj, "s.jsonl"), "w").write(line("word " * (320_000 * scale)))
elif name == "secrets":
    text = " ".join(f"token=ghp_{i:036d} password: hunter{i} /home/dana/x{i}" for i in range(20_000 * scale))
    open(os.path.join(proj, "s.jsonl"), "w").write(line(text))
elif name == "markdown":
    open(os.path.join(proj, "s.jsonl"), "w").write(line("*a* `b` [c](d) **e** _f_ > g\n" * (40_000 * scale)))
elif name == "code":
    # Fenced blocks that stress the highlighter: each as large as it
    # colours (32 KB, lines under 2,000 bytes), in shapes that make a
    # careless lexer quadratic (sections, backtick runs, tags, raw-string
    # hashes, escapes, comments and strings left open).
    def block(lang, row, rows=16):
        return f"```{lang}\n" + (row + "\n") * rows + "```\n"
    blocks = [
        block("toml", "[" * 1900),
        block("md", " ".join("`" * k for k in range(1, 60))),
        block("html", "<a " * 600),
        block("rust", ("r" + "#" * 90 + " ") * 20),
        block("python", "'''" + "\\'" * 900),
        block("js", "/* " + "`${" * 600),
        block("yaml", "a: " * 600),
        block("bash", "$" * 1900),
    ]
    prompt = line("\n".join(blocks))
    open(os.path.join(proj, "s.jsonl"), "w").write(
        "".join(prompt.replace('"uuid": "u"', f'"uuid": "u{i}"') for i in range(10 * scale)))
elif name == "edits":
    # Replaced blocks as large as word marks are tried on (12 lines, the
    # 4,000 characters an edit keeps), half lightly edited (marked, a
    # short diff), half rewritten (many distinct words, a long diff).
    import random
    rnd = random.Random(7)
    words = [f"w{k}" for k in range(3000)]
    def block(n):
        return "".join(" ".join(rnd.choice(words) for _ in range(n)) + "\n" for _ in range(12))
    rows = []
    for i in range(100 * scale):
        old = block(55)
        new = old.replace(" w1", " v1") if i % 2 else block(55)
        edit = {"type": "tool_use", "id": f"t{i}", "name": "Edit",
                "input": {"file_path": "/home/u/p/a.txt", "old_string": old, "new_string": new}}
        rows.append(json.dumps({"type": "assistant", "sessionId": "s", "uuid": f"a{i}",
                                "cwd": "/home/u/p", "timestamp": "2026-01-01T00:00:00Z",
                                "message": {"id": f"m{i}", "role": "assistant", "model": "claude-x",
                                            "content": [edit]}}) + "\n")
    open(os.path.join(proj, "s.jsonl"), "w").write("".join(rows))
elif name == "sessions":
    for i in range(2000 * scale):
        sid = f"{i:08x}-0000-4000-8000-000000000000"
        open(os.path.join(proj, sid + ".jsonl"), "w").write(line(f"hello {i}").replace('"s"', f'"{sid}"', 1))
PY
}

printf '%-10s %6s %10s %10s\n' case scale seconds peak-MB
for name in wikilinks memories prompt secrets markdown code edits sessions; do
  for scale in 1 10; do
    make_case "$name" "$scale"
    out="$WORK/$name-$scale-site"
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$BIN" build --quiet --no-cache \
      --source "$WORK/$name-$scale" --out "$out"
    read -r secs kb < "$WORK/time"
    printf '%-10s %5sx %10s %10d\n' "$name" "$scale" "$secs" "$((kb / 1024))"
  done
done

if [ -n "${FUZZ:-}" ]; then
  echo "fuzzing the robustness properties with $FUZZ cases each"
  PROPTEST_CASES="$FUZZ" cargo test --release --test robustness
fi
