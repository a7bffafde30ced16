//! `index`: text, a file, or a directory into the store under a source label.
//! The reply is one summary line, never content.

use std::path::Path;

use crate::budget::Reply;
use crate::context::Context;
use crate::error::{ArgError, ToolError};
use crate::paths;
use crate::store::chunk::{self, Format};
use crate::store::{IndexSummary, Store, StoreError};

use super::args::Args;
use super::{Outcome, blocking};

/// Files larger than this are skipped (and named in the summary).
pub const MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;
/// A directory stops being read past this many bytes in all.
pub const MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
/// A directory stops being read past this many files.
pub const MAX_FILES: usize = 100_000;

#[derive(Debug)]
pub struct IndexArgs {
    input: Input,
    source: Option<String>,
}

#[derive(Debug)]
enum Input {
    Content(String),
    Path(String),
}

impl IndexArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        let content = args.str("content")?;
        let path = args.non_empty_str("path")?;
        let input = match (content, path) {
            (Some(_), Some(_)) => {
                return Err(ArgError::new(
                    "path",
                    "send either content or path, not both",
                ));
            }
            (Some(c), None) => Input::Content(c.to_owned()),
            (None, Some(p)) => Input::Path(p.to_owned()),
            (None, None) => return Err(ArgError::new("content", "send content or path")),
        };
        Ok(Self {
            input,
            source: args.non_empty_str("source")?.map(str::to_owned),
        })
    }
}

pub async fn run(ctx: &Context, args: IndexArgs) -> Result<Outcome, ToolError> {
    let store = ctx.store.clone();
    let line = match args.input {
        Input::Content(text) => {
            blocking(move || {
                let label = match args.source {
                    Some(label) => label,
                    None => store.unique_label("text-")?,
                };
                let format = Format::sniff(&text);
                let summary = store.index_text(&label, &text, format)?;
                Ok(summary_line(&summary, format.name(), None))
            })
            .await?
        }
        Input::Path(raw) => {
            let path = paths::resolve(&ctx.config, &raw, "path")?;
            let label = args.source.unwrap_or_else(|| raw.clone());
            blocking(move || index_path(&store, &label, &path, &raw)).await?
        }
    };
    let mut reply = Reply::new();
    reply.text(line);
    Ok(Outcome::ok(reply))
}

/// What a directory walk left out.
#[derive(Debug, Default)]
struct Skipped {
    binary: usize,
    too_large: usize,
    unreadable: usize,
    /// The walk stopped at a total cap.
    truncated: bool,
}

fn index_path(store: &Store, label: &str, path: &Path, shown: &str) -> Result<String, ToolError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| ToolError::failed(format!("path: cannot read {shown}: {e}")))?;
    if meta.is_file() {
        if meta.len() > MAX_FILE_BYTES {
            return Err(ToolError::failed(format!(
                "path: {shown} is {} bytes, over the {MAX_FILE_BYTES}-byte file limit",
                meta.len()
            )));
        }
        let text = read_text(path)
            .map_err(|e| ToolError::failed(format!("path: cannot read {shown}: {e}")))?
            .ok_or_else(|| ToolError::failed(format!("path: {shown} is not a text file")))?;
        let format = format_of(path, &text);
        let summary = store.index_text(label, &text, format)?;
        return Ok(summary_line(&summary, format.name(), None));
    }
    let mut files = 0usize;
    let mut skipped = Skipped::default();
    let summary = store.index(label, "directory", |sink| {
        let mut total = 0u64;
        let walker = ignore::WalkBuilder::new(path)
            .standard_filters(true)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walker {
            let Ok(entry) = entry else {
                skipped.unreadable += 1;
                continue;
            };
            // Symlinks are not followed: they could lead outside the boundary.
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            if size > MAX_FILE_BYTES {
                skipped.too_large += 1;
                continue;
            }
            if total + size > MAX_TOTAL_BYTES || files >= MAX_FILES {
                skipped.truncated = true;
                break;
            }
            let text = match read_text(entry.path()) {
                Ok(Some(text)) => text,
                Ok(None) => {
                    skipped.binary += 1;
                    continue;
                }
                Err(_) => {
                    skipped.unreadable += 1;
                    continue;
                }
            };
            let rel = entry.path().strip_prefix(path).unwrap_or(entry.path());
            let prefix = rel.to_string_lossy();
            chunk::chunk_text(&text, format_of(entry.path(), &text), &prefix, sink)?;
            total += size;
            files += 1;
        }
        Ok::<(), StoreError>(())
    })?;
    let mut extra = format!("{files} files");
    let skipped_total = skipped.binary + skipped.too_large + skipped.unreadable;
    if skipped_total > 0 {
        extra.push_str(&format!(
            "; skipped {skipped_total}: {} binary, {} too large, {} unreadable",
            skipped.binary, skipped.too_large, skipped.unreadable
        ));
    }
    if skipped.truncated {
        extra.push_str(&format!(
            "; stopped at the {MAX_FILES}-file / {MAX_TOTAL_BYTES}-byte limit"
        ));
    }
    Ok(summary_line(&summary, "directory", Some(&extra)))
}

fn format_of(path: &Path, text: &str) -> Format {
    path.extension()
        .and_then(|e| e.to_str())
        .and_then(Format::from_extension)
        .unwrap_or_else(|| Format::sniff(text))
}

/// The file as text, or `None` when it looks binary (a NUL byte, or not UTF-8).
fn read_text(path: &Path) -> std::io::Result<Option<String>> {
    let bytes = std::fs::read(path)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Ok(None);
    }
    Ok(String::from_utf8(bytes).ok())
}

fn summary_line(summary: &IndexSummary, kind: &str, extra: Option<&str>) -> String {
    let mut line = format!(
        "indexed {:?}: {} chunks, {} B, {kind}",
        summary.label, summary.chunks, summary.bytes
    );
    if let Some(extra) = extra {
        line.push_str(&format!(" ({extra})"));
    }
    if summary.replaced > 0 {
        line.push_str(&format!("; replaced {} chunks", summary.replaced));
    }
    line
}
