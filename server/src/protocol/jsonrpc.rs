//! JSON-RPC 2.0 frames: parsed once at the edge into [`Incoming`], written as
//! [`Outgoing`]. Request ids are kept as their exact JSON text so that any id a
//! client sends (a huge integer, a string) is echoed byte for byte.

use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// Named JSON-RPC and MCP error codes: declared here once.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP 2026-07-28: the request names a protocol version the server does not speak.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A request id: the exact JSON text of a string or number.
#[derive(Clone)]
pub struct RequestId(Box<RawValue>);

impl RequestId {
    /// Accepts a string or a number; anything else (null, bool, object, array) is not an id.
    pub fn from_raw(raw: &RawValue) -> Option<Self> {
        let text = raw.get().trim();
        let first = text.as_bytes().first()?;
        let valid = *first == b'"' || *first == b'-' || first.is_ascii_digit();
        if !valid {
            return None;
        }
        RawValue::from_string(text.to_owned()).ok().map(RequestId)
    }

    pub fn number(n: i64) -> Self {
        // A formatted integer is always valid JSON.
        match RawValue::from_string(n.to_string()) {
            Ok(raw) => RequestId(raw),
            Err(_) => unreachable!("an integer is valid JSON"),
        }
    }

    /// The id's JSON text, e.g. `7` or `"abc"`.
    pub fn as_json(&self) -> &str {
        self.0.get()
    }

    /// The id as a JSON value (for comparisons in clients and tests).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.0.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for RequestId {
    fn eq(&self, other: &Self) -> bool {
        self.as_json() == other.as_json()
    }
}
impl Eq for RequestId {}
impl Hash for RequestId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_json().hash(state);
    }
}
impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}
impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// One parsed incoming frame.
#[derive(Debug)]
pub enum Incoming {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A response from the client (the server sends no requests, so these are ignored).
    Response { id: Option<RequestId> },
}

/// Why a frame could not become an [`Incoming`]: always answered, never fatal.
#[derive(Debug, PartialEq)]
pub struct FrameError {
    /// The id to answer with, when one could be read.
    pub id: Option<RequestId>,
    pub error: RpcError,
}

impl FrameError {
    fn parse(message: String) -> Self {
        Self {
            id: None,
            error: RpcError::new(code::PARSE_ERROR, message),
        }
    }

    fn invalid(id: Option<RequestId>, message: impl Into<String>) -> Self {
        Self {
            id,
            error: RpcError::new(code::INVALID_REQUEST, message),
        }
    }
}

impl Incoming {
    /// Parses one line. Invalid UTF-8, malformed JSON, arrays, and objects that
    /// are not JSON-RPC 2.0 messages become a [`FrameError`] naming the problem.
    pub fn parse(line: &[u8]) -> Result<Incoming, FrameError> {
        let text = std::str::from_utf8(line)
            .map_err(|e| FrameError::parse(format!("parse error: invalid UTF-8 ({e})")))?;
        let trimmed = text.trim_start();
        if trimmed.starts_with('[') {
            // Validate first so that a malformed array still reports a parse error.
            serde_json::from_str::<serde::de::IgnoredAny>(text)
                .map_err(|e| FrameError::parse(format!("parse error: {e}")))?;
            return Err(FrameError::invalid(
                None,
                "JSON-RPC batches are not supported: send one message per line",
            ));
        }
        let fields: HashMap<String, &RawValue> = match serde_json::from_str(text) {
            Ok(fields) => fields,
            Err(e) if e.is_data() => {
                return Err(FrameError::invalid(None, "a message must be a JSON object"));
            }
            Err(e) => return Err(FrameError::parse(format!("parse error: {e}"))),
        };
        let id = match fields.get("id") {
            None => None,
            Some(raw) => match RequestId::from_raw(raw) {
                Some(id) => Some(id),
                None => {
                    return Err(FrameError::invalid(
                        None,
                        format!("id must be a string or a number, got {}", short(raw.get())),
                    ));
                }
            },
        };
        match fields.get("jsonrpc").map(|raw| raw.get()) {
            Some("\"2.0\"") => {}
            _ => return Err(FrameError::invalid(id, "jsonrpc must be \"2.0\"")),
        }
        let method = match fields.get("method") {
            None => {
                if fields.contains_key("result") || fields.contains_key("error") {
                    return Ok(Incoming::Response { id });
                }
                return Err(FrameError::invalid(id, "missing method"));
            }
            Some(raw) => match serde_json::from_str::<String>(raw.get()) {
                Ok(method) => method,
                Err(_) => return Err(FrameError::invalid(id, "method must be a string")),
            },
        };
        let params = match fields.get("params") {
            None => None,
            Some(raw) => {
                let value: Value = serde_json::from_str(raw.get())
                    .map_err(|e| FrameError::parse(format!("parse error: {e}")))?;
                match value {
                    Value::Object(_) => Some(value),
                    Value::Null => None,
                    _ => {
                        return Err(FrameError {
                            id,
                            error: RpcError::new(code::INVALID_PARAMS, "params must be an object"),
                        });
                    }
                }
            }
        };
        match id {
            Some(id) if method.starts_with("notifications/") => Err(FrameError::invalid(
                Some(id),
                format!("{method} is a notification and must not carry an id"),
            )),
            Some(id) => Ok(Incoming::Request { id, method, params }),
            None => Ok(Incoming::Notification { method, params }),
        }
    }
}

fn short(text: &str) -> String {
    let mut end = text.len().min(40);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// One outgoing frame, serialized by [`Outgoing::to_line`].
#[derive(Debug)]
pub enum Outgoing {
    Result {
        id: RequestId,
        result: Value,
    },
    Error {
        id: Option<RequestId>,
        error: RpcError,
    },
    Notification {
        method: String,
        params: Value,
    },
}

#[derive(Serialize)]
struct ResultFrame<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a Value,
}

#[derive(Serialize)]
struct ErrorFrame<'a> {
    jsonrpc: &'static str,
    id: Option<&'a RequestId>,
    error: &'a RpcError,
}

#[derive(Serialize)]
struct NotificationFrame<'a> {
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a Value,
}

impl Outgoing {
    /// The frame as one line of compact JSON, without the trailing newline.
    pub fn to_line(&self) -> String {
        let written = match self {
            Outgoing::Result { id, result } => serde_json::to_string(&ResultFrame {
                jsonrpc: "2.0",
                id,
                result,
            }),
            Outgoing::Error { id, error } => serde_json::to_string(&ErrorFrame {
                jsonrpc: "2.0",
                id: id.as_ref(),
                error,
            }),
            Outgoing::Notification { method, params } => {
                serde_json::to_string(&NotificationFrame {
                    jsonrpc: "2.0",
                    method,
                    params,
                })
            }
        };
        // Serializing plain JSON values and strings cannot fail.
        written.unwrap_or_else(|e| {
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{},"message":"serialization failed: {}"}}}}"#,
                code::INTERNAL_ERROR,
                e.to_string().replace('"', "'")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(line: &str) -> FrameError {
        Incoming::parse(line.as_bytes()).unwrap_err()
    }

    #[test]
    fn ids_are_echoed_byte_for_byte() {
        let line = r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#;
        let Incoming::Request { id, .. } = Incoming::parse(line.as_bytes()).unwrap() else {
            panic!("expected a request");
        };
        let out = Outgoing::Result {
            id,
            result: json!({}),
        }
        .to_line();
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#
        );
    }

    #[test]
    fn malformed_json_is_a_parse_error_with_a_null_id() {
        let e = err("{not json");
        assert_eq!(e.id, None);
        assert_eq!(e.error.code, code::PARSE_ERROR);
        let e = err("\u{0}\u{1}");
        assert_eq!(e.error.code, code::PARSE_ERROR);
    }

    #[test]
    fn invalid_utf8_is_a_parse_error() {
        let e = Incoming::parse(&[b'{', 0xff, b'}']).unwrap_err();
        assert_eq!(e.error.code, code::PARSE_ERROR);
        assert!(e.error.message.contains("UTF-8"), "{}", e.error.message);
    }

    #[test]
    fn non_objects_and_batches_are_invalid_requests() {
        assert_eq!(err("42").error.code, code::INVALID_REQUEST);
        assert_eq!(err("\"x\"").error.code, code::INVALID_REQUEST);
        let batch = err(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!(batch.error.code, code::INVALID_REQUEST);
        assert!(batch.error.message.contains("batches"));
    }

    #[test]
    fn odd_ids_are_refused_and_named() {
        for id in ["null", "true", "{}", "[1]"] {
            let e = err(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
            assert_eq!(e.error.code, code::INVALID_REQUEST, "id {id}");
            assert_eq!(e.id, None);
        }
    }

    #[test]
    fn wrong_version_missing_method_and_bad_params_are_named() {
        let e = err(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#);
        assert_eq!(e.error.code, code::INVALID_REQUEST);
        assert_eq!(e.id, Some(RequestId::number(1)));
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":1}"#).error.message,
            "missing method"
        );
        let e = err(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#);
        assert_eq!(e.error.code, code::INVALID_PARAMS);
    }

    #[test]
    fn a_notification_with_an_id_is_refused() {
        let e = err(r#"{"jsonrpc":"2.0","id":9,"method":"notifications/initialized"}"#);
        assert_eq!(e.error.code, code::INVALID_REQUEST);
        assert_eq!(e.id, Some(RequestId::number(9)));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":{}{}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(err(&deep).error.code, code::PARSE_ERROR);
    }

    proptest::proptest! {
        /// Any bytes at all: a parsed message or an error frame, never a panic;
        /// and whatever comes out serialises to one line of valid JSON.
        #[test]
        fn any_bytes_parse_or_fail_cleanly(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            match Incoming::parse(&bytes) {
                Ok(Incoming::Request { id, .. }) => {
                    let line = Outgoing::Result { id, result: json!({}) }.to_line();
                    proptest::prop_assert!(serde_json::from_str::<Value>(&line).is_ok());
                }
                Ok(_) => {}
                Err(FrameError { id, error }) => {
                    let line = Outgoing::Error { id, error }.to_line();
                    proptest::prop_assert!(!line.contains('\n'));
                    proptest::prop_assert!(serde_json::from_str::<Value>(&line).is_ok());
                }
            }
        }
    }

    #[test]
    fn responses_from_the_client_are_recognised() {
        let got = Incoming::parse(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap();
        assert!(matches!(got, Incoming::Response { .. }));
    }
}
