//! `execute`: run a program; only what it prints reaches the model.

use crate::error::{ArgError, ToolError};
use crate::runner::Input;

use super::Outcome;
use super::args::Args;
use super::program::{self, ProgramArgs};
use crate::context::Context;

#[derive(Debug)]
pub struct ExecuteArgs {
    pub exec: ProgramArgs,
}

impl ExecuteArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        Ok(Self {
            exec: ProgramArgs::parse(args)?,
        })
    }
}

pub async fn run(ctx: &Context, args: ExecuteArgs) -> Result<Outcome, ToolError> {
    program::resolve(ctx, args.exec)?
        .commit(ctx)
        .run(ctx, Input::Null, Vec::new())
        .await
}
