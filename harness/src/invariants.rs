//! The contract's invariants as named functions, written once and used twice:
//! by the scenario replayer after every tool call, and by the property tests.
//! Each returns `Err` with a message that says what broke.

use std::collections::HashSet;

use serde_json::Value;

/// The effective byte budget of a QuietContext tool call: `max_bytes` when it
/// is a valid value for the tool, else the tool's hard cap. `None` for a tool
/// that is not one of ours.
pub fn effective_budget(tool: &str, args: &Value) -> Option<usize> {
    let spec = quietcontext::tools::spec(tool)?;
    let cap = spec.cap.bytes();
    let asked = args
        .get("max_bytes")
        .and_then(Value::as_u64)
        .map(|n| n as usize);
    Some(match asked {
        Some(n) if (quietcontext::budget::MIN_BUDGET..=cap).contains(&n) => n,
        _ => cap,
    })
}

/// Every reply is within its effective budget.
pub fn within_budget(tool: &str, args: &Value, text: &str) -> Result<(), String> {
    match effective_budget(tool, args) {
        Some(budget) if text.len() > budget => Err(format!(
            "{tool} reply is {} B, over its {budget} B budget",
            text.len()
        )),
        _ => Ok(()),
    }
}

/// A result is one `text` block, with no `structuredContent`.
pub fn single_text_block(result: &Value) -> Result<(), String> {
    if result.get("structuredContent").is_some() {
        return Err("result carries structuredContent".into());
    }
    match result.get("content").and_then(Value::as_array) {
        Some(blocks) if blocks.len() == 1 && blocks[0]["type"] == "text" => Ok(()),
        Some(blocks) => Err(format!(
            "result has {} content blocks, want one text block",
            blocks.len()
        )),
        None => Err("result has no content array".into()),
    }
}

/// Cutting never splits a character: a reply made from valid text holds no
/// replacement character.
pub fn no_split_characters(text: &str) -> Result<(), String> {
    match text.find('\u{FFFD}') {
        Some(at) => Err(format!(
            "replacement character at byte {at}: a character was split"
        )),
        None => Ok(()),
    }
}

/// Output that fits the budget is returned whole: the reply starts with it.
pub fn returned_whole(output: &str, text: &str) -> Result<(), String> {
    if text.starts_with(output) {
        Ok(())
    } else {
        Err(format!(
            "{} B of output fit the budget but the reply does not start with it",
            output.len()
        ))
    }
}

/// The text read back through references equals what was produced.
pub fn retrieved_exactly(expected: &str, retrieved: &str) -> Result<(), String> {
    if expected == retrieved {
        return Ok(());
    }
    let at = expected
        .bytes()
        .zip(retrieved.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(retrieved.len()));
    Err(format!(
        "retrieved {} B, expected {} B; first difference at byte {at}",
        retrieved.len(),
        expected.len()
    ))
}

/// No reference is listed with a title twice in one search reply (later
/// mentions are bare `[r:...]` lines).
pub fn refs_listed_once(text: &str) -> Result<(), String> {
    let mut seen = HashSet::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("[r:") else {
            continue;
        };
        let Some((id, tail)) = rest.split_once(']') else {
            continue;
        };
        if tail.is_empty() {
            continue;
        }
        if !seen.insert(id.to_owned()) {
            return Err(format!("r:{id} is listed twice"));
        }
    }
    Ok(())
}

/// Every preview line holds at most 600 characters.
pub fn previews_bounded(text: &str) -> Result<(), String> {
    for line in text.lines() {
        if let Some(preview) = line.strip_prefix("  > ") {
            let chars = preview.chars().count();
            if chars > quietcontext::budget::PREVIEW_CHARS {
                return Err(format!("a preview of {chars} characters"));
            }
        }
    }
    Ok(())
}

/// An error for invalid references lists exactly the invalid ones.
pub fn lists_exactly(text: &str, invalid: &[String]) -> Result<(), String> {
    let Some(list) = text
        .strip_prefix("refs: unknown or expired: ")
        .and_then(|rest| rest.split(" (").next())
    else {
        return Err(format!("not an invalid-refs error: {text:?}"));
    };
    let listed: Vec<&str> = list.split(", ").collect();
    let wanted: Vec<&str> = invalid.iter().map(String::as_str).collect();
    if listed == wanted {
        Ok(())
    } else {
        Err(format!("listed {listed:?}, invalid were {wanted:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn budgets_follow_max_bytes_or_the_cap() {
        assert_eq!(effective_budget("execute", &json!({})), Some(8192));
        assert_eq!(
            effective_budget("batch", &json!({"max_bytes": 300})),
            Some(300)
        );
        assert_eq!(
            effective_budget("search", &json!({"max_bytes": 10})),
            Some(8192)
        );
        assert_eq!(effective_budget("index", &json!({})), Some(512));
        assert_eq!(effective_budget("ctx_execute", &json!({})), None);
        assert!(within_budget("execute", &json!({"max_bytes": 256}), &"x".repeat(257)).is_err());
        assert!(within_budget("execute", &json!({"max_bytes": 256}), &"x".repeat(256)).is_ok());
    }

    #[test]
    fn result_shapes() {
        assert!(single_text_block(&json!({"content": [{"type": "text", "text": ""}]})).is_ok());
        assert!(single_text_block(&json!({"content": []})).is_err());
        assert!(
            single_text_block(&json!({"content": [{"type": "text"}], "structuredContent": {}}))
                .is_err()
        );
    }

    #[test]
    fn listing_and_preview_checks() {
        assert!(refs_listed_once("q: a\n[r:000001] T (s)\nq: b\n[r:000001]\n").is_ok());
        assert!(refs_listed_once("[r:000001] T (s)\n[r:000001] T (s)\n").is_err());
        assert!(previews_bounded(&format!("  > {}", "é".repeat(600))).is_ok());
        assert!(previews_bounded(&format!("  > {}", "é".repeat(601))).is_err());
        let text = "refs: unknown or expired: a, b (references last only while this server runs; search again)";
        assert!(lists_exactly(text, &["a".into(), "b".into()]).is_ok());
        assert!(lists_exactly(text, &["a".into()]).is_err());
        assert!(
            retrieved_exactly("abc", "abd")
                .unwrap_err()
                .contains("byte 2")
        );
    }
}
