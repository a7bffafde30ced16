//! `search`: ranked titles and references by default, bounded previews on
//! request, exact chunk text by reference, and a source's chunks in order.

use std::collections::HashSet;

use crate::budget::{ByteBudget, Reply};
use crate::context::Context;
use crate::error::{ArgError, ToolError};
use crate::store::query;
use crate::store::{ChunkText, Hit, Scope, Store};

use super::args::Args;
use super::{Outcome, SEARCH_CAP, blocking};

/// Results per query when `limit` is not given.
pub const DEFAULT_LIMIT: u64 = 5;
/// Chunks per page when listing a source.
pub const DEFAULT_LIST_LIMIT: u64 = 50;
pub const MAX_LIMIT: u64 = 100;
const MAX_QUERIES: usize = 20;
const MAX_REFS: usize = 50;

#[derive(Debug)]
pub struct SearchArgs {
    mode: Mode,
    source: Option<String>,
    limit: Option<usize>,
    offset: usize,
    preview: bool,
    pub budget: ByteBudget,
}

#[derive(Debug)]
enum Mode {
    Queries(Vec<String>),
    Refs(Vec<String>),
    List,
}

impl SearchArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        let queries = args.str_list("queries")?;
        let refs = args.str_list("refs")?;
        let source = args.non_empty_str("source")?.map(str::to_owned);
        let offset = args.int_in("offset", 0..=u32::MAX as u64)?;
        let mode = match (queries, refs) {
            (Some(_), Some(_)) => {
                return Err(ArgError::new(
                    "refs",
                    "send either queries or refs, not both",
                ));
            }
            (Some(q), None) => {
                if q.is_empty() || q.len() > MAX_QUERIES {
                    return Err(ArgError::new(
                        "queries",
                        format!("must hold 1..={MAX_QUERIES} strings, got {}", q.len()),
                    ));
                }
                Mode::Queries(q)
            }
            (None, Some(r)) => {
                if r.is_empty() || r.len() > MAX_REFS {
                    return Err(ArgError::new(
                        "refs",
                        format!("must hold 1..={MAX_REFS} references, got {}", r.len()),
                    ));
                }
                Mode::Refs(r)
            }
            (None, None) if source.is_some() => Mode::List,
            (None, None) => {
                return Err(ArgError::new(
                    "queries",
                    "send queries, refs, or a source to list",
                ));
            }
        };
        if offset.is_some() && !matches!(mode, Mode::List) {
            return Err(ArgError::new(
                "offset",
                "only applies when listing a source (source without queries)",
            ));
        }
        Ok(Self {
            mode,
            source,
            limit: args.int_in("limit", 1..=MAX_LIMIT)?.map(|n| n as usize),
            offset: offset.unwrap_or(0) as usize,
            preview: args.bool("preview")?.unwrap_or(false),
            budget: args.max_bytes(SEARCH_CAP)?,
        })
    }
}

pub async fn run(ctx: &Context, args: SearchArgs) -> Result<Outcome, ToolError> {
    let store = ctx.store.clone();
    blocking(move || match args.mode {
        Mode::Refs(refs) => Ok(match store.fetch(&refs)? {
            Ok(chunks) => Outcome::ok(render_chunks(&chunks)),
            Err(invalid) => {
                let mut reply = Reply::new();
                reply.text(format!(
                    "refs: unknown or expired: {} (references last only while this server runs; search again)",
                    invalid.join(", ")
                ));
                Outcome::failed(reply)
            }
        }),
        Mode::List => {
            let label = args.source.unwrap_or_default();
            let limit = args.limit.unwrap_or(DEFAULT_LIST_LIMIT as usize);
            let (hits, total) = store.list(&label, args.offset, limit)?;
            Ok(Outcome::ok(render_listing(&label, &hits, total, args.offset)))
        }
        Mode::Queries(queries) => {
            let scope = match &args.source {
                Some(label) => Scope::Source(label),
                None => Scope::All,
            };
            let limit = args.limit.unwrap_or(DEFAULT_LIMIT as usize);
            let reply = search_queries(&store, &queries, scope, limit, args.preview)?;
            Ok(Outcome::ok(reply))
        }
    })
    .await
}

/// Runs each query and renders the results, each chunk shown once per call.
/// Shared with `batch`.
pub fn search_queries(
    store: &Store,
    queries: &[String],
    scope: Scope<'_>,
    limit: usize,
    preview: bool,
) -> Result<Reply, ToolError> {
    let mut reply = Reply::new();
    let mut seen: HashSet<i64> = HashSet::new();
    for q in queries {
        let found = store.search(q, scope, limit, preview)?;
        let note = if found.unsearchable {
            " - no searchable terms"
        } else if found.hits.is_empty() {
            " - no match"
        } else if found.fuzzy {
            " (fuzzy)"
        } else {
            ""
        };
        reply.line(format!("q: {q}{note}"));
        let tokens = query::tokens(q);
        for hit in found.hits {
            if !seen.insert(hit.chunk) {
                reply.line(format!("[{}]", hit.reference));
                continue;
            }
            reply.line(hit_line(&hit));
            if let Some(body) = hit.body {
                let anchor = query::first_match(&body, &tokens).unwrap_or(0);
                reply.preview("  > ", body, anchor);
            }
        }
    }
    Ok(reply)
}

fn hit_line(hit: &Hit) -> String {
    if hit.title.is_empty() {
        format!("[{}] ({})", hit.reference, hit.source)
    } else {
        format!("[{}] {} ({})", hit.reference, hit.title, hit.source)
    }
}

/// Each chunk: a header naming its exact size, then its text byte for byte.
fn render_chunks(chunks: &[ChunkText]) -> Reply {
    let mut reply = Reply::new();
    for c in chunks {
        reply.line(format!(
            "[{}] {} ({}) {} B",
            c.reference,
            c.title,
            c.source,
            c.body.len()
        ));
        reply.text(c.body.clone());
        reply.text("\n");
    }
    reply
}

fn render_listing(label: &str, hits: &[Hit], total: usize, offset: usize) -> Reply {
    let mut reply = Reply::new();
    let shown_end = offset + hits.len();
    if hits.is_empty() {
        reply.line(format!(
            "{label}: {total} chunks; none from offset {offset}"
        ));
        return reply;
    }
    reply.line(format!(
        "{label}: {total} chunks; {}-{shown_end}:",
        offset + 1
    ));
    for hit in hits {
        reply.line(format!("[{}] {}", hit.reference, hit.title));
    }
    if shown_end < total {
        reply.line(format!("next: offset {shown_end}"));
    }
    reply
}
