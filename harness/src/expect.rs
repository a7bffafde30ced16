//! Expectations on a step's outcome, and the failures they report: each
//! failure says what was expected and what came instead.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::ToolReply;
use crate::vars::Vars;

/// Expectations on a tool call's reply (all optional, all must hold).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `isError` must be this.
    pub error: Option<bool>,
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub not_contains: Vec<String>,
    #[serde(default)]
    pub regex: Vec<String>,
    /// Ceiling on the reply text's UTF-8 bytes.
    pub max_bytes: Option<usize>,
    pub equals: Option<String>,
    pub starts_with: Option<String>,
    pub ends_with: Option<String>,
    /// The call must be answered with this JSON-RPC error code instead of a result.
    pub rpc_error: Option<i64>,
}

/// One unmet expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub check: String,
    pub expected: String,
    pub got: String,
}

impl Failure {
    pub fn new(
        check: impl Into<String>,
        expected: impl Into<String>,
        got: impl Into<String>,
    ) -> Self {
        Self {
            check: check.into(),
            expected: expected.into(),
            got: got.into(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: expected {}; got {}",
            self.check, self.expected, self.got
        )
    }
}

/// Shortens a text for a failure message.
pub fn shown(text: &str) -> String {
    const MAX: usize = 400;
    if text.len() <= MAX {
        return format!("{text:?}");
    }
    let end = text.floor_char_boundary(MAX);
    format!("{:?}… ({} B)", &text[..end], text.len())
}

impl Expect {
    /// Checks that the regexes compile.
    pub fn validate(&self) -> anyhow::Result<()> {
        for pattern in &self.regex {
            regex::Regex::new(pattern).with_context(|| format!("expect regex {pattern:?}"))?;
        }
        Ok(())
    }

    /// Every unmet expectation, with variables expanded first.
    pub fn check(&self, reply: &ToolReply, vars: &Vars) -> anyhow::Result<Vec<Failure>> {
        let mut failures = Vec::new();
        let text = reply.text.as_str();
        match (self.rpc_error, &reply.rpc_error) {
            (Some(code), Some((got, message))) if code != *got => failures.push(Failure::new(
                "rpc_error",
                code.to_string(),
                format!("{got} {message:?}"),
            )),
            (Some(code), None) => failures.push(Failure::new(
                "rpc_error",
                code.to_string(),
                format!("a result: {}", shown(text)),
            )),
            (None, Some((got, message))) => failures.push(Failure::new(
                "result",
                "a tool result",
                format!("JSON-RPC error {got} {message:?}"),
            )),
            _ => {}
        }
        if let Some(error) = self.error
            && reply.rpc_error.is_none()
            && error != reply.is_error
        {
            failures.push(Failure::new(
                "error",
                format!("isError {error}"),
                format!("isError {}: {}", reply.is_error, shown(text)),
            ));
        }
        for needle in vars.expand_all(&self.contains)? {
            if !text.contains(&needle) {
                failures.push(Failure::new("contains", shown(&needle), shown(text)));
            }
        }
        for needle in vars.expand_all(&self.not_contains)? {
            if text.contains(&needle) {
                failures.push(Failure::new(
                    "not_contains",
                    format!("no {}", shown(&needle)),
                    shown(text),
                ));
            }
        }
        for pattern in vars.expand_all(&self.regex)? {
            let re = regex::Regex::new(&pattern).with_context(|| format!("regex {pattern:?}"))?;
            if !re.is_match(text) {
                failures.push(Failure::new(
                    "regex",
                    format!("a match of /{pattern}/"),
                    shown(text),
                ));
            }
        }
        if let Some(max) = self.max_bytes
            && text.len() > max
        {
            failures.push(Failure::new(
                "max_bytes",
                format!("<= {max} B"),
                format!("{} B", text.len()),
            ));
        }
        if let Some(expected) = &self.equals {
            let expected = vars.expand(expected)?;
            if text != expected {
                failures.push(Failure::new("equals", shown(&expected), shown(text)));
            }
        }
        if let Some(prefix) = &self.starts_with {
            let prefix = vars.expand(prefix)?;
            if !text.starts_with(&prefix) {
                failures.push(Failure::new("starts_with", shown(&prefix), shown(text)));
            }
        }
        if let Some(suffix) = &self.ends_with {
            let suffix = vars.expand(suffix)?;
            if !text.ends_with(&suffix) {
                failures.push(Failure::new("ends_with", shown(&suffix), shown(text)));
            }
        }
        Ok(failures)
    }
}

/// Whether every key of `expected` is in `got` with a matching value
/// (objects recursively, arrays element by element and of equal length).
pub fn json_subset(expected: &Value, got: &Value) -> bool {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => e
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| json_subset(v, gv))),
        (Value::Array(e), Value::Array(g)) => {
            e.len() == g.len() && e.iter().zip(g).all(|(a, b)| json_subset(a, b))
        }
        _ => expected == got,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{Frame, tool_reply};
    use serde_json::json;
    use std::time::Duration;

    fn reply(text: &str, is_error: bool) -> ToolReply {
        let mut result = json!({"content": [{"type": "text", "text": text}]});
        if is_error {
            result["isError"] = json!(true);
        }
        let value = json!({"jsonrpc": "2.0", "id": 1, "result": result});
        tool_reply(
            Frame {
                raw: value.to_string().into_bytes(),
                value,
            },
            Vec::new(),
            Duration::ZERO,
        )
    }

    #[test]
    fn every_expectation_reports_expected_and_got() {
        let e: Expect = yaml_serde::from_str(
            "{error: false, contains: [zzz], not_contains: [abc], regex: ['^x'], max_bytes: 3, equals: q, starts_with: y, ends_with: w}",
        )
        .unwrap();
        let got = e.check(&reply("abcdef", true), &Vars::default()).unwrap();
        let checks: Vec<&str> = got.iter().map(|f| f.check.as_str()).collect();
        assert_eq!(
            checks,
            vec![
                "error",
                "contains",
                "not_contains",
                "regex",
                "max_bytes",
                "equals",
                "starts_with",
                "ends_with"
            ]
        );
        assert_eq!(got[4].to_string(), "max_bytes: expected <= 3 B; got 6 B");
    }

    #[test]
    fn a_matching_reply_has_no_failures() {
        let e: Expect = yaml_serde::from_str(
            "{error: true, contains: ['${v}'], regex: ['b.d'], max_bytes: 6, equals: abcdef}",
        )
        .unwrap();
        let mut vars = Vars::default();
        vars.set("v", "cd");
        assert!(e.check(&reply("abcdef", true), &vars).unwrap().is_empty());
    }

    #[test]
    fn json_subsets() {
        let got = json!({"a": 1, "b": {"c": [1, {"d": 2, "e": 3}]}});
        assert!(json_subset(&json!({"b": {"c": [1, {"d": 2}]}}), &got));
        assert!(!json_subset(&json!({"b": {"c": [1]}}), &got));
        assert!(!json_subset(&json!({"a": 2}), &got));
    }
}
