//! Method dispatch: one request in, one result or JSON-RPC error out.
//!
//! Two eras share one process. A request whose `_meta` carries
//! `io.modelcontextprotocol/protocolVersion` is served under 2026-07-28
//! (stateless: `resultType` on every result, cache hints on `tools/list`);
//! anything else follows the handshake era (`initialize`, `ping`).

use serde_json::{Map, Value, json};

use crate::context::{Context, Progress};
use crate::protocol::jsonrpc::{RpcError, code};
use crate::protocol::mcp::{self, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, MODERN_VERSION};
use crate::tools;

/// How long a 2026-07-28 client may cache `tools/list` and `server/discover`:
/// the surface is fixed for the life of the process.
const LIST_TTL_MS: u64 = 3_600_000;

/// Which protocol era a request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Legacy,
    Modern,
}

fn server_info() -> Value {
    json!({"name": "quietcontext", "version": env!("CARGO_PKG_VERSION")})
}

fn capabilities() -> Value {
    json!({"tools": {"listChanged": false}})
}

/// Reads the era from `_meta`. A stated version other than 2026-07-28 is -32022.
fn era_of(method: &str, params: Option<&Value>) -> Result<Era, RpcError> {
    let Some(meta) = mcp::request_meta(params) else {
        return Ok(Era::Legacy);
    };
    let Some(version) = meta.get(META_PROTOCOL_VERSION) else {
        return Ok(Era::Legacy);
    };
    // server/discover is the probe a dual-era client sends first: always answered.
    if method == "server/discover" {
        return Ok(Era::Modern);
    }
    if version.as_str() != Some(MODERN_VERSION) {
        return Err(RpcError::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            format!("unsupported protocol version {version}"),
        )
        .with_data(json!({
            "supported": mcp::supported_versions(),
            "requested": version,
        })));
    }
    if !meta
        .get(META_CLIENT_CAPABILITIES)
        .is_some_and(Value::is_object)
    {
        return Err(RpcError::new(
            code::INVALID_PARAMS,
            format!("_meta[{META_CLIENT_CAPABILITIES:?}] must be an object"),
        ));
    }
    Ok(Era::Modern)
}

/// Serves one request.
pub async fn handle(
    ctx: &Context,
    method: &str,
    params: Option<&Value>,
    progress: Progress,
) -> Result<Value, RpcError> {
    let era = era_of(method, params)?;
    let mut result = match method {
        "initialize" => initialize(params),
        "ping" => json!({}),
        "server/discover" => json!({
            "supportedVersions": mcp::supported_versions(),
            "capabilities": capabilities(),
            "serverInfo": server_info(),
            "instructions": tools::INSTRUCTIONS,
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "public",
        }),
        "tools/list" => {
            let mut list = tools::tools_list().clone();
            if era == Era::Modern {
                list["ttlMs"] = json!(LIST_TTL_MS);
                list["cacheScope"] = json!("public");
            }
            list
        }
        "tools/call" => call_tool(ctx, params, progress).await?,
        other => {
            return Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("method not found: {other}"),
            ));
        }
    };
    if era == Era::Modern {
        result["resultType"] = json!("complete");
    }
    Ok(result)
}

fn initialize(params: Option<&Value>) -> Value {
    let requested = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str);
    json!({
        "protocolVersion": mcp::negotiate_legacy(requested),
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": tools::INSTRUCTIONS,
    })
}

async fn call_tool(
    ctx: &Context,
    params: Option<&Value>,
    progress: Progress,
) -> Result<Value, RpcError> {
    let invalid = |m: String| RpcError::new(code::INVALID_PARAMS, m);
    let params = params.ok_or_else(|| invalid("tools/call needs params with a name".into()))?;
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("name must be a string".into()))?;
    let spec = tools::spec(name).ok_or_else(|| {
        invalid(format!(
            "unknown tool {name:?}; tools: batch, exec-file, execute, fetch-index, index, search"
        ))
    })?;
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(map)) => map,
        Some(_) => return Err(invalid("arguments must be an object".into())),
    };
    Ok(tools::call(ctx, spec, arguments, progress).await.to_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(version: &str) -> Value {
        json!({"_meta": {META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: {}}})
    }

    #[test]
    fn eras_are_read_from_meta() {
        assert_eq!(era_of("tools/list", None), Ok(Era::Legacy));
        assert_eq!(
            era_of("tools/list", Some(&json!({"_meta": {"progressToken": 1}}))),
            Ok(Era::Legacy)
        );
        assert_eq!(
            era_of("tools/list", Some(&meta(MODERN_VERSION))),
            Ok(Era::Modern)
        );
        let err = era_of("tools/list", Some(&meta("2030-01-01"))).unwrap_err();
        assert_eq!(err.code, code::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(err.data.unwrap()["requested"], "2030-01-01");
        assert_eq!(
            era_of("server/discover", Some(&meta("2030-01-01"))),
            Ok(Era::Modern)
        );
    }

    #[test]
    fn a_modern_request_without_capabilities_is_invalid() {
        let p = json!({"_meta": {META_PROTOCOL_VERSION: MODERN_VERSION}});
        assert_eq!(
            era_of("tools/list", Some(&p)).unwrap_err().code,
            code::INVALID_PARAMS
        );
    }
}
