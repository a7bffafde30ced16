//! Side by side with another MCP stdio server: the same workload, mapped onto
//! each server's own tool names and arguments by a YAML profile.
//!
//! ```yaml
//! description: what the workload is
//! server: {files: {...}, http: true}     # shared set-up, as in scenarios
//! peer: {env: {...}, args: []}           # extra set-up for the peer only
//! steps:
//!   - name: 100-line output
//!     ours: {call: execute, args: {language: shell, code: "seq 1 100"}}
//!     peer: {call: ctx_execute, args: {language: shell, code: "seq 1 100"}}
//! ```

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::{Client, ServerCommand};
use crate::fixtures::HttpFixture;
use crate::scenario::ServerSetup;
use crate::surface::{self, Surface};
use crate::tokens::Tokens;
use crate::vars::Vars;

/// A comparison profile.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub description: String,
    #[serde(default)]
    pub server: ServerSetup,
    #[serde(default)]
    pub peer: PeerSetup,
    /// The peer's tools that correspond to ours (their metadata is compared
    /// with our six tools; other tools of the peer are listed apart).
    #[serde(default)]
    pub peer_tools: Vec<String>,
    pub steps: Vec<ProfileStep>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerSetup {
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileStep {
    pub name: String,
    pub ours: Call,
    pub peer: Call,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    pub call: String,
    #[serde(default)]
    pub args: Value,
}

/// One side's result for one step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measured {
    pub reply_bytes: usize,
    pub reply_tokens: Tokens,
    pub latency_ms: f64,
    pub is_error: bool,
}

/// One server's whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Side {
    pub command: String,
    pub surface: Surface,
    /// Median over the cold-start runs.
    pub cold_start_ms: f64,
    pub steps: Vec<Measured>,
}

/// Both sides.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comparison {
    pub description: String,
    pub peer_tools: Vec<String>,
    pub step_names: Vec<String>,
    pub ours: Side,
    pub peer: Side,
}

/// Cold starts measured per side (median reported).
const COLD_STARTS: usize = 5;

impl Profile {
    pub fn load(path: &Path) -> anyhow::Result<Profile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        yaml_serde::from_str(&text).with_context(|| format!("{}: invalid profile", path.display()))
    }
}

pub fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Runs the profile on both servers.
pub fn run(
    profile: &Profile,
    ours: &ServerCommand,
    peer: &ServerCommand,
) -> anyhow::Result<Comparison> {
    let http = if profile.server.http {
        Some(HttpFixture::start().context("cannot start the HTTP fixture")?)
    } else {
        None
    };
    let mut peer = peer.clone();
    peer.args.extend(profile.peer.args.iter().cloned());
    peer.env.extend(profile.peer.env.clone());
    let ours_side = run_side(profile, ours, http.as_ref(), |s| &s.ours)?;
    let peer_side = run_side(profile, &peer, http.as_ref(), |s| &s.peer)?;
    Ok(Comparison {
        description: profile.description.clone(),
        peer_tools: profile.peer_tools.clone(),
        step_names: profile.steps.iter().map(|s| s.name.clone()).collect(),
        ours: ours_side,
        peer: peer_side,
    })
}

fn run_side(
    profile: &Profile,
    cmd: &ServerCommand,
    http: Option<&HttpFixture>,
    pick: impl Fn(&ProfileStep) -> &Call,
) -> anyhow::Result<Side> {
    let dir = tempfile::tempdir()?;
    let mut vars = Vars::default();
    vars.set("workdir", dir.path().display().to_string());
    if let Some(http) = http {
        vars.set("http", http.base.clone());
    }
    for (name, content) in &profile.server.files {
        std::fs::write(dir.path().join(name), vars.expand(content)?)?;
    }
    let cmd = cmd.clone().cwd(dir.path());
    let mut cold = Vec::new();
    let mut surface = None;
    for _ in 0..COLD_STARTS {
        let s = surface::measure(&cmd)?;
        cold.push(s.cold_start_ms);
        surface = Some(s);
    }
    let surface = surface.context("no cold start measured")?;
    let mut client = Client::spawn(&cmd)?;
    client.deadline = Duration::from_secs(120);
    client.initialize("2025-06-18")?;
    let mut steps = Vec::new();
    for step in &profile.steps {
        let call = pick(step);
        let args = vars.expand_value(&call.args)?;
        let started = Instant::now();
        let reply = client.call_tool(&call.call, args)?;
        steps.push(Measured {
            reply_bytes: reply.text.len(),
            reply_tokens: Tokens::of(&reply.text),
            latency_ms: started.elapsed().as_secs_f64() * 1000.0,
            is_error: reply.is_error || reply.rpc_error.is_some(),
        });
    }
    Ok(Side {
        command: format!("{} {}", cmd.program.display(), cmd.args.join(" ")),
        surface,
        cold_start_ms: median(cold),
        steps,
    })
}

fn ratio(ours: f64, peer: f64) -> String {
    if ours <= 0.0 {
        return "-".into();
    }
    format!("{:.1}x", peer / ours)
}

/// The side-by-side Markdown table.
pub fn markdown(c: &Comparison) -> String {
    let mut md = String::new();
    let (o, p) = (&c.ours, &c.peer);
    let _ = writeln!(
        md,
        "# QuietContext against {} {}\n",
        p.surface.server_name, p.surface.server_version
    );
    let _ = writeln!(md, "{}\n", c.description);
    let _ = writeln!(
        md,
        "| measure | QuietContext | {} | peer / ours |",
        p.surface.server_name
    );
    let _ = writeln!(md, "|---|---:|---:|---:|");
    let _ = writeln!(
        md,
        "| tools/list bytes | {} | {} | {} |",
        o.surface.tools_list_bytes,
        p.surface.tools_list_bytes,
        ratio(
            o.surface.tools_list_bytes as f64,
            p.surface.tools_list_bytes as f64
        )
    );
    let _ = writeln!(
        md,
        "| tools/list o200k tokens | {} | {} | {} |",
        o.surface.tools_list_tokens.o200k,
        p.surface.tools_list_tokens.o200k,
        ratio(
            o.surface.tools_list_tokens.o200k as f64,
            p.surface.tools_list_tokens.o200k as f64
        )
    );
    if !c.peer_tools.is_empty() {
        let mapped: usize = p
            .surface
            .tools
            .iter()
            .filter(|t| c.peer_tools.contains(&t.name))
            .map(|t| t.tokens.o200k)
            .sum();
        let ours_total: usize = o.surface.tools.iter().map(|t| t.tokens.o200k).sum();
        let _ = writeln!(
            md,
            "| the six equivalent tools, o200k tokens | {ours_total} | {mapped} ({}) | {} |",
            c.peer_tools.join(", "),
            ratio(ours_total as f64, mapped as f64)
        );
    }
    let _ = writeln!(
        md,
        "| instructions o200k tokens | {} | {} | |",
        o.surface.instructions_tokens.o200k, p.surface.instructions_tokens.o200k
    );
    let _ = writeln!(
        md,
        "| cold start, median of {COLD_STARTS} (ms) | {:.1} | {:.1} | {} |",
        o.cold_start_ms,
        p.cold_start_ms,
        ratio(o.cold_start_ms, p.cold_start_ms)
    );
    let _ = writeln!(
        md,
        "\n| step | ours o200k | peer o200k | ours bytes | peer bytes | ours ms | peer ms |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|");
    for (i, name) in c.step_names.iter().enumerate() {
        let (a, b) = (&o.steps[i], &p.steps[i]);
        let err = |m: &Measured| if m.is_error { " (error)" } else { "" };
        let _ = writeln!(
            md,
            "| {name} | {}{} | {}{} | {} | {} | {:.1} | {:.1} |",
            a.reply_tokens.o200k,
            err(a),
            b.reply_tokens.o200k,
            err(b),
            a.reply_bytes,
            b.reply_bytes,
            a.latency_ms,
            b.latency_ms
        );
    }
    let total = |s: &Side| s.steps.iter().map(|m| m.reply_tokens.o200k).sum::<usize>();
    let _ = writeln!(
        md,
        "| **all replies** | {} | {} | | | | |",
        total(o),
        total(p)
    );
    md
}
