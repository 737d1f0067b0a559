//! Versions, projects, and the record lines of a session.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Era {
    V10,
    V20,
    V21,
}

#[rustfmt::skip]
pub(crate) const V10: &[&str] = &[
    "1.0.0", "1.0.17", "1.0.24", "1.0.31", "1.0.43", "1.0.51", "1.0.62", "1.0.71", "1.0.83",
    "1.0.98", "1.0.110", "1.0.126",
];
#[rustfmt::skip]
pub(crate) const V20: &[&str] = &[
    "2.0.0", "2.0.5", "2.0.14", "2.0.22", "2.0.28", "2.0.36", "2.0.42", "2.0.50", "2.0.60",
    "2.0.76",
];
#[rustfmt::skip]
pub(crate) const V21: &[&str] = &[
    "2.1.1", "2.1.7", "2.1.12", "2.1.19", "2.1.22", "2.1.27", "2.1.29", "2.1.50", "2.1.72",
    "2.1.87", "2.1.92", "2.1.114", "2.1.123", "2.1.133", "2.1.141", "2.1.144",
];
/// Index in [`V21`] from which lines carry `entrypoint`, and tool_use `caller`.
pub(crate) const V21_ENTRYPOINT: usize = 8;
pub(crate) const V21_CALLER: usize = 9;

/// (share of sessions, first day, last day) of each era.
pub(crate) fn era_window(e: Era) -> (f64, f64, i64, i64) {
    match e {
        Era::V10 => (0.0, 0.10, ms_at(2025, 5, 22), ms_at(2025, 9, 28)),
        Era::V20 => (0.10, 0.25, ms_at(2025, 9, 29), ms_at(2026, 1, 6)),
        Era::V21 => (0.25, 1.0, ms_at(2026, 1, 7), ms_at(2026, 5, 15)),
    }
}

// ---------------------------------------------------------------- projects

pub(crate) struct Project {
    pub(crate) name: String,
    pub(crate) cwd: String,
    pub(crate) dir: String,
    pub(crate) lang: Lang,
    pub(crate) branches: Vec<String>,
    pub(crate) files: Vec<String>,
    pub(crate) hooks: bool,
}

pub(crate) fn make_project(g: &Gen, r: &mut Rng, i: usize) -> Project {
    let base = PROJECT_NAMES[i % PROJECT_NAMES.len()];
    let name = if i < PROJECT_NAMES.len() {
        base.to_string()
    } else {
        format!("{base}-{}", i / PROJECT_NAMES.len() + 1)
    };
    let cwd = format!("/home/bench/code/{name}");
    let dir: String = cwd
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let lang = [Lang::Rust, Lang::Ts, Lang::Py, Lang::Go][i % 4];
    let mut branches = vec!["main".to_string()];
    for _ in 0..r.range(2, 6) {
        let b = match r.below(3) {
            0 => format!("feat/{}-{}", r.word(ADJS), r.word(NOUNS)),
            1 => format!("fix/{}-{}", r.word(NOUNS), r.word(NOUNS)),
            _ => format!("{}-{}", r.word(VERBS), r.word(NOUNS)),
        };
        branches.push(b.replace(' ', "-"));
    }
    let dirs: &[&str] = match lang {
        Lang::Rust => &[
            "src",
            "src/model",
            "src/render",
            "src/extract",
            "tests",
            "benches",
        ],
        Lang::Ts => &[
            "src",
            "src/components",
            "src/lib",
            "src/pages",
            "src/hooks",
            "test",
        ],
        Lang::Py => &[
            "app",
            "app/api",
            "app/models",
            "app/services",
            "tests",
            "scripts",
        ],
        Lang::Go => &[
            "cmd/server",
            "internal/store",
            "internal/api",
            "pkg/util",
            "internal/auth",
        ],
    };
    let files = (0..r.range(40, 120))
        .map(|_| format!("{}/{}", r.pick(dirs), g.file_name(r, lang)))
        .collect();
    Project {
        name,
        cwd,
        dir,
        lang,
        branches,
        files,
        // Three projects in four run hooks (hook_progress lines, stop hooks).
        hooks: i % 4 != 3,
    }
}

// ---------------------------------------------------------------- sessions

/// What stays fixed over one session.
pub(crate) struct S<'a> {
    pub(crate) g: &'a Gen,
    pub(crate) p: &'a Project,
    pub(crate) id: String,
    pub(crate) era: Era,
    pub(crate) vi: usize,
    pub(crate) version: &'static str,
    pub(crate) branch: String,
    pub(crate) slug: Option<String>,
    pub(crate) entry: Option<&'static str>,
    pub(crate) model: &'static str,
    pub(crate) dir: PathBuf,
}

impl S<'_> {
    pub(crate) fn caller(&self) -> bool {
        self.era == Era::V21 && self.vi >= V21_CALLER
    }
    pub(crate) fn task_tool(&self) -> &'static str {
        if self.caller() {
            "Agent"
        } else {
            "Task"
        }
    }
    pub(crate) fn style(&self) -> Style {
        Style {
            lang: self.p.lang,
            esc: true,
        }
    }
    pub(crate) fn path(&self, r: &mut Rng) -> String {
        format!("{}/{}", self.p.cwd, r.pick(&self.p.files))
    }
}

/// What changes while writing: randomness, the clock, counters, scratch.
pub(crate) struct W {
    pub(crate) r: Rng,
    pub(crate) t: i64,
    pub(crate) scale: f64,
    pub(crate) stats: Stats,
    pub(crate) line: Vec<u8>,
    pub(crate) hist: Out,
}

impl W {
    /// Advance the clock by a random natural delay (ms), scaled to fit the session's slot.
    pub(crate) fn tick(&mut self, lo: u64, hi: u64) {
        let d = self.r.range(lo, hi) as f64 * self.scale;
        self.t += (d as i64).max(1);
    }
    pub(crate) fn emit(&mut self, o: &mut Out, kind: usize, l: Vec<u8>) -> Res<()> {
        o.b(&l)?;
        self.line = l;
        self.stats.lines += 1;
        self.stats.kinds[kind] += 1;
        Ok(())
    }
    pub(crate) fn start(&mut self) -> Vec<u8> {
        let mut l = std::mem::take(&mut self.line);
        l.clear();
        l
    }
}

/// A chain of records: the main conversation or one sub-agent.
pub(crate) struct Chain {
    pub(crate) parent: Option<String>,
    pub(crate) side: bool,
    pub(crate) agent: Option<String>,
}

impl Chain {
    pub(crate) fn main() -> Chain {
        Chain {
            parent: None,
            side: false,
            agent: None,
        }
    }
}

pub(crate) fn head(l: &mut Vec<u8>, s: &S, ch: &Chain) {
    l.s("{\"parentUuid\":");
    match &ch.parent {
        Some(p) => q(l, p),
        None => {
            l.s("null");
        }
    }
    l.s(if ch.side {
        ",\"isSidechain\":true"
    } else {
        ",\"isSidechain\":false"
    });
    l.s(",\"userType\":\"external\",\"cwd\":");
    q(l, &s.p.cwd);
    l.s(",\"sessionId\":\"")
        .s(&s.id)
        .s("\",\"version\":\"")
        .s(s.version);
    l.s("\",\"gitBranch\":");
    q(l, &s.branch);
    if let Some(a) = &ch.agent {
        l.s(",\"agentId\":\"").s(a).s("\"");
    }
    if let Some(slug) = &s.slug {
        l.s(",\"slug\":\"").s(slug).s("\"");
    }
    if let Some(e) = s.entry {
        l.s(",\"entrypoint\":\"").s(e).s("\"");
    }
}

pub(crate) fn foot(l: &mut Vec<u8>, uuid: &str, t: i64) {
    l.s(",\"uuid\":\"").s(uuid).s("\",\"timestamp\":\"");
    iso(l, t);
    l.push(b'"');
}

/// One API response: lines share its id and usage.
pub(crate) struct Msg {
    pub(crate) id: String,
    pub(crate) req: String,
    pub(crate) usage: Vec<u8>,
    pub(crate) model: &'static str,
}

pub(crate) fn new_msg(s: &S, w: &mut W, model: &'static str) -> Msg {
    let r = &mut w.r;
    let mut u = Vec::with_capacity(300);
    u.s("{\"input_tokens\":");
    num(&mut u, r.range(1, 12));
    let create = if r.chance(0.3) {
        r.range(200, 30_000)
    } else {
        r.range(0, 2_000)
    };
    u.s(",\"cache_creation_input_tokens\":");
    num(&mut u, create);
    u.s(",\"cache_read_input_tokens\":");
    num(&mut u, r.range(8_000, 160_000));
    if s.era >= Era::V20 {
        u.s(",\"cache_creation\":{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":");
        num(&mut u, create);
        u.s("}");
    }
    u.s(",\"output_tokens\":");
    num(&mut u, r.range(1, 2_500));
    u.s(",\"service_tier\":\"standard\"}");
    Msg {
        id: format!("msg_01{}", from_alphabet(r, B62, 22)),
        req: format!("req_011C{}", from_alphabet(r, B62, 18)),
        usage: u,
        model,
    }
}

pub(crate) fn w_assistant(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    m: &Msg,
    block: &[u8],
) -> Res<String> {
    w.tick(300, 4_000);
    let id = uuid(&mut w.r);
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"message\":{\"model\":\"")
        .s(m.model)
        .s("\",\"id\":\"")
        .s(&m.id);
    l.s("\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
    l.extend_from_slice(block);
    l.s("],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":");
    l.extend_from_slice(&m.usage);
    l.s("},\"requestId\":\"")
        .s(&m.req)
        .s("\",\"type\":\"assistant\"");
    foot(&mut l, &id, w.t);
    l.s("}\n");
    w.emit(o, K_ASSISTANT, l)?;
    ch.parent = Some(id.clone());
    Ok(id)
}

/// A user line. `content` is the JSON value of `message.content`; `flags`
/// go before the uuid, `after` after the timestamp (each starts with `,`).
pub(crate) struct UserLine<'a> {
    pub(crate) content: &'a [u8],
    pub(crate) flags: &'a str,
    pub(crate) after: &'a [u8],
    pub(crate) uuid: Option<String>,
}

pub(crate) fn w_user(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, u: UserLine) -> Res<String> {
    let id = u.uuid.unwrap_or_else(|| uuid(&mut w.r));
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":");
    l.extend_from_slice(u.content);
    l.s("}").s(u.flags);
    foot(&mut l, &id, w.t);
    l.extend_from_slice(u.after);
    l.s("}\n");
    w.emit(o, K_USER, l)?;
    ch.parent = Some(id.clone());
    Ok(id)
}

pub(crate) fn w_progress(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    data: &[u8],
    tool_use: &str,
) -> Res<()> {
    w.tick(5, 400);
    let id = uuid(&mut w.r);
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"type\":\"progress\",\"data\":");
    l.extend_from_slice(data);
    l.s(",\"toolUseID\":\"")
        .s(tool_use)
        .s("\",\"parentToolUseID\":\"")
        .s(tool_use)
        .s("\"");
    foot(&mut l, &id, w.t);
    l.s("}\n");
    w.emit(o, K_PROGRESS, l)?;
    ch.parent = Some(id);
    Ok(())
}

/// A `system` line; `mid` holds its own fields (starting with `,`).
pub(crate) fn w_system(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    subtype: &str,
    mid: &[u8],
) -> Res<()> {
    w.tick(5, 200);
    let id = uuid(&mut w.r);
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"type\":\"system\",\"subtype\":\"")
        .s(subtype)
        .s("\"");
    l.extend_from_slice(mid);
    foot(&mut l, &id, w.t);
    l.s(",\"isMeta\":false}\n");
    w.emit(o, K_SYSTEM, l)?;
    ch.parent = Some(id);
    Ok(())
}

pub(crate) fn w_attachment(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain) -> Res<()> {
    w.tick(5, 100);
    let id = uuid(&mut w.r);
    let mut a = Vec::with_capacity(512);
    let r = &mut w.r;
    match r.below(7) {
        0 => {
            a.s("{\"type\":\"todo_reminder\",\"content\":[{\"content\":");
            q(&mut a, &s.g.title(r));
            a.s(",\"status\":\"in_progress\",\"activeForm\":");
            q(&mut a, &s.g.title(r));
            a.s("}],\"itemCount\":1}");
        }
        1 => {
            a.s("{\"type\":\"skill_listing\",\"content\":\"");
            for _ in 0..r.range(3, 10) {
                a.s("- ").s(s.g.ident(r, Lang::Py)).s(": ");
                s.g.sentence(r, &mut a, s.style(), false);
                a.s("\\n");
            }
            a.s("\",\"skillCount\":");
            num(&mut a, r.range(3, 20));
            a.s("}");
        }
        2 => {
            a.s("{\"type\":\"nested_memory\",\"path\":");
            q(&mut a, &format!("{}/CLAUDE.md", s.p.cwd));
            a.s(",\"content\":{\"path\":");
            q(&mut a, &format!("{}/CLAUDE.md", s.p.cwd));
            a.s(",\"type\":\"Project\",\"content\":\"# ")
                .s(&s.p.name)
                .s("\\n\\n");
            let n = r.range(3, 8);
            s.g.paragraph(r, &mut a, s.style(), n);
            a.s("\"}}");
        }
        3 => {
            a.s("{\"type\":\"deferred_tools_delta\",\"addedNames\":[\"AskUserQuestion\",\"CronCreate\",\"EnterPlanMode\",\"NotebookEdit\",\"TodoWrite\",\"WebFetch\",\"WebSearch\"],\"addedLines\":[\"AskUserQuestion\",\"CronCreate\",\"EnterPlanMode\",\"NotebookEdit\",\"TodoWrite\",\"WebFetch\",\"WebSearch\"],\"removedNames\":[]}");
        }
        4 => {
            a.s("{\"type\":\"edited_text_file\",\"filename\":");
            q(&mut a, &s.path(r));
            a.s(",\"snippet\":\"");
            let b = r.range(100, 1200) as usize;
            s.g.code(r, &mut a, s.style(), b, None);
            a.s("\"}");
        }
        5 => {
            a.s("{\"type\":\"hook_success\",\"hookName\":\"PostToolUse:Edit\",\"toolUseID\":\"toolu_01").s(&from_alphabet(r, B62, 22));
            a.s("\",\"hookEvent\":\"PostToolUse\",\"content\":\"\",\"stdout\":\"\",\"stderr\":\"\",\"exitCode\":0,\"command\":\"npx prettier --write \\\"$CLAUDE_FILE_PATHS\\\"\",\"durationMs\":");
            num(&mut a, r.range(40, 2000));
            a.s("}");
        }
        _ => {
            a.s("{\"type\":\"plan_mode\",\"reminderType\":\"full\",\"isSubAgent\":false,\"planFilePath\":");
            q(
                &mut a,
                &format!(
                    "/home/bench/.claude/plans/{}.md",
                    s.slug.as_deref().unwrap_or("plan")
                ),
            );
            a.s(",\"planExists\":false}");
        }
    }
    let mut l = w.start();
    head(&mut l, s, ch);
    l.s(",\"attachment\":");
    l.extend_from_slice(&a);
    l.s(",\"type\":\"attachment\"");
    foot(&mut l, &id, w.t);
    l.s("}\n");
    w.emit(o, K_ATTACHMENT, l)?;
    ch.parent = Some(id);
    Ok(())
}

pub(crate) fn w_queue(s: &S, w: &mut W, o: &mut Out, op: &str, content: Option<&str>) -> Res<()> {
    w.tick(1, 50);
    let mut l = w.start();
    l.s("{\"type\":\"queue-operation\",\"operation\":\"")
        .s(op)
        .s("\",\"timestamp\":\"");
    iso(&mut l, w.t);
    l.s("\",\"sessionId\":\"").s(&s.id).s("\"");
    if let Some(c) = content {
        l.s(",\"content\":");
        q(&mut l, c);
    }
    l.s("}\n");
    w.emit(o, K_QUEUE, l)
}

pub(crate) fn w_snapshot(s: &S, w: &mut W, o: &mut Out, message: &str, update: bool) -> Res<()> {
    let mut l = w.start();
    l.s("{\"type\":\"file-history-snapshot\",\"messageId\":\"")
        .s(message);
    l.s("\",\"snapshot\":{\"messageId\":\"")
        .s(message)
        .s("\",\"trackedFileBackups\":{");
    if update {
        for i in 0..w.r.range(1, 4) {
            if i > 0 {
                l.push(b',');
            }
            let rel = w.r.pick(&s.p.files).clone();
            q(&mut l, &rel);
            l.s(":{\"backupFileName\":\"").s(&hex(&mut w.r, 16)).s("@v");
            let v = w.r.range(1, 6);
            num(&mut l, v);
            l.s("\",\"version\":");
            num(&mut l, v);
            l.s(",\"backupTime\":\"");
            iso(&mut l, w.t);
            l.s("\"}");
        }
    }
    l.s("},\"timestamp\":\"");
    iso(&mut l, w.t);
    l.s("\"},\"isSnapshotUpdate\":")
        .s(if update { "true" } else { "false" });
    l.s("}\n");
    w.emit(o, K_SNAPSHOT, l)
}

/// `last-prompt`, `ai-title`, `custom-title`, `permission-mode`: `{"type":..,key:value,"sessionId":..}`.
pub(crate) fn w_meta(
    s: &S,
    w: &mut W,
    o: &mut Out,
    kind: usize,
    key: &str,
    value: &str,
) -> Res<()> {
    let mut l = w.start();
    l.s("{\"type\":\"")
        .s(KINDS[kind])
        .s("\",\"")
        .s(key)
        .s("\":");
    q(&mut l, value);
    l.s(",\"sessionId\":\"").s(&s.id).s("\"}\n");
    w.emit(o, kind, l)
}

pub(crate) fn w_summary(w: &mut W, o: &mut Out, text: &str, leaf: &str) -> Res<()> {
    let mut l = w.start();
    l.s("{\"type\":\"summary\",\"summary\":");
    q(&mut l, text);
    l.s(",\"leafUuid\":\"").s(leaf).s("\"}\n");
    w.emit(o, K_SUMMARY, l)
}

pub(crate) fn history(s: &S, w: &mut W, display: &str, pasted: Option<&str>) -> Res<()> {
    let mut l = Vec::with_capacity(display.len() + 200);
    l.s("{\"display\":");
    match pasted {
        Some(p) => {
            let first = display.split("\n\n").next().unwrap_or("");
            let lines = p.lines().count();
            q(&mut l, &format!("{first} [Pasted text #1 +{lines} lines]"));
            if s.era == Era::V21 {
                l.s(",\"pastedContents\":{\"1\":{\"id\":1,\"type\":\"text\",\"contentHash\":\"");
                l.s(&hex(&mut w.r, 16)).s("\"}}");
            } else {
                l.s(",\"pastedContents\":{\"1\":{\"id\":1,\"type\":\"text\",\"content\":");
                q(&mut l, p);
                l.s("}}");
            }
        }
        None => {
            q(&mut l, display);
            l.s(",\"pastedContents\":{}");
        }
    }
    l.s(",\"timestamp\":");
    num(&mut l, w.t as u64);
    l.s(",\"project\":");
    q(&mut l, &s.p.cwd);
    if s.era != Era::V10 {
        l.s(",\"sessionId\":\"").s(&s.id).s("\"");
    }
    l.s("}\n");
    w.hist.b(&l)
}
