use thiserror::Error;

/// What can go wrong in storage. `Database` is internal: its text is logged,
/// never shown to users.
#[derive(Debug, Error)]
pub enum StorageError {
    #[error("not found")]
    NotFound,
    /// A compare-and-set lost: someone else wrote the row first.
    #[error("version conflict")]
    Conflict,
    /// A unique value is taken (e-mail, mobile, referral code, name).
    #[error("duplicate {0}")]
    Duplicate(&'static str),
    /// The default language cannot be deleted, nor saved as not default:
    /// make another language the default instead.
    #[error("the default language cannot be deleted or unset")]
    DefaultLanguage,
    #[error("already processed")]
    AlreadyProcessed,
    /// A debit that may not overdraw found less than its amount in the
    /// wallet; nothing of the write it was part of was kept.
    #[error("insufficient wallet balance")]
    InsufficientBalance,
    /// A value the caller passed cannot be stored or used: a cursor that is
    /// not ours, an amount with more than six decimal places.
    #[error("invalid {0}")]
    Invalid(&'static str),
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
}

pub type StorageResult<T> = Result<T, StorageError>;
