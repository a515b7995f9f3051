use thiserror::Error;
use wayfare_engine::DomainError;
use wayfare_storage::StorageError;

/// Why a runtime call failed.
#[derive(Debug, Error)]
pub enum ActorError {
    /// A rule said no; carries the translation key.
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The actor did not answer in time or is gone.
    #[error("the runtime is unavailable: {0}")]
    Unavailable(String),
}

pub type ActorResult<T> = Result<T, ActorError>;

/// An actor's answer, or why there was none.
pub(crate) fn unwrap_call<T>(result: ractor::rpc::CallResult<T>) -> ActorResult<T> {
    match result {
        ractor::rpc::CallResult::Success(value) => Ok(value),
        ractor::rpc::CallResult::Timeout => Err(ActorError::Unavailable("timed out".into())),
        ractor::rpc::CallResult::SenderError => Err(ActorError::Unavailable("the actor stopped".into())),
    }
}

impl<T> From<ractor::MessagingErr<T>> for ActorError {
    fn from(error: ractor::MessagingErr<T>) -> Self {
        ActorError::Unavailable(error.to_string())
    }
}
