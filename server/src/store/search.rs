//! Reading the store: ranked search, source listings, and chunks by reference.
//!
//! Ranking is BM25 with titles weighted 4:1. A query runs in stages and stops
//! at the first that finds anything: chunks matching every term, then (to fill
//! the limit) chunks matching any term, and only when both find nothing, a
//! fuzzy stage built from the index vocabulary (prefixes, substrings, typos).
//!
//! Ranking costs about a microsecond per matching chunk, so a query whose
//! terms occur in more than half of all chunks (where BM25's inverse document
//! frequency is clamped to almost zero and ranks nothing) is answered in chunk
//! order instead of by scoring tens of thousands of chunks. Ranked ids come
//! from the FTS table alone; titles and labels are joined for the few kept.

use rusqlite::Connection;

use super::fuzzy::fuzzy_terms;
use super::query::{self, phrases};
use super::rank::{Row, ranked_ids, rows_for, scope_filter, without_most_common};
use super::{Store, StoreError};

/// Words that mark a chunk of program output as an error.
const ERROR_WORDS: &str = "error OR errors OR exception OR traceback OR panic OR panicked OR fatal OR failed OR failure OR segmentation OR abort OR aborted";

/// Which sources a search looks at.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    All,
    Source(&'a str),
    Sources(&'a [String]),
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub chunk: i64,
    pub reference: String,
    pub title: String,
    pub source: String,
    /// The chunk text, when asked for (previews).
    pub body: Option<String>,
}

/// The results of one query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryHits {
    pub hits: Vec<Hit>,
    /// The query had no searchable term (only punctuation).
    pub unsearchable: bool,
    /// Found only by the fuzzy stage.
    pub fuzzy: bool,
}

/// A chunk fetched by reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkText {
    pub reference: String,
    pub title: String,
    pub source: String,
    pub body: String,
}

impl Store {
    /// Ranked search for one query.
    pub fn search(
        &self,
        text: &str,
        scope: Scope<'_>,
        limit: usize,
        with_body: bool,
    ) -> Result<QueryHits, StoreError> {
        let phrases = phrases(text);
        if phrases.is_empty() {
            return Ok(QueryHits {
                unsearchable: true,
                ..QueryHits::default()
            });
        }
        let rows = self.with_reader(|db| {
            let filter = scope_filter(db, scope)?;
            let mut ids = ranked_ids(db, &query::all_of(&phrases), &phrases, &filter, limit)?;
            if phrases.len() > 1 && ids.len() < limit {
                // Fill with chunks matching some of the terms, but not with
                // chunks matching only a term far more common than the rest.
                let rarer = without_most_common(db, &phrases)?;
                let more = ranked_ids(
                    db,
                    &query::any_of(&rarer),
                    &rarer,
                    &filter,
                    limit + ids.len(),
                )?;
                for id in more {
                    if ids.len() == limit {
                        break;
                    }
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
            if !ids.is_empty() {
                return Ok((rows_for(db, &ids, with_body)?, false));
            }
            let expanded = fuzzy_terms(db, text)?;
            if expanded.is_empty() {
                return Ok((Vec::new(), false));
            }
            let ids = ranked_ids(db, &query::any_of(&expanded), &expanded, &filter, limit)?;
            Ok((rows_for(db, &ids, with_body)?, !ids.is_empty()))
        })?;
        let (rows, fuzzy) = rows;
        Ok(QueryHits {
            hits: self.name_rows(rows),
            unsearchable: false,
            fuzzy,
        })
    }

    /// The chunks of one source in order: `(hits, total chunks)`.
    pub fn list(
        &self,
        label: &str,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<Hit>, usize), StoreError> {
        let (rows, total) = self.with_reader(|db| {
            let (id, total) = source_id(db, label)?;
            let mut stmt = db.prepare_cached(
                "SELECT id, title FROM chunks WHERE source_id = ?1 ORDER BY seq LIMIT ?2 OFFSET ?3",
            )?;
            let rows = stmt
                .query_map((id, limit as i64, offset as i64), |r| {
                    Ok(Row {
                        chunk: r.get(0)?,
                        title: r.get(1)?,
                        source: label.to_owned(),
                        body: None,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok((rows, total))
        })?;
        Ok((self.name_rows(rows), total))
    }

    /// References to the chunks of a source that look like errors, best first.
    pub fn error_hits(&self, label: &str, limit: usize) -> Result<Vec<Hit>, StoreError> {
        let rows = self.with_reader(|db| {
            let filter = scope_filter(db, Scope::Source(label))?;
            // Error words are rare enough that ranking them is always cheap.
            let ids = ranked_ids(db, ERROR_WORDS, &[], &filter, limit)?;
            rows_for(db, &ids, false)
        })?;
        Ok(self.name_rows(rows))
    }

    /// The exact chunks named by `refs`, in the order given. Any reference that
    /// names nothing (unknown, malformed, expired, or replaced) fails the whole
    /// call with the list of exactly those references.
    pub fn fetch(
        &self,
        refs: &[String],
    ) -> Result<Result<Vec<ChunkText>, Vec<String>>, StoreError> {
        let ids: Vec<Option<i64>> = {
            let table = self.refs();
            refs.iter().map(|r| table.resolve(r)).collect()
        };
        let found = self.with_reader(|db| {
            let mut stmt = db.prepare_cached(
                "SELECT c.title, s.label, c.body FROM chunks c JOIN sources s ON s.id = c.source_id
                 WHERE c.id = ?1",
            )?;
            let mut out = Vec::with_capacity(ids.len());
            for id in &ids {
                let row = match id {
                    Some(id) => stmt
                        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                        .map(Some)
                        .or_else(|e| match e {
                            rusqlite::Error::QueryReturnedNoRows => Ok(None),
                            e => Err(e),
                        })?,
                    None => None,
                };
                out.push(row);
            }
            Ok(out)
        })?;
        let invalid: Vec<String> = refs
            .iter()
            .zip(&found)
            .filter(|(_, row)| row.is_none())
            .map(|(r, _)| r.clone())
            .collect();
        if !invalid.is_empty() {
            return Ok(Err(invalid));
        }
        Ok(Ok(refs
            .iter()
            .zip(found)
            .filter_map(|(r, row)| {
                row.map(|(title, source, body)| ChunkText {
                    reference: canonical_ref(r),
                    title,
                    source,
                    body,
                })
            })
            .collect()))
    }

    fn name_rows(&self, rows: Vec<Row>) -> Vec<Hit> {
        let mut table = self.refs();
        rows.into_iter()
            .map(|row| Hit {
                reference: table.name(row.chunk),
                chunk: row.chunk,
                title: row.title,
                source: row.source,
                body: row.body,
            })
            .collect()
    }
}

/// `r:123456` whatever form the caller used (`[r:123456]`, `123456`).
fn canonical_ref(r: &str) -> String {
    let digits: String = r.chars().filter(char::is_ascii_digit).collect();
    format!("r:{digits}")
}

fn source_id(db: &Connection, label: &str) -> Result<(i64, usize), StoreError> {
    db.prepare_cached("SELECT id, chunks FROM sources WHERE label = ?1")?
        .query_row([label], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)? as usize))
        })
        .map_err(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => StoreError::UnknownSource(label.to_owned()),
            e => e.into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;
    use crate::store::chunk::Format;

    fn store() -> Store {
        Store::open(&StoreConfig::default()).unwrap()
    }

    #[test]
    fn the_section_matching_every_term_ranks_first() {
        let s = store();
        let md =
            "# Alpha\nalpha words only\n# Beta\nbeta words only\n# Both\nalpha and beta together\n";
        s.index_text("doc", md, Format::Markdown).unwrap();
        let got = s.search("alpha beta", Scope::All, 10, false).unwrap();
        let titles: Vec<&str> = got.hits.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles[0], "Both");
        assert_eq!(titles.len(), 3);
    }

    #[test]
    fn titles_outweigh_bodies() {
        let s = store();
        let md = "# Other\nmentions deploy once\n# Deploy\nsteps here\n";
        s.index_text("doc", md, Format::Markdown).unwrap();
        let got = s.search("deploy", Scope::All, 10, false).unwrap();
        assert_eq!(got.hits[0].title, "Deploy");
    }

    #[test]
    fn punctuation_queries_never_fail() {
        let s = store();
        s.index_text("doc", "exec-file runs a::b at /v1/x", Format::Text)
            .unwrap();
        for q in [
            "exec-file",
            "a::b",
            "\"",
            "*",
            "NEAR(",
            "/v1/x",
            "AND OR NOT",
            "^x",
            "col:val",
        ] {
            let got = s.search(q, Scope::All, 5, false);
            assert!(got.is_ok(), "{q}: {got:?}");
        }
        assert_eq!(
            s.search("exec-file", Scope::All, 5, false)
                .unwrap()
                .hits
                .len(),
            1
        );
        assert!(s.search("\"", Scope::All, 5, false).unwrap().unsearchable);
    }

    #[test]
    fn typos_and_substrings_fall_back_to_fuzzy_matches() {
        let s = store();
        s.index_text("doc", "the authentication handshake", Format::Text)
            .unwrap();
        let typo = s.search("authentcation", Scope::All, 5, false).unwrap();
        assert_eq!(typo.hits.len(), 1);
        assert!(typo.fuzzy);
        let part = s.search("handsh", Scope::All, 5, false).unwrap();
        assert_eq!(part.hits.len(), 1);
        let inner = s.search("shake", Scope::All, 5, false).unwrap();
        assert_eq!(inner.hits.len(), 1);
    }

    #[test]
    fn reindexing_replaces_and_expires_old_references() {
        let s = store();
        s.index_text("doc", "first version apples", Format::Text)
            .unwrap();
        let old = s.search("apples", Scope::All, 5, false).unwrap().hits[0]
            .reference
            .clone();
        let summary = s
            .index_text("doc", "second version pears", Format::Text)
            .unwrap();
        assert_eq!(summary.replaced, 1);
        assert!(
            s.search("apples", Scope::All, 5, false)
                .unwrap()
                .hits
                .is_empty()
        );
        assert_eq!(s.fetch(std::slice::from_ref(&old)).unwrap(), Err(vec![old]));
    }

    #[test]
    fn fetch_lists_exactly_the_invalid_references() {
        let s = store();
        s.index_text("doc", "kiwi", Format::Text).unwrap();
        let good = s.search("kiwi", Scope::All, 5, false).unwrap().hits[0]
            .reference
            .clone();
        let asked = vec![good.clone(), "r:nope".into(), "r:999999".into()];
        let got = s.fetch(&asked).unwrap();
        let mut invalid = got.unwrap_err();
        invalid.sort();
        assert!(!invalid.contains(&good));
        assert_eq!(invalid.len(), 2);
        let ok = s.fetch(std::slice::from_ref(&good)).unwrap().unwrap();
        assert_eq!(ok[0].body, "kiwi");
    }

    #[test]
    fn scoped_search_and_unknown_sources() {
        let s = store();
        s.index_text("a", "shared word", Format::Text).unwrap();
        s.index_text("b", "shared word", Format::Text).unwrap();
        let got = s.search("shared", Scope::Source("b"), 5, false).unwrap();
        assert_eq!(got.hits.len(), 1);
        assert_eq!(got.hits[0].source, "b");
        let err = s
            .search("shared", Scope::Source("zzz"), 5, false)
            .unwrap_err();
        assert_eq!(err.to_string(), "no indexed source named \"zzz\"");
    }

    #[test]
    fn terms_in_most_chunks_are_answered_in_chunk_order_and_rare_terms_still_rank() {
        let s = store();
        let md: String = (0..5000)
            .map(|i| format!("## s{i}\ncommon words\n"))
            .collect();
        s.index_text("doc", &md, Format::Markdown).unwrap();
        let got = s.search("common", Scope::All, 3, false).unwrap();
        let titles: Vec<&str> = got.hits.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(titles, vec!["s0", "s1", "s2"]);
        let got = s
            .search("common s4321", Scope::Source("doc"), 3, false)
            .unwrap();
        assert_eq!(got.hits[0].title, "s4321");
    }

    #[test]
    fn listing_walks_a_source_in_order() {
        let s = store();
        let text: String = (0..500).map(|i| format!("line {i} of output\n")).collect();
        let summary = s.index_text("out", &text, Format::Text).unwrap();
        let (first, total) = s.list("out", 0, 3).unwrap();
        assert_eq!(total, summary.chunks);
        assert_eq!(first.len(), 3);
        let refs: Vec<String> = {
            let (all, _) = s.list("out", 0, total).unwrap();
            all.into_iter().map(|h| h.reference).collect()
        };
        let chunks = s.fetch(&refs).unwrap().unwrap();
        let joined: String = chunks.iter().map(|c| c.body.as_str()).collect();
        assert_eq!(joined, text);
    }
}
