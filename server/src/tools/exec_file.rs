//! `exec-file`: run a program over a file without the file entering the
//! context: its bytes on stdin, its path in `$FILE`.

use crate::context::Context;
use crate::error::{ArgError, ToolError};
use crate::paths;
use crate::runner::Input;

use super::Outcome;
use super::args::Args;
use super::program::{self, ProgramArgs};

#[derive(Debug)]
pub struct ExecFileArgs {
    path: String,
    pub exec: ProgramArgs,
}

impl ExecFileArgs {
    pub fn parse(args: &Args<'_>) -> Result<Self, ArgError> {
        let path = args
            .non_empty_str("path")?
            .ok_or_else(|| ArgError::new("path", "missing required string"))?;
        Ok(Self {
            path: path.to_owned(),
            exec: ProgramArgs::parse(args)?,
        })
    }
}

pub async fn run(ctx: &Context, args: ExecFileArgs) -> Result<Outcome, ToolError> {
    // Every check before anything runs or is cached.
    let resolved = program::resolve(ctx, args.exec)?;
    let path = paths::resolve(&ctx.config, &args.path, "path")?;
    let meta = std::fs::metadata(&path)
        .map_err(|e| ToolError::failed(format!("path: {}: {e}", args.path)))?;
    if !meta.is_file() {
        return Err(ToolError::failed(format!(
            "path: {} is not a regular file",
            args.path
        )));
    }
    std::fs::File::open(&path)
        .map_err(|e| ToolError::failed(format!("path: cannot read {}: {e}", args.path)))?;
    let env = vec![("FILE".into(), path.clone().into_os_string())];
    resolved.commit(ctx).run(ctx, Input::File(path), env).await
}
