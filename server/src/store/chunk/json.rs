//! JSON: pretty-printed and split by key path (`$.servers[2]`).

use serde_json::Value;

use super::lines::chunk_lines;
use super::{CHUNK_MAX, CHUNK_TARGET, Chunk, Emit, titled};

pub(super) fn chunk_json<E: Emit>(
    value: &Value,
    prefix: &str,
    emit: &mut E,
) -> Result<(), E::Error> {
    walk_json(value, "$", prefix, emit)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A writer that refuses to grow past `limit` bytes.
struct Bounded {
    buf: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.limit {
            return Err(std::io::Error::other("over the limit"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `value` pretty-printed, if that takes at most `limit` bytes. Stops writing
/// as soon as it would not fit, so a huge value costs no more than `limit`.
fn pretty_within(value: &Value, limit: usize) -> Option<String> {
    let mut out = Bounded {
        buf: Vec::new(),
        limit,
    };
    serde_json::to_writer_pretty(&mut out, value).ok()?;
    String::from_utf8(out.buf).ok()
}

fn walk_json<E: Emit>(
    value: &Value,
    path: &str,
    prefix: &str,
    emit: &mut E,
) -> Result<(), E::Error> {
    if let Some(whole) = pretty_within(value, CHUNK_MAX) {
        return emit.emit(Chunk {
            title: titled(prefix, path),
            body: whole,
        });
    }
    let children: Vec<(String, String, &Value)> = match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (json_key_path(path, k), format!("{}: ", quote(k)), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("{path}[{i}]"), String::new(), v))
            .collect(),
        // A huge string or number: split its text.
        _ => return chunk_lines(&pretty(value), &titled(prefix, path), emit),
    };
    // Group small siblings; descend into big ones.
    let mut group = String::new();
    let mut group_first: Option<String> = None;
    let mut group_last = String::new();
    let flush_group = |group: &mut String,
                       first: &mut Option<String>,
                       last: &str,
                       emit: &mut E|
     -> Result<(), E::Error> {
        if let Some(first) = first.take() {
            let title = if first == last {
                first
            } else {
                format!("{first} .. {last}")
            };
            emit.emit(Chunk {
                title: titled(prefix, &title),
                body: std::mem::take(group),
            })?;
        }
        Ok(())
    };
    for (child_path, label, child) in children {
        let Some(text) = pretty_within(child, CHUNK_MAX.saturating_sub(label.len() + 1)) else {
            flush_group(&mut group, &mut group_first, &group_last, emit)?;
            walk_json(child, &child_path, prefix, emit)?;
            continue;
        };
        let body = format!("{label}{text}\n");
        if group.len() + body.len() > CHUNK_TARGET {
            flush_group(&mut group, &mut group_first, &group_last, emit)?;
        }
        if group_first.is_none() {
            group_first = Some(child_path.clone());
        }
        group_last = child_path;
        group.push_str(&body);
    }
    flush_group(&mut group, &mut group_first, &group_last, emit)
}

fn json_key_path(path: &str, key: &str) -> String {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", quote(key))
    }
}

fn quote(key: &str) -> String {
    serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""))
}
