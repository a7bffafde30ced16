//! Search references: short, process-local names for chunks.
//!
//! A reference is `r:` and six random digits, drawn per process. Six digits
//! always tokenize the same way (two groups of three), so token counts do not
//! wobble between runs, and a reference from an earlier process almost surely
//! names nothing in this one: references expire with the process.

use std::collections::HashMap;

const SPACE: u32 = 1_000_000;

/// Chunk id ↔ reference number, both ways.
#[derive(Debug)]
pub struct RefTable {
    rng: fastrand::Rng,
    by_chunk: HashMap<i64, u32>,
    by_ref: HashMap<u32, i64>,
}

impl Default for RefTable {
    fn default() -> Self {
        Self::new(fastrand::Rng::new())
    }
}

impl RefTable {
    pub fn new(rng: fastrand::Rng) -> Self {
        Self {
            rng,
            by_chunk: HashMap::new(),
            by_ref: HashMap::new(),
        }
    }

    /// The reference of a chunk, assigned on first use and stable afterwards.
    pub fn name(&mut self, chunk: i64) -> String {
        if let Some(n) = self.by_chunk.get(&chunk) {
            return format_ref(*n);
        }
        // The table holds at most one entry per listed chunk; when it nears the
        // size of the space, a linear probe still finds a free number.
        let mut n = self.rng.u32(0..SPACE);
        while self.by_ref.contains_key(&n) {
            n = (n + 1) % SPACE;
        }
        self.by_chunk.insert(chunk, n);
        self.by_ref.insert(n, chunk);
        format_ref(n)
    }

    /// The chunk a reference names in this process.
    pub fn resolve(&self, reference: &str) -> Option<i64> {
        parse_ref(reference).and_then(|n| self.by_ref.get(&n).copied())
    }
}

fn format_ref(n: u32) -> String {
    format!("r:{n:06}")
}

/// Accepts `r:123456`, `[r:123456]` and `123456`.
fn parse_ref(reference: &str) -> Option<u32> {
    let t = reference.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(t);
    let digits = t.strip_prefix("r:").unwrap_or(t);
    if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_keeps_its_reference() {
        let mut t = RefTable::new(fastrand::Rng::with_seed(1));
        let a = t.name(10);
        assert_eq!(t.name(10), a);
        assert_ne!(t.name(11), a);
        assert_eq!(t.resolve(&a), Some(10));
        assert_eq!(t.resolve(&format!("[{a}]")), Some(10));
        assert_eq!(t.resolve(&a[2..]), Some(10));
    }

    #[test]
    fn malformed_and_unknown_references_resolve_to_nothing() {
        let t = RefTable::new(fastrand::Rng::with_seed(1));
        for bad in [
            "",
            "r:",
            "r:12345",
            "r:1234567",
            "r:abcdef",
            "s:123456",
            "r:000001",
        ] {
            assert_eq!(t.resolve(bad), None, "{bad}");
        }
    }

    #[test]
    fn references_are_six_digits() {
        let mut t = RefTable::new(fastrand::Rng::with_seed(7));
        for chunk in 0..1000 {
            let r = t.name(chunk);
            assert_eq!(r.len(), 8, "{r}");
            assert!(r[2..].bytes().all(|b| b.is_ascii_digit()));
        }
    }
}
