//! Chunking: text becomes small, titled chunks before it enters the index.
//!
//! - Markdown splits by heading, titles are breadcrumbs (`Guide > Install`),
//!   code fences stay whole when they fit.
//! - Plain text and logs split into windows of whole lines; a line longer than
//!   a chunk (a log without newlines) is split on a UTF-8 boundary. This
//!   chunker streams bytes, so program output of any size passes through it
//!   without being held in memory.
//! - JSON splits by key path (`$.servers[2]`).
//!
//! Markdown and text chunks are contiguous slices: concatenated in order they
//! give back the input byte for byte.

use serde_json::Value;

/// A chunk is cut once it reaches this size at a line end.
pub const CHUNK_TARGET: usize = 2048;
/// No chunk is larger than this.
pub const CHUNK_MAX: usize = 4096;
/// A line window holds at most this many lines.
pub const CHUNK_MAX_LINES: usize = 200;

/// How a text is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
    Text,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Json => "json",
            Format::Text => "text",
        }
    }

    /// Guesses the format of a text: JSON when it parses as an object or array,
    /// Markdown when it has ATX headings, else text.
    pub fn sniff(text: &str) -> Format {
        let start = text.trim_start();
        if (start.starts_with('{') || start.starts_with('['))
            && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
        {
            return Format::Json;
        }
        if text.lines().take(2000).any(|l| heading_level(l).is_some()) {
            return Format::Markdown;
        }
        Format::Text
    }

    /// The format a file name suggests, if any.
    pub fn from_extension(ext: &str) -> Option<Format> {
        match ext.to_ascii_lowercase().as_str() {
            "md" | "markdown" | "mdx" => Some(Format::Markdown),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// One chunk ready for the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub title: String,
    pub body: String,
}

/// Splits `text` in `format`, giving each chunk to `emit`. `prefix` (a file
/// path, say) starts every title.
pub fn chunk_text<E>(text: &str, format: Format, prefix: &str, emit: &mut E) -> Result<(), E::Error>
where
    E: Emit,
{
    match format {
        Format::Markdown => chunk_markdown(text, prefix, emit),
        Format::Json => match serde_json::from_str::<Value>(text) {
            Ok(value) => chunk_json(&value, prefix, emit),
            Err(_) => chunk_lines(text, prefix, emit),
        },
        Format::Text => chunk_lines(text, prefix, emit),
    }
}

/// Where chunks go.
pub trait Emit {
    type Error;
    fn emit(&mut self, chunk: Chunk) -> Result<(), Self::Error>;
}

impl Emit for Vec<Chunk> {
    type Error = std::convert::Infallible;
    fn emit(&mut self, chunk: Chunk) -> Result<(), Self::Error> {
        self.push(chunk);
        Ok(())
    }
}

fn titled(prefix: &str, title: &str) -> String {
    match (prefix.is_empty(), title.is_empty()) {
        (true, _) => title.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix} > {title}"),
    }
}

fn chunk_lines<E: Emit>(text: &str, prefix: &str, emit: &mut E) -> Result<(), E::Error> {
    let mut windows = LineWindows::new(prefix);
    windows.push(text.as_bytes(), emit)?;
    windows.finish(emit)
}

/// The streaming line-window chunker for plain text and program output.
#[derive(Debug)]
pub struct LineWindows {
    prefix: String,
    buf: Vec<u8>,
    /// Line number (1-based) where `buf` starts.
    first_line: usize,
    /// Complete lines in `buf`.
    lines: usize,
    /// `buf` starts in the middle of a line that an earlier chunk began.
    continues: bool,
}

impl LineWindows {
    pub fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_owned(),
            buf: Vec::with_capacity(CHUNK_MAX),
            first_line: 1,
            lines: 0,
            continues: false,
        }
    }

    /// Feeds bytes; whole chunks are emitted as soon as they are complete.
    pub fn push<E: Emit>(&mut self, mut data: &[u8], emit: &mut E) -> Result<(), E::Error> {
        while !data.is_empty() {
            let room = CHUNK_MAX - self.buf.len();
            let take = data.len().min(room);
            let piece = &data[..take];
            match piece.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.buf.extend_from_slice(&piece[..=i]);
                    self.lines += 1;
                    data = &data[i + 1..];
                    if self.buf.len() >= CHUNK_TARGET || self.lines >= CHUNK_MAX_LINES {
                        self.flush(self.buf.len(), emit)?;
                    }
                }
                None => {
                    self.buf.extend_from_slice(piece);
                    data = &data[take..];
                    if self.buf.len() == CHUNK_MAX {
                        self.split_full(emit)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The buffer is full without a final newline: cut after its last newline,
    /// or, for one long line, at the last UTF-8 boundary.
    fn split_full<E: Emit>(&mut self, emit: &mut E) -> Result<(), E::Error> {
        let at = match self.buf.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            None => utf8_floor(&self.buf),
        };
        self.flush(at, emit)
    }

    /// Emits `buf[..at]` as one chunk and keeps the rest.
    fn flush<E: Emit>(&mut self, at: usize, emit: &mut E) -> Result<(), E::Error> {
        if at == 0 {
            return Ok(());
        }
        let whole_lines = self.buf[..at].iter().filter(|&&b| b == b'\n').count();
        let ends_in_line = self.buf[at - 1] != b'\n';
        let touched = whole_lines + usize::from(ends_in_line);
        let last_line = self.first_line + touched.saturating_sub(1);
        let span = if last_line <= self.first_line {
            format!("line {}", self.first_line)
        } else {
            format!("lines {}-{}", self.first_line, last_line)
        };
        let span = if self.continues || ends_in_line {
            format!("{span} (part)")
        } else {
            span
        };
        let body = String::from_utf8_lossy(&self.buf[..at]).into_owned();
        emit.emit(Chunk {
            title: titled(&self.prefix, &span),
            body,
        })?;
        self.buf.drain(..at);
        self.first_line += whole_lines;
        self.lines -= whole_lines;
        self.continues = ends_in_line;
        Ok(())
    }

    /// Emits what is left.
    pub fn finish<E: Emit>(mut self, emit: &mut E) -> Result<(), E::Error> {
        let at = self.buf.len();
        self.flush(at, emit)
    }
}

/// Where to cut a full buffer so that it does not end inside a UTF-8 sequence:
/// before an incomplete last character, else at the end (invalid bytes are cut
/// anywhere, so progress is guaranteed).
fn utf8_floor(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let b = bytes[len - back];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue;
        }
        let width = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        return if width > back && back < len {
            len - back
        } else {
            len
        };
    }
    len
}

/// `Some(level)` when the line is an ATX heading.
fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) {
        let rest = &line[hashes..];
        if rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t') {
            return Some(hashes);
        }
    }
    None
}

fn fence_marker(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    if t.starts_with("```") {
        Some("```")
    } else if t.starts_with("~~~") {
        Some("~~~")
    } else {
        None
    }
}

/// A run of lines that should stay together: a fenced block or one plain line.
struct Unit {
    start: usize,
    end: usize,
}

fn chunk_markdown<E: Emit>(text: &str, prefix: &str, emit: &mut E) -> Result<(), E::Error> {
    // Split into sections at headings outside fences, keeping units (fences whole).
    let mut crumbs: Vec<(usize, String)> = Vec::new();
    let mut section_title = String::new();
    let mut units: Vec<Unit> = Vec::new();
    let mut fence: Option<(&'static str, usize)> = None;
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        if let Some((marker, fence_start)) = fence {
            if line.trim_start().starts_with(marker) {
                units.push(Unit {
                    start: fence_start,
                    end: pos,
                });
                fence = None;
            }
            continue;
        }
        if let Some(marker) = fence_marker(line) {
            fence = Some((marker, start));
            continue;
        }
        if let Some(level) = heading_level(line.trim_end_matches(['\n', '\r'])) {
            emit_section(text, &units, &titled(prefix, &section_title), emit)?;
            units.clear();
            let name = line[level..].trim().trim_end_matches('#').trim().to_owned();
            crumbs.retain(|(l, _)| *l < level);
            crumbs.push((level, name));
            section_title = crumbs
                .iter()
                .map(|(_, n)| n.as_str())
                .collect::<Vec<_>>()
                .join(" > ");
        }
        units.push(Unit { start, end: pos });
    }
    if let Some((_, fence_start)) = fence {
        // An unclosed fence runs to the end of the text.
        units.push(Unit {
            start: fence_start,
            end: text.len(),
        });
    }
    emit_section(text, &units, &titled(prefix, &section_title), emit)
}

/// Emits one section as one chunk, or as several that each stay under the maximum.
fn emit_section<E: Emit>(
    text: &str,
    units: &[Unit],
    title: &str,
    emit: &mut E,
) -> Result<(), E::Error> {
    let (Some(first), Some(last)) = (units.first(), units.last()) else {
        return Ok(());
    };
    if last.end - first.start <= CHUNK_MAX {
        return emit.emit(Chunk {
            title: title.to_owned(),
            body: text[first.start..last.end].to_owned(),
        });
    }
    let mut part = 1usize;
    let mut start = first.start;
    let mut end = first.start;
    let flush = |start: usize, end: usize, part: &mut usize, emit: &mut E| {
        if end <= start {
            return Ok(());
        }
        let name = format!("{title} ({part})");
        *part += 1;
        if end - start <= CHUNK_MAX {
            emit.emit(Chunk {
                title: name,
                body: text[start..end].to_owned(),
            })
        } else {
            // One unit larger than a chunk (a huge fence): split it by lines.
            let mut windows = LineWindows::new(&name);
            windows.push(&text.as_bytes()[start..end], emit)?;
            windows.finish(emit)
        }
    };
    for unit in units {
        if unit.end - start > CHUNK_MAX && end > start {
            flush(start, end, &mut part, emit)?;
            start = end;
        }
        end = unit.end;
        if end - start >= CHUNK_TARGET {
            flush(start, end, &mut part, emit)?;
            start = end;
        }
    }
    flush(start, end, &mut part, emit)
}

fn chunk_json<E: Emit>(value: &Value, prefix: &str, emit: &mut E) -> Result<(), E::Error> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(text: &str, format: Format) -> Vec<Chunk> {
        let mut out = Vec::new();
        chunk_text(text, format, "", &mut out).unwrap();
        out
    }

    fn concat(chunks: &[Chunk]) -> String {
        chunks.iter().map(|c| c.body.as_str()).collect()
    }

    #[test]
    fn sniffing_tells_json_markdown_and_text_apart() {
        assert_eq!(Format::sniff(r#"{"a": 1}"#), Format::Json);
        assert_eq!(Format::sniff("# Title\nbody"), Format::Markdown);
        assert_eq!(Format::sniff("{not json"), Format::Text);
        assert_eq!(Format::sniff("#hashtag only"), Format::Text);
    }

    #[test]
    fn markdown_sections_get_breadcrumb_titles() {
        let md = "intro\n# Guide\ntext\n## Install\nsteps\n### Linux\napt\n## Usage\nrun\n";
        let got = chunks(md, Format::Markdown);
        let titles: Vec<&str> = got.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "",
                "Guide",
                "Guide > Install",
                "Guide > Install > Linux",
                "Guide > Usage"
            ]
        );
        assert_eq!(concat(&got), md);
    }

    #[test]
    fn headings_inside_fences_do_not_split_and_fences_stay_whole() {
        let fence = format!("```sh\n# not a heading\n{}```\n", "echo hi\n".repeat(300));
        assert!(fence.len() < CHUNK_MAX);
        let md = format!(
            "# A\n{}\n{fence}{}",
            "word ".repeat(400),
            "tail\n".repeat(10)
        );
        let got = chunks(&md, Format::Markdown);
        assert!(got.iter().all(|c| c.title.starts_with('A')), "{got:?}");
        assert!(
            got.iter().any(|c| c.body.contains(&fence)),
            "fence was split"
        );
        assert!(got.iter().all(|c| c.body.len() <= CHUNK_MAX));
        assert_eq!(concat(&got), md);
    }

    #[test]
    fn a_long_line_without_newlines_becomes_many_chunks() {
        let log = "x".repeat(150 * 1024);
        let got = chunks(&log, Format::Text);
        assert!(got.len() >= 150 * 1024 / CHUNK_MAX);
        assert!(got.iter().all(|c| c.body.len() <= CHUNK_MAX));
        assert_eq!(concat(&got), log);
        assert_eq!(got[0].title, "line 1 (part)");
    }

    #[test]
    fn line_windows_never_split_a_character() {
        let text = "é🦀".repeat(20_000);
        let mut windows = LineWindows::new("");
        let mut out: Vec<Chunk> = Vec::new();
        // Feed in odd-sized pieces to cross character boundaries.
        for piece in text.as_bytes().chunks(777) {
            windows.push(piece, &mut out).unwrap();
        }
        windows.finish(&mut out).unwrap();
        assert!(out.iter().all(|c| !c.body.contains('\u{FFFD}')));
        assert_eq!(concat(&out), text);
    }

    #[test]
    fn line_windows_title_their_line_span() {
        let text: String = (1..=300).map(|i| format!("{i}\n")).collect();
        let got = chunks(&text, Format::Text);
        assert_eq!(got[0].title, "lines 1-200");
        assert_eq!(got[1].title, "lines 201-300");
        assert_eq!(concat(&got), text);
    }

    #[test]
    fn json_is_split_by_key_path() {
        let big: Vec<Value> = (0..200)
            .map(|i| serde_json::json!({"name": format!("server-{i}"), "port": 8000 + i}))
            .collect();
        let doc = serde_json::json!({"version": 1, "servers": big});
        let got = chunks(&doc.to_string(), Format::Json);
        assert!(got.len() > 1);
        assert!(got.iter().all(|c| c.body.len() <= CHUNK_MAX));
        assert!(
            got.iter().any(|c| c.title.starts_with("$.servers[0]")),
            "{:?}",
            got[0].title
        );
        assert!(got.iter().any(|c| c.body.contains("server-199")));
    }
}
