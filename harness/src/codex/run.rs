//! One Codex run: a fresh `CODEX_HOME` with the verified config, the mock
//! model, our server behind the recording proxy, `codex exec` with a clean
//! environment and a deadline, and the checks on what came back.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::client::ServerCommand;
use crate::invariants;
use crate::tokens::Tokens;
use crate::vars::Vars;

use super::mock::{self, Behaviour, MockModel, NAMESPACE};
use super::proxy;
use super::script::CodexScript;
use super::{CodexOutput, CodexScenario};

/// Outer limit of one `codex exec`.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// Codex's own truncation, pinned in the config (about 12 KB at 2500).
const TOOL_OUTPUT_TOKEN_LIMIT: u32 = 2500;

/// What a run needs besides its script.
pub struct Setup<'a> {
    pub codex: &'a Path,
    /// This harness binary: it doubles as the recording proxy.
    pub proxy_exe: PathBuf,
    pub server: &'a ServerCommand,
    pub http_base: Option<String>,
    pub behaviour: Behaviour,
}

/// A run's result plus the namespace measurement of its first request.
pub struct Outcome {
    pub scenario: CodexScenario,
    pub namespace: Option<(usize, usize)>,
}

fn toml_string(s: &str) -> String {
    let escaped: String = s
        .chars()
        .flat_map(|c| match c {
            '\\' => vec!['\\', '\\'],
            '"' => vec!['\\', '"'],
            c => vec![c],
        })
        .collect();
    format!("\"{escaped}\"")
}

/// The `config.toml` of an isolated `CODEX_HOME` (see `../shared/CODEX.md`).
pub fn config_toml(port: u16, command: &str, args: &[String]) -> String {
    let args: Vec<String> = args.iter().map(|a| toml_string(a)).collect();
    format!(
        r#"model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "read-only"
tool_output_token_limit = {TOOL_OUTPUT_TOKEN_LIMIT}
project_doc_max_bytes = 0

[analytics]
enabled = false

[features]
plugins = false
unbounded_connection_retries = false

[model_providers.mock]
name = "Mock"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.quietcontext]
command = {}
args = [{}]
required = true
startup_timeout_sec = 20
tool_timeout_sec = 60
default_tools_approval_mode = "approve"
env = {{ }}
"#,
        toml_string(command),
        args.join(", ")
    )
}

#[derive(Deserialize)]
struct FirstRequest<'a> {
    #[serde(borrow, default)]
    tools: Vec<&'a RawValue>,
}

/// Bytes and o200k tokens of our namespace object, exactly as Codex sent it.
pub fn namespace_cost(first_request: &str) -> Option<(usize, usize)> {
    let parsed: FirstRequest<'_> = serde_json::from_str(first_request).ok()?;
    parsed.tools.iter().find_map(|raw| {
        let v: Value = serde_json::from_str(raw.get()).ok()?;
        (v["name"] == NAMESPACE).then(|| (raw.get().len(), Tokens::of(raw.get()).o200k))
    })
}

/// The function calls the model made, in order: (tool, arguments).
fn function_calls(request: &Value) -> Vec<(String, Value)> {
    request["input"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["type"] == "function_call")
                .map(|i| {
                    let args = i["arguments"]
                        .as_str()
                        .and_then(|a| serde_json::from_str(a).ok())
                        .unwrap_or(Value::Null);
                    (i["name"].as_str().unwrap_or("").to_owned(), args)
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn run(script: &CodexScript, setup: &Setup<'_>) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let home = tempfile::Builder::new()
        .prefix("qc-codex-home-")
        .tempdir()?;
    let work = tempfile::Builder::new()
        .prefix("qc-codex-work-")
        .tempdir()?;
    let log = home.path().join("proxy.log");
    let mut vars = Vars::default();
    vars.set("workdir", work.path().display().to_string());
    if let Some(base) = &setup.http_base {
        vars.set("http", base.clone());
    }
    for (name, content) in &script.files {
        std::fs::write(work.path().join(name), vars.expand(content)?)
            .with_context(|| format!("cannot write {name}"))?;
    }
    let model = MockModel::start(script.planned_calls(), vars.clone(), setup.behaviour)?;
    let mut proxy_args: Vec<String> = vec![
        "proxy".into(),
        "--log".into(),
        log.display().to_string(),
        "--".into(),
    ];
    proxy_args.push(setup.server.program.display().to_string());
    proxy_args.extend(setup.server.args.iter().cloned());
    std::fs::write(
        home.path().join("config.toml"),
        config_toml(
            model.port,
            &setup.proxy_exe.display().to_string(),
            &proxy_args,
        ),
    )?;

    let mut child = Command::new(setup.codex)
        .args([
            "exec",
            "--skip-git-repo-check",
            "--ephemeral",
            "--strict-config",
            "--json",
        ])
        .arg(&script.prompt)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("CODEX_HOME", home.path())
        .current_dir(work.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", setup.codex.display()))?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let out_reader = read(stdout.map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let err_reader = read(stderr.map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _events = out_reader.join().unwrap_or_default();
    let stderr_text = err_reader.join().unwrap_or_default();

    let mut failures = Vec::new();
    match status {
        None => failures.push(format!("codex exec did not finish within {RUN_TIMEOUT:?}")),
        Some(s) if !s.success() => failures.push(format!(
            "codex exec exited with {s}: {}",
            tail(&stderr_text, 600)
        )),
        Some(_) => {}
    }
    let requests = model.requests();
    drop(model);
    let expected_requests = script.turns.len() + 1;
    if status.is_some_and(|s| s.success()) && requests.len() != expected_requests {
        failures.push(format!(
            "{} model requests, expected {expected_requests}",
            requests.len()
        ));
    }
    let namespace = requests.first().and_then(|r| namespace_cost(r));
    if !requests.is_empty() && namespace.is_none() {
        failures.push(format!(
            "no {NAMESPACE} namespace among the tools of the first request"
        ));
    }
    let last: Value = requests
        .last()
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or(Value::Null);
    let seen = mock::outputs(&last);
    let calls = function_calls(&last);
    let mut sent = proxy::tool_calls(&std::fs::read_to_string(&log).unwrap_or_default());
    let mut outputs = Vec::new();
    for (i, turn) in script.turns.iter().enumerate() {
        let Some(text) = seen.get(i) else {
            if status.is_some_and(|s| s.success()) {
                failures.push(format!("turn {}: the model never saw an output", i + 1));
            }
            continue;
        };
        let (model_name, args) = calls
            .get(i)
            .cloned()
            .unwrap_or_else(|| (mock::codex_tool_name(&turn.call), Value::Null));
        let tool = turn.call.clone();
        outputs.push(CodexOutput {
            tool: tool.clone(),
            bytes: text.len(),
            tokens: Tokens::of(text).o200k,
        });
        // The call the server received for this model call (Codex renames
        // `exec-file` to `exec_file` for the model; the server sees its own name).
        let received = sent
            .iter()
            .position(|c| mock::codex_tool_name(&c.name) == model_name && c.arguments == args)
            .map(|at| sent.remove(at));
        match received {
            Some(call) if call.text != *text => failures.push(format!(
                "turn {} ({tool}): the model saw {} B, the server sent {} B{}",
                i + 1,
                text.len(),
                call.text.len(),
                if text.contains("tokens truncated") {
                    " (Codex truncated it)"
                } else {
                    ""
                }
            )),
            Some(_) => {}
            None => failures.push(format!(
                "turn {} ({tool}): Codex did not pass the call to the server; the model saw {}",
                i + 1,
                crate::expect::shown(text)
            )),
        }
        if let Err(e) = invariants::within_budget(&tool, &args, text) {
            failures.push(format!("turn {}: {e}", i + 1));
        }
        if let Some(expect) = &turn.expect {
            let reply = text_reply(text);
            let mut expand_vars = vars.clone();
            capture_into(script, &seen[..i], &mut expand_vars);
            for f in expect.check(&reply, &expand_vars)? {
                failures.push(format!("turn {} ({tool}): {f}", i + 1));
            }
        }
    }
    let output_tokens = outputs.iter().map(|o| o.tokens).sum();
    Ok(Outcome {
        scenario: CodexScenario {
            name: script.name.clone(),
            passed: failures.is_empty(),
            model_requests: requests.len(),
            expected_requests,
            outputs,
            output_tokens,
            failures,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        },
        namespace,
    })
}

/// Captures from earlier outputs, for expectations that use `${name}`.
fn capture_into(script: &CodexScript, outputs: &[String], vars: &mut Vars) {
    for (turn, output) in script.turns.iter().zip(outputs) {
        for (name, pattern) in &turn.capture {
            // Patterns were checked when the script was loaded.
            let _ = vars.capture(name, pattern, output);
        }
    }
}

/// A tool reply holding only text (what the model sees).
fn text_reply(text: &str) -> crate::client::ToolReply {
    let value = serde_json::json!({"result": {"content": [{"type": "text", "text": text}]}});
    crate::client::tool_reply(
        crate::client::Frame {
            raw: value.to_string().into_bytes(),
            value,
        },
        Vec::new(),
        Duration::ZERO,
    )
}

fn tail(text: &str, max: usize) -> String {
    let start = text.ceil_char_boundary(text.len().saturating_sub(max));
    text[start..].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_is_the_verified_one_with_quoted_paths() {
        let toml = config_toml(
            4242,
            "/opt/qc \"h\"",
            &["proxy".into(), "--".into(), "/x/quietcontext".into()],
        );
        assert!(toml.contains("base_url = \"http://127.0.0.1:4242/v1\""));
        assert!(toml.contains("command = \"/opt/qc \\\"h\\\"\""));
        assert!(toml.contains("args = [\"proxy\", \"--\", \"/x/quietcontext\"]"));
        assert!(toml.contains("tool_output_token_limit = 2500"));
        assert!(toml.contains("default_tools_approval_mode = \"approve\""));
    }

    #[test]
    fn the_namespace_is_measured_on_its_exact_bytes() {
        let body = r#"{"model":"m","tools":[{"type":"function","name":"shell"},{"type":"namespace","name":"mcp__quietcontext","description":"d","tools":[]}]}"#;
        let (bytes, tokens) = namespace_cost(body).unwrap();
        assert_eq!(
            bytes,
            r#"{"type":"namespace","name":"mcp__quietcontext","description":"d","tools":[]}"#.len()
        );
        assert!(tokens > 0);
        assert_eq!(namespace_cost(r#"{"tools":[]}"#), None);
    }
}
