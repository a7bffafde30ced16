//! `batch` (not built yet).

use crate::budget::ByteBudget;
use crate::context::{Context, Progress};
use crate::error::{ArgError, ToolError};

use super::args::Args;
use super::{BATCH_CAP, Outcome};

#[derive(Debug)]
pub struct BatchArgs {
    pub budget: ByteBudget,
}

impl BatchArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        Ok(Self {
            budget: args.max_bytes(BATCH_CAP)?,
        })
    }
}

pub async fn run(
    _ctx: &Context,
    _args: BatchArgs,
    _progress: Progress,
) -> Result<Outcome, ToolError> {
    Err(ToolError::failed("batch is not built yet"))
}
