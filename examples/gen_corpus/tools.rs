//! Tool calls, their results, and sub-agents.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    Read,
    Edit,
    Write,
    Bash,
    Grep,
    Glob,
    Todo,
    WebFetch,
    WebSearch,
    Task,
}

impl Tool {
    pub(crate) fn name(self, s: &S) -> &'static str {
        match self {
            Tool::Read => "Read",
            Tool::Edit => "Edit",
            Tool::Write => "Write",
            Tool::Bash => "Bash",
            Tool::Grep => "Grep",
            Tool::Glob => "Glob",
            Tool::Todo => "TodoWrite",
            Tool::WebFetch => "WebFetch",
            Tool::WebSearch => "WebSearch",
            Tool::Task => s.task_tool(),
        }
    }
}

/// One tool call: what the result needs to know about the input.
pub(crate) struct Call {
    pub(crate) tool: Tool,
    pub(crate) id: String,
    pub(crate) uuid: String,
    pub(crate) path: String,
    /// Escaped: old_string / content / todos / command output kind's text.
    pub(crate) a: Vec<u8>,
    pub(crate) a_spans: Vec<(usize, usize)>,
    pub(crate) b: Vec<u8>,
    pub(crate) b_spans: Vec<(usize, usize)>,
    pub(crate) text: String,
    pub(crate) kind: usize,
    /// Task: the sub-agent's type and short description.
    pub(crate) agent_type: &'static str,
    pub(crate) desc: String,
}

/// How a conversation behaves: the main one or a sub-agent.
#[derive(Clone, Copy)]
pub(crate) struct Mode {
    pub(crate) agent: bool,
    pub(crate) model: &'static str,
    /// Scales tool output sizes.
    pub(crate) scale: f64,
}

pub(crate) fn pick_tool(r: &mut Rng, mode: Mode) -> Tool {
    if mode.agent {
        const T: [Tool; 4] = [Tool::Read, Tool::Grep, Tool::Glob, Tool::Bash];
        return T[r.weighted(&[40, 22, 15, 23])];
    }
    const T: [Tool; 10] = [
        Tool::Read,
        Tool::Bash,
        Tool::Edit,
        Tool::Grep,
        Tool::Glob,
        Tool::Write,
        Tool::Todo,
        Tool::WebFetch,
        Tool::WebSearch,
        Tool::Task,
    ];
    T[r.weighted(&[30, 24, 14, 8, 7, 4, 4, 1, 1, 3])]
}

/// Size of a file read, in bytes: mostly 1–20 KB, often up to 200 KB, rarely 1–2 MB.
pub(crate) fn read_size(r: &mut Rng, scale: f64) -> usize {
    let x = r.unit();
    let b = if x < 0.003 {
        r.log_uniform(1e6, 2e6)
    } else if x < 0.2 {
        r.log_uniform(20e3, 200e3) * scale
    } else {
        r.log_uniform(1e3, 20e3) * scale
    };
    b as usize
}

/// Build the tool_use block for a new call.
pub(crate) fn tool_use(s: &S, w: &mut W, tool: Tool) -> (Call, Vec<u8>) {
    let r = &mut w.r;
    let g = s.g;
    let st = s.style();
    let mut c = Call {
        tool,
        id: format!("toolu_01{}", from_alphabet(r, B62, 22)),
        uuid: String::new(),
        path: s.path(r),
        a: Vec::new(),
        a_spans: Vec::new(),
        b: Vec::new(),
        b_spans: Vec::new(),
        text: String::new(),
        kind: 0,
        agent_type: "general-purpose",
        desc: String::new(),
    };
    let mut bl = Vec::with_capacity(256);
    bl.s("{\"type\":\"tool_use\",\"id\":\"")
        .s(&c.id)
        .s("\",\"name\":\"")
        .s(tool.name(s));
    bl.s("\",\"input\":{");
    match tool {
        Tool::Read => {
            bl.s("\"file_path\":");
            q(&mut bl, &c.path);
            if r.chance(0.1) {
                bl.s(",\"offset\":");
                num(&mut bl, r.range(1, 400));
                bl.s(",\"limit\":");
                num(&mut bl, r.range(50, 300));
            }
        }
        Tool::Edit => {
            let n = r.range(60, 900) as usize;
            g.code(r, &mut c.a, st, n, Some(&mut c.a_spans));
            let n = r.range(60, 1200) as usize;
            g.code(r, &mut c.b, st, n, Some(&mut c.b_spans));
            if s.era >= Era::V20 {
                bl.s("\"replace_all\":false,");
            }
            bl.s("\"file_path\":");
            q(&mut bl, &c.path);
            bl.s(",\"old_string\":");
            qe(&mut bl, &c.a);
            bl.s(",\"new_string\":");
            qe(&mut bl, &c.b);
        }
        Tool::Write => {
            let n = r.log_uniform(800.0, 20_000.0) as usize;
            g.code(r, &mut c.a, st, n, None);
            bl.s("\"file_path\":");
            q(&mut bl, &c.path);
            bl.s(",\"content\":");
            qe(&mut bl, &c.a);
        }
        Tool::Bash => {
            let matching: Vec<&(Tpl, usize, u8)> = g
                .commands
                .iter()
                .filter(|(_, _, l)| *l == 9 || *l as usize == s.p.lang.idx())
                .collect();
            let (t, kind, _) = *r.pick(&matching);
            let mut cmd = Vec::new();
            g.line(
                r,
                &mut cmd,
                t,
                Style {
                    lang: s.p.lang,
                    esc: false,
                },
            );
            c.text = String::from_utf8_lossy(&cmd).into_owned();
            c.kind = *kind;
            bl.s("\"command\":");
            q(&mut bl, &c.text);
            bl.s(",\"description\":");
            q(
                &mut bl,
                &format!("{} the {}", capitalize(r.word(VERBS)), r.word(NOUNS)),
            );
            if r.chance(0.1) {
                bl.s(",\"timeout\":120000");
            }
        }
        Tool::Grep => {
            c.text = match r.below(3) {
                0 => g.ident(r, s.p.lang).to_string(),
                1 => format!("fn {}|struct {}", g.ident(r, Lang::Rust), r.pick(&g.types)),
                _ => format!("{}\\(", g.ident(r, s.p.lang)),
            };
            c.kind = r.below(2) as usize;
            bl.s("\"pattern\":");
            q(&mut bl, &c.text);
            bl.s(",\"path\":");
            q(&mut bl, &s.p.cwd);
            bl.s(if c.kind == 0 {
                ",\"output_mode\":\"files_with_matches\""
            } else {
                ",\"output_mode\":\"content\",\"-n\":true"
            });
        }
        Tool::Glob => {
            c.text = format!(
                "{}**/*.{}",
                r.pick(&["", "src/", "tests/", "internal/"]),
                s.p.lang.ext()
            );
            bl.s("\"pattern\":");
            q(&mut bl, &c.text);
        }
        Tool::Todo => {
            c.a.push(b'[');
            for i in 0..r.range(2, 7) {
                if i > 0 {
                    c.a.push(b',');
                }
                let t = g.title(r);
                c.a.s("{\"content\":");
                q(&mut c.a, &t);
                c.a.s(",\"status\":\"")
                    .s(r.pick(&["completed", "in_progress", "pending"]));
                c.a.s("\",\"activeForm\":");
                q(&mut c.a, &format!("Working on {}", t.to_lowercase()));
                c.a.s("}");
            }
            c.a.push(b']');
            bl.s("\"todos\":");
            bl.extend_from_slice(&c.a);
        }
        Tool::WebFetch => {
            c.text = format!(
                "https://docs.example.com/{}/{}",
                r.word(NOUNS).replace(' ', "-"),
                g.ident(r, Lang::Py)
            );
            bl.s("\"url\":");
            q(&mut bl, &c.text);
            bl.s(",\"prompt\":\"");
            g.sentence(r, &mut bl, st, true);
            bl.s("\"");
        }
        Tool::WebSearch => {
            c.text = format!(
                "{} {} {} 2026",
                s.p.lang.fence(),
                r.word(ADJS),
                r.word(NOUNS)
            );
            bl.s("\"query\":");
            q(&mut bl, &c.text);
        }
        Tool::Task => {
            c.agent_type = *r.pick(&["general-purpose", "Explore", "Explore", "Plan"]);
            let mut p = Vec::new();
            let raw = Style {
                lang: s.p.lang,
                esc: false,
            };
            g.sentence(r, &mut p, raw, true);
            end_sentence(&mut p);
            p.push(b' ');
            let n = r.range(2, 6);
            g.paragraph(r, &mut p, raw, n);
            c.text = String::from_utf8_lossy(&p).into_owned();
            let desc = format!(
                "{} {} {}",
                capitalize(r.word(VERBS)),
                r.word(ADJS),
                r.word(NOUNS)
            );
            bl.s("\"description\":");
            q(&mut bl, &desc);
            bl.s(",\"prompt\":");
            q(&mut bl, &c.text);
            bl.s(",\"subagent_type\":\"").s(c.agent_type).s("\"");
            c.desc = desc;
        }
    }
    bl.s("}");
    if s.caller() {
        bl.s(",\"caller\":{\"type\":\"direct\"}");
    }
    bl.s("}");
    (c, bl)
}

/// Numbered lines as the Read tool shows them: `     1→code`.
pub(crate) fn numbered(out: &mut Vec<u8>, body: &[u8], spans: &[(usize, usize)], first: u64) {
    for (i, (a, b)) in spans.iter().enumerate() {
        let n = first + i as u64;
        let mut digits = Vec::with_capacity(8);
        num(&mut digits, n);
        for _ in digits.len()..6 {
            out.push(b' ');
        }
        out.extend_from_slice(&digits);
        out.s("→");
        out.extend_from_slice(&body[*a..*b]);
        out.s("\\n");
    }
}

pub(crate) fn path_list(out: &mut Vec<u8>, s: &S, r: &mut Rng, n: u64, json_array: bool) {
    for i in 0..n {
        if i > 0 {
            out.s(if json_array { "," } else { "\\n" });
        }
        let p = s.path(r);
        if json_array {
            q(out, &p);
        } else {
            esc(out, p.as_bytes());
        }
    }
}

/// Write the result of a call (and, for a Task, run the sub-agent first).
pub(crate) fn tool_result(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    mode: Mode,
    c: &Call,
) -> Res<()> {
    let st = s.style();
    let g = s.g;
    let mut content = Vec::new();
    let mut tur = Vec::new();
    let mut is_error = false;
    w.tick(20, 8_000);
    if c.tool == Tool::Task {
        let (text, tools) = subagent(s, w, o, ch, c)?;
        w.tick(1_000, 60_000);
        content.s("[{\"type\":\"text\",\"text\":");
        qe(&mut content, &text);
        content.s("}]");
        tur.s(",\"toolUseResult\":{\"status\":\"completed\",\"prompt\":");
        q(&mut tur, &c.text);
        tur.s(",\"content\":");
        tur.extend_from_slice(&content);
        tur.s(",\"totalDurationMs\":");
        num(&mut tur, w.r.range(5_000, 400_000));
        tur.s(",\"totalTokens\":");
        num(&mut tur, w.r.range(5_000, 90_000));
        tur.s(",\"totalToolUseCount\":");
        num(&mut tur, tools);
        tur.s("}");
    } else {
        let r = &mut w.r;
        match c.tool {
            Tool::Read => {
                let mut body = Vec::new();
                let mut spans = Vec::new();
                let size = read_size(r, mode.scale);
                g.code(r, &mut body, st, size, Some(&mut spans));
                let mut shown = Vec::with_capacity(body.len() + spans.len() * 10);
                numbered(&mut shown, &body, &spans, 1);
                qe(&mut content, &shown);
                tur.s(",\"toolUseResult\":{\"type\":\"text\",\"file\":{\"filePath\":");
                q(&mut tur, &c.path);
                tur.s(",\"content\":");
                qe(&mut tur, &body);
                tur.s(",\"numLines\":");
                num(&mut tur, spans.len() as u64);
                tur.s(",\"startLine\":1,\"totalLines\":");
                num(&mut tur, spans.len() as u64);
                tur.s("}}");
            }
            Tool::Edit => {
                let start = r.range(1, 600);
                let mut shown = Vec::new();
                shown.s("The file ");
                esc(&mut shown, c.path.as_bytes());
                shown.s(" has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\\n");
                numbered(&mut shown, &c.b, &c.b_spans, start);
                qe(&mut content, &shown);
                tur.s(",\"toolUseResult\":{\"filePath\":");
                q(&mut tur, &c.path);
                tur.s(",\"oldString\":");
                qe(&mut tur, &c.a);
                tur.s(",\"newString\":");
                qe(&mut tur, &c.b);
                tur.s(",\"originalFile\":\"");
                let size = (read_size(r, mode.scale) / 2).max(1_000);
                g.code(r, &mut tur, st, size, None);
                tur.s("\",\"structuredPatch\":[{\"oldStart\":");
                num(&mut tur, start);
                tur.s(",\"oldLines\":");
                num(&mut tur, c.a_spans.len() as u64);
                tur.s(",\"newStart\":");
                num(&mut tur, start);
                tur.s(",\"newLines\":");
                num(&mut tur, c.b_spans.len() as u64);
                tur.s(",\"lines\":[");
                let old = c.a_spans.iter().map(|sp| (b'-', &c.a, sp));
                let new = c.b_spans.iter().map(|sp| (b'+', &c.b, sp));
                for (i, (sign, body, (x, y))) in old.chain(new).enumerate() {
                    if i > 0 {
                        tur.push(b',');
                    }
                    tur.push(b'"');
                    tur.push(sign);
                    tur.extend_from_slice(&body[*x..*y]);
                    tur.push(b'"');
                }
                tur.s("]}],\"userModified\":false,\"replaceAll\":false}");
            }
            Tool::Write => {
                content.s("\"File created successfully at: ");
                esc(&mut content, c.path.as_bytes());
                content.s("\"");
                tur.s(",\"toolUseResult\":{\"type\":\"create\",\"filePath\":");
                q(&mut tur, &c.path);
                tur.s(",\"content\":");
                qe(&mut tur, &c.a);
                tur.s(",\"structuredPatch\":[]}");
            }
            Tool::Bash => {
                let mut body = Vec::new();
                let size = if r.chance(0.02) {
                    r.log_uniform(30e3, 300e3)
                } else {
                    r.log_uniform(80.0, 30e3) * mode.scale
                } as usize;
                g.output(r, &mut body, st, c.kind, size);
                is_error = r.chance(0.08);
                if is_error {
                    content.s("\"Exit code 1\\n");
                    content.extend_from_slice(&body);
                    content.s("\"");
                } else {
                    qe(&mut content, &body);
                }
                tur.s(",\"toolUseResult\":{\"stdout\":");
                qe(&mut tur, &body);
                tur.s(",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}");
            }
            Tool::Grep => {
                let n = r.range(0, 40);
                if c.kind == 0 {
                    let mut body = Vec::new();
                    if n == 0 {
                        body.s("No files found");
                    } else {
                        body.s("Found ");
                        num(&mut body, n);
                        body.s(" files\\n");
                        path_list(&mut body, s, r, n, false);
                    }
                    qe(&mut content, &body);
                    tur.s(",\"toolUseResult\":{\"mode\":\"files_with_matches\",\"filenames\":[");
                    path_list(&mut tur, s, r, n, true);
                    tur.s("],\"numFiles\":");
                    num(&mut tur, n);
                    tur.s("}");
                } else {
                    let mut body = Vec::new();
                    let size = r.log_uniform(200.0, 20e3) as usize;
                    g.output(r, &mut body, st, 9, size);
                    qe(&mut content, &body);
                    tur.s(",\"toolUseResult\":{\"mode\":\"content\",\"numFiles\":0,\"filenames\":[],\"content\":");
                    qe(&mut tur, &body);
                    tur.s(",\"numLines\":");
                    num(
                        &mut tur,
                        body.windows(2).filter(|x| x == b"\\n").count() as u64 + 1,
                    );
                    tur.s("}");
                }
            }
            Tool::Glob => {
                let n = r.range(1, 80);
                let mut body = Vec::new();
                path_list(&mut body, s, r, n, false);
                qe(&mut content, &body);
                tur.s(",\"toolUseResult\":{\"filenames\":[");
                path_list(&mut tur, s, r, n, true);
                tur.s("],\"durationMs\":");
                num(&mut tur, r.range(2, 400));
                tur.s(",\"numFiles\":");
                num(&mut tur, n);
                tur.s(",\"truncated\":false}");
            }
            Tool::Todo => {
                content.s("\"Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable\"");
                tur.s(",\"toolUseResult\":{\"oldTodos\":[],\"newTodos\":");
                tur.extend_from_slice(&c.a);
                tur.s("}");
            }
            Tool::WebFetch | Tool::WebSearch => {
                let mut body = Vec::new();
                if c.tool == Tool::WebSearch {
                    body.s("Web search results for query: \\\"");
                    esc(&mut body, c.text.as_bytes());
                    body.s("\\\"\\n\\n");
                }
                let size = r.log_uniform(1e3, 40e3) as usize;
                g.markdown(r, &mut body, st, size);
                qe(&mut content, &body);
                if c.tool == Tool::WebFetch {
                    tur.s(",\"toolUseResult\":{\"bytes\":");
                    num(&mut tur, body.len() as u64 * 3);
                    tur.s(",\"code\":200,\"codeText\":\"OK\",\"result\":");
                    qe(&mut tur, &body);
                    tur.s(",\"durationMs\":");
                    num(&mut tur, r.range(80, 5000));
                    tur.s(",\"url\":");
                    q(&mut tur, &c.text);
                    tur.s("}");
                } else {
                    tur.s(",\"toolUseResult\":{\"query\":");
                    q(&mut tur, &c.text);
                    tur.s(",\"durationSeconds\":");
                    num(&mut tur, r.range(1, 9));
                    tur.s("}");
                }
            }
            Tool::Task => {}
        }
    }
    let mut block = Vec::with_capacity(content.len() + 120);
    block
        .s("[{\"tool_use_id\":\"")
        .s(&c.id)
        .s("\",\"type\":\"tool_result\",\"content\":");
    block.extend_from_slice(&content);
    if is_error {
        block.s(",\"is_error\":true");
    } else if c.tool == Tool::Bash {
        block.s(",\"is_error\":false");
    }
    block.s("}]");
    if s.era == Era::V21 {
        tur.s(",\"sourceToolAssistantUUID\":\"").s(&c.uuid).s("\"");
    }
    w_user(
        s,
        w,
        o,
        ch,
        UserLine {
            content: &block,
            flags: "",
            after: &tur,
            uuid: None,
        },
    )?;
    Ok(())
}

/// Run a sub-agent for a Task call; returns its final report (escaped) and tool count.
pub(crate) fn subagent(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    c: &Call,
) -> Res<(Vec<u8>, u64)> {
    w.stats.subagents += 1;
    let model = if c.agent_type == "Explore" && s.era >= Era::V20 {
        "claude-haiku-4-5-20251001"
    } else {
        s.model
    };
    let mode = Mode {
        agent: true,
        model,
        scale: 0.5,
    };
    let rounds = w.r.range(2, 10);
    let start_t = w.t;
    match s.era {
        Era::V10 => {
            // Inline: sidechain lines in the session file.
            let mut side = Chain {
                parent: None,
                side: true,
                agent: None,
            };
            agent_prompt(s, w, o, &mut side, &c.text)?;
            run_rounds(s, w, o, &mut side, mode, rounds)
        }
        Era::V20 | Era::V21 => {
            let (id, path) = if s.era == Era::V20 {
                let id = hex(&mut w.r, 8);
                let p = s.dir.join(format!("agent-{id}.jsonl"));
                (id, p)
            } else {
                let id = format!("a{}", hex(&mut w.r, 16));
                let dir = s.dir.join(&s.id).join("subagents");
                mkdir(&dir)?;
                let mut meta = Vec::new();
                meta.s("{\"agentType\":\"")
                    .s(c.agent_type)
                    .s("\",\"description\":");
                q(&mut meta, &c.desc);
                meta.s("}");
                write_file(
                    &mut w.stats,
                    &dir.join(format!("agent-{id}.meta.json")),
                    &meta,
                )?;
                (id.clone(), dir.join(format!("agent-{id}.jsonl")))
            };
            let mut ao = Out::create(&path)?;
            let mut side = Chain {
                parent: None,
                side: true,
                agent: Some(id.clone()),
            };
            agent_prompt(s, w, &mut ao, &mut side, &c.text)?;
            let res = run_rounds(s, w, &mut ao, &mut side, mode, rounds)?;
            let n = ao.finish()?;
            w.stats.file(n);
            if s.era == Era::V21 {
                // The parent shows the agent's progress while it runs.
                let end_t = w.t;
                w.t = start_t;
                for _ in 0..w.r.range(1, 4) {
                    let mut d = Vec::with_capacity(400);
                    d.s("{\"message\":{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"");
                    s.g.sentence(&mut w.r, &mut d, s.style(), false);
                    d.s("\"}]},\"timestamp\":\"");
                    iso(&mut d, w.t);
                    d.s("\"},\"normalizedMessages\":[],\"type\":\"agent_progress\",\"prompt\":\"\",\"agentId\":\"").s(&id).s("\"}");
                    w_progress(s, w, o, ch, &d, &c.id)?;
                }
                w.t = w.t.max(end_t);
            }
            Ok(res)
        }
    }
}

pub(crate) fn agent_prompt(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, prompt: &str) -> Res<()> {
    let mut content = Vec::with_capacity(prompt.len() + 8);
    q(&mut content, prompt);
    w_user(
        s,
        w,
        o,
        ch,
        UserLine {
            content: &content,
            flags: "",
            after: b"",
            uuid: None,
        },
    )?;
    Ok(())
}
