//! qc-harness: drives any MCP stdio server over its real pipes, measures what
//! a model would read, and gates releases on it.
//!
//! Layout:
//! - [`client`]: spawn a server, send raw lines, read frames with deadlines, keep exact bytes.
//! - [`server`]: which server to run (`--server`, `QC_SERVER`, or this repo's build).
//! - [`tokens`]: o200k / cl100k token counts.
//! - [`surface`]: the metadata cost (`tools/list`, instructions).
//! - [`scenario`], [`vars`], [`expect`]: YAML scenarios, `${captures}`, expectations.
//! - [`invariants`]: the contract's invariants as named functions (replay and proptests).
//! - [`replay`]: runs scenarios, measuring and checking every step.
//! - [`gate`]: baseline and verdict; [`report`]: JSON, Markdown, JUnit, HTML.
//! - [`compare`]: the same workload on another server, side by side.
//! - [`codex`]: real Codex against the server and a loopback mock model.
//! - [`perf`]: whole-process timings and memory.
//! - [`fixtures`]: a loopback HTTP server with fixture pages.
//! - [`cli`], [`commands`]: the command line.

pub mod cli;
pub mod client;
pub mod codex;
pub mod commands;
pub mod compare;
pub mod expect;
pub mod fixtures;
pub mod gate;
pub mod invariants;
pub mod perf;
pub mod replay;
pub mod report;
pub mod scenario;
pub mod server;
pub mod surface;
pub mod tokens;
pub mod vars;
