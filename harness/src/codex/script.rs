//! Codex scenarios (`scenarios/codex/*.yaml`): the mock model's turns and
//! what the model must see back.
//!
//! ```yaml
//! description: what the run proves
//! files: {"data.csv": "..."}   # written into the working folder (the server's cwd)
//! http: true                   # the loopback fixture; ${http} is its base URL
//! turns:
//!   - call: search             # the model calls mcp__quietcontext / search
//!     args: {queries: [x]}
//!     expect: {contains: [...]}  # on the output the model saw (text checks only)
//!     capture: {ref: '\[(r:\d{6})\]'}  # feeds ${ref} into later turns
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::Value;

use crate::expect::Expect;

use super::mock::PlannedCall;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodexScript {
    #[serde(skip)]
    pub name: String,
    #[serde(skip)]
    pub file: PathBuf,
    pub description: String,
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    #[serde(default)]
    pub http: bool,
    #[serde(default = "default_prompt")]
    pub prompt: String,
    pub turns: Vec<Turn>,
}

fn default_prompt() -> String {
    "Use the quietcontext tools as instructed, then reply DONE.".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    pub call: String,
    #[serde(default)]
    pub args: Value,
    pub expect: Option<Expect>,
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
}

impl CodexScript {
    pub fn load(path: &Path) -> anyhow::Result<CodexScript> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut script: CodexScript = yaml_serde::from_str(&text)
            .with_context(|| format!("{}: invalid Codex scenario", path.display()))?;
        script.file = path.to_path_buf();
        script.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if script.turns.is_empty() {
            bail!(
                "{}: a Codex scenario needs at least one turn",
                path.display()
            );
        }
        for (i, turn) in script.turns.iter().enumerate() {
            if let Some(e) = &turn.expect {
                if e.error.is_some() || e.rpc_error.is_some() {
                    bail!(
                        "{}: turn {}: the model sees text only; error and rpc_error cannot be checked",
                        path.display(),
                        i + 1
                    );
                }
                e.validate()
                    .with_context(|| format!("{}: turn {}", path.display(), i + 1))?;
            }
            for (name, pattern) in &turn.capture {
                regex::Regex::new(pattern).with_context(|| {
                    format!(
                        "{}: turn {}: capture {name}: bad regex",
                        path.display(),
                        i + 1
                    )
                })?;
            }
        }
        Ok(script)
    }

    pub fn load_dir(dir: &Path) -> anyhow::Result<Vec<CodexScript>> {
        let files = crate::scenario::yaml_files(dir)?;
        if files.is_empty() {
            bail!("no Codex scenarios in {}", dir.display());
        }
        files.iter().map(|f| CodexScript::load(f)).collect()
    }

    pub fn planned_calls(&self) -> Vec<PlannedCall> {
        self.turns
            .iter()
            .map(|t| PlannedCall {
                tool: t.call.clone(),
                args: t.args.clone(),
                capture: t
                    .capture
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            })
            .collect()
    }
}
