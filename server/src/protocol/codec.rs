//! The line codec: splits a byte stream into newline-delimited frames.
//!
//! A line longer than the limit is never buffered whole: the reader keeps
//! discarding until the next newline and reports how long the line was, so a
//! 64 MiB line costs no memory and the next line is read normally.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// Largest accepted line, in bytes (16 MiB). Larger content is indexed by `path`.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One frame read off the stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The bytes of a line, without its `\n` (and without a trailing `\r`).
    Frame(Vec<u8>),
    /// A line that exceeded the limit; it was discarded. `bytes` is its length.
    TooLong { bytes: usize },
}

/// Reads newline-delimited frames with a maximum length.
///
/// Cancel-safe: the line being assembled lives in the reader, not in the
/// `next_line` future, so a `select!` that drops the future mid-line loses
/// nothing; the next call carries on where the last one stopped.
pub struct LineReader<R> {
    inner: R,
    max: usize,
    /// The line read so far (emptied once it passes `max`).
    line: Vec<u8>,
    /// Bytes of the current line seen so far, kept or not.
    seen: usize,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_LINE_BYTES)
    }

    pub fn with_limit(inner: R, max: usize) -> Self {
        Self {
            inner,
            max,
            line: Vec::new(),
            seen: 0,
        }
    }

    /// The next line, or `None` at end of stream. A final line without a
    /// newline is still returned.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                if self.seen == 0 {
                    return Ok(None);
                }
                break;
            }
            let (part, found) = match memchr_newline(buf) {
                Some(i) => (&buf[..i], Some(i)),
                None => (buf, None),
            };
            // Copy before consuming, with no await in between: a cancelled
            // call leaves every consumed byte accounted for in `self`.
            self.seen += part.len();
            if self.seen <= self.max {
                self.line.extend_from_slice(part);
            } else if !self.line.is_empty() {
                self.line = Vec::new();
            }
            match found {
                Some(i) => {
                    self.inner.consume(i + 1);
                    break;
                }
                None => {
                    let n = part.len();
                    self.inner.consume(n);
                }
            }
        }
        let seen = std::mem::take(&mut self.seen);
        let mut line = std::mem::take(&mut self.line);
        if seen > self.max {
            return Ok(Some(Line::TooLong { bytes: seen }));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Some(Line::Frame(line)))
    }
}

fn memchr_newline(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = LineReader::with_limit(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.unwrap() {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn splits_on_newlines_and_strips_carriage_returns() {
        let got = lines(b"a\r\nbc\n\nlast", 10).await;
        assert_eq!(
            got,
            vec![
                Line::Frame(b"a".to_vec()),
                Line::Frame(b"bc".to_vec()),
                Line::Frame(Vec::new()),
                Line::Frame(b"last".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn a_long_line_is_reported_and_the_next_line_survives() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        let got = lines(&input, 10).await;
        assert_eq!(
            got,
            vec![Line::TooLong { bytes: 50 }, Line::Frame(b"ok".to_vec())]
        );
    }

    #[tokio::test]
    async fn a_call_dropped_mid_line_loses_nothing() {
        // A reader that hands out one byte per poll, so a line spans many polls.
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut reader = LineReader::with_limit(tokio::io::BufReader::with_capacity(1, rx), 100);
        use tokio::io::AsyncWriteExt;
        tx.write_all(b"hello ").await.unwrap();
        // Start reading, then drop the call before the line is complete.
        let partial =
            tokio::time::timeout(std::time::Duration::from_millis(50), reader.next_line()).await;
        assert!(partial.is_err(), "the line is not complete yet");
        tx.write_all(b"world\nnext\n").await.unwrap();
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Line::Frame(b"hello world".to_vec()))
        );
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Line::Frame(b"next".to_vec()))
        );
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_accepted() {
        let got = lines(b"0123456789\n", 10).await;
        assert_eq!(got, vec![Line::Frame(b"0123456789".to_vec())]);
    }
}
