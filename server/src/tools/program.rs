//! What `execute` and `exec-file` share: reading `language` / `code` /
//! `script_ref` / `timeout_ms` / `max_bytes`, resolving the script cache
//! (failing closed before anything runs), and presenting a finished run,
//! inline when it fits the budget, otherwise indexed in full first.

use std::time::Duration;

use crate::budget::{ByteBudget, Keep, Reply};
use crate::context::Context;
use crate::error::{ArgError, ToolError};
use crate::runner::{Capture, Finished, Input, Job, Language};
use crate::store::StoreError;
use crate::store::chunk::{Emit, LineWindows};

use super::args::Args;
use super::{EXEC_CAP, Outcome, blocking};

/// Default and range of `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
pub const MIN_TIMEOUT_MS: u64 = 100;
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// References to error-looking chunks listed for a failed run.
const ERROR_REFS: usize = 3;

/// The program part of a call, validated.
#[derive(Debug)]
pub struct ProgramArgs {
    program: Program,
    timeout: Duration,
    pub budget: ByteBudget,
}

#[derive(Debug)]
enum Program {
    Inline {
        language: Language,
        code: String,
    },
    Cached {
        reference: String,
        language: Option<Language>,
    },
}

impl ProgramArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        let code = args.str("code")?;
        let reference = args.non_empty_str("script_ref")?;
        let language = match args.non_empty_str("language")? {
            None => None,
            Some(name) => Some(Language::parse(name).ok_or_else(|| {
                ArgError::new(
                    "language",
                    format!(
                        "unknown language {name:?}; use one of {}",
                        Language::names()
                    ),
                )
            })?),
        };
        let program = match (code, reference) {
            (Some(_), Some(_)) => {
                return Err(ArgError::new(
                    "script_ref",
                    "send either code or script_ref, not both",
                ));
            }
            (Some(code), None) => Program::Inline {
                language: language
                    .ok_or_else(|| ArgError::new("language", "required with code"))?,
                code: code.to_owned(),
            },
            (None, Some(reference)) => Program::Cached {
                reference: reference.to_owned(),
                language,
            },
            (None, None) => {
                return Err(ArgError::new(
                    "code",
                    "send language and code, or a script_ref",
                ));
            }
        };
        let timeout_ms = args
            .int_in("timeout_ms", MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS)?
            .unwrap_or(DEFAULT_TIMEOUT_MS);
        Ok(Self {
            program,
            timeout: Duration::from_millis(timeout_ms),
            budget: args.max_bytes(EXEC_CAP)?,
        })
    }
}

/// A program ready to run: the cache resolved, the runtime checked.
pub struct Resolved {
    pub language: Language,
    pub code: String,
    timeout: Duration,
    budget: ByteBudget,
    /// Set when this call put the program in the cache.
    new_ref: Option<String>,
}

/// Step one: look up `script_ref` (unknown or mismatched: error, nothing ran).
/// Call [`Resolved::commit`] once every other check has passed.
pub fn resolve(ctx: &Context, args: ProgramArgs) -> Result<Resolved, ToolError> {
    let (language, code) = match args.program {
        Program::Inline { language, code } => (language, code),
        Program::Cached {
            reference,
            language,
        } => {
            let scripts = crate::store::lock(&ctx.scripts);
            let script = scripts.get(&reference).ok_or_else(|| {
                ArgError::new(
                    "script_ref",
                    format!(
                        "unknown {reference:?} (cached scripts last only while this server runs; send language and code)"
                    ),
                )
            })?;
            if let Some(language) = language.filter(|l| *l != script.language) {
                return Err(ArgError::new(
                    "language",
                    format!(
                        "{} does not match {reference}, a {} script; omit language",
                        language.name(),
                        script.language.name()
                    ),
                )
                .into());
            }
            (script.language, script.code.clone())
        }
    };
    ctx.runner
        .check(language)
        .map_err(|e| ToolError::failed(e.to_string()))?;
    Ok(Resolved {
        language,
        code,
        timeout: args.timeout,
        budget: args.budget,
        new_ref: None,
    })
}

impl Resolved {
    /// Step two: cache the program (when long enough and new).
    pub fn commit(mut self, ctx: &Context) -> Self {
        self.new_ref = crate::store::lock(&ctx.scripts).insert(self.language, &self.code);
        self
    }

    /// Runs the program and presents what it printed.
    pub async fn run(
        self,
        ctx: &Context,
        input: Input,
        env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    ) -> Result<Outcome, ToolError> {
        let finished = ctx
            .runner
            .run(Job {
                language: self.language,
                code: &self.code,
                input,
                env,
                timeout: self.timeout,
            })
            .await
            .map_err(|e| ToolError::failed(e.to_string()))?;
        present(ctx, finished, self.budget, self.new_ref).await
    }
}

/// The reply for a finished run.
pub async fn present(
    ctx: &Context,
    finished: Finished,
    budget: ByteBudget,
    new_ref: Option<String>,
) -> Result<Outcome, ToolError> {
    let status = finished.ending.describe();
    let notes = notes(&finished);
    if let Some(text) = inline(&finished, status.as_deref(), &notes, new_ref.as_deref())
        && text.len() <= budget.bytes()
    {
        let mut reply = Reply::new();
        reply.text(text);
        return Ok(Outcome::ok(reply));
    }
    let store = ctx.store.clone();
    let failed = !finished.ending.success();
    let Finished {
        mut stdout,
        mut stderr,
        ..
    } = finished;
    let (label, chunks, errors, stdout, stderr) = blocking(move || {
        let label = store.unique_label("exec-")?;
        let summary = store.index(&label, "output", |sink| {
            index_stream(&mut stdout, "stdout", sink)?;
            index_stream(&mut stderr, "stderr", sink)
        })?;
        let errors = if failed {
            store.error_hits(&label, ERROR_REFS)?
        } else {
            Vec::new()
        };
        Ok((label, summary.chunks, errors, stdout, stderr))
    })
    .await?;

    let mut reply = Reply::new();
    let bytes = stdout.bytes() + stderr.bytes();
    let lines = stdout.lines() + stderr.lines();
    reply.line(format!(
        "{}output indexed as {label:?}: {bytes} B, {lines} lines, {chunks} chunks (stdout {} B, stderr {} B)",
        status.map(|s| s + " ").unwrap_or_default(),
        stdout.bytes(),
        stderr.bytes(),
    ));
    // A failed run leads with the end of stderr, where errors are.
    let streams: [(&str, &Capture, Keep, usize); 2] = if failed {
        [
            ("stderr", &stderr, Keep::Tail, 3),
            ("stdout", &stdout, Keep::Tail, 1),
        ]
    } else {
        [
            ("stdout", &stdout, Keep::HeadAndTail, 3),
            ("stderr", &stderr, Keep::Tail, 1),
        ]
    };
    for (name, capture, keep, weight) in streams {
        if capture.is_empty() {
            continue;
        }
        let (text, hidden) = capture.edges();
        reply.line(format!("{name}:"));
        reply.excerpt_of_edges(text, hidden, keep, weight);
    }
    for note in &notes {
        reply.line(note.clone());
    }
    if !errors.is_empty() {
        let refs: Vec<String> = errors
            .iter()
            .map(|h| format!("[{}]", h.reference))
            .collect();
        reply.line(format!("errors: {}", refs.join(" ")));
    }
    reply.line(format!(
        "more: search {{\"source\":{label:?},\"queries\":[...]}}; without queries it lists every chunk"
    ));
    if let Some(r) = new_ref {
        reply.text(format!("[{r}]"));
    }
    Ok(Outcome::ok(reply))
}

/// Lines about incomplete capture, if any.
fn notes(finished: &Finished) -> Vec<String> {
    let mut notes = Vec::new();
    if finished.pipes_held {
        notes.push(
            "[note: a process outside the program's group kept its output open; reading stopped]"
                .to_owned(),
        );
    }
    for (name, capture) in [("stdout", &finished.stdout), ("stderr", &finished.stderr)] {
        if let Some(e) = capture.spill_error() {
            notes.push(format!(
                "[note: {name} spill file failed: {e}; kept in memory]"
            ));
        }
    }
    notes
}

/// The whole reply when the output is in memory: stdout, then stderr under a
/// header, then the status line, notes, and a new script reference.
fn inline(
    finished: &Finished,
    status: Option<&str>,
    notes: &[String],
    new_ref: Option<&str>,
) -> Option<String> {
    let mut text = finished.stdout.text()?;
    let stderr = finished.stderr.text()?;
    if !stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&stderr);
    }
    for line in status.into_iter().chain(notes.iter().map(String::as_str)) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(line);
        text.push('\n');
    }
    if let Some(r) = new_ref {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[{r}]"));
    }
    Some(text)
}

/// Streams one capture into the store as line windows titled by stream.
pub(super) fn index_stream<E>(
    capture: &mut Capture,
    name: &str,
    sink: &mut E,
) -> Result<(), StoreError>
where
    E: Emit<Error = StoreError>,
{
    let mut windows = LineWindows::new(name);
    capture.for_each_piece(|piece| windows.push(piece, sink))?;
    windows.finish(sink)
}
