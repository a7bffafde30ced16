//! The script cache: programs of at least [`MIN_CODE_BYTES`] are kept under a
//! short SHA-256-derived reference so a later call can send `script_ref`
//! instead of the code. Process-local (never on disk), at most [`CAPACITY`]
//! entries, oldest inserted evicted first.

use std::collections::{HashMap, VecDeque};

use sha2::{Digest, Sha256};

use crate::runner::Language;

pub const CAPACITY: usize = 64;
pub const MIN_CODE_BYTES: usize = 256;
/// Hex characters of the digest used as the reference.
const REF_HEX: usize = 10;

/// A cached program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub language: Language,
    pub code: String,
}

#[derive(Debug, Default)]
pub struct ScriptCache {
    entries: HashMap<String, Script>,
    /// Insertion order, oldest first.
    order: VecDeque<String>,
}

/// `s:` and the first hex digits of SHA-256 over the language and the code.
pub fn reference(language: Language, code: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(language.name().as_bytes());
    hasher.update([0u8]);
    hasher.update(code.as_bytes());
    let digest = hasher.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("s:{}", &hex[..REF_HEX])
}

/// Accepts `s:abc`, `[s:abc]` and `abc`; returns `s:abc`.
fn normalize(reference: &str) -> String {
    let t = reference.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(t);
    let hex = t.strip_prefix("s:").unwrap_or(t);
    format!("s:{}", hex.to_ascii_lowercase())
}

impl ScriptCache {
    /// Caches a program; `Some(reference)` when this call put it in the cache
    /// (too short or already cached: `None`).
    pub fn insert(&mut self, language: Language, code: &str) -> Option<String> {
        if code.len() < MIN_CODE_BYTES {
            return None;
        }
        let key = reference(language, code);
        if self.entries.contains_key(&key) {
            return None;
        }
        if self.order.len() == CAPACITY
            && let Some(oldest) = self.order.pop_front()
        {
            self.entries.remove(&oldest);
        }
        self.entries.insert(
            key.clone(),
            Script {
                language,
                code: code.to_owned(),
            },
        );
        self.order.push_back(key.clone());
        Some(key)
    }

    pub fn get(&self, reference: &str) -> Option<&Script> {
        self.entries.get(&normalize(reference))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(i: usize) -> String {
        format!("echo {i}\n{}", "# padding\n".repeat(30))
    }

    #[test]
    fn short_programs_are_not_cached() {
        let mut c = ScriptCache::default();
        assert_eq!(c.insert(Language::Shell, "echo hi"), None);
        assert!(c.is_empty());
    }

    #[test]
    fn a_reference_is_returned_once_and_resolves() {
        let mut c = ScriptCache::default();
        let code = program(1);
        let r = c.insert(Language::Shell, &code).unwrap();
        assert_eq!(r.len(), 2 + REF_HEX);
        assert_eq!(c.insert(Language::Shell, &code), None);
        assert_eq!(c.get(&r).unwrap().code, code);
        assert_eq!(c.get(&format!("[{r}]")).unwrap().code, code);
        assert!(c.get("s:0000000000").is_none());
    }

    #[test]
    fn the_language_is_part_of_the_reference() {
        let code = program(1);
        assert_ne!(
            reference(Language::Shell, &code),
            reference(Language::Perl, &code)
        );
    }

    #[test]
    fn the_oldest_insert_is_evicted_first() {
        let mut c = ScriptCache::default();
        let refs: Vec<String> = (0..=CAPACITY)
            .map(|i| c.insert(Language::Shell, &program(i)).unwrap())
            .collect();
        assert_eq!(c.len(), CAPACITY);
        assert!(c.get(&refs[0]).is_none());
        assert!(refs[1..].iter().all(|r| c.get(r).is_some()));
    }
}
