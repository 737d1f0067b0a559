//! The vocabulary: words, sentence frames, code and command outputs.

#[rustfmt::skip]
pub(crate) const NOUNS: &[&str] = &[
    "parser", "config", "cache", "request", "response", "handler", "session", "token", "buffer",
    "index", "query", "schema", "migration", "endpoint", "router", "worker", "queue", "thread",
    "lock", "timeout", "retry", "error", "message", "payload", "record", "field", "column",
    "table", "row", "page", "template", "layout", "component", "hook", "state", "store", "reducer",
    "action", "event", "listener", "stream", "file", "path", "directory", "module", "crate",
    "package", "dependency", "build", "test", "fixture", "benchmark", "profile", "trace", "log",
    "metric", "counter", "histogram", "span", "client", "server", "connection", "pool", "socket",
    "header", "cookie", "user", "account", "permission", "role", "policy", "secret", "key",
    "certificate", "signature", "hash", "digest", "checksum", "snapshot", "backup", "release",
    "version", "branch", "commit", "diff", "patch", "merge", "conflict", "review", "issue", "bug",
    "regression", "feature", "flag", "option", "argument", "command", "script", "pipeline", "job",
    "task", "scheduler", "deadline", "budget", "limit", "quota", "batch", "chunk", "offset",
    "cursor", "iterator", "closure", "trait", "struct", "enum", "variant", "function", "method",
    "macro", "type", "generic", "lifetime", "borrow", "reference", "pointer", "allocation", "heap",
    "stack", "frame", "slice", "vector", "map", "tree", "graph", "node", "edge", "cluster",
    "shard", "replica", "leader", "transaction", "wiki", "renderer", "slug", "link", "anchor",
    "sidebar", "timeline", "summary", "transcript", "frontmatter", "redaction", "watcher",
    "manifest", "lockfile", "registry", "runtime", "sandbox", "webhook",
];

#[rustfmt::skip]
pub(crate) const VERBS: &[&str] = &[
    "add", "remove", "update", "fix", "refactor", "rename", "move", "split", "merge", "parse",
    "render", "validate", "check", "load", "save", "read", "write", "flush", "sync", "fetch",
    "send", "retry", "cache", "index", "sort", "filter", "map", "reduce", "group", "format", "log",
    "trace", "measure", "profile", "optimize", "inline", "extract", "wrap", "handle", "catch",
    "skip", "redact", "escape", "encode", "decode", "compress", "hash", "sign", "verify", "test",
    "mock", "document", "deprecate", "migrate", "deploy", "build", "bundle", "lint", "review",
    "stream", "batch", "dedupe", "normalize", "serialize", "reload",
];

#[rustfmt::skip]
pub(crate) const ADJS: &[&str] = &[
    "stale", "flaky", "slow", "fast", "empty", "missing", "broken", "nested", "lazy", "eager",
    "async", "blocking", "concurrent", "parallel", "deterministic", "idempotent", "atomic",
    "partial", "complete", "invalid", "valid", "unknown", "legacy", "new", "old", "large", "small",
    "huge", "tiny", "optional", "required", "private", "public", "internal", "external",
    "redundant", "unused", "deprecated", "experimental", "stable", "unstable", "cached", "dirty",
    "clean", "sorted", "malformed", "truncated", "duplicate", "unique", "default", "custom",
    "global", "local", "temporary", "persistent", "relative", "absolute", "recursive", "quiet",
];

pub(crate) const FRAMES: &[&str] = &[
    "The {a} {n} {vs} the {n} when {c} is called.",
    "We should {v} the {n} in {f} before the next release.",
    "This {vs} about {num} {n} entries per second on the benchmark machine.",
    "Let me {v} the {n} first and then {v} {c}.",
    "It looks like {c} {vs} a {a} {n} instead of the expected {n}.",
    "The test in {f} fails because the {n} is {a}.",
    "Next, I will {v} {c} so that the {n} {vs} the {a} {n}.",
    "Once the {n} is {a}, we can {v} the {n} safely.",
    "There are {num} call sites of {c}; most of them {v} the {n} directly.",
    "I found the cause: {c} never {vs} the {n} after a {a} {n}.",
    "Now {f} {vs} the {n}, and the {a} path is covered by a test.",
    "The {n} in {f} is {a}, so {c} has to {v} it again.",
    "Keeping the {n} {a} avoids a {a} {n} in {c}.",
    "All {num} tests pass and the {a} {n} no longer {vs} the {n}.",
    "I'll {v} the {a} {n} and leave {c} as it is.",
    "The {n} and the {n} share one {a} {n}, which is why {c} {vs} twice.",
    "After this change {c} {vs} the {n} in {num} ms instead of {num} ms.",
    "Note that the {n} is {a} on Windows, where {c} {vs} a {a} {n}.",
    "A {a} {n} here would {v} every {n} in the {n}.",
    "To {v} the {n}, {c} now takes the {n} by reference.",
    "The {a} {n} comes from {f}, not from the {n}.",
    "I checked {f}: the {n} is only {a} when the {n} is {a}.",
];

pub(crate) const PROMPT_FRAMES: &[&str] = &[
    "Can you {v} the {a} {n} in {f}?",
    "Please {v} {c} so it {vs} the {n} correctly.",
    "Why does {c} {v} the {n} twice?",
    "The {n} is {a} after the last change. {V} it and add a test.",
    "Let's {v} the {n}. Keep the {a} {n} as it is.",
    "{V} the {n} in {f} and run the tests.",
    "I think {c} is {a}. Can you check the {n} and {v} it?",
    "Add a {a} {n} to {f} that {vs} the {n}.",
    "The build fails with a {a} {n} in {f}. Fix it.",
    "Refactor {c} to {v} the {n} without a {a} {n}.",
    "Write a test for {c} that covers the {a} {n}.",
    "What happens to the {n} when {c} gets a {a} {n}?",
    "{V} the {a} {n} and commit.",
    "Look at {f} and tell me how the {n} gets {a}.",
    "ok, now {v} the {n} too",
    "{v} the {n} in {c}, the {a} one",
];

#[rustfmt::skip]
pub(crate) const SLUG_ADJS: &[&str] = &[
    "jiggly", "cached", "vivid", "radiant", "peaceful", "clean", "quiet", "sunny", "brave",
    "gentle", "humble", "lucky", "misty", "nimble", "rustic", "silly", "witty", "zesty",
];
#[rustfmt::skip]
pub(crate) const SLUG_VERBS: &[&str] = &[
    "skipping", "soaring", "plotting", "cuddling", "finding", "dancing", "juggling", "wandering",
    "humming", "floating", "spinning", "drifting", "hopping", "glowing", "roaming", "whistling",
];
#[rustfmt::skip]
pub(crate) const SLUG_NOUNS: &[&str] = &[
    "sun", "cat", "newt", "robin", "crystal", "moon", "otter", "comet", "maple", "river", "pebble",
    "falcon", "meadow", "lantern", "harbor", "acorn",
];

#[rustfmt::skip]
pub(crate) const PROJECT_NAMES: &[&str] = &[
    "ccwiki", "atlas-api", "billing-service", "ledger-ui", "orbit-cli", "harbor-infra",
    "pixel-forge", "quill-docs", "nimbus-sync", "sparrow-ml", "tern-router", "kestrel-auth",
    "mosaic-dashboard", "relay-gateway", "delta-etl", "cobalt-db", "lumen-search",
    "fjord-notebooks", "aspen-mobile", "vector-tiles", "granite-queue", "willow-blog",
    "falcon-deploy", "ember-chat", "prism-metrics", "tundra-backup", "coral-payments",
    "onyx-scheduler", "juniper-forms", "basalt-storage", "meadow-cms", "zephyr-edge",
];

pub(crate) const RUST_CODE: &[&str] = &[
    "use crate::@i::{@T, @T};",
    "use std::collections::HashMap;",
    "pub fn @i(&self, @i: &@T) -> Result<@T, Error> {",
    "fn @i(@i: &mut @T, @i: usize) -> Option<@T> {",
    "let @i = @i.@i()?;",
    "let mut @i = Vec::with_capacity(@n);",
    "let @i = self.@i.get(&@i).cloned().unwrap_or_default();",
    "if @i.is_empty() {",
    "if let Some(@i) = @i.@i(@n) {",
    "return Err(Error::@T(\"@s\".into()));",
    "for @i in @i.iter().filter(|@i| @i.@i > @n) {",
    "match @i {",
    "@T::@T => @i(@i),",
    "Some(@i) => @i.@i(@n),",
    "None => return Ok(None),",
    "#[derive(Debug, Clone, PartialEq, Eq)]",
    "pub struct @T {",
    "pub @i: @T,",
    "@i: Option<Box<@T>>,",
    "impl @T {",
    "impl From<@T> for @T {",
    "// @S",
    "/// @S",
    "assert_eq!(@i.@i(), @n);",
    "let @i: HashMap<String, @T> = HashMap::new();",
    "tracing::debug!(\"@s: {}\", @i);",
    "self.@i.insert(@i.clone(), @i);",
    "Ok(@T { @i, @i })",
    "#[test]",
    "fn @i() {",
    "let @i = std::fs::read_to_string(&@i).map_err(|e| Error::Io(e, @i.clone()))?;",
    "write!(f, \"{}:{}\", self.@i, self.@i)?;",
    "@i.sort_by(|a, b| a.@i.cmp(&b.@i));",
];

pub(crate) const TS_CODE: &[&str] = &[
    "import { @T, @T } from './@i';",
    "import type { @T } from '../@i/@i';",
    "export async function @i(@i: @T): Promise<@T> {",
    "export function @i(@i: string, @i = @n): @T {",
    "const @i = await @i.@i(@n);",
    "const { @i, @i } = @i;",
    "if (!@i) {",
    "throw new Error(`@s: ${@i}`);",
    "return @i.map((@i) => @i.@i);",
    "return @i.filter((@i) => @i.@i > @n);",
    "export interface @T {",
    "@i: string;",
    "@i?: number;",
    "@i: @T[];",
    "const [@i, @i] = useState<@T | null>(null);",
    "console.log('@s', @i);",
    "@i.@i = @i ?? @n;",
    "// @S",
    "/** @S */",
    "it('@s', async () => {",
    "expect(@i(@n)).toBe(@n);",
    "expect(@i).toEqual({ @i: @n });",
    "<div className=\"@i\">{@i}</div>",
    "useEffect(() => {",
    "for (const @i of @i) {",
    "switch (@i.type) {",
    "case '@i':",
    "export default @T;",
];

pub(crate) const PY_CODE: &[&str] = &[
    "from .@i import @T, @T",
    "import @i",
    "def @i(self, @i: @T, @i: int = @n) -> @T:",
    "async def @i(@i: str) -> list[@T]:",
    "@i = self.@i.get(\"@i\", @n)",
    "if not @i:",
    "raise ValueError(f\"@s: {@i}\")",
    "return [@i for @i in @i if @i.@i]",
    "class @T(@T):",
    "\"\"\"@S\"\"\"",
    "logger.info(\"@s: %s\", @i)",
    "for @i in @i:",
    "with open(@i, encoding=\"utf-8\") as @i:",
    "assert @i(@n) == @n",
    "# @S",
    "@i: dict[str, @T] = {}",
    "await self.@i(@i)",
    "@pytest.mark.parametrize(\"@i\", [@n, @n, @n])",
    "@i.append(@T(@i=@i, @i=@n))",
    "except @TError as exc:",
    "try:",
    "return @i",
    "self.@i = @i",
];

pub(crate) const GO_CODE: &[&str] = &[
    "func (s *@T) @T(ctx context.Context, @i @T) (*@T, error) {",
    "func @T(@i []@T) int {",
    "@i, err := s.@i.@T(ctx, @i)",
    "if err != nil {",
    "return nil, fmt.Errorf(\"@s: %w\", err)",
    "for _, @i := range @i {",
    "type @T struct {",
    "@T @T `json:\"@i\"`",
    "// @S",
    "@i := make(map[string]@T, @n)",
    "defer @i.Close()",
    "return &@T{@T: @i}, nil",
    "t.Run(\"@s\", func(t *testing.T) {",
    "log.Printf(\"@s: %v\", @i)",
    "if @i == nil {",
    "@i = append(@i, @T{@T: @n})",
    "switch @i.@T {",
    "case @T:",
    "mu.Lock()",
    "if got := @T(@i); got != @n {",
];

/// Command templates with the kind of output they produce.
pub(crate) const COMMANDS: &[(&str, usize, u8)] = &[
    ("cargo test @i", 0, 0),
    ("cargo build --release 2>&1 | tail -40", 1, 0),
    ("cargo clippy --all-targets -- -D warnings", 1, 0),
    ("npm test -- @i", 2, 1),
    ("npx tsc --noEmit", 1, 1),
    ("pytest tests/test_@i.py -x -q", 3, 2),
    ("ruff check . && mypy @i", 1, 2),
    ("go test ./internal/@i/...", 4, 3),
    ("go vet ./...", 1, 3),
    ("git status", 5, 9),
    ("git log --oneline -30", 6, 9),
    ("git diff --stat", 7, 9),
    ("ls -la src/@i", 8, 9),
    ("rg -n \"@i\" src", 9, 9),
];

pub(crate) const OUTPUTS: &[&[&str]] = &[
    // 0: cargo test
    &[
        "running @n tests",
        "test @i::tests::@i ... ok",
        "test @i::@i ... ok",
        "test @i::tests::@i_@i ... ok",
        "test @i::@i ... ignored",
        "     Running unittests src/lib.rs (target/debug/deps/@i-@h)",
        "test result: ok. @n passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.@ns",
    ],
    // 1: build / lint
    &[
        "   Compiling @i v0.@n.@n",
        "warning: unused variable: `@i`",
        "  --> src/@i.@e:@n:@n",
        "   |",
        "@n |     let @i = @i.@i(@n);",
        "   |         ^^^^ help: if this is intentional, prefix it with an underscore: `_@i`",
        "error[E0502]: cannot borrow `@i` as mutable because it is also borrowed as immutable",
        "src/@i.@e(@n,@n): error TS2339: Property '@i' does not exist on type '@T'.",
        "@i.py:@n:@n: F401 `@i` imported but unused",
        "    Finished `release` profile [optimized] target(s) in @n.@ns",
    ],
    // 2: npm test
    &[
        "> @i@1.@n.@n test",
        " PASS  src/@i.test.ts (@n.@n s)",
        "  ✓ @s (@n ms)",
        "  ✓ @s (@n ms)",
        "  ✕ @s (@n ms)",
        "    Expected: @n",
        "    Received: @n",
        "Tests:       @n passed, @n total",
        "Time:        @n.@n s",
    ],
    // 3: pytest
    &[
        "tests/test_@i.py::test_@i PASSED",
        "tests/test_@i.py::test_@i PASSED",
        "tests/test_@i.py::test_@i FAILED",
        "E       AssertionError: assert @n == @n",
        "E        +  where @n = @i(@n)",
        "========== @n passed, @n warnings in @n.@ns ==========",
    ],
    // 4: go test
    &[
        "=== RUN   Test@T",
        "--- PASS: Test@T (0.0@ns)",
        "--- FAIL: Test@T (0.0@ns)",
        "    @i_test.go:@n: got @n, want @n",
        "ok  \texample.com/bench/internal/@i\t0.@ns",
        "FAIL\texample.com/bench/internal/@i\t0.@ns",
    ],
    // 5: git status
    &[
        "On branch @i",
        "Changes not staged for commit:",
        "  (use \"git add <file>...\" to update what will be committed)",
        "\tmodified:   src/@i.@e",
        "\tmodified:   src/@i/@i.@e",
        "Untracked files:",
        "\tsrc/@i/",
    ],
    // 6: git log
    &["@h @S", "@h Fix @s", "@h Add @s", "@h Merge branch '@i' into main"],
    // 7: git diff --stat
    &[
        " src/@i.@e | @n ++++++----",
        " src/@i/@i.@e | @n +++--",
        " tests/@i.@e | @n +++++++",
        " @n files changed, @n insertions(+), @n deletions(-)",
    ],
    // 8: ls
    &[
        "-rw-r--r--  1 bench bench  @n May  @n 10:@n @i.@e",
        "drwxr-xr-x  @n bench bench  4096 May  @n 09:@n @i",
        "-rw-r--r--  1 bench bench @n Apr  @n 18:@n @i_test.@e",
    ],
];
