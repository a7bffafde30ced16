//! Wire types shared by the server and the harness.
//!
//! - [`codec`]: the one newline-delimited line reader, with a maximum line length.
//! - [`jsonrpc`]: JSON-RPC 2.0 frames, ids kept byte-exact, error codes as named constants.
//! - [`mcp`]: MCP payloads: protocol versions, tool results, tool descriptors.

pub mod codec;
pub mod jsonrpc;
pub mod mcp;
