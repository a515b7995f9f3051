//! [`DispatchLogStore`]: the dispatch timeline, appended in batches by the
//! runtime's log writer with a relaxed commit.

use super::{Store, insert_in_chunks, json, push_row};
use crate::DispatchLogStore;
use crate::common::builder::Bind;
use crate::common::rows::DispatchEventRow;
use crate::error::StorageResult;
use async_trait::async_trait;
use tracing::instrument;
use wayfare_engine::dispatch::DispatchEntry;
use wayfare_engine::{BookingId, Millis};

const INSERT_DISPATCH_EVENT: &str =
    "INSERT INTO dispatch_events (booking_id, at, kind, car_type, created_at, updated_at, doc) VALUES ";

const DISPATCH_EVENT_VALUES: usize = 7;

#[async_trait]
impl DispatchLogStore for Store {
    #[instrument(skip_all, fields(entries = entries.len()))]
    async fn append_dispatch_events(&self, entries: &[DispatchEntry], now: Millis) -> StorageResult<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let (_turn, mut tx) = self.begin_relaxed_write().await?;
        insert_in_chunks(&mut tx, INSERT_DISPATCH_EVENT, DISPATCH_EVENT_VALUES, entries, |builder, entry| {
            let values = [
                Bind::Uuid(entry.booking.0),
                Bind::Int(entry.at),
                Bind::Text(entry.log.kind().to_string()),
                Bind::Text(entry.car_type.clone()),
                Bind::Int(now),
                Bind::Int(now),
                json(entry)?,
            ];
            debug_assert_eq!(values.len(), DISPATCH_EVENT_VALUES);
            push_row(builder, values);
            Ok(())
        })
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn dispatch_events(&self, booking: BookingId) -> StorageResult<Vec<DispatchEntry>> {
        let rows: Vec<DispatchEventRow> =
            sqlx::query_as("SELECT doc FROM dispatch_events WHERE booking_id = $1 ORDER BY at, seq")
                .bind(booking.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|row| row.doc.0).collect())
    }

    async fn recent_dispatch_events(&self, limit: u32) -> StorageResult<Vec<DispatchEntry>> {
        let rows: Vec<DispatchEventRow> = sqlx::query_as("SELECT doc FROM dispatch_events ORDER BY seq DESC LIMIT $1")
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.into_iter().map(|row| row.doc.0).collect())
    }
}
