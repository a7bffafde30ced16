//! Scenario files: YAML, parsed strictly (unknown fields are errors) into
//! typed steps. Errors name the file and the step.
//!
//! ```yaml
//! description: what this scenario proves (one behaviour)
//! server: {args: [], env: {}, files: {name: content}, http: false}
//! protocol: legacy            # or modern (2026-07-28, no handshake)
//! steps:
//!   - call: search            # a tool call
//!     args: {queries: [x]}
//!     expect: {error: false, contains: [...], not_contains: [...], regex: [...],
//!              max_bytes: 512, equals: "${earlier}", starts_with: .., ends_with: ..}
//!     capture: {ref: '\[(r:\d{6})\]'}   # first group (or whole match) → ${ref}
//!   - request: tools/list     # any method, with optional params
//!     expect_result: {...}    # JSON subset of the result
//!     expect_error: -32601    # or a JSON-RPC error code
//!   - raw: '{bad json'        # a raw line; waits for its answer unless a notification
//!     expect_error: -32700    # (wait: false sends without waiting)
//!   - silence_ms: 500         # no frame may arrive for this long
//!   - restart: true           # a fresh server process, same working directory
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::Value;

use crate::expect::Expect;

/// One scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(skip)]
    pub file: PathBuf,
    #[serde(skip)]
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub server: ServerSetup,
    #[serde(default)]
    pub protocol: Protocol,
    pub steps: Vec<Step>,
}

/// How the server of a scenario starts.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSetup {
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written into the working directory before the server starts.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Start the loopback HTTP fixture; its base URL is `${http}`.
    #[serde(default)]
    pub http: bool,
}

/// Which protocol era the scenario speaks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// `initialize` with 2025-06-18, then requests.
    #[default]
    Legacy,
    /// No handshake; every request carries 2026-07-28 `_meta`.
    Modern,
    /// Nothing sent before the steps (they do their own lifecycle).
    None,
}

/// One step as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub name: Option<String>,
    pub call: Option<String>,
    pub args: Option<Value>,
    pub request: Option<String>,
    pub params: Option<Value>,
    pub raw: Option<String>,
    /// For `raw`: `false` sends without waiting for an answer.
    pub wait: Option<bool>,
    pub restart: Option<bool>,
    pub silence_ms: Option<u64>,
    pub expect: Option<Expect>,
    pub expect_error: Option<i64>,
    pub expect_result: Option<Value>,
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
}

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Call,
    Request,
    Raw,
    Restart,
    Silence,
}

impl StepKind {
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Call => "call",
            StepKind::Request => "request",
            StepKind::Raw => "raw",
            StepKind::Restart => "restart",
            StepKind::Silence => "silence",
        }
    }
}

impl Step {
    /// The kind, checking that exactly one is given and that the
    /// expectations fit it.
    pub fn kind(&self) -> anyhow::Result<StepKind> {
        let kinds: Vec<StepKind> = [
            (self.call.is_some(), StepKind::Call),
            (self.request.is_some(), StepKind::Request),
            (self.raw.is_some(), StepKind::Raw),
            (self.restart == Some(true), StepKind::Restart),
            (self.silence_ms.is_some(), StepKind::Silence),
        ]
        .into_iter()
        .filter_map(|(present, kind)| present.then_some(kind))
        .collect();
        let kind = match kinds.as_slice() {
            [kind] => *kind,
            [] => bail!("a step needs one of call, request, raw, restart, silence_ms"),
            many => bail!(
                "a step may have only one of call, request, raw, restart, silence_ms; got {}",
                many.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
            ),
        };
        if self.expect.is_some() && kind != StepKind::Call {
            bail!("expect applies to call steps; use expect_error / expect_result");
        }
        if (self.expect_error.is_some() || self.expect_result.is_some())
            && !matches!(kind, StepKind::Request | StepKind::Raw)
        {
            bail!("expect_error / expect_result apply to request and raw steps");
        }
        if self.args.is_some() && kind != StepKind::Call {
            bail!("args applies to call steps (use params for requests)");
        }
        if self.params.is_some() && kind != StepKind::Request {
            bail!("params applies to request steps");
        }
        if self.wait.is_some() && kind != StepKind::Raw {
            bail!("wait applies to raw steps");
        }
        if self.wait == Some(false) && (self.expect_error.is_some() || self.expect_result.is_some())
        {
            bail!("a raw step with wait: false cannot expect an answer");
        }
        Ok(kind)
    }

    /// A label for reports: the step's name, or its kind and target.
    pub fn label(&self, index: usize) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let target = self
            .call
            .as_deref()
            .or(self.request.as_deref())
            .map(|t| format!(" {t}"))
            .unwrap_or_default();
        let kind = self.kind().map(StepKind::name).unwrap_or("step");
        format!("{}: {kind}{target}", index + 1)
    }
}

impl Scenario {
    /// Parses one file; errors name the file and, for step problems, the step.
    pub fn load(path: &Path) -> anyhow::Result<Scenario> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Scenario> {
        let mut scenario: Scenario = yaml_serde::from_str(text)
            .with_context(|| format!("{}: invalid scenario", path.display()))?;
        scenario.file = path.to_path_buf();
        scenario.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if scenario.steps.is_empty() {
            bail!("{}: a scenario needs at least one step", path.display());
        }
        for (i, step) in scenario.steps.iter().enumerate() {
            step.kind()
                .with_context(|| format!("{}: step {}", path.display(), i + 1))?;
            for (var, pattern) in &step.capture {
                regex::Regex::new(pattern).with_context(|| {
                    format!(
                        "{}: step {}: capture {var}: bad regex",
                        path.display(),
                        i + 1
                    )
                })?;
            }
            if let Some(expect) = &step.expect {
                expect
                    .validate()
                    .with_context(|| format!("{}: step {}", path.display(), i + 1))?;
            }
        }
        Ok(scenario)
    }

    /// Every scenario file of a folder (see [`yaml_files`]).
    pub fn load_dir(dir: &Path) -> anyhow::Result<Vec<Scenario>> {
        yaml_files(dir)?.iter().map(|f| Scenario::load(f)).collect()
    }
}

/// Every `*.yaml` / `*.yml` file of a folder (not recursive), sorted by name.
pub fn yaml_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> anyhow::Result<Scenario> {
        Scenario::parse(text, Path::new("scenarios/x.yaml"))
    }

    #[test]
    fn a_full_scenario_parses() {
        let s = parse(
            r#"
description: proves something
server: {args: ["--strict-fetch"], env: {A: b}, files: {"a.txt": "hi"}, http: true}
steps:
  - call: search
    args: {queries: ["x"], limit: 3}
    expect: {error: false, contains: ["q: x"], max_bytes: 100}
    capture: {ref: '\[(r:\d{6})\]'}
  - raw: "{bad"
    expect_error: -32700
  - request: tools/list
    expect_result: {tools: []}
  - silence_ms: 10
  - restart: true
"#,
        )
        .unwrap();
        assert_eq!(s.name, "x");
        assert_eq!(s.steps.len(), 5);
        assert_eq!(s.steps[0].kind().unwrap(), StepKind::Call);
        assert_eq!(s.steps[0].args.as_ref().unwrap()["limit"], 3);
        assert!(s.server.http);
        assert_eq!(s.protocol, Protocol::Legacy);
    }

    #[test]
    fn unknown_fields_are_errors_that_name_the_file() {
        let err = parse("description: d\nstepz: []\n").unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains("scenarios/x.yaml"), "{text}");
        assert!(text.contains("unknown field `stepz`"), "{text}");
        let err = parse("description: d\nsteps:\n  - call: x\n    expct: {}\n").unwrap_err();
        assert!(format!("{err:#}").contains("unknown field `expct`"));
    }

    #[test]
    fn step_errors_name_the_step() {
        let err =
            parse("description: d\nsteps:\n  - call: x\n  - call: y\n    raw: z\n").unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains("step 2"), "{text}");
        assert!(text.contains("only one of"), "{text}");
        let err =
            parse("description: d\nsteps:\n  - raw: x\n    expect: {error: true}\n").unwrap_err();
        assert!(format!("{err:#}").contains("expect applies to call steps"));
        let err =
            parse("description: d\nsteps:\n  - call: x\n    capture: {a: '('}\n").unwrap_err();
        assert!(format!("{err:#}").contains("capture a: bad regex"));
    }
}
