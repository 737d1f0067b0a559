//! Turns, slash commands, compactions: a whole session.

use super::*;

/// Assistant rounds until a final answer. Returns the answer (escaped) and the tool count.
pub(crate) fn run_rounds(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    mode: Mode,
    rounds: u64,
) -> Res<(Vec<u8>, u64)> {
    let st = s.style();
    let mut tools = 0;
    for round in 0..rounds {
        let last = round + 1 == rounds;
        let m = new_msg(s, w, mode.model);
        let think = match s.era {
            Era::V10 => w.r.chance(0.15),
            Era::V20 => w.r.chance(0.3),
            Era::V21 => w.r.chance(0.45),
        };
        if think {
            let mut b = Vec::with_capacity(2048);
            b.s("{\"type\":\"thinking\",\"thinking\":\"");
            let empty = s.era == Era::V21 && s.vi >= V21_ENTRYPOINT && w.r.chance(0.7);
            if !empty {
                let n = w.r.range(2, 10);
                s.g.paragraph(&mut w.r, &mut b, st, n);
            }
            b.s("\",\"signature\":\"");
            let n = w.r.range(200, 1400) as usize;
            b.s(&from_alphabet(&mut w.r, B64, n));
            b.s("\"}");
            w_assistant(s, w, o, ch, &m, &b)?;
        }
        if last {
            let mut text = Vec::with_capacity(4096);
            let size = w.r.log_uniform(150.0, 6_000.0) as usize;
            s.g.markdown(&mut w.r, &mut text, st, size);
            let mut b = Vec::with_capacity(text.len() + 40);
            b.s("{\"type\":\"text\",\"text\":");
            qe(&mut b, &text);
            b.s("}");
            w_assistant(s, w, o, ch, &m, &b)?;
            return Ok((text, tools));
        }
        if w.r.chance(0.45) {
            let mut b = Vec::with_capacity(512);
            b.s("{\"type\":\"text\",\"text\":\"");
            let n = w.r.range(1, 3);
            s.g.paragraph(&mut w.r, &mut b, st, n);
            b.s("\"}");
            w_assistant(s, w, o, ch, &m, &b)?;
        }
        let k = match w.r.below(10) {
            0..=6 => 1,
            7 | 8 => 2,
            _ => w.r.range(3, 4),
        };
        let mut calls = Vec::new();
        for _ in 0..k {
            let mut tool = pick_tool(&mut w.r, mode);
            if tool == Tool::Task && calls.iter().any(|c: &Call| c.tool == Tool::Task) {
                tool = Tool::Read;
            }
            let (mut c, block) = tool_use(s, w, tool);
            c.uuid = w_assistant(s, w, o, ch, &m, &block)?;
            calls.push(c);
        }
        let progress = s.era == Era::V21;
        if progress && !mode.agent && w.r.chance(0.12) {
            w_attachment(s, w, o, ch)?;
        }
        for c in &calls {
            tools += 1;
            if progress && s.p.hooks && w.r.chance(0.7) {
                hook_progress(s, w, o, ch, "PreToolUse", c)?;
            }
            if progress && c.tool == Tool::Bash {
                for i in 0..w.r.range(0, 3) {
                    let mut d = Vec::with_capacity(200);
                    d.s("{\"type\":\"bash_progress\",\"output\":\"\",\"fullOutput\":\"\",\"elapsedTimeSeconds\":");
                    num(&mut d, i + 2);
                    d.s(",\"totalLines\":0}");
                    w_progress(s, w, o, ch, &d, &c.id)?;
                }
            }
            if !mode.agent && w.r.chance(0.012) {
                // The user rejects the call and interrupts the turn.
                let mut block = Vec::new();
                block.s("[{\"type\":\"tool_result\",\"content\":\"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.\",\"is_error\":true,\"tool_use_id\":\"").s(&c.id).s("\"}]");
                let tur = b",\"toolUseResult\":\"Error: The user doesn't want to proceed with this tool use. The tool use was rejected.\"";
                w.tick(2_000, 30_000);
                let u = UserLine {
                    content: &block,
                    flags: "",
                    after: tur,
                    uuid: None,
                };
                w_user(s, w, o, ch, u)?;
                let u = UserLine {
                    content: b"[{\"type\":\"text\",\"text\":\"[Request interrupted by user for tool use]\"}]",
                    flags: "",
                    after: b"",
                    uuid: None,
                };
                w_user(s, w, o, ch, u)?;
                return Ok((b"Interrupted.".to_vec(), tools));
            }
            tool_result(s, w, o, ch, mode, c)?;
            if progress && s.p.hooks && w.r.chance(0.3) {
                hook_progress(s, w, o, ch, "PostToolUse", c)?;
            }
        }
    }
    Ok((Vec::new(), tools))
}

pub(crate) fn hook_progress(
    s: &S,
    w: &mut W,
    o: &mut Out,
    ch: &mut Chain,
    event: &str,
    c: &Call,
) -> Res<()> {
    let mut d = Vec::with_capacity(200);
    d.s("{\"type\":\"hook_progress\",\"hookEvent\":\"").s(event);
    d.s("\",\"hookName\":\"").s(event).s(":").s(c.tool.name(s));
    d.s("\",\"command\":\"node \\\"${CLAUDE_PLUGIN_ROOT}/scripts/hooks/");
    d.s(if event == "PreToolUse" {
        "pre-tool-use.js"
    } else {
        "post-tool-use.js"
    });
    d.s("\\\"\"}");
    w_progress(s, w, o, ch, &d, &c.id)
}

/// One prompt and everything it sets off.
pub(crate) fn turn(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, first: bool) -> Res<()> {
    w.tick(20_000, 900_000);
    let (prompt, pasted) = s.g.prompt(&mut w.r, s.p.lang);
    let pid = uuid(&mut w.r);
    if s.era >= Era::V20 {
        w_queue(s, w, o, "enqueue", Some(&prompt))?;
        w_queue(s, w, o, "dequeue", None)?;
    }
    let mut content = Vec::with_capacity(prompt.len() + 300);
    if s.era == Era::V21 && w.r.chance(0.5) {
        content.s("[");
        if s.entry == Some("claude-vscode") && w.r.chance(0.4) {
            content.s("{\"type\":\"text\",\"text\":\"<ide_opened_file>The user opened the file ");
            let p = s.path(&mut w.r);
            esc(&mut content, p.as_bytes());
            content.s(" in the IDE. This may or may not be related to the current task.</ide_opened_file>\"},");
        }
        content.s("{\"type\":\"text\",\"text\":");
        q(&mut content, &prompt);
        content.s("}]");
    } else {
        q(&mut content, &prompt);
    }
    w_user(
        s,
        w,
        o,
        ch,
        UserLine {
            content: &content,
            flags: "",
            after: b"",
            uuid: Some(pid.clone()),
        },
    )?;
    history(s, w, &prompt, pasted.as_deref())?;
    if s.era >= Era::V20 || s.vi >= 8 {
        w_snapshot(s, w, o, &pid, false)?;
    }
    if s.era == Era::V21 {
        for _ in 0..w.r.below(4) {
            w_attachment(s, w, o, ch)?;
        }
    }
    let queued = s.era >= Era::V20 && w.r.chance(0.3);
    if queued {
        let (more, _) = s.g.prompt(&mut w.r, s.p.lang);
        w_queue(s, w, o, "enqueue", Some(&more))?;
    }
    let rounds = w.r.count(5.0, 30) + 1;
    let mode = Mode {
        agent: false,
        model: s.model,
        scale: 1.0,
    };
    run_rounds(s, w, o, ch, mode, rounds)?;
    if queued {
        let op = if w.r.chance(0.7) { "dequeue" } else { "remove" };
        w_queue(s, w, o, op, None)?;
    }
    if s.era >= Era::V20 && w.r.chance(0.1) {
        w_snapshot(s, w, o, &pid, true)?;
    }
    if s.era == Era::V21 {
        if s.p.hooks {
            let mut mid = Vec::new();
            mid.s(",\"hookCount\":1,\"hookInfos\":[{\"command\":\"${CLAUDE_PLUGIN_ROOT}/hooks/stop-hook.sh\",\"durationMs\":");
            num(&mut mid, w.r.range(100, 2000));
            mid.s("}],\"hookErrors\":[],\"preventedContinuation\":false,\"stopReason\":\"\",\"hasOutput\":false,\"level\":\"suggestion\"");
            w_system(s, w, o, ch, "stop_hook_summary", &mid)?;
        }
        if w.r.chance(0.4) {
            let mut mid = Vec::new();
            mid.s(",\"durationMs\":");
            num(&mut mid, w.r.range(2_000, 600_000));
            w_system(s, w, o, ch, "turn_duration", &mid)?;
        }
        let short: String = prompt.chars().take(200).collect();
        let short = if short.len() < prompt.len() {
            format!("{short}…")
        } else {
            short
        };
        w_meta(s, w, o, K_LAST_PROMPT, "lastPrompt", &short)?;
        if first || w.r.chance(0.3) {
            let t = s.g.title(&mut w.r);
            w_meta(s, w, o, K_AI_TITLE, "aiTitle", &t)?;
        }
    }
    Ok(())
}

pub(crate) const SLASH: &[(&str, &str, &str)] = &[
    ("model", "", "Set model to claude-opus-4-6"),
    (
        "cost",
        "",
        "Total cost: $2.41\nTotal duration (API): 14m 3.2s",
    ),
    ("context", "", "Context Usage: 61k/200k tokens (31%)"),
    ("mcp", "", "No MCP servers configured."),
    ("review", "42", ""),
    ("init", "", ""),
    ("compact", "", "Compacted. ctrl+o to see full summary"),
    ("commit", "", ""),
];

pub(crate) const CAVEAT: &str = "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.</local-command-caveat>";

/// A slash command: caveat, command, output; `/compact` also compacts.
pub(crate) fn command(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain) -> Res<()> {
    w.tick(10_000, 300_000);
    let (name, args, stdout) = *w.r.pick(SLASH);
    let tags = format!(
        "<command-name>/{name}</command-name>\n            <command-message>{name}</command-message>\n            <command-args>{args}</command-args>"
    );
    let display = if args.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {args}")
    };
    history(s, w, &display, None)?;
    if s.era == Era::V21 && w.r.chance(0.5) {
        let mut mid = Vec::new();
        mid.s(",\"content\":");
        q(&mut mid, &tags);
        mid.s(",\"level\":\"info\"");
        w_system(s, w, o, ch, "local_command", &mid)?;
        if !stdout.is_empty() {
            let mut mid = Vec::new();
            mid.s(",\"content\":");
            q(
                &mut mid,
                &format!("<local-command-stdout>{stdout}</local-command-stdout>"),
            );
            mid.s(",\"level\":\"info\"");
            w_system(s, w, o, ch, "local_command", &mid)?;
        }
    } else {
        let mut c = Vec::new();
        q(&mut c, CAVEAT);
        let u = UserLine {
            content: &c,
            flags: ",\"isMeta\":true",
            after: b"",
            uuid: None,
        };
        w_user(s, w, o, ch, u)?;
        let mut c = Vec::new();
        q(&mut c, &tags);
        let u = UserLine {
            content: &c,
            flags: "",
            after: b"",
            uuid: None,
        };
        w_user(s, w, o, ch, u)?;
        let mut c = Vec::new();
        q(
            &mut c,
            &format!("<local-command-stdout>{stdout}</local-command-stdout>"),
        );
        let u = UserLine {
            content: &c,
            flags: "",
            after: b"",
            uuid: None,
        };
        w_user(s, w, o, ch, u)?;
    }
    if name == "compact" {
        compact(s, w, o, ch, "manual")?;
    }
    Ok(())
}

/// `compact_boundary` then the summary the conversation continues from.
pub(crate) fn compact(s: &S, w: &mut W, o: &mut Out, ch: &mut Chain, trigger: &str) -> Res<()> {
    let logical = ch.parent.take().unwrap_or_default();
    let mut mid = Vec::new();
    mid.s(",\"logicalParentUuid\":\"").s(&logical);
    mid.s("\",\"content\":\"Conversation compacted\",\"level\":\"info\",\"compactMetadata\":{\"trigger\":\"").s(trigger);
    mid.s("\",\"preTokens\":");
    num(&mut mid, w.r.range(120_000, 190_000));
    mid.s("}");
    w.tick(20_000, 120_000);
    w_system(s, w, o, ch, "compact_boundary", &mid)?;
    let st = s.style();
    let mut text = Vec::with_capacity(8192);
    text.s("This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\\n\\nAnalysis:\\n");
    let n = w.r.range(3, 8);
    s.g.paragraph(&mut w.r, &mut text, st, n);
    text.s("\\n\\nSummary:\\n1. Primary Request and Intent:\\n   ");
    let n = w.r.range(2, 5);
    s.g.paragraph(&mut w.r, &mut text, st, n);
    text.s("\\n\\n2. Key Technical Concepts:\\n");
    for _ in 0..w.r.range(3, 8) {
        text.s("   - ");
        s.g.sentence(&mut w.r, &mut text, st, false);
        text.s("\\n");
    }
    text.s("\\n3. Files and Code Sections:\\n   - ");
    let p = s.path(&mut w.r);
    esc(&mut text, p.as_bytes());
    text.s("\\n     ```").s(s.p.lang.fence()).s("\\n");
    let n = w.r.range(200, 2000) as usize;
    s.g.code(&mut w.r, &mut text, st, n, None);
    text.s("\\n     ```");
    let mut content = Vec::with_capacity(text.len() + 2);
    qe(&mut content, &text);
    if s.era == Era::V21 {
        // The summary was written by a compaction sub-agent.
        let id = hex(&mut w.r, 16);
        let dir = s.dir.join(&s.id).join("subagents");
        mkdir(&dir)?;
        let mut ao = Out::create(&dir.join(format!("agent-acompact-{id}.jsonl")))?;
        let mut side = Chain {
            parent: None,
            side: true,
            agent: Some(format!("acompact-{id}")),
        };
        agent_prompt(s, w, &mut ao, &mut side, "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.")?;
        let m = new_msg(s, w, s.model);
        let mut b = Vec::with_capacity(text.len() + 40);
        b.s("{\"type\":\"text\",\"text\":");
        qe(&mut b, &text);
        b.s("}");
        w_assistant(s, w, &mut ao, &mut side, &m, &b)?;
        let n = ao.finish()?;
        w.stats.file(n);
    }
    let u = UserLine {
        content: &content,
        flags: ",\"isVisibleInTranscriptOnly\":true,\"isCompactSummary\":true",
        after: b"",
        uuid: None,
    };
    w_user(s, w, o, ch, u)?;
    Ok(())
}

/// Write one session file of about `target` bytes. Returns its last uuid.
/// Stops at `target` bytes, or earlier when the whole output reaches `limit`.
/// Returns the last uuid and the size of the session file.
pub(crate) fn session(
    s: &S,
    w: &mut W,
    target: u64,
    limit: u64,
    prev_leaf: Option<&str>,
) -> Res<(Option<String>, u64)> {
    let mut o = Out::create(&s.dir.join(format!("{}.jsonl", s.id)))?;
    let mut ch = Chain::main();
    if let Some(leaf) = prev_leaf {
        let p = if s.era == Era::V10 { 0.8 } else { 0.4 };
        if w.r.chance(p) {
            for _ in 0..w.r.range(1, 4) {
                let t = s.g.title(&mut w.r);
                w_summary(w, &mut o, &t, leaf)?;
            }
        }
    }
    if s.era == Era::V21 {
        if w.r.chance(0.1) {
            let m = *w.r.pick(&["default", "acceptEdits", "plan"]);
            w_meta(s, w, &mut o, K_PERMISSION, "permissionMode", m)?;
        }
        if s.p.hooks {
            let hook_id = uuid(&mut w.r);
            let d = b"{\"type\":\"hook_progress\",\"hookEvent\":\"SessionStart\",\"hookName\":\"SessionStart:startup\",\"command\":\"node \\\"${CLAUDE_PLUGIN_ROOT}/scripts/hooks/session-start.js\\\"\"}";
            w_progress(s, w, &mut o, &mut ch, d, &hook_id)?;
        }
    }
    let mut turns = 0u32;
    while (o.n < target && w.stats.bytes + w.hist.n + o.n < limit) || turns == 0 {
        if turns > 0 && w.r.chance(0.05) {
            command(s, w, &mut o, &mut ch)?;
        } else {
            turn(s, w, &mut o, &mut ch, turns == 0)?;
        }
        if target > 1_000_000 && turns > 2 && w.r.chance(0.02) {
            compact(s, w, &mut o, &mut ch, "auto")?;
        }
        turns += 1;
    }
    if s.era >= Era::V20 && w.r.chance(0.25) {
        let t = s.g.title(&mut w.r);
        w_meta(s, w, &mut o, K_CUSTOM_TITLE, "customTitle", &t)?;
    }
    let n = o.finish()?;
    w.stats.file(n);
    w.stats.sessions += 1;
    Ok((ch.parent, n))
}
