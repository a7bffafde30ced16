//! Writing sources: one transaction per source, replacing any earlier source
//! of the same label.

use rusqlite::{Statement, Transaction, params};

use super::chunk::{self, Chunk, Emit, Format};
use super::{Store, StoreError};

/// What an index operation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSummary {
    pub label: String,
    pub chunks: usize,
    pub bytes: u64,
    /// Chunks of an earlier source with the same label that were replaced.
    pub replaced: usize,
}

/// Receives the chunks of one source inside its transaction.
pub struct Sink<'t> {
    insert_chunk: Statement<'t>,
    insert_fts: Statement<'t>,
    source_id: i64,
    chunks: usize,
    bytes: u64,
    /// Ids of the first and last chunk written.
    span: Option<(i64, i64)>,
}

impl Emit for Sink<'_> {
    type Error = StoreError;

    fn emit(&mut self, chunk: Chunk) -> Result<(), StoreError> {
        let id = self.insert_chunk.insert(params![
            self.source_id,
            self.chunks as i64,
            chunk.title,
            chunk.body
        ])?;
        self.insert_fts
            .execute(params![id, chunk.title, chunk.body])?;
        self.span = Some((self.span.map_or(id, |(first, _)| first), id));
        self.chunks += 1;
        self.bytes += chunk.body.len() as u64;
        Ok(())
    }
}

impl Store {
    /// Indexes a source under `label`, replacing an earlier one. `fill` pushes
    /// the chunks; if it fails, nothing changes.
    pub fn index<F>(&self, label: &str, kind: &str, fill: F) -> Result<IndexSummary, StoreError>
    where
        F: FnOnce(&mut Sink<'_>) -> Result<(), StoreError>,
    {
        if label.trim().is_empty() {
            return Err(StoreError::Input("source label must not be empty".into()));
        }
        let mut db = self.writer();
        let tx = db.transaction()?;
        let replaced = delete_source(&tx, label)?;
        tx.execute(
            "INSERT INTO sources(label, kind) VALUES (?1, ?2)",
            params![label, kind],
        )?;
        let source_id = tx.last_insert_rowid();
        let (chunks, bytes, span) = {
            let mut sink = Sink {
                insert_chunk: tx.prepare(
                    "INSERT INTO chunks(source_id, seq, title, body) VALUES (?1, ?2, ?3, ?4)",
                )?,
                insert_fts: tx
                    .prepare("INSERT INTO chunks_fts(rowid, title, body) VALUES (?1, ?2, ?3)")?,
                source_id,
                chunks: 0,
                bytes: 0,
                span: None,
            };
            fill(&mut sink)?;
            (sink.chunks, sink.bytes, sink.span)
        };
        tx.execute(
            "UPDATE sources SET bytes = ?1, chunks = ?2, first_chunk = ?3, last_chunk = ?4 WHERE id = ?5",
            params![
                bytes as i64,
                chunks as i64,
                span.map(|s| s.0),
                span.map(|s| s.1),
                source_id
            ],
        )?;
        tx.commit()?;
        Ok(IndexSummary {
            label: label.to_owned(),
            chunks,
            bytes,
            replaced,
        })
    }

    /// Indexes a whole text in the given format.
    pub fn index_text(
        &self,
        label: &str,
        text: &str,
        format: Format,
    ) -> Result<IndexSummary, StoreError> {
        self.index(label, format.name(), |sink| {
            chunk::chunk_text(text, format, "", sink)
        })
    }
}

/// Deletes a source and its index entries; returns how many chunks it had.
fn delete_source(tx: &Transaction<'_>, label: &str) -> Result<usize, StoreError> {
    let id: Option<i64> = tx
        .prepare_cached("SELECT id FROM sources WHERE label = ?1")?
        .query_row([label], |r| r.get(0))
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    let Some(id) = id else {
        return Ok(0);
    };
    tx.execute(
        "INSERT INTO chunks_fts(chunks_fts, rowid, title, body)
         SELECT 'delete', id, title, body FROM chunks WHERE source_id = ?1",
        [id],
    )?;
    let removed = tx.execute("DELETE FROM chunks WHERE source_id = ?1", [id])?;
    tx.execute("DELETE FROM sources WHERE id = ?1", [id])?;
    Ok(removed)
}
