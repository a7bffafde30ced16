//! Replaying scenarios against a spawned server: one fresh server and working
//! directory per scenario, every step measured (bytes and tokens of the
//! request arguments and of the reply text) and checked (its expectations,
//! then the contract invariants for QuietContext tools).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::client::{Client, Frame, ServerCommand, ToolReply, modern_meta};
use crate::expect::{Failure, json_subset, shown};
use crate::fixtures::HttpFixture;
use crate::invariants;
use crate::scenario::{Protocol, Scenario, Step, StepKind};
use crate::surface::raw_result;
use crate::tokens::Tokens;
use crate::vars::Vars;

/// What one step did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepResult {
    pub label: String,
    pub kind: String,
    pub tool: Option<String>,
    pub passed: bool,
    pub failures: Vec<Failure>,
    pub request_bytes: usize,
    pub request_tokens: Tokens,
    pub reply_bytes: usize,
    pub reply_tokens: Tokens,
    pub elapsed_ms: f64,
}

/// What one scenario did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScenarioResult {
    pub name: String,
    pub file: String,
    pub description: String,
    pub passed: bool,
    /// A problem outside the steps (setup, a dead server).
    pub error: Option<String>,
    pub steps: Vec<StepResult>,
    pub request_tokens: Tokens,
    pub reply_tokens: Tokens,
    pub reply_bytes: usize,
    pub elapsed_ms: f64,
}

/// Runs scenarios against one server command.
pub struct Replayer {
    server: ServerCommand,
    /// Check QuietContext invariants after every tool call.
    pub ours: bool,
    /// Print each step as it runs.
    pub verbose: bool,
    http: Option<HttpFixture>,
}

impl Replayer {
    pub fn new(server: ServerCommand) -> Self {
        Self {
            server,
            ours: true,
            verbose: std::io::stdout().is_terminal(),
            http: None,
        }
    }

    /// Runs one scenario; never panics on a misbehaving server.
    pub fn run(&mut self, scenario: &Scenario) -> ScenarioResult {
        let started = Instant::now();
        let mut steps = Vec::new();
        let error = self
            .run_steps(scenario, &mut steps)
            .err()
            .map(|e| format!("{e:#}"));
        let passed = error.is_none() && steps.iter().all(|s| s.passed);
        ScenarioResult {
            name: scenario.name.clone(),
            file: scenario.file.display().to_string(),
            description: scenario.description.clone(),
            passed,
            error,
            request_tokens: steps.iter().map(|s| s.request_tokens).sum(),
            reply_tokens: steps.iter().map(|s| s.reply_tokens).sum(),
            reply_bytes: steps.iter().map(|s| s.reply_bytes).sum(),
            steps,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        }
    }

    fn run_steps(
        &mut self,
        scenario: &Scenario,
        results: &mut Vec<StepResult>,
    ) -> anyhow::Result<()> {
        let dir = tempfile::tempdir().context("cannot create a working directory")?;
        let mut vars = Vars::default();
        vars.set("workdir", dir.path().display().to_string());
        if scenario.server.http {
            if self.http.is_none() {
                self.http = Some(HttpFixture::start().context("cannot start the HTTP fixture")?);
            }
            if let Some(http) = &self.http {
                vars.set("http", http.base.clone());
            }
        }
        for (name, content) in &scenario.server.files {
            let path = dir.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, vars.expand(content)?)
                .with_context(|| format!("cannot write fixture file {name}"))?;
        }
        let mut cmd = self.server.clone().cwd(dir.path());
        cmd.args.extend(scenario.server.args.iter().cloned());
        for (k, v) in &scenario.server.env {
            cmd = cmd.env(k.clone(), vars.expand(v)?);
        }
        let mut client = start(&cmd, scenario.protocol)?;
        if self.verbose {
            println!("▶ {} — {}", scenario.name, scenario.description);
        }
        for (index, step) in scenario.steps.iter().enumerate() {
            let label = step.label(index);
            let kind = step.kind()?;
            if kind == StepKind::Restart {
                drop(client);
                client = start(&cmd, scenario.protocol)?;
                results.push(StepResult::new(label, kind, None));
                continue;
            }
            let started = Instant::now();
            let mut result = StepResult::new(label, kind, step.call.clone());
            let outcome = self.step(&mut client, step, kind, &mut vars, &mut result);
            result.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
            if let Err(e) = outcome {
                result
                    .failures
                    .push(Failure::new("step", "to complete", format!("{e:#}")));
            }
            result.passed = result.failures.is_empty();
            if self.verbose {
                print_step(&result);
            }
            let broken = result.failures.iter().any(|f| f.check == "step");
            results.push(result);
            if broken {
                // The server is gone or hung: later steps cannot mean anything.
                break;
            }
        }
        Ok(())
    }

    fn step(
        &mut self,
        client: &mut Client,
        step: &Step,
        kind: StepKind,
        vars: &mut Vars,
        result: &mut StepResult,
    ) -> anyhow::Result<()> {
        match kind {
            StepKind::Call => {
                let tool = step.call.clone().unwrap_or_default();
                let args = vars.expand_value(step.args.as_ref().unwrap_or(&json!({})))?;
                let args_text = args.to_string();
                result.request_bytes = args_text.len();
                result.request_tokens = Tokens::of(&args_text);
                let reply = client.call_tool(&tool, args.clone())?;
                result.reply_bytes = reply.text.len();
                result.reply_tokens = Tokens::of(&reply.text);
                let expect = step.expect.clone().unwrap_or_default();
                let mut failures = expect.check(&reply, vars)?;
                if step.expect.is_none() && (reply.is_error || reply.rpc_error.is_some()) {
                    failures.push(Failure::new(
                        "success",
                        "a successful call (no expect given)",
                        shown(&reply.text),
                    ));
                }
                if self.ours {
                    failures.extend(check_invariants(&tool, &args, &reply));
                }
                capture(step, &reply.text, vars, &mut failures);
                result.failures = failures;
            }
            StepKind::Request => {
                let method = step.request.clone().unwrap_or_default();
                let params = match &step.params {
                    Some(p) => Some(vars.expand_value(p)?),
                    None => None,
                };
                let sent = params.as_ref().map(Value::to_string).unwrap_or_default();
                result.request_bytes = sent.len();
                result.request_tokens = Tokens::of(&sent);
                let (frame, _) = client.request(&method, params)?;
                result.failures = check_frame(step, &frame, vars, result)?;
            }
            StepKind::Raw => {
                let line = vars.expand(step.raw.as_deref().unwrap_or_default())?;
                result.request_bytes = line.len();
                result.request_tokens = Tokens::of(&line);
                client.send_raw(line.as_bytes())?;
                if step.wait == Some(false) {
                    return Ok(());
                }
                let parsed: Option<Value> = serde_json::from_str(&line).ok();
                let id = parsed.as_ref().and_then(|v| v.get("id")).cloned();
                let notification = parsed
                    .as_ref()
                    .is_some_and(|v| v.get("method").is_some() && v.get("id").is_none());
                if notification && step.expect_error.is_none() && step.expect_result.is_none() {
                    return Ok(());
                }
                let frame =
                    match id.filter(|id| !id.is_null() && (id.is_string() || id.is_number())) {
                        Some(id) => client.wait_for(&id)?.0,
                        None => client.recv(client.deadline)?,
                    };
                result.failures = check_frame(step, &frame, vars, result)?;
            }
            StepKind::Silence => {
                let ms = step.silence_ms.unwrap_or(0);
                if let Some(frame) = client.recv_quiet(Duration::from_millis(ms))? {
                    result.failures.push(Failure::new(
                        "silence",
                        format!("no frame for {ms} ms"),
                        shown(&String::from_utf8_lossy(&frame.raw)),
                    ));
                }
            }
            StepKind::Restart => {}
        }
        Ok(())
    }
}

impl StepResult {
    fn new(label: String, kind: StepKind, tool: Option<String>) -> Self {
        Self {
            label,
            kind: kind.name().to_owned(),
            tool,
            passed: true,
            failures: Vec::new(),
            request_bytes: 0,
            request_tokens: Tokens::default(),
            reply_bytes: 0,
            reply_tokens: Tokens::default(),
            elapsed_ms: 0.0,
        }
    }
}

fn start(cmd: &ServerCommand, protocol: Protocol) -> anyhow::Result<Client> {
    let mut client = Client::spawn(cmd)?;
    client.deadline = Duration::from_secs(60);
    match protocol {
        Protocol::Legacy => {
            let frame = client.initialize("2025-06-18")?;
            if frame.result().is_none() {
                anyhow::bail!("initialize failed: {}", frame.value);
            }
        }
        Protocol::Modern => client.meta = Some(modern_meta()),
        Protocol::None => {}
    }
    Ok(client)
}

/// The contract invariants every QuietContext tool reply must keep.
pub fn check_invariants(tool: &str, args: &Value, reply: &ToolReply) -> Vec<Failure> {
    let mut failures = Vec::new();
    if quietcontext::tools::spec(tool).is_none() || reply.rpc_error.is_some() {
        return failures;
    }
    if let Err(e) = invariants::within_budget(tool, args, &reply.text) {
        failures.push(Failure::new(
            "invariant within_budget",
            "reply within its budget",
            e,
        ));
    }
    if let Some(result) = reply.frame.result()
        && let Err(e) = invariants::single_text_block(result)
    {
        failures.push(Failure::new(
            "invariant single_text_block",
            "one text block",
            e,
        ));
    }
    if tool == "search" || tool == "batch" {
        if let Err(e) = invariants::refs_listed_once(&reply.text) {
            failures.push(Failure::new(
                "invariant refs_listed_once",
                "each ref listed once",
                e,
            ));
        }
        if let Err(e) = invariants::previews_bounded(&reply.text) {
            failures.push(Failure::new(
                "invariant previews_bounded",
                "previews <= 600 chars",
                e,
            ));
        }
    }
    failures
}

/// Checks a request or raw step's response frame and captures from it.
fn check_frame(
    step: &Step,
    frame: &Frame,
    vars: &mut Vars,
    result: &mut StepResult,
) -> anyhow::Result<Vec<Failure>> {
    let mut failures = Vec::new();
    let body =
        raw_result(frame).unwrap_or_else(|_| String::from_utf8_lossy(&frame.raw).into_owned());
    result.reply_bytes = body.len();
    result.reply_tokens = Tokens::of(&body);
    match (step.expect_error, frame.error_code()) {
        (Some(want), Some(got)) if want != got => {
            failures.push(Failure::new(
                "expect_error",
                want.to_string(),
                shown(&String::from_utf8_lossy(&frame.raw)),
            ));
        }
        (Some(want), None) => {
            failures.push(Failure::new(
                "expect_error",
                want.to_string(),
                shown(&String::from_utf8_lossy(&frame.raw)),
            ));
        }
        (None, Some(_)) => {
            failures.push(Failure::new(
                "result",
                "a result",
                shown(&String::from_utf8_lossy(&frame.raw)),
            ));
        }
        _ => {}
    }
    if let Some(expected) = &step.expect_result {
        let expected = vars.expand_value(expected)?;
        let got = frame.result().cloned().unwrap_or(Value::Null);
        if !json_subset(&expected, &got) {
            failures.push(Failure::new(
                "expect_result",
                shown(&expected.to_string()),
                shown(&got.to_string()),
            ));
        }
    }
    capture(step, &body, vars, &mut failures);
    Ok(failures)
}

fn capture(step: &Step, text: &str, vars: &mut Vars, failures: &mut Vec<Failure>) {
    for (name, pattern) in &step.capture {
        match vars.capture(name, pattern, text) {
            Ok(true) => {}
            // Patterns were checked when the scenario was loaded.
            Err(_) => {}
            Ok(false) => failures.push(Failure::new(
                format!("capture {name}"),
                format!("a match of /{pattern}/"),
                shown(text),
            )),
        }
    }
}

fn print_step(step: &StepResult) {
    let mark = if step.passed { "✓" } else { "✗" };
    println!(
        "  {mark} {:<44} {:>6} B {:>6} tok",
        step.label, step.reply_bytes, step.reply_tokens.o200k
    );
    for f in &step.failures {
        println!(
            "      {}: expected {}\n        got {}",
            f.check, f.expected, f.got
        );
    }
}
