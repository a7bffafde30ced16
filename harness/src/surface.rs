//! The metadata a server costs every turn: the `tools/list` result (in total
//! and per tool, description against schema) and the `initialize`
//! instructions, measured on the exact bytes that crossed the pipe.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::client::{Client, Frame, ServerCommand};
use crate::tokens::Tokens;

/// One tool's share of `tools/list`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolCost {
    pub name: String,
    pub bytes: usize,
    pub tokens: Tokens,
    pub description_tokens: Tokens,
    pub schema_tokens: Tokens,
}

/// A server's metadata costs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Surface {
    pub server_name: String,
    pub server_version: String,
    pub protocol_version: String,
    pub tools_list_bytes: usize,
    pub tools_list_tokens: Tokens,
    pub instructions_bytes: usize,
    pub instructions_tokens: Tokens,
    pub tools: Vec<ToolCost>,
    /// Spawn to the first `tools/list` reply.
    pub cold_start_ms: f64,
}

#[derive(Deserialize)]
struct RawResult<'a> {
    #[serde(borrow)]
    result: &'a RawValue,
}

#[derive(Deserialize)]
struct RawList<'a> {
    #[serde(borrow)]
    tools: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawTool<'a> {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(borrow, rename = "inputSchema")]
    input_schema: Option<&'a RawValue>,
}

/// The exact text of a frame's `result`.
pub fn raw_result(frame: &Frame) -> anyhow::Result<String> {
    let raw: RawResult<'_> = serde_json::from_slice(&frame.raw).context("frame has no result")?;
    Ok(raw.result.get().to_owned())
}

/// Measures the `tools/list` result text.
pub fn tool_costs(result_text: &str) -> anyhow::Result<Vec<ToolCost>> {
    let list: RawList<'_> = serde_json::from_str(result_text).context("tools/list has no tools")?;
    list.tools
        .iter()
        .map(|raw| {
            let tool: RawTool<'_> =
                serde_json::from_str(raw.get()).context("a tool without a name")?;
            Ok(ToolCost {
                bytes: raw.get().len(),
                tokens: Tokens::of(raw.get()),
                description_tokens: Tokens::of(tool.description.as_deref().unwrap_or("")),
                schema_tokens: Tokens::of(tool.input_schema.map(|s| s.get()).unwrap_or("")),
                name: tool.name,
            })
        })
        .collect()
}

/// Starts the server, shakes hands, lists tools, and measures.
pub fn measure(cmd: &ServerCommand) -> anyhow::Result<Surface> {
    let started = Instant::now();
    let mut client = Client::spawn(cmd)?;
    client.deadline = Duration::from_secs(60);
    let init = client.initialize("2025-06-18")?;
    let Some(init_result) = init.result() else {
        bail!("initialize failed: {}", init.value);
    };
    let list = client.list_tools()?;
    let cold_start_ms = started.elapsed().as_secs_f64() * 1000.0;
    if list.result().is_none() {
        bail!("tools/list failed: {}", list.value);
    }
    let text = raw_result(&list)?;
    let instructions = init_result["instructions"].as_str().unwrap_or("");
    Ok(Surface {
        server_name: init_result["serverInfo"]["name"]
            .as_str()
            .unwrap_or("?")
            .to_owned(),
        server_version: init_result["serverInfo"]["version"]
            .as_str()
            .unwrap_or("?")
            .to_owned(),
        protocol_version: init_result["protocolVersion"]
            .as_str()
            .unwrap_or("?")
            .to_owned(),
        tools_list_bytes: text.len(),
        tools_list_tokens: Tokens::of(&text),
        instructions_bytes: instructions.len(),
        instructions_tokens: Tokens::of(instructions),
        tools: tool_costs(&text)?,
        cold_start_ms,
    })
}
