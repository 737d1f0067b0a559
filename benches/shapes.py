#!/usr/bin/env python3
"""Data directories of extreme shapes for benches/run.sh --shapes.

  python3 benches/shapes.py tiny DIR      # 100,000 sessions of 3 lines in 200 projects
  python3 benches/shapes.py memory DIR    # 10,000 memory files in one project, indexed
  python3 benches/shapes.py history DIR   # a long-used history: 50,000 prompts, 300 short sessions

Same arguments, same bytes (seeded). DIR must not exist or be empty.
"""

import json
import os
import random
import sys
import uuid


def tiny(root, projects=200, per_project=500):
    rng = random.Random(1)
    for p in range(projects):
        d = os.path.join(root, "projects", f"-home-u-code-p{p:03d}")
        os.makedirs(d)
        cwd = f"/home/u/code/p{p:03d}"
        for i in range(per_project):
            sid = str(uuid.UUID(int=rng.getrandbits(128)))
            ts = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z"
            lines = [
                {"type": "user", "sessionId": sid, "uuid": "u1", "cwd": cwd, "timestamp": ts,
                 "message": {"role": "user", "content": f"fix bug {i} in module {p}"}},
                {"type": "assistant", "sessionId": sid, "uuid": "a1", "parentUuid": "u1",
                 "cwd": cwd, "timestamp": ts,
                 "message": {"id": f"m{i}", "model": "claude-sonnet-4-5-20250929",
                             "content": [{"type": "text",
                                          "text": f"Fixed bug {i}: the loop bound was off by one."}],
                             "usage": {"input_tokens": 10, "output_tokens": 20}}},
                {"type": "ai-title", "sessionId": sid, "aiTitle": f"Fix bug {i}"},
            ]
            with open(os.path.join(d, f"{sid}.jsonl"), "w") as f:
                f.write("\n".join(json.dumps(l) for l in lines) + "\n")


def memory(root, files=10000):
    d = os.path.join(root, "projects", "-home-u-code-big", "memory")
    os.makedirs(d)
    kinds = ["user", "feedback", "project", "reference"]
    index = ["# Memory index", ""]
    for i in range(files):
        name = f"note_{i:05d}"
        body = (f"---\nname: Note {i}\ndescription: about thing {i}\ntype: {kinds[i % 4]}\n---\n"
                f"Some text about item {i}. See [[note_{(i + 1) % files:05d}]] and "
                f"[other](note_{(i + 7) % files:05d}.md).\n\n"
                f"**Why:** because {i}.\n**How to apply:** do {i}.\n")
        with open(os.path.join(d, f"{name}.md"), "w") as f:
            f.write(body)
        index.append(f"- [Note {i}]({name}.md) — about thing {i}")
    with open(os.path.join(d, "MEMORY.md"), "w") as f:
        f.write("\n".join(index) + "\n")
    session = {"type": "user", "sessionId": "s1", "uuid": "u1", "cwd": "/home/u/code/big",
               "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "hi"}}
    with open(os.path.join(root, "projects", "-home-u-code-big", "s1.jsonl"), "w") as f:
        f.write(json.dumps(session) + "\n")


def history(root, prompts=50000, projects=30, sessions=300):
    """A year and a half of typing: every prompt in history.jsonl (with
    home paths and words to redact), and a few short sessions for a site."""
    rng = random.Random(3)
    words = ("fix the flaky test in the parser, then run the suite again; look at the "
             "cache layer and the retry logic before the release branch is cut").split()
    sids = []
    for s in range(sessions):
        p = s % projects
        d = os.path.join(root, "projects", f"-home-u-code-p{p:02d}")
        os.makedirs(d, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        sids.append((sid, f"/home/u/code/p{p:02d}"))
        ts = f"2026-{1 + s % 12:02d}-{1 + s % 28:02d}T{s % 24:02d}:00:00Z"
        line = {"type": "user", "sessionId": sid, "uuid": "u1", "cwd": sids[-1][1],
                "timestamp": ts, "message": {"role": "user", "content": f"task {s}"}}
        with open(os.path.join(d, f"{sid}.jsonl"), "w") as f:
            f.write(json.dumps(line) + "\n")
    start_ms = 1_735_689_600_000  # 2025-01-01
    span_ms = 540 * 86_400_000  # eighteen months
    with open(os.path.join(root, "history.jsonl"), "w") as f:
        for i in range(prompts):
            sid, cwd = sids[rng.randrange(sessions)]
            text = " ".join(rng.choice(words) for _ in range(rng.randrange(4, 40)))
            if i % 3 == 0:
                text += f" in {cwd}/src/mod_{i % 97}.rs"
            entry = {"display": f"{text} ({i})", "pastedContents": {},
                     "timestamp": start_ms + span_ms * i // prompts,
                     "project": cwd, "sessionId": sid}
            f.write(json.dumps(entry) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("tiny", "memory", "history"):
        sys.exit(__doc__)
    shape, root = sys.argv[1], sys.argv[2]
    if os.path.exists(root) and os.listdir(root):
        sys.exit(f"{root} is not empty")
    {"tiny": tiny, "memory": memory, "history": history}[shape](root)
