//! The release gate: a run passes when every scenario passes and no token
//! count regressed against the committed baseline.
//!
//! Rules: any failing step fails; `tools/list` over 4096 bytes fails; any
//! growth of `tools/list` o200k tokens fails; instructions over 256 bytes
//! fail; a scenario whose reply tokens exceed its baseline by more than the
//! tolerance (5 %, at least 8 tokens) fails; with Codex, a failing Codex
//! scenario or growth of the namespace tokens fails. A scenario without a
//! baseline is a warning. `--update-baseline` rewrites the baseline on purpose.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::report::RunReport;
use crate::tokens::Tokens;

pub const TOOLS_LIST_MAX_BYTES: usize = 4096;
pub const INSTRUCTIONS_MAX_BYTES: usize = 256;
/// Allowed growth of a scenario's reply tokens, in percent…
pub const TOLERANCE_PCT: f64 = 5.0;
/// …and at least this many tokens.
pub const TOLERANCE_MIN_TOKENS: usize = 8;

/// The committed numbers a run is compared with.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Baseline {
    pub schema: u32,
    pub tools_list_bytes: usize,
    pub tools_list_tokens: Tokens,
    pub instructions_tokens: Tokens,
    /// Reply tokens per scenario.
    pub scenarios: BTreeMap<String, Tokens>,
    /// Tokens of our namespace object in Codex's first model request.
    #[serde(default)]
    pub codex_namespace_tokens: Option<usize>,
    /// Model-visible tool output tokens per Codex scenario.
    #[serde(default)]
    pub codex_scenarios: BTreeMap<String, usize>,
}

/// The gate's decision.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    pub passed: bool,
    pub violations: Vec<String>,
    pub warnings: Vec<String>,
}

impl Baseline {
    pub fn load(path: &Path) -> anyhow::Result<Option<Baseline>> {
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let baseline = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a valid baseline", path.display()))?;
        Ok(Some(baseline))
    }

    /// The baseline a run establishes.
    pub fn from_run(run: &RunReport) -> Baseline {
        Baseline {
            schema: 1,
            tools_list_bytes: run.surface.tools_list_bytes,
            tools_list_tokens: run.surface.tools_list_tokens,
            instructions_tokens: run.surface.instructions_tokens,
            scenarios: run
                .scenarios
                .iter()
                .map(|s| (s.name.clone(), s.reply_tokens))
                .collect(),
            codex_namespace_tokens: run.codex.as_ref().map(|c| c.namespace_tokens),
            codex_scenarios: run
                .codex
                .as_ref()
                .map(|c| {
                    c.scenarios
                        .iter()
                        .map(|s| (s.name.clone(), s.output_tokens))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
    }
}

fn allowed(base: usize) -> usize {
    let pct = (base as f64 * TOLERANCE_PCT / 100.0).ceil() as usize;
    base + pct.max(TOLERANCE_MIN_TOKENS)
}

/// Judges a run against the baseline (absent: only absolute rules apply).
pub fn judge(run: &RunReport, baseline: Option<&Baseline>, require_codex: bool) -> Verdict {
    let mut v = Verdict::default();
    for s in &run.scenarios {
        if let Some(e) = &s.error {
            v.violations.push(format!("scenario {}: {e}", s.name));
        }
        for step in s.steps.iter().filter(|st| !st.passed) {
            for f in &step.failures {
                v.violations
                    .push(format!("scenario {} step {}: {f}", s.name, step.label));
            }
        }
    }
    let surface = &run.surface;
    if surface.tools_list_bytes > TOOLS_LIST_MAX_BYTES {
        v.violations.push(format!(
            "tools/list is {} B, over the {TOOLS_LIST_MAX_BYTES} B limit",
            surface.tools_list_bytes
        ));
    }
    if surface.instructions_bytes > INSTRUCTIONS_MAX_BYTES {
        v.violations.push(format!(
            "instructions are {} B, over the {INSTRUCTIONS_MAX_BYTES} B limit",
            surface.instructions_bytes
        ));
    }
    match &run.codex {
        Some(codex) => {
            for f in &codex.failures {
                v.violations.push(format!("codex: {f}"));
            }
        }
        None if require_codex => v
            .violations
            .push("codex: the Codex run is required but did not happen".into()),
        None => v.warnings.push("codex: not run".into()),
    }
    let Some(base) = baseline else {
        v.warnings
            .push("no baseline: token regressions were not checked".into());
        v.passed = v.violations.is_empty();
        return v;
    };
    if surface.tools_list_tokens.o200k > base.tools_list_tokens.o200k {
        v.violations.push(format!(
            "tools/list grew from {} to {} o200k tokens",
            base.tools_list_tokens.o200k, surface.tools_list_tokens.o200k
        ));
    }
    for s in &run.scenarios {
        match base.scenarios.get(&s.name) {
            Some(b) if s.reply_tokens.o200k > allowed(b.o200k) => v.violations.push(format!(
                "scenario {}: reply tokens grew from {} to {} (allowed {})",
                s.name,
                b.o200k,
                s.reply_tokens.o200k,
                allowed(b.o200k)
            )),
            Some(_) => {}
            None => v
                .warnings
                .push(format!("scenario {} has no baseline", s.name)),
        }
    }
    if let (Some(codex), Some(base_ns)) = (&run.codex, base.codex_namespace_tokens)
        && codex.namespace_tokens > base_ns
    {
        v.violations.push(format!(
            "codex: namespace grew from {base_ns} to {} o200k tokens",
            codex.namespace_tokens
        ));
    }
    if let Some(codex) = &run.codex {
        for s in &codex.scenarios {
            if let Some(b) = base.codex_scenarios.get(&s.name)
                && s.output_tokens > allowed(*b)
            {
                v.violations.push(format!(
                    "codex scenario {}: output tokens grew from {b} to {} (allowed {})",
                    s.name,
                    s.output_tokens,
                    allowed(*b)
                ));
            }
        }
    }
    v.passed = v.violations.is_empty();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_is_five_percent_or_eight_tokens() {
        assert_eq!(allowed(100), 108);
        assert_eq!(allowed(1000), 1050);
        assert_eq!(allowed(0), 8);
    }
}
