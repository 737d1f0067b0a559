//! The user's setup as written: `settings.json` (hooks, MCP servers,
//! plugins) and `usage-data/facets/<session>.json`. Nothing here is
//! redacted, but what must never be shown is never read out: the values of
//! environment variables and headers, the query of a server's address, and
//! the argument after a flag that names a secret.

use serde_json::{Map, Value};

/// What a `settings.json` says, reduced to what a page shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawSettings {
    pub model: Option<String>,
    pub output_style: Option<String>,
    /// The names of `env` variables (their values are never read).
    pub env_names: Vec<String>,
    pub hooks: Vec<RawHook>,
    pub mcp: Vec<RawMcp>,
    /// `enabledPlugins`: (name, enabled).
    pub plugins: Vec<(String, bool)>,
    /// `permissions`: (allow | ask | deny, rule).
    pub permissions: Vec<(String, String)>,
    /// The status line's command.
    pub status_line: Option<String>,
}

/// One hook: the event, what it matches, the commands it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawHook {
    pub event: String,
    pub matcher: String,
    pub commands: Vec<String>,
}

/// One MCP server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawMcp {
    pub name: String,
    /// `stdio`, `http`, `sse` …
    pub transport: String,
    /// The command with its arguments (secret ones hidden), or the address
    /// without its query.
    pub target: String,
    /// Names of the environment variables and headers it is given (values hidden).
    pub hidden: Vec<String>,
}

/// What stands for a value that is never shown.
pub const HIDDEN: &str = "•••";

/// Parse a `settings.json`; the error names the line.
pub fn parse_settings(text: &str) -> Result<RawSettings, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("line {}: {e}", e.line()))?;
    let Value::Object(top) = v else {
        return Err("not a JSON object".into());
    };
    let string = |k: &str| top.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(RawSettings {
        model: string("model"),
        output_style: string("outputStyle"),
        env_names: keys(top.get("env")),
        hooks: hooks(top.get("hooks")),
        mcp: object(top.get("mcpServers"))
            .map(|servers| servers.iter().map(|(n, s)| mcp(n, s)).collect())
            .unwrap_or_default(),
        plugins: object(top.get("enabledPlugins"))
            .map(|p| {
                p.iter()
                    .map(|(n, on)| (n.clone(), on.as_bool().unwrap_or(true)))
                    .collect()
            })
            .unwrap_or_default(),
        permissions: permissions(top.get("permissions")),
        status_line: top
            .get("statusLine")
            .and_then(|s| s.get("command"))
            .and_then(Value::as_str)
            .map(hide_in_command),
    })
}

fn object(v: Option<&Value>) -> Option<&Map<String, Value>> {
    v.and_then(Value::as_object)
}

fn keys(v: Option<&Value>) -> Vec<String> {
    object(v)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `hooks: {Event: [{matcher, hooks: [{type: command, command}]}]}`.
fn hooks(v: Option<&Value>) -> Vec<RawHook> {
    let mut out = Vec::new();
    for (event, groups) in object(v).into_iter().flatten() {
        for g in groups.as_array().into_iter().flatten() {
            let commands = g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|h| {
                    h.get("command")
                        .or_else(|| h.get("prompt"))
                        .and_then(Value::as_str)
                })
                .map(hide_in_command)
                .collect();
            out.push(RawHook {
                event: event.clone(),
                matcher: g
                    .get("matcher")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                commands,
            });
        }
    }
    out
}

fn mcp(name: &str, s: &Value) -> RawMcp {
    let url = s.get("url").and_then(Value::as_str);
    let transport = s
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or(if url.is_some() { "http" } else { "stdio" })
        .to_string();
    let target = match url {
        Some(u) => without_secrets(u),
        None => {
            let mut words: Vec<String> = s
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_string)
                .into_iter()
                .collect();
            words.extend(strings(s.get("args")));
            hide_secret_args(&words).join(" ")
        }
    };
    let mut hidden = keys(s.get("env"));
    hidden.extend(keys(s.get("headers")));
    RawMcp {
        name: name.to_string(),
        transport,
        target,
        hidden,
    }
}

fn permissions(v: Option<&Value>) -> Vec<(String, String)> {
    ["allow", "ask", "deny"]
        .iter()
        .flat_map(|k| {
            strings(v.and_then(|p| p.get(*k)))
                .into_iter()
                .map(|rule| (k.to_string(), rule))
        })
        .collect()
}

/// An address without its user, password, query and fragment (where
/// tokens are put).
fn without_secrets(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..end];
    match (url.find("://"), url.find('@')) {
        (Some(scheme), Some(at)) if at > scheme && !url[scheme + 3..at].contains('/') => {
            format!("{}{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

/// Words that name a secret in a flag or a variable.
fn names_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "auth",
        "credential",
        "bearer",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// A command line with the values of its secret flags and variables hidden.
fn hide_in_command(command: &str) -> String {
    hide_secret_args(&[command.to_string()]).join(" ")
}

/// Split each word on spaces, and hide what follows a flag or a variable
/// that names a secret (`--api-key X`, `--token=X`, `API_KEY=X`, `Bearer X`).
pub fn hide_secret_args(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut hide_next = false;
    for w in words.iter().flat_map(|w| w.split(' ')) {
        if hide_next && !w.is_empty() {
            out.push(HIDDEN.to_string());
            hide_next = false;
            continue;
        }
        match w.split_once('=') {
            Some((name, value)) if names_secret(name) && !value.is_empty() => {
                out.push(format!("{name}={HIDDEN}"));
            }
            _ => {
                let flag = w.starts_with('-') || w.eq_ignore_ascii_case("bearer");
                hide_next = flag && names_secret(w);
                out.push(w.to_string());
            }
        }
    }
    out
}

/// What `/insights` wrote of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawFacet {
    pub session_id: String,
    pub goal: Option<String>,
    pub outcome: Option<String>,
    pub summary: Option<String>,
    pub categories: Vec<String>,
}

/// Parse `usage-data/facets/<session>.json` (`underlying_goal`, `outcome`,
/// `brief_summary`, `goal_categories` as a map of counts or a list); the
/// session is `session_id`, else the file's stem. Values stay as written
/// (`mostly_achieved`): made readable only after redaction, which must
/// see them whole.
pub fn parse_facet(stem: &str, text: &str) -> Result<RawFacet, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("line {}: {e}", e.line()))?;
    let Value::Object(m) = v else {
        return Err("not a JSON object".into());
    };
    let string = |k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let categories = match m.get("goal_categories") {
        Some(Value::Object(c)) => c
            .iter()
            .filter(|(_, n)| n.as_u64().is_none_or(|n| n > 0))
            .map(|(k, _)| k.clone())
            .collect(),
        other => strings(other),
    };
    Ok(RawFacet {
        session_id: string("session_id").unwrap_or_else(|| stem.to_string()),
        goal: string("underlying_goal"),
        outcome: string("outcome"),
        summary: string("brief_summary"),
        categories,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_settings_are_never_read_out() {
        let s = parse_settings(
            r#"{"env": {"ANTHROPIC_API_KEY": "sk-ant-xyz"},
                "mcpServers": {
                  "github": {"command": "npx", "args": ["-y", "server", "--token", "ghp_abc", "--api-key=k1"],
                             "env": {"GITHUB_TOKEN": "ghp_def"}},
                  "remote": {"type": "http", "url": "https://me:pw@mcp.example.com/v1?key=abc#x",
                             "headers": {"Authorization": "Bearer zzz"}}},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard --secret s3 run"}]}]},
                "statusLine": {"type": "command", "command": "line API_TOKEN=t0 show"}}"#,
        )
        .unwrap();
        let all = format!("{s:?}");
        for secret in [
            "sk-ant-xyz",
            "ghp_abc",
            "k1",
            "ghp_def",
            "me:pw",
            "key=abc",
            "zzz",
            "s3",
            "t0",
        ] {
            assert!(!all.contains(secret), "{secret} in {all}");
        }
        assert_eq!(s.env_names, ["ANTHROPIC_API_KEY"]);
        assert_eq!(s.mcp[0].target, "npx -y server --token ••• --api-key=•••");
        assert_eq!(s.mcp[0].hidden, ["GITHUB_TOKEN"]);
        assert_eq!(s.mcp[1].target, "https://mcp.example.com/v1");
        assert_eq!(s.mcp[1].transport, "http");
        assert_eq!(s.hooks[0].commands, ["guard --secret ••• run"]);
        assert_eq!(s.status_line.as_deref(), Some("line API_TOKEN=••• show"));
    }

    #[test]
    fn bad_settings_name_the_line() {
        let e = parse_settings("{\n\"model\": \"opus\",\n}").unwrap_err();
        assert!(e.starts_with("line 3"), "{e}");
        assert!(parse_settings("[1]").is_err());
    }

    #[test]
    fn a_facet_reads_its_fields_and_falls_back_to_the_file_name() {
        let f = parse_facet(
            "abc",
            r#"{"underlying_goal": "Ship the release", "outcome": "mostly_achieved",
                "brief_summary": "Fixed CI.", "goal_categories": {"bug_fix": 2, "docs": 0}}"#,
        )
        .unwrap();
        assert_eq!(f.session_id, "abc");
        assert_eq!(f.outcome.as_deref(), Some("mostly_achieved"));
        assert_eq!(f.categories, ["bug_fix"]);
        let g = parse_facet("x", r#"{"session_id": "s1", "goal_categories": ["a"]}"#).unwrap();
        assert_eq!((g.session_id.as_str(), g.categories.len()), ("s1", 1));
    }
}
