//! qc-harness: drives any MCP stdio server over its real pipes.
//!
//! Layout:
//! - [`client`]: spawn a server, send raw lines, read frames with deadlines, keep exact bytes.

pub mod client;
