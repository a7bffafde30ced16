//! Real Codex in the gate (see `../shared/CODEX.md`): the pinned CLI runs
//! against the current server build and a mock model on loopback.

use serde::{Deserialize, Serialize};

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

/// Runs every Codex scenario (not built yet).
pub fn run_all(
    _args: &crate::cli::CodexArgs,
    _server: &crate::client::ServerCommand,
) -> anyhow::Result<CodexReport> {
    anyhow::bail!("the Codex run is not built yet")
}
