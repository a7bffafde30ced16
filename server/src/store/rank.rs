//! Ranking: which chunk ids a query returns, best first, within a scope.
//!
//! Ranked ids come from the FTS table alone (about a microsecond per
//! matching chunk for BM25); titles and labels are joined for the few kept.
//! A source's chunks have contiguous ids, so a scope is a set of rowid ranges.

use rusqlite::Connection;

use super::StoreError;
use super::search::Scope;

/// Title weight against body in BM25.
const TITLE_WEIGHT: f64 = 4.0;
/// Up to this many matches are always ranked by BM25.
const RANKED_CANDIDATES: i64 = 4000;

/// One chunk as a search lists it.
pub(super) struct Row {
    pub chunk: i64,
    pub title: String,
    pub source: String,
    pub body: Option<String>,
}

/// The chunk-id ranges of a source (empty when it has no chunks).
fn source_span(db: &Connection, label: &str) -> Result<Vec<(i64, i64)>, StoreError> {
    db.prepare_cached("SELECT first_chunk, last_chunk FROM sources WHERE label = ?1")?
        .query_row([label], |r| {
            Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?))
        })
        .map(|span| match span {
            (Some(first), Some(last)) => vec![(first, last)],
            _ => Vec::new(),
        })
        .map_err(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => StoreError::UnknownSource(label.to_owned()),
            e => e.into(),
        })
}

/// An SQL condition on FTS rowids restricting matches to the scope (ids are
/// integers, so inlining them is safe).
pub(super) fn scope_filter(db: &Connection, scope: Scope<'_>) -> Result<String, StoreError> {
    let spans = match scope {
        Scope::All => return Ok(String::new()),
        Scope::Source(label) => source_span(db, label)?,
        Scope::Sources(labels) => {
            let mut spans = Vec::new();
            for label in labels {
                match source_span(db, label) {
                    Ok(s) => spans.extend(s),
                    Err(StoreError::UnknownSource(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            spans
        }
    };
    if spans.is_empty() {
        return Ok("AND 0".to_owned());
    }
    let ranges: Vec<String> = spans
        .iter()
        .map(|(first, last)| format!("rowid BETWEEN {first} AND {last}"))
        .collect();
    Ok(format!("AND ({})", ranges.join(" OR ")))
}

/// How many chunks match, counting no further than `cap`.
fn count_upto(db: &Connection, fts_query: &str, filter: &str, cap: i64) -> Result<i64, StoreError> {
    let sql = format!(
        "SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 {filter} LIMIT ?2)"
    );
    Ok(db
        .prepare_cached(&sql)?
        .query_row((fts_query, cap), |r| r.get(0))?)
}

/// The phrases, without the most common one when it occurs in at least
/// twice as many chunks as any other: on its own it says little.
pub(super) fn without_most_common(
    db: &Connection,
    phrases: &[String],
) -> Result<Vec<String>, StoreError> {
    let total: i64 = db
        .prepare_cached("SELECT coalesce(sum(chunks), 0) FROM sources")?
        .query_row([], |r| r.get(0))?;
    let mut counts = Vec::with_capacity(phrases.len());
    for phrase in phrases {
        counts.push(count_upto(db, phrase, "", total + 1)?);
    }
    let mut order: Vec<usize> = (0..phrases.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
    let dominant = match order.as_slice() {
        [first, second, ..] if counts[*first] >= 2 * counts[*second].max(1) => Some(*first),
        _ => None,
    };
    Ok(phrases
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != dominant)
        .map(|(_, p)| p.clone())
        .collect())
}

/// Whether any phrase occurs in at most half of all chunks, so that BM25
/// can tell chunks apart by it.
fn informative(db: &Connection, phrases: &[String]) -> Result<bool, StoreError> {
    let total: i64 = db
        .prepare_cached("SELECT coalesce(sum(chunks), 0) FROM sources")?
        .query_row([], |r| r.get(0))?;
    for phrase in phrases {
        if count_upto(db, phrase, "", total / 2 + 1)? <= total / 2 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The best `limit` chunk ids for an FTS query within `filter`.
pub(super) fn ranked_ids(
    db: &Connection,
    fts_query: &str,
    phrases: &[String],
    filter: &str,
    limit: usize,
) -> Result<Vec<i64>, StoreError> {
    let rank = count_upto(db, fts_query, filter, RANKED_CANDIDATES + 1)? <= RANKED_CANDIDATES
        || phrases.is_empty()
        || informative(db, phrases)?;
    let order = if rank {
        format!("bm25(chunks_fts, {TITLE_WEIGHT}, 1.0), rowid")
    } else {
        "rowid".to_owned()
    };
    let sql = format!(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 {filter} ORDER BY {order} LIMIT ?2"
    );
    let mut stmt = db.prepare_cached(&sql)?;
    let ids = stmt
        .query_map((fts_query, limit as i64), |r| r.get(0))?
        .collect::<Result<Vec<i64>, _>>()?;
    Ok(ids)
}

/// Titles, labels (and bodies) of `ids`, in the order given.
pub(super) fn rows_for(
    db: &Connection,
    ids: &[i64],
    with_body: bool,
) -> Result<Vec<Row>, StoreError> {
    let body = if with_body { "c.body" } else { "NULL" };
    let sql = format!(
        "SELECT c.title, s.label, {body} FROM chunks c JOIN sources s ON s.id = c.source_id WHERE c.id = ?1"
    );
    let mut stmt = db.prepare_cached(&sql)?;
    ids.iter()
        .map(|&id| {
            Ok(stmt.query_row([id], |r| {
                Ok(Row {
                    chunk: id,
                    title: r.get(0)?,
                    source: r.get(1)?,
                    body: r.get(2)?,
                })
            })?)
        })
        .collect()
}
