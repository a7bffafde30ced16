//! `batch`: run shell commands in order, index each output under its label,
//! then search this batch's outputs. The reply is one status line per command
//! and the search results, within the budget, and never more bytes than the
//! raw output plus the status lines: small outputs are shown as they are.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::budget::{ByteBudget, Reply};
use crate::context::{Context, Progress};
use crate::error::{ArgError, ToolError};
use crate::runner::{Ending, Input, Job, Language};
use crate::store::Scope;

use super::args::Args;
use super::program::index_stream;
use super::search::search_queries;
use super::{BATCH_CAP, Outcome, blocking};

const MAX_COMMANDS: usize = 50;
const MAX_QUERIES: usize = 20;
/// Results per query.
const QUERY_LIMIT: usize = 5;
/// Default time for the whole batch.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

#[derive(Debug)]
pub struct BatchArgs {
    commands: Vec<Command>,
    queries: Vec<String>,
    timeout: Duration,
    pub budget: ByteBudget,
}

#[derive(Debug)]
struct Command {
    label: String,
    command: String,
}

impl BatchArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        let commands = args
            .object_list(
                "commands",
                |path, item| {
                    let label = item.non_empty_str("label")?.ok_or_else(|| {
                        ArgError::new(format!("{path}.label"), "missing required string")
                    })?;
                    let command = item.non_empty_str("command")?.ok_or_else(|| {
                        ArgError::new(format!("{path}.command"), "missing required string")
                    })?;
                    Ok(Command {
                        label: label.trim().to_owned(),
                        command: command.to_owned(),
                    })
                },
                &["label", "command"],
            )?
            .ok_or_else(|| ArgError::new("commands", "missing required array"))?;
        if commands.is_empty() || commands.len() > MAX_COMMANDS {
            return Err(ArgError::new(
                "commands",
                format!(
                    "must hold 1..={MAX_COMMANDS} commands, got {}",
                    commands.len()
                ),
            ));
        }
        let mut labels = HashSet::new();
        for (i, c) in commands.iter().enumerate() {
            if !labels.insert(c.label.as_str()) {
                return Err(ArgError::new(
                    format!("commands[{i}].label"),
                    format!("duplicate label {:?}", c.label),
                ));
            }
        }
        let queries = args.str_list("queries")?.unwrap_or_default();
        if queries.len() > MAX_QUERIES {
            return Err(ArgError::new(
                "queries",
                format!("at most {MAX_QUERIES} queries, got {}", queries.len()),
            ));
        }
        let timeout_ms = args
            .int_in("timeout_ms", 100..=600_000)?
            .unwrap_or(DEFAULT_TIMEOUT_MS);
        Ok(Self {
            commands,
            queries,
            timeout: Duration::from_millis(timeout_ms),
            budget: args.max_bytes(BATCH_CAP)?,
        })
    }
}

/// What happened to one command.
struct Ran {
    status: String,
    /// stdout then stderr, when held in memory.
    text: Option<String>,
    bytes: u64,
}

pub async fn run(ctx: &Context, args: BatchArgs, progress: Progress) -> Result<Outcome, ToolError> {
    ctx.runner
        .check(Language::Shell)
        .map_err(|e| ToolError::failed(e.to_string()))?;
    let deadline = Instant::now() + args.timeout;
    let total = args.commands.len() as u64;
    let mut ran: Vec<Ran> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for (i, cmd) in args.commands.iter().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let finished = ctx
            .runner
            .run(Job {
                language: Language::Shell,
                code: &cmd.command,
                input: Input::Null,
                env: Vec::new(),
                timeout: left,
            })
            .await
            .map_err(|e| ToolError::failed(format!("{}: {e}", cmd.label)))?;
        let bytes = finished.stdout.bytes() + finished.stderr.bytes();
        let lines = finished.stdout.lines() + finished.stderr.lines();
        let mut status = format!(
            "$ {}: {}, {bytes} B, {lines} lines",
            cmd.label,
            ending_words(finished.ending)
        );
        if !finished.stderr.is_empty() {
            status.push_str(&format!(" (stderr {} B)", finished.stderr.bytes()));
        }
        let text = match (finished.stdout.text(), finished.stderr.text()) {
            (Some(out), Some(err)) => Some(out + &err),
            _ => None,
        };
        let (mut stdout, mut stderr) = (finished.stdout, finished.stderr);
        let store = ctx.store.clone();
        let label = cmd.label.clone();
        blocking(move || {
            store.index(&label, "output", |sink| {
                index_stream(&mut stdout, "stdout", sink)?;
                index_stream(&mut stderr, "stderr", sink)
            })?;
            Ok(())
        })
        .await?;
        progress.report(i as u64 + 1, total, &status).await;
        labels.push(cmd.label.clone());
        let timed_out = matches!(finished.ending, Ending::TimedOut(_));
        ran.push(Ran {
            status,
            text,
            bytes,
        });
        if timed_out {
            break;
        }
    }

    let mut status_lines: Vec<String> = ran.iter().map(|r| r.status.clone()).collect();
    let skipped: Vec<&str> = args.commands[ran.len()..]
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    if !skipped.is_empty() {
        status_lines.push(format!(
            "batch timed out after {} ms; skipped: {}",
            args.timeout.as_millis(),
            skipped.join(", ")
        ));
    }
    let status_bytes: usize = status_lines.iter().map(|l| l.len() + 2).sum();
    let raw_bytes: u64 = ran.iter().map(|r| r.bytes).sum();

    // Small enough to show as is: that is both cheapest and most useful.
    if let Some(inline) = inline(&ran, &status_lines)
        && inline.len() as u64 <= (status_bytes as u64 + raw_bytes).min(args.budget.bytes() as u64)
    {
        let mut reply = Reply::new();
        reply.text(inline);
        return Ok(Outcome::ok(reply));
    }

    let mut reply = Reply::new();
    for line in &status_lines {
        reply.line(line.clone());
    }
    if args.queries.is_empty() {
        reply.line("outputs indexed under their labels: search with queries and source");
    } else {
        let store = ctx.store.clone();
        let queries = args.queries.clone();
        let results = blocking(move || {
            search_queries(&store, &queries, Scope::Sources(&labels), QUERY_LIMIT, true)
        })
        .await?;
        reply.append(results);
    }
    Ok(Outcome::ok(reply))
}

fn ending_words(ending: Ending) -> String {
    match ending {
        Ending::Exited(code) => format!("exit {code}"),
        Ending::Signaled(sig) => format!("killed by signal {sig}"),
        Ending::TimedOut(after) => format!("timed out after {} ms", after.as_millis()),
        Ending::CaptureLimit(limit) => format!("stopped at the {limit}-byte capture limit"),
    }
}

/// Each status line followed by its command's raw output.
fn inline(ran: &[Ran], status_lines: &[String]) -> Option<String> {
    let mut out = String::new();
    for (i, line) in status_lines.iter().enumerate() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        if let Some(r) = ran.get(i) {
            out.push_str(r.text.as_deref()?);
        }
    }
    Some(out)
}
