//! Plain text, logs and program output: windows of whole lines, streamed.

use super::{CHUNK_MAX, CHUNK_MAX_LINES, CHUNK_TARGET, Chunk, Emit, titled};

pub(super) fn chunk_lines<E: Emit>(text: &str, prefix: &str, emit: &mut E) -> Result<(), E::Error> {
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
