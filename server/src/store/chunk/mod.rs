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

mod json;
mod lines;
mod markdown;

pub use lines::LineWindows;

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
        if text
            .lines()
            .take(2000)
            .any(|l| markdown::heading_level(l).is_some())
        {
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
        Format::Markdown => markdown::chunk_markdown(text, prefix, emit),
        Format::Json => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) => json::chunk_json(&value, prefix, emit),
            Err(_) => lines::chunk_lines(text, prefix, emit),
        },
        Format::Text => lines::chunk_lines(text, prefix, emit),
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

/// `prefix > title`, or whichever of the two is not empty.
fn titled(prefix: &str, title: &str) -> String {
    match (prefix.is_empty(), title.is_empty()) {
        (true, _) => title.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix} > {title}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

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
