//! The knowledge store: SQLite FTS5 over titled chunks.
//!
//! - [`chunk`]: splitting Markdown, text and JSON into chunks.
//! - [`query`]: user input → FTS5 queries that cannot raise syntax errors.
//! - [`refs`]: short process-local references to chunks.
//! - `ingest`: writing sources, one transaction each.
//! - `search`: the search stages, listings and chunks by reference;
//!   `rank` (BM25 within a scope) and `fuzzy` (the vocabulary fallback) under it.
//!
//! Each chunk's text is stored once, in `chunks`; `chunks_fts` is an
//! external-content FTS5 index over it. The store is synchronous: callers on
//! the async runtime reach it through `spawn_blocking`. One writer connection
//! serialises writes; reads use their own connections (WAL), so searches go
//! on while a large source is being indexed.

pub mod chunk;
pub mod query;
pub mod refs;

mod fuzzy;
mod ingest;
mod rank;
mod search;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{Connection, OpenFlags};

pub use ingest::{IndexSummary, Sink};
pub use search::{ChunkText, Hit, QueryHits, Scope};

use refs::RefTable;

/// Store failures; messages name what went wrong in a few words.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("store i/o error: {0}")]
    Io(#[from] std::io::Error),
    #[error("no indexed source named {0:?}")]
    UnknownSource(String),
    #[error("{0}")]
    Input(String),
}

/// Where the database lives.
#[derive(Debug, Clone, Default)]
pub struct StoreConfig {
    /// Keep the database in this file. `None`: a private temporary file removed at exit.
    pub path: Option<PathBuf>,
    /// Where the temporary database goes (default: the system's temporary folder).
    pub temp_root: Option<PathBuf>,
}

/// A cheap, cloneable handle to the store.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.inner.path)
            .finish()
    }
}

struct Inner {
    /// std Mutex, not tokio's: it is only ever held inside blocking sections.
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    path: PathBuf,
    refs: Mutex<RefTable>,
    next_label: AtomicU64,
    /// Removes the temporary database when the last handle goes.
    _dir: Option<tempfile::TempDir>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sources(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    label TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    bytes INTEGER NOT NULL DEFAULT 0,
    chunks INTEGER NOT NULL DEFAULT 0,
    -- A source's chunks are written in one transaction by the one writer, so
    -- their ids form one contiguous range: searches filter by rowid range.
    first_chunk INTEGER,
    last_chunk INTEGER
);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_source ON chunks(source_id, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    title, body, content='chunks', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row');
";

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves SQLite consistent (transactions roll back).
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Store {
    /// Opens (creating if needed) the database.
    pub fn open(config: &StoreConfig) -> Result<Store, StoreError> {
        let (path, dir) = match &config.path {
            Some(path) => (path.clone(), None),
            None => {
                let root = config.temp_root.clone().unwrap_or_else(std::env::temp_dir);
                let dir = tempfile::Builder::new()
                    .prefix("quietcontext-")
                    .permissions(owner_only_dir())
                    .tempdir_in(&root)
                    .map_err(|e| {
                        StoreError::Io(std::io::Error::new(
                            e.kind(),
                            format!(
                                "cannot create the store's folder in {}: {e}",
                                root.display()
                            ),
                        ))
                    })?;
                (dir.path().join("store.db"), Some(dir))
            }
        };
        create_private_file(&path)?;
        let writer = Connection::open(&path)?;
        writer.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA temp_store=MEMORY;
             PRAGMA cache_size=-32768; PRAGMA busy_timeout=5000;",
        )?;
        // A temporary store dies with the process, so a crash loses nothing
        // that syncing would have kept: skip the syncs. A named store syncs.
        let sync = if dir.is_some() { "OFF" } else { "NORMAL" };
        writer.execute_batch(&format!("PRAGMA synchronous={sync};"))?;
        writer.execute_batch(SCHEMA)?;
        migrate(&writer)?;
        Ok(Store {
            inner: Arc::new(Inner {
                writer: Mutex::new(writer),
                readers: Mutex::new(Vec::new()),
                path,
                refs: Mutex::new(RefTable::default()),
                next_label: AtomicU64::new(0),
                _dir: dir,
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// A fresh label `{prefix}{n}` that names no source yet: outputs never overwrite.
    pub fn unique_label(&self, prefix: &str) -> Result<String, StoreError> {
        loop {
            let n = self.inner.next_label.fetch_add(1, Ordering::Relaxed) + 1;
            let label = format!("{prefix}{n}");
            if !self.source_exists(&label)? {
                return Ok(label);
            }
        }
    }

    pub fn source_exists(&self, label: &str) -> Result<bool, StoreError> {
        self.with_reader(|db| {
            let found = db
                .prepare_cached("SELECT 1 FROM sources WHERE label = ?1")?
                .exists([label])?;
            Ok(found)
        })
    }

    /// Runs `f` on a read connection from the pool (opened on demand, never created:
    /// a database deleted underneath gives an error, not an empty store).
    fn with_reader<R>(
        &self,
        f: impl FnOnce(&Connection) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let pooled = lock(&self.inner.readers).pop();
        let db = match pooled {
            Some(db) => db,
            None => {
                let db = Connection::open_with_flags(
                    &self.inner.path,
                    OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                db.execute_batch("PRAGMA busy_timeout=5000; PRAGMA cache_size=-16384;")?;
                db
            }
        };
        let result = f(&db);
        lock(&self.inner.readers).push(db);
        result
    }

    fn writer(&self) -> MutexGuard<'_, Connection> {
        lock(&self.inner.writer)
    }

    fn refs(&self) -> MutexGuard<'_, RefTable> {
        lock(&self.inner.refs)
    }
}

/// Brings a database written by an earlier version up to this schema: chunk
/// id ranges on `sources` (added in 0.1).
fn migrate(db: &Connection) -> Result<(), StoreError> {
    let has_range = db
        .prepare("SELECT 1 FROM pragma_table_info('sources') WHERE name = 'first_chunk'")?
        .exists([])?;
    if !has_range {
        db.execute_batch(
            "ALTER TABLE sources ADD COLUMN first_chunk INTEGER;
             ALTER TABLE sources ADD COLUMN last_chunk INTEGER;
             UPDATE sources SET
                 first_chunk = (SELECT min(id) FROM chunks WHERE source_id = sources.id),
                 last_chunk = (SELECT max(id) FROM chunks WHERE source_id = sources.id);",
        )?;
    }
    Ok(())
}

/// `rwx------`: temporary folders hold program output and the store.
pub(crate) fn owner_only_dir() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o700)
}

/// Creates the database file owner-only before SQLite opens it; SQLite gives
/// its WAL and shared-memory files the same mode.
fn create_private_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}
