//! The six tools: one table of names, descriptions and schemas that both
//! `tools/list` and dispatch read, so the listing cannot drift from what runs.
//!
//! - [`args`]: typed argument access with errors that name the field.
//! - one module per tool: its arguments (parsed once into a struct) and its run.
//!
//! Every tool returns a [`Reply`]; [`call`] renders it with the call's budget
//! (the one formatter in [`crate::budget`]) and wraps it as an MCP result.

pub mod args;
mod batch;
mod exec_file;
mod execute;
mod fetch_index;
mod index;
mod program;
mod search;

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use crate::budget::{ByteBudget, Reply};
use crate::context::{Context, Progress};
use crate::error::{ArgError, ToolError};
use crate::protocol::mcp::ToolResult;
use args::Args;

/// What a tool hands back: the reply and whether the call failed.
#[derive(Debug)]
pub struct Outcome {
    pub reply: Reply,
    pub is_error: bool,
}

impl Outcome {
    pub fn ok(reply: Reply) -> Self {
        Self {
            reply,
            is_error: false,
        }
    }

    pub fn failed(reply: Reply) -> Self {
        Self {
            reply,
            is_error: true,
        }
    }
}

/// Hard caps (SPEC §4).
pub const EXEC_CAP: ByteBudget = ByteBudget::cap(8192);
pub const SEARCH_CAP: ByteBudget = ByteBudget::cap(8192);
pub const BATCH_CAP: ByteBudget = ByteBudget::cap(12288);
pub const SUMMARY_CAP: ByteBudget = ByteBudget::cap(512);

/// One tool of the public surface.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Compact JSON Schema, written by hand to keep `tools/list` small.
    pub schema: &'static str,
    pub read_only: bool,
    pub cap: ByteBudget,
}

/// The public surface, sorted by name.
pub const TOOLS: [ToolSpec; 6] = [
    ToolSpec {
        name: "batch",
        description: "Run shell commands in order, index each output under its label, search them with queries. Returns a status line per command and [r:id] refs.",
        schema: r#"{"type":"object","properties":{"commands":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"},"command":{"type":"string"}},"required":["label","command"]}},"queries":{"type":"array","items":{"type":"string"}},"timeout_ms":{"type":"integer"},"max_bytes":{"type":"integer"}},"required":["commands"]}"#,
        read_only: false,
        cap: BATCH_CAP,
    },
    ToolSpec {
        name: "exec-file",
        description: "Like execute, with the file on stdin and its path in $FILE; the file never enters the context.",
        schema: r#"{"type":"object","properties":{"path":{"type":"string"},"language":{"type":"string"},"code":{"type":"string"},"script_ref":{"type":"string"},"timeout_ms":{"type":"integer"},"max_bytes":{"type":"integer"}},"required":["path"]}"#,
        read_only: false,
        cap: EXEC_CAP,
    },
    ToolSpec {
        name: "execute",
        description: "Run shell, python, javascript, typescript, perl, ruby, go, rust, php or r code; returns its output. Output over max_bytes is indexed: an excerpt and a source to search. Code of 256+ bytes returns an [s:ref] for script_ref.",
        schema: r#"{"type":"object","properties":{"language":{"type":"string"},"code":{"type":"string"},"script_ref":{"type":"string"},"timeout_ms":{"type":"integer"},"max_bytes":{"type":"integer"}}}"#,
        read_only: false,
        cap: EXEC_CAP,
    },
    ToolSpec {
        name: "fetch-index",
        description: "Fetch an http(s) URL (HTML as Markdown) into the index under source, default the URL. Returns a one-line summary.",
        schema: r#"{"type":"object","properties":{"url":{"type":"string"},"source":{"type":"string"}},"required":["url"]}"#,
        read_only: false,
        cap: SUMMARY_CAP,
    },
    ToolSpec {
        name: "index",
        description: "Index content, or a file or directory at path, under a source label. Returns a one-line summary.",
        schema: r#"{"type":"object","properties":{"content":{"type":"string"},"path":{"type":"string"},"source":{"type":"string"}}}"#,
        read_only: false,
        cap: SUMMARY_CAP,
    },
    ToolSpec {
        name: "search",
        description: "Search indexed text: titles and [r:id] refs per query (preview adds 600 chars each). refs returns exact chunk text; source alone lists its chunks.",
        schema: r#"{"type":"object","properties":{"queries":{"type":"array","items":{"type":"string"}},"refs":{"type":"array","items":{"type":"string"}},"source":{"type":"string"},"limit":{"type":"integer"},"offset":{"type":"integer"},"preview":{"type":"boolean"},"max_bytes":{"type":"integer"}}}"#,
        read_only: true,
        cap: SEARCH_CAP,
    },
];

/// The `initialize` / `server/discover` instructions (Codex shows them as the
/// tools' namespace description).
pub const INSTRUCTIONS: &str = "Run code and search text without flooding context. Large outputs are indexed, not dumped: follow the hint in the reply. Pass [r:id] to search refs for exact text, [s:ref] as script_ref to rerun code.";

pub fn spec(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

impl ToolSpec {
    /// The schema as JSON.
    pub fn schema_value(&self) -> Value {
        serde_json::from_str(self.schema).unwrap_or(Value::Null)
    }

    /// Field names the schema declares: the only ones a call may send.
    pub fn fields(&self) -> &'static [String] {
        static FIELDS: OnceLock<Vec<Vec<String>>> = OnceLock::new();
        let all = FIELDS.get_or_init(|| {
            TOOLS
                .iter()
                .map(|t| property_names(&t.schema_value()))
                .collect()
        });
        let i = TOOLS.iter().position(|t| t.name == self.name).unwrap_or(0);
        &all[i]
    }
}

fn property_names(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// The `tools/list` result, built once.
pub fn tools_list() -> &'static Value {
    static LIST: OnceLock<Value> = OnceLock::new();
    LIST.get_or_init(|| {
        let tools: Vec<Value> = TOOLS
            .iter()
            .map(|t| {
                let mut tool = json!({
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": t.schema_value(),
                });
                if t.read_only {
                    tool["annotations"] = json!({"readOnlyHint": true});
                }
                tool
            })
            .collect();
        json!({ "tools": tools })
    })
}

/// A parsed tool call: arguments validated once, at the edge.
#[derive(Debug)]
pub enum ToolCall {
    Batch(batch::BatchArgs),
    ExecFile(exec_file::ExecFileArgs),
    Execute(execute::ExecuteArgs),
    FetchIndex(fetch_index::FetchArgs),
    Index(index::IndexArgs),
    Search(search::SearchArgs),
}

impl ToolCall {
    /// Validates `arguments` for the tool `spec`.
    pub fn parse(spec: &ToolSpec, arguments: &Map<String, Value>) -> Result<ToolCall, ArgError> {
        let known: Vec<&str> = spec.fields().iter().map(String::as_str).collect();
        let args = Args::new(arguments, &known)?;
        Ok(match spec.name {
            "batch" => ToolCall::Batch(batch::BatchArgs::parse(&args)?),
            "exec-file" => ToolCall::ExecFile(exec_file::ExecFileArgs::parse(&args)?),
            "execute" => ToolCall::Execute(execute::ExecuteArgs::parse(&args)?),
            "fetch-index" => ToolCall::FetchIndex(fetch_index::FetchArgs::parse(&args)?),
            "index" => ToolCall::Index(index::IndexArgs::parse(&args)?),
            "search" => ToolCall::Search(search::SearchArgs::parse(&args)?),
            other => return Err(ArgError::new("name", format!("unknown tool {other:?}"))),
        })
    }

    fn budget(&self) -> ByteBudget {
        match self {
            ToolCall::Batch(a) => a.budget,
            ToolCall::ExecFile(a) => a.exec.budget,
            ToolCall::Execute(a) => a.exec.budget,
            ToolCall::FetchIndex(_) | ToolCall::Index(_) => SUMMARY_CAP,
            ToolCall::Search(a) => a.budget,
        }
    }
}

/// Runs one `tools/call` and renders its result within the call's budget.
pub async fn call(
    ctx: &Context,
    spec: &ToolSpec,
    arguments: &Map<String, Value>,
    progress: Progress,
) -> ToolResult {
    let call = match ToolCall::parse(spec, arguments) {
        Ok(call) => call,
        Err(e) => return error_result(ToolError::Arg(e), spec.cap),
    };
    let budget = call.budget();
    let outcome = match call {
        ToolCall::Batch(a) => batch::run(ctx, a, progress).await,
        ToolCall::ExecFile(a) => exec_file::run(ctx, a).await,
        ToolCall::Execute(a) => execute::run(ctx, a).await,
        ToolCall::FetchIndex(a) => fetch_index::run(ctx, a).await,
        ToolCall::Index(a) => index::run(ctx, a).await,
        ToolCall::Search(a) => search::run(ctx, a).await,
    };
    match outcome {
        Ok(outcome) => ToolResult::text(outcome.reply.render(budget), outcome.is_error),
        Err(e) => error_result(e, budget),
    }
}

fn error_result(error: ToolError, budget: ByteBudget) -> ToolResult {
    let mut reply = Reply::new();
    reply.text(error.to_string());
    ToolResult::text(reply.render(budget), true)
}

/// Runs blocking work (SQLite, file walks) off the async runtime.
pub(crate) async fn blocking<T, F>(work: F) -> Result<T, ToolError>
where
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::failed(format!("internal error: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_six_tools_sorted_by_name() {
        let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            vec![
                "batch",
                "exec-file",
                "execute",
                "fetch-index",
                "index",
                "search"
            ]
        );
    }

    #[test]
    fn schemas_are_valid_compact_json_objects() {
        for t in &TOOLS {
            let v: Value = serde_json::from_str(t.schema).unwrap();
            assert_eq!(v["type"], "object", "{}", t.name);
            assert_eq!(
                serde_json::to_string(&v).unwrap().len(),
                t.schema.len(),
                "{}",
                t.name
            );
        }
    }

    #[test]
    fn the_listing_and_instructions_fit_their_budgets() {
        let bytes = serde_json::to_string(tools_list()).unwrap().len();
        assert!(bytes <= 4096, "tools/list is {bytes} bytes");
        assert!(
            INSTRUCTIONS.len() <= 256,
            "instructions are {} bytes",
            INSTRUCTIONS.len()
        );
        assert!(TOOLS.iter().all(|t| t.description.is_ascii()));
    }

    #[test]
    fn only_search_is_read_only() {
        let list = tools_list();
        for tool in list["tools"].as_array().unwrap() {
            let read_only = tool["annotations"]["readOnlyHint"] == json!(true);
            assert_eq!(read_only, tool["name"] == "search");
        }
    }
}
