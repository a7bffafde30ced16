//! Markdown: sections by heading with breadcrumb titles; code fences whole.

use super::lines::LineWindows;
use super::{CHUNK_MAX, CHUNK_TARGET, Chunk, Emit, titled};

/// `Some(level)` when the line is an ATX heading.
pub(super) fn heading_level(line: &str) -> Option<usize> {
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

pub(super) fn chunk_markdown<E: Emit>(
    text: &str,
    prefix: &str,
    emit: &mut E,
) -> Result<(), E::Error> {
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
