//! The fuzzy stage: when nothing matches, terms from the index vocabulary that
//! start like, contain, or nearly spell each query token.

use rusqlite::Connection;

use super::StoreError;
use super::query;

/// Fuzzy stage: at most this many vocabulary terms stand in for one query token.
const FUZZY_TERMS_PER_TOKEN: usize = 8;
/// Fuzzy stage: vocabulary terms read for substring matches (see `fuzzy_terms`).
const FUZZY_SCAN_LIMIT: i64 = 20_000;

/// Phrases for the fuzzy stage: each token as a prefix, plus vocabulary terms
/// that contain it or are within a small edit distance of it.
///
/// Reading the vocabulary costs time in proportion to the index, so it is
/// bounded: terms sharing the token's first character (typos that keep it,
/// and prefixes) are all examined; for substrings elsewhere, only the first
/// [`FUZZY_SCAN_LIMIT`] terms of the same kind (words or numbers) are, which
/// is the whole vocabulary of any small corpus.
pub(super) fn fuzzy_terms(db: &Connection, text: &str) -> Result<Vec<String>, StoreError> {
    let mut out = Vec::new();
    for token in query::tokens(text) {
        let chars = token.chars().count();
        // A prefix of one or two characters says almost nothing and, over a
        // large vocabulary, costs a merge of every term it starts.
        if chars < 3 {
            continue;
        }
        out.push(format!("\"{token}\" *"));
        let max_distance = if chars <= 5 { 1 } else { 2 };
        let Some(first) = token.chars().next() else {
            continue;
        };
        let after_first = char::from_u32(first as u32 + 1).unwrap_or(char::MAX);
        // A word is not a typo of a number, and numbers (ids, counters) fill
        // most of a log's vocabulary: scan only terms of the token's kind.
        let (low, high) = if first.is_ascii_digit() {
            ("0", ":")
        } else {
            ("a", "\u{10FFFF}")
        };
        let mut candidates: Vec<(usize, i64, String)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (from, to, limit) in [
            (first.to_string(), after_first.to_string(), i64::MAX),
            (low.to_owned(), high.to_owned(), FUZZY_SCAN_LIMIT),
        ] {
            let mut stmt = db.prepare_cached(
                "SELECT term, doc FROM
                   (SELECT term, doc FROM chunks_vocab WHERE term >= ?4 AND term < ?5 LIMIT ?6)
                 WHERE instr(term, ?1) > 0 OR length(term) BETWEEN ?2 AND ?3",
            )?;
            let rows = stmt.query_map(
                (
                    token.as_str(),
                    chars.saturating_sub(max_distance) as i64,
                    (chars + max_distance) as i64,
                    from.as_str(),
                    to.as_str(),
                    limit,
                ),
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
            )?;
            for row in rows {
                let (term, docs) = row?;
                if term == token || !seen.insert(term.clone()) {
                    continue;
                }
                let distance = if term.contains(&token) {
                    Some(0)
                } else {
                    query::within_distance(&token, &term, max_distance)
                };
                if let Some(d) = distance {
                    candidates.push((d, -docs, term));
                }
            }
        }
        candidates.sort();
        out.extend(
            candidates
                .into_iter()
                .take(FUZZY_TERMS_PER_TOKEN)
                .map(|(_, _, term)| format!("\"{term}\"")),
        );
    }
    Ok(out)
}
