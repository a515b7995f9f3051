//! Turns for the write lock inside this process: SQLite's writers queue
//! here rather than in SQLite's busy handler; PostgreSQL's go at once.

/// Turns for the database's write lock inside this process, first come first
/// served. SQLite has one write lock per file and a writer that finds it
/// taken sleeps in the busy handler's back-off (1, 2, 5, 10, … ms) and may
/// wake well after the lock came free; queueing here wakes the next writer
/// the moment the last one commits. PostgreSQL locks rows, so it needs none.
#[derive(Debug, Clone, Default)]
pub(crate) struct WriteGate(Option<std::sync::Arc<tokio::sync::Mutex<()>>>);

/// Held for the whole of a write; `None` where writers need no turns.
pub(crate) type WriteTurn = Option<tokio::sync::OwnedMutexGuard<()>>;

impl WriteGate {
    /// One writer at a time (SQLite).
    pub(crate) fn serial() -> Self {
        WriteGate(Some(std::sync::Arc::new(tokio::sync::Mutex::new(()))))
    }

    /// Writers go concurrently (PostgreSQL).
    pub(crate) fn concurrent() -> Self {
        WriteGate(None)
    }

    pub(crate) async fn turn(&self) -> WriteTurn {
        match &self.0 {
            Some(lock) => Some(lock.clone().lock_owned().await),
            None => None,
        }
    }
}
