//! The dispatch log's way to storage (a booking's timeline). Every entry
//! goes through one unbounded channel — never the event bus, which drops
//! what a slow reader missed — to one writer task, which writes what has
//! queued up within [`LINGER`] as one batch, so a busy minute costs a few
//! hundred transactions, not one per entry. A flush waits for every entry
//! sent before it, and writes them at once.

use crate::clock::Clock;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;
use tracing::warn;
use wayfare_engine::dispatch::DispatchEntry;
use wayfare_storage::Storage;

pub(crate) enum LogMsg {
    Entry(DispatchEntry),
    Flush(oneshot::Sender<()>),
}

#[derive(Debug, Clone)]
pub(crate) struct DispatchLogSender(UnboundedSender<LogMsg>);

impl DispatchLogSender {
    pub(crate) fn send(&self, entry: DispatchEntry) {
        // Closed only when the runtime is gone.
        let _ = self.0.send(LogMsg::Entry(entry));
    }

    /// Returns once every entry sent before is written (or given up on).
    pub(crate) async fn flush(&self) {
        let (done, written) = oneshot::channel();
        if self.0.send(LogMsg::Flush(done)).is_ok() {
            let _ = written.await;
        }
    }
}

pub(crate) fn channel() -> (DispatchLogSender, UnboundedReceiver<LogMsg>) {
    let (sender, receiver) = unbounded_channel();
    (DispatchLogSender(sender), receiver)
}

/// The most entries one transaction writes.
const BATCH: usize = 512;
/// How long the writer gathers entries after the first before it writes
/// (a flush writes at once): a busy second costs about ten transactions
/// instead of one per entry, each a turn of SQLite's one writer that a
/// booking's commit would otherwise queue behind.
const LINGER: Duration = Duration::from_millis(100);
/// Tries per batch before it is dropped (logged): storage down for longer
/// must not grow the queue without end.
const ATTEMPTS: u32 = 5;

pub(crate) async fn write_behind(
    storage: Arc<dyn Storage>,
    clock: Arc<dyn Clock>,
    mut inbox: UnboundedReceiver<LogMsg>,
) {
    let mut batch = Vec::new();
    let mut flushes = Vec::new();
    while let Some(first) = inbox.recv().await {
        let deadline = tokio::time::Instant::now() + LINGER;
        let mut next = Some(first);
        loop {
            while let Some(message) = next.take() {
                match message {
                    LogMsg::Entry(entry) => batch.push(entry),
                    LogMsg::Flush(done) => flushes.push(done),
                }
                if batch.len() < BATCH {
                    next = inbox.try_recv().ok();
                }
            }
            if !flushes.is_empty() || batch.len() >= BATCH {
                break;
            }
            match tokio::time::timeout_at(deadline, inbox.recv()).await {
                Ok(Some(message)) => next = Some(message),
                Ok(None) | Err(_) => break,
            }
        }
        write(storage.as_ref(), clock.as_ref(), &batch).await;
        batch.clear();
        for done in flushes.drain(..) {
            let _ = done.send(());
        }
    }
}

async fn write(storage: &dyn Storage, clock: &dyn Clock, batch: &[DispatchEntry]) {
    if batch.is_empty() {
        return;
    }
    for attempt in 1..=ATTEMPTS {
        match storage.append_dispatch_events(batch, clock.now()).await {
            Ok(()) => return,
            Err(error) if attempt < ATTEMPTS => {
                warn!(%error, attempt, entries = batch.len(), "dispatch log not written, trying again");
                tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
            }
            Err(error) => warn!(%error, entries = batch.len(), "dispatch log entries dropped"),
        }
    }
}
