//! Tool-level errors. Each renders as one short line that names the culprit,
//! so the model can correct itself; [`crate::tools`] turns them into `isError`
//! results, the only way tool failures reach the client.

use crate::store::StoreError;

/// An argument that failed validation: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct ArgError {
    pub field: String,
    pub problem: String,
}

impl ArgError {
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("invalid argument {0}")]
    Arg(#[from] ArgError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A failure whose message already says what and why.
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed(message.into())
    }
}
