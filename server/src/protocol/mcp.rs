//! MCP payloads: protocol versions, `_meta` keys, and the tool result shape.

use serde::Serialize;
use serde_json::{Map, Value, json};

/// The stateless revision: no handshake, the version travels in every request's `_meta`.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Handshake-era versions, newest first. `initialize` echoes one of these or answers the newest.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// `_meta` key that marks a 2026-07-28 request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key a 2026-07-28 request must carry next to the version.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// Every version this server speaks, newest first.
pub fn supported_versions() -> Vec<&'static str> {
    std::iter::once(MODERN_VERSION)
        .chain(LEGACY_VERSIONS)
        .collect()
}

/// The version an `initialize` answers with: the client's when supported, else the newest.
pub fn negotiate_legacy(requested: Option<&str>) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .find(|v| Some(**v) == requested)
        .copied()
        .unwrap_or(LEGACY_VERSIONS[0])
}

/// The `_meta` object of a request's params, if any.
pub fn request_meta(params: Option<&Value>) -> Option<&Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

/// The result of `tools/call`: one text block, plus `isError` when the call failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    pub content: Vec<TextContent>,
    #[serde(rename = "isError", skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextContent {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: String,
}

impl ToolResult {
    pub fn text(text: String, is_error: bool) -> Self {
        Self {
            content: vec![TextContent { kind: "text", text }],
            is_error,
        }
    }

    pub fn to_value(&self) -> Value {
        json!(self)
    }
}

/// The concatenated text of a `tools/call` result: the bytes the model reads.
pub fn result_text(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<String>()
        })
        .unwrap_or_default()
}

/// Whether a `tools/call` result is flagged `isError: true`.
pub fn result_is_error(result: &Value) -> bool {
    result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_negotiation_echoes_known_versions_and_falls_back_to_the_newest() {
        assert_eq!(negotiate_legacy(Some("2024-11-05")), "2024-11-05");
        assert_eq!(negotiate_legacy(Some("1999-01-01")), "2025-11-25");
        assert_eq!(negotiate_legacy(Some(MODERN_VERSION)), "2025-11-25");
        assert_eq!(negotiate_legacy(None), "2025-11-25");
    }

    #[test]
    fn a_success_result_has_no_is_error_field() {
        let ok = ToolResult::text("hi".into(), false).to_value();
        assert_eq!(ok, json!({"content":[{"type":"text","text":"hi"}]}));
        let bad = ToolResult::text("no".into(), true).to_value();
        assert_eq!(bad["isError"], json!(true));
        assert_eq!(result_text(&bad), "no");
        assert!(result_is_error(&bad));
    }
}
