//! `fetch-index`: fetch a URL into the index. The reply is one summary line
//! (label, chunks, bytes, content type) with zero bytes of page content.

use crate::budget::Reply;
use crate::context::Context;
use crate::error::{ArgError, ToolError};
use crate::fetch::{self, convert};

use super::args::Args;
use super::{Outcome, blocking};

#[derive(Debug)]
pub struct FetchArgs {
    url: String,
    source: Option<String>,
}

impl FetchArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        let url = args
            .non_empty_str("url")?
            .ok_or_else(|| ArgError::new("url", "missing required string"))?;
        Ok(Self {
            url: url.trim().to_owned(),
            source: args.non_empty_str("source")?.map(str::to_owned),
        })
    }
}

pub async fn run(ctx: &Context, args: FetchArgs) -> Result<Outcome, ToolError> {
    let policy = ctx.config.fetch.clone();
    let store = ctx.store.clone();
    let line = blocking(move || {
        let fetched =
            fetch::fetch(&args.url, &policy).map_err(|e| ToolError::failed(e.to_string()))?;
        let raw_bytes = fetched.body.len();
        let redirects = fetched.redirects;
        let doc = convert::to_document(fetched).map_err(|e| ToolError::failed(e.to_string()))?;
        // The same URL again replaces its source.
        let label = args.source.unwrap_or(args.url);
        let summary = store.index_text(&label, &doc.text, doc.format)?;
        let mut line = format!(
            "indexed {label:?}: {} chunks, {} B from {raw_bytes} B {}",
            summary.chunks, summary.bytes, doc.media_type
        );
        if redirects > 0 {
            line.push_str(&format!(", {redirects} redirects"));
        }
        if summary.replaced > 0 {
            line.push_str(&format!("; replaced {} chunks", summary.replaced));
        }
        Ok(line)
    })
    .await?;
    let mut reply = Reply::new();
    reply.text(line);
    Ok(Outcome::ok(reply))
}
