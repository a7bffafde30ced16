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
pub struct LineReader<R> {
    inner: R,
    max: usize,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_LINE_BYTES)
    }

    pub fn with_limit(inner: R, max: usize) -> Self {
        Self { inner, max }
    }

    /// The next line, or `None` at end of stream. A final line without a
    /// newline is still returned.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut seen = 0usize;
        let mut too_long = false;
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                if seen == 0 {
                    return Ok(None);
                }
                break;
            }
            let (part, found) = match memchr_newline(buf) {
                Some(i) => (&buf[..i], Some(i)),
                None => (buf, None),
            };
            seen += part.len();
            if !too_long {
                if seen > self.max {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(part);
                }
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
        if too_long {
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
    async fn a_line_of_exactly_the_limit_is_accepted() {
        let got = lines(b"0123456789\n", 10).await;
        assert_eq!(got, vec![Line::Frame(b"0123456789".to_vec())]);
    }
}
