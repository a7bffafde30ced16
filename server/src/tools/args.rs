//! Reading tool arguments: typed accessors whose errors name the field.
//! Unknown fields are refused, so a misspelt name (`query` for `queries`) is
//! reported instead of silently ignored.

use std::ops::RangeInclusive;

use serde_json::{Map, Value};

use crate::budget::ByteBudget;
use crate::error::ArgError;

/// The arguments object of one call.
pub struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Checks that every field is one of `known`.
    pub fn new(map: &'a Map<String, Value>, known: &[&str]) -> Result<Self, ArgError> {
        if let Some(unknown) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(ArgError::new(
                unknown.as_str(),
                format!("unknown field; expected one of {}", known.join(", ")),
            ));
        }
        Ok(Self { map })
    }

    fn get(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    pub fn has(&self, field: &str) -> bool {
        self.get(field).is_some()
    }

    pub fn str(&self, field: &str) -> Result<Option<&'a str>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(wrong_type(field, "a string", other)),
        }
    }

    pub fn required_str(&self, field: &str) -> Result<&'a str, ArgError> {
        self.str(field)?
            .ok_or_else(|| ArgError::new(field, "missing required string"))
    }

    /// A string that must not be blank when present.
    pub fn non_empty_str(&self, field: &str) -> Result<Option<&'a str>, ArgError> {
        match self.str(field)? {
            Some(s) if s.trim().is_empty() => Err(ArgError::new(field, "must not be empty")),
            other => Ok(other),
        }
    }

    pub fn bool(&self, field: &str) -> Result<Option<bool>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(wrong_type(field, "a boolean", other)),
        }
    }

    /// An integer within `range`.
    pub fn int_in(&self, field: &str, range: RangeInclusive<u64>) -> Result<Option<u64>, ArgError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        match value.as_u64() {
            Some(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(ArgError::new(
                field,
                format!(
                    "must be an integer in {}..={}, got {}",
                    range.start(),
                    range.end(),
                    shown(value)
                ),
            )),
        }
    }

    /// The effective reply budget from `max_bytes` and the tool's cap.
    pub fn max_bytes(&self, cap: ByteBudget) -> Result<ByteBudget, ArgError> {
        let field = "max_bytes";
        match self.get(field) {
            None => Ok(cap),
            Some(value) => {
                let n = value.as_u64();
                ByteBudget::effective(n.or(Some(0)), cap).map_err(|_| {
                    ArgError::new(
                        field,
                        format!(
                            "must be an integer in 256..={}, got {}",
                            cap.bytes(),
                            shown(value)
                        ),
                    )
                })
            }
        }
    }

    /// A list of strings.
    pub fn str_list(&self, field: &str) -> Result<Option<Vec<String>>, ArgError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let Value::Array(items) = value else {
            return Err(wrong_type(field, "an array of strings", value));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(wrong_type(&format!("{field}[{i}]"), "a string", other)),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// A list of objects, each read by `read`.
    pub fn object_list<T>(
        &self,
        field: &str,
        mut read: impl FnMut(&str, Args<'a>) -> Result<T, ArgError>,
        known: &[&str],
    ) -> Result<Option<Vec<T>>, ArgError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let Value::Array(items) = value else {
            return Err(wrong_type(field, "an array of objects", value));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let path = format!("{field}[{i}]");
                match item {
                    Value::Object(map) => {
                        let args = Args::new(map, known)
                            .map_err(|e| ArgError::new(format!("{path}.{}", e.field), e.problem))?;
                        read(&path, args)
                    }
                    other => Err(wrong_type(&path, "an object", other)),
                }
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

fn wrong_type(field: &str, expected: &str, got: &Value) -> ArgError {
    ArgError::new(field, format!("must be {expected}, got {}", kind(got)))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value as shown in an error: numbers and short strings as is, others by kind.
fn shown(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.len() <= 20 => format!("{s:?}"),
        other => kind(other).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn unknown_fields_are_named() {
        let m = map(json!({"query": "x"}));
        let err = Args::new(&m, &["queries"]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "query: unknown field; expected one of queries"
        );
    }

    #[test]
    fn max_bytes_must_be_an_integer_in_range() {
        let cap = ByteBudget::cap(8192);
        for bad in [json!(255), json!(8193), json!(1.5), json!("512"), json!(-1)] {
            let m = map(json!({ "max_bytes": bad }));
            let err = Args::new(&m, &["max_bytes"])
                .unwrap()
                .max_bytes(cap)
                .unwrap_err();
            assert_eq!(err.field, "max_bytes", "{bad}");
            assert!(
                err.problem.starts_with("must be an integer in 256..=8192"),
                "{err}"
            );
        }
        let m = map(json!({"max_bytes": 300}));
        let ok = Args::new(&m, &["max_bytes"])
            .unwrap()
            .max_bytes(cap)
            .unwrap();
        assert_eq!(ok.bytes(), 300);
    }

    #[test]
    fn list_items_are_checked_one_by_one() {
        let m = map(json!({"queries": ["a", 3]}));
        let err = Args::new(&m, &["queries"])
            .unwrap()
            .str_list("queries")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "queries[1]: must be a string, got a number"
        );
    }

    #[test]
    fn null_counts_as_absent() {
        let m = map(json!({"source": null}));
        assert_eq!(
            Args::new(&m, &["source"]).unwrap().str("source").unwrap(),
            None
        );
    }
}
