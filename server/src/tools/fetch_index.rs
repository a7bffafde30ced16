//! `fetch-index` (not built yet).

use crate::context::Context;
use crate::error::{ArgError, ToolError};

use super::Outcome;
use super::args::Args;

#[derive(Debug)]
pub struct FetchArgs {}

impl FetchArgs {
    pub fn parse(_args: &Args<'_>) -> Result<Self, ArgError> {
        Ok(Self {})
    }
}

pub async fn run(_ctx: &Context, _args: FetchArgs) -> Result<Outcome, ToolError> {
    Err(ToolError::failed("fetch-index is not built yet"))
}
