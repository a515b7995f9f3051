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
    /// A trip for a driver another of their bookings already holds;
    /// nothing of the write it was part of was kept.
    #[error("the driver is on another trip")]
    DriverBusy,
    /// A value the caller passed cannot be stored or used: a cursor that is
    /// not ours, an amount with more than six decimal places.
    #[error("invalid {0}")]
    Invalid(&'static str),
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
    /// An archive cannot go into this database as it is (not empty, another
    /// schema, a table or column this database does not have, a value of
    /// the wrong type, an archive that ended before its end); nothing was
    /// written.
    #[error("archive refused: {0}")]
    Archive(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
}

impl StorageError {
    /// The database could not be reached or went away (a restart, a network
    /// failure, a full pool): the caller may try again; nothing is wrong
    /// with the request.
    pub fn is_unavailable(&self) -> bool {
        let StorageError::Database(error) = self else { return false };
        match error {
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => true,
            // SQLSTATE classes 08 (connection exception) and 57 (operator
            // intervention: the server shutting down or starting).
            sqlx::Error::Database(error) => {
                error.code().is_some_and(|code| code.starts_with("08") || code.starts_with("57"))
            }
            _ => false,
        }
    }
}

pub type StorageResult<T> = Result<T, StorageError>;

#[cfg(test)]
mod tests {
    use super::StorageError;

    #[test]
    fn a_database_out_of_reach_is_unavailable_and_a_bad_query_is_not() {
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        assert!(StorageError::Database(sqlx::Error::Io(reset)).is_unavailable());
        assert!(StorageError::Database(sqlx::Error::PoolTimedOut).is_unavailable());
        assert!(!StorageError::Database(sqlx::Error::RowNotFound).is_unavailable());
        assert!(!StorageError::Conflict.is_unavailable());
    }
}
