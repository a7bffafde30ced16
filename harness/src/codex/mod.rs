//! Real Codex in the gate (see `../shared/CODEX.md`): the pinned CLI runs
//! against the current server build and a mock model on loopback.
//!
//! - [`install`]: the pinned `@openai/codex` from npm, cached under `target/`.
//! - [`mock`]: the Responses API mock (SSE) and its turn logic.
//! - [`script`]: Codex scenarios (`scenarios/codex/*.yaml`).
//! - [`proxy`]: the stdio recorder between Codex and our server.
//! - [`run`]: one isolated run and its checks.

pub mod install;
pub mod mock;
pub mod proxy;
pub mod run;
pub mod script;

use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::cli::CodexArgs;
use crate::client::ServerCommand;
use crate::fixtures::HttpFixture;
/// One tool output as the model saw it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CodexOutput {
    pub tool: String,
    pub bytes: usize,
    pub tokens: usize,
}

/// One Codex scenario.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CodexScenario {
    pub name: String,
    pub passed: bool,
    pub model_requests: usize,
    pub expected_requests: usize,
    pub outputs: Vec<CodexOutput>,
    /// Tokens of every tool output the model saw, summed.
    pub output_tokens: usize,
    pub failures: Vec<String>,
    pub elapsed_ms: f64,
}

/// The Codex part of a gate run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CodexReport {
    pub version: String,
    /// Our `mcp__quietcontext` namespace object in the first model request.
    pub namespace_bytes: usize,
    pub namespace_tokens: usize,
    pub scenarios: Vec<CodexScenario>,
    /// Every failure, prefixed by its scenario.
    pub failures: Vec<String>,
    pub elapsed_ms: f64,
}

/// Runs every Codex scenario of `args.codex_scenarios` against `server`.
pub fn run_all(args: &CodexArgs, server: &ServerCommand) -> anyhow::Result<CodexReport> {
    let started = Instant::now();
    let behaviour = if args.mock_fail {
        mock::Behaviour::Fail500
    } else {
        mock::Behaviour::Script
    };
    let scripts = script::CodexScript::load_dir(&args.codex_scenarios)?;
    let cache = args
        .codex_cache
        .clone()
        .unwrap_or_else(install::default_cache);
    let codex = install::ensure(&cache)?;
    let version = std::process::Command::new(&codex)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let http = if scripts.iter().any(|s| s.http) {
        Some(HttpFixture::start().context("cannot start the HTTP fixture")?)
    } else {
        None
    };
    let setup = run::Setup {
        codex: &codex,
        proxy_exe: std::env::current_exe().context("cannot locate qc-harness itself")?,
        server,
        http_base: http.as_ref().map(|h| h.base.clone()),
        behaviour,
    };
    let mut report = CodexReport {
        version,
        namespace_bytes: 0,
        namespace_tokens: 0,
        scenarios: Vec::new(),
        failures: Vec::new(),
        elapsed_ms: 0.0,
    };
    for script in &scripts {
        let outcome = run::run(script, &setup)?;
        if let Some((bytes, tokens)) = outcome.namespace {
            report.namespace_bytes = report.namespace_bytes.max(bytes);
            report.namespace_tokens = report.namespace_tokens.max(tokens);
        }
        for f in &outcome.scenario.failures {
            report.failures.push(format!("{}: {f}", script.name));
        }
        report.scenarios.push(outcome.scenario);
    }
    report.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(report)
}
