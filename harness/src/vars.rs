//! Scenario variables: `${name}` in arguments, raw lines and expectations is
//! replaced by a captured or built-in value. An unknown name is an error;
//! `$${` writes a literal `${` (for shell code such as `$${FILE:-x}`).

use std::collections::BTreeMap;

use anyhow::bail;
use serde_json::Value;

/// Captured and built-in values.
#[derive(Debug, Default, Clone)]
pub struct Vars {
    values: BTreeMap<String, String>,
}

impl Vars {
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.values.insert(name.into(), value.into());
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Replaces every `${name}` in `text`.
    pub fn expand(&self, text: &str) -> anyhow::Result<String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            if rest[..start].ends_with('$') {
                out.push_str(&rest[..start]);
                out.push('{');
                rest = &rest[start + 2..];
                continue;
            }
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                bail!("unclosed ${{ in {text:?}");
            };
            let name = &after[..end];
            match self.values.get(name) {
                Some(value) => out.push_str(value),
                None => bail!("unknown variable ${{{name}}} (not captured by an earlier step)"),
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Expands every string inside a JSON value.
    pub fn expand_value(&self, value: &Value) -> anyhow::Result<Value> {
        Ok(match value {
            Value::String(s) => Value::String(self.expand(s)?),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.expand_value(v))
                    .collect::<anyhow::Result<_>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.expand_value(v)?)))
                    .collect::<anyhow::Result<_>>()?,
            ),
            other => other.clone(),
        })
    }

    /// Captures from `text` into `name`: the first group of `pattern`'s first
    /// match, or the whole match when it has no group. `Ok(false)`: no match.
    pub fn capture(&mut self, name: &str, pattern: &str, text: &str) -> anyhow::Result<bool> {
        let re = regex::Regex::new(pattern)?;
        let Some(caps) = re.captures(text) else {
            return Ok(false);
        };
        let value = caps
            .get(1)
            .or_else(|| caps.get(0))
            .map_or("", |m| m.as_str());
        self.set(name, value);
        Ok(true)
    }

    pub fn expand_all(&self, texts: &[String]) -> anyhow::Result<Vec<String>> {
        texts.iter().map(|t| self.expand(t)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn variables_expand_in_text_and_json() {
        let mut v = Vars::default();
        v.set("ref", "r:123456");
        assert_eq!(v.expand("get ${ref} now").unwrap(), "get r:123456 now");
        assert_eq!(
            v.expand_value(&json!({"refs": ["${ref}"], "n": 1}))
                .unwrap(),
            json!({"refs": ["r:123456"], "n": 1})
        );
        assert_eq!(
            v.expand("no vars, $ and {} alone").unwrap(),
            "no vars, $ and {} alone"
        );
        assert_eq!(
            v.expand("wc < $${FILE:-/dev/null}").unwrap(),
            "wc < ${FILE:-/dev/null}"
        );
    }

    #[test]
    fn captures_take_the_first_group_or_the_whole_match() {
        let mut v = Vars::default();
        assert!(v.capture("r", r"\[(r:\d+)\]", "x [r:12] [r:34]").unwrap());
        assert_eq!(v.get("r"), Some("r:12"));
        assert!(v.capture("w", r"r:\d+", "x r:56").unwrap());
        assert_eq!(v.get("w"), Some("r:56"));
        assert!(!v.capture("n", "zzz", "abc").unwrap());
        assert!(v.capture("bad", "(", "abc").is_err());
    }

    #[test]
    fn unknown_and_unclosed_variables_are_errors() {
        let v = Vars::default();
        assert!(
            v.expand("${nope}")
                .unwrap_err()
                .to_string()
                .contains("unknown variable ${nope}")
        );
        assert!(v.expand("${open").is_err());
    }
}
