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

impl<T> From<ractor::MessagingErr<T>> for ActorError {
    fn from(error: ractor::MessagingErr<T>) -> Self {
        ActorError::Unavailable(error.to_string())
    }
}
