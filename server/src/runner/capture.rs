//! Bounded capture of one output stream.
//!
//! Bytes stay in memory up to [`SPILL_THRESHOLD`], then move to an unnamed
//! owner-only temporary file, so memory stays flat whatever a program prints.
//! The first and last [`EDGE_BYTES`] are always kept in memory for excerpts.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

/// Output beyond this many bytes goes to a temporary file.
pub const SPILL_THRESHOLD: usize = 1024 * 1024;
/// Bytes kept from each end for excerpts.
pub const EDGE_BYTES: usize = 64 * 1024;

/// Everything one stream printed.
#[derive(Debug, Default)]
pub struct Capture {
    /// Where a spill file goes (default: the system's temporary folder).
    spill_dir: Option<std::path::PathBuf>,
    memory: Vec<u8>,
    spill: Option<File>,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    newlines: u64,
    last_byte: Option<u8>,
    spill_error: Option<String>,
}

impl Capture {
    /// A capture whose spill file, if any, goes in `spill_dir`.
    pub fn new(spill_dir: &std::path::Path) -> Self {
        Self {
            spill_dir: Some(spill_dir.to_path_buf()),
            ..Self::default()
        }
    }

    pub fn push(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.total += data.len() as u64;
        self.newlines += data.iter().filter(|&&b| b == b'\n').count() as u64;
        self.last_byte = data.last().copied();
        if self.head.len() < EDGE_BYTES {
            let take = (EDGE_BYTES - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..take]);
        }
        self.tail
            .extend(&data[data.len().saturating_sub(EDGE_BYTES)..]);
        while self.tail.len() > EDGE_BYTES {
            self.tail.pop_front();
        }
        match &mut self.spill {
            Some(file) => {
                if let Err(e) = file.write_all(data) {
                    self.spill_error.get_or_insert(e.to_string());
                }
            }
            None if self.memory.len() + data.len() <= SPILL_THRESHOLD => {
                self.memory.extend_from_slice(data);
            }
            None => match self
                .spill_dir
                .as_deref()
                .map_or_else(tempfile::tempfile, tempfile::tempfile_in)
            {
                Ok(mut file) => {
                    let written = file
                        .write_all(&self.memory)
                        .and_then(|()| file.write_all(data));
                    if let Err(e) = written {
                        self.spill_error.get_or_insert(e.to_string());
                    }
                    self.memory = Vec::new();
                    self.spill = Some(file);
                }
                Err(e) => {
                    // Keep going in memory rather than lose output; report it.
                    self.spill_error
                        .get_or_insert(format!("cannot create a spill file: {e}"));
                    self.memory.extend_from_slice(data);
                }
            },
        }
    }

    pub fn bytes(&self) -> u64 {
        self.total
    }

    /// Lines, counting a last line without a newline.
    pub fn lines(&self) -> u64 {
        self.newlines + u64::from(self.last_byte.is_some_and(|b| b != b'\n'))
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// A spill failure, if any (the reply reports it: output may be incomplete).
    pub fn spill_error(&self) -> Option<&str> {
        self.spill_error.as_deref()
    }

    /// The whole output as text, when it is still in memory.
    pub fn text(&self) -> Option<String> {
        self.spill
            .is_none()
            .then(|| String::from_utf8_lossy(&self.memory).into_owned())
    }

    /// Text for an excerpt: the whole output when small, else the kept head and
    /// tail joined, with the number of bytes missing between them.
    pub fn edges(&self) -> (String, usize) {
        if let Some(text) = self.text()
            && text.len() <= 2 * EDGE_BYTES
        {
            return (text, 0);
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let hidden = self.total as usize - self.head.len() - tail.len();
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        text.push_str(&String::from_utf8_lossy(&tail));
        (text, hidden)
    }

    /// Feeds the whole output to `each`, in pieces, in order.
    pub fn for_each_piece(
        &mut self,
        mut each: impl FnMut(&[u8]) -> Result<(), crate::store::StoreError>,
    ) -> Result<(), crate::store::StoreError> {
        match &mut self.spill {
            None => each(&self.memory),
            Some(file) => {
                file.seek(SeekFrom::Start(0))?;
                let mut buf = vec![0u8; 256 * 1024];
                loop {
                    let n = file.read(&mut buf)?;
                    if n == 0 {
                        return Ok(());
                    }
                    each(&buf[..n])?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_stays_in_memory() {
        let mut c = Capture::default();
        c.push(b"a\nb");
        assert_eq!(c.text().as_deref(), Some("a\nb"));
        assert_eq!((c.bytes(), c.lines()), (3, 2));
    }

    #[test]
    fn large_output_spills_and_reads_back_whole() {
        let mut c = Capture::default();
        let piece: Vec<u8> = (0..10_000u32)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let mut expected = Vec::new();
        while expected.len() < 3 * SPILL_THRESHOLD {
            c.push(&piece);
            expected.extend_from_slice(&piece);
        }
        assert!(c.text().is_none(), "should have spilled");
        let mut got = Vec::new();
        c.for_each_piece(|p| {
            got.extend_from_slice(p);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, expected);
        let (edges, hidden) = c.edges();
        assert_eq!(edges.len() + hidden, expected.len());
        assert!(expected.starts_with(&edges.as_bytes()[..100]));
        assert!(expected.ends_with(&edges.as_bytes()[edges.len() - 100..]));
    }
}
