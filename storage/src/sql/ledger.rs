//! [`Ledger`]: the wallet ledger (one entry per idempotency key, the balance
//! moved in the same transaction), withdraw requests and card payments.

use super::lists::{page_of, push_keyset, push_order_limit};
use super::{Conn, Store, fetch_all, found, must_affect, settle, write_error};
use crate::Ledger;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::columns::{entry_type_text, parse_entry_type};
use crate::common::cursor::encode_cursor;
use crate::common::money::{from_micros, to_micros};
use crate::common::rows::{LedgerRow, PaymentRow, REFUND_COLUMNS, RefundRow, WalletRow, WithdrawRow, booking_of_key};
use crate::error::{StorageError, StorageResult};
use crate::types::{
    LedgerRecord, Page, PageRequest, PaymentOrder, PaymentRecord, PaymentStatus, RefundSums, SortOrder, WalletOutcome,
    WalletRecord,
};
use async_trait::async_trait;
use rust_decimal::Decimal;
use sqlx::types::Json;
use tracing::instrument;
use uuid::Uuid;
use wayfare_engine::booking::WalletChange;
use wayfare_engine::refund::{Refund, RefundDestination, RefundStatus};
use wayfare_engine::{BookingId, Millis, UserId, WalletEntry, WalletEntryType, WithdrawId, WithdrawRequest};

/// Writes one ledger entry unless its (user, idempotency key) exists, and
/// moves the balance only when the entry is new. `note` is the entry's
/// description (an admin's reason); with `expected_balance` (micro-units)
/// the balance moves only from that balance, else `Conflict`. Returns
/// whether it was applied and the balance after, in micro-units.
pub(super) async fn apply_ledger(
    conn: &mut Conn,
    change: &WalletChange,
    note: Option<&str>,
    expected_balance: Option<i64>,
    now: Millis,
) -> StorageResult<(bool, i64)> {
    if change.amount < Decimal::ZERO {
        return Err(StorageError::Invalid("amount"));
    }
    let amount = to_micros(change.amount, "amount")?;
    let inserted = sqlx::query(
        "INSERT INTO wallet_entries
            (id, user_id, entry_type, amount_micros, date, tx_ref, idempotency_key, created_at, updated_at, booking_id,
             description)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $5, $5, $8, $9)
         ON CONFLICT (user_id, idempotency_key) DO NOTHING",
    )
    .bind(Uuid::now_v7())
    .bind(change.user.0)
    .bind(entry_type_text(change.entry_type))
    .bind(amount)
    .bind(now)
    .bind(&change.tx_ref)
    .bind(&change.idempotency_key)
    .bind(booking_of_key(&change.idempotency_key))
    .bind(note)
    .execute(&mut *conn)
    .await
    .map_err(write_error)?
    .rows_affected()
        == 1;
    if !inserted {
        let balance: Option<i64> = sqlx::query_scalar("SELECT wallet_balance_micros FROM users WHERE id = $1")
            .bind(change.user.0)
            .fetch_optional(&mut *conn)
            .await?;
        return Ok((false, found(balance)?));
    }
    let (signed, guarded) = match change.entry_type {
        WalletEntryType::Credit => (amount, false),
        WalletEntryType::Debit | WalletEntryType::Withdraw => (-amount, !change.overdraw),
    };
    // The floor is checked by the statement that moves the balance, so two
    // debits that each read enough cannot both take it below zero (the row
    // lock on PostgreSQL, the one writer on SQLite).
    // An expected balance is checked by the same statement, for the same
    // reason: an adjustment lands on its target or not at all.
    let pinned = expected_balance.is_some();
    let balance: Option<i64> = sqlx::query_scalar(
        "UPDATE users SET wallet_balance_micros = wallet_balance_micros + $1, updated_at = $2
         WHERE id = $3 AND (NOT $4 OR wallet_balance_micros + $1 >= 0)
           AND (NOT $5 OR wallet_balance_micros = $6)
         RETURNING wallet_balance_micros",
    )
    .bind(signed)
    .bind(now)
    .bind(change.user.0)
    .bind(guarded)
    .bind(pinned)
    .bind(expected_balance.unwrap_or_default())
    .fetch_optional(&mut *conn)
    .await?;
    match balance {
        Some(balance) => Ok((true, balance)),
        None if guarded || pinned => {
            let exists: Option<i64> = sqlx::query_scalar("SELECT wallet_balance_micros FROM users WHERE id = $1")
                .bind(change.user.0)
                .fetch_optional(&mut *conn)
                .await?;
            // The caller's transaction is dropped with the error: the ledger
            // entry above goes with it.
            Err(match exists {
                None => StorageError::NotFound,
                Some(balance) if pinned && Some(balance) != expected_balance => StorageError::Conflict,
                Some(_) => StorageError::InsufficientBalance,
            })
        }
        None => Err(StorageError::NotFound),
    }
}

/// Stores a refund, or makes a `failed` one of the same key what this one
/// says (a retry after the gateway declined). Refuses a key that already
/// holds a done refund with `Duplicate`: a repeat never refunds twice.
pub(super) async fn insert_refund(conn: &mut Conn, refund: &Refund, now: Millis) -> StorageResult<()> {
    let stored = sqlx::query(
        "INSERT INTO refunds (id, payment_id, booking_id, user_id, amount_micros, currency, destination, reason,
            status, gateway_ref, idempotency_key, made_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (idempotency_key) DO UPDATE SET
            payment_id = excluded.payment_id, amount_micros = excluded.amount_micros,
            destination = excluded.destination, reason = excluded.reason, status = excluded.status,
            gateway_ref = excluded.gateway_ref, made_by = excluded.made_by, updated_at = excluded.updated_at
         WHERE refunds.status = 'failed'",
    )
    .bind(refund.id.0)
    .bind(refund.payment)
    .bind(refund.booking.0)
    .bind(refund.user.0)
    .bind(to_micros(refund.amount, "amount")?)
    .bind(&refund.currency)
    .bind(refund.destination.as_str())
    .bind(&refund.reason)
    .bind(refund.status.as_str())
    .bind(&refund.gateway_ref)
    .bind(&refund.idempotency_key)
    .bind(refund.made_by.0)
    .bind(refund.created_at)
    .bind(now)
    .execute(&mut *conn)
    .await
    .map_err(write_error)?
    .rows_affected();
    if stored == 1 { Ok(()) } else { Err(StorageError::Duplicate("refund")) }
}

/// Done refunds summed by destination, over the rows `column` = `id` picks.
async fn refund_sums(store: &Store, column: &str, id: Uuid) -> StorageResult<RefundSums> {
    let rows: Vec<(String, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT destination, CAST(COALESCE(SUM(amount_micros), 0) AS BIGINT) FROM refunds
         WHERE {column} = $1 AND status = 'done' GROUP BY destination"
    )))
    .bind(id)
    .fetch_all(&store.pool)
    .await?;
    let mut sums = RefundSums::default();
    for (destination, micros) in rows {
        match RefundDestination::parse(&destination) {
            Some(RefundDestination::Gateway) => sums.gateway = from_micros(micros),
            Some(RefundDestination::Wallet) => sums.wallet = from_micros(micros),
            None => return Err(StorageError::Corrupt(format!("a refund goes to {destination}"))),
        }
    }
    Ok(sums)
}

#[async_trait]
impl Ledger for Store {
    #[instrument(skip_all, fields(user_id = %change.user, key = %change.idempotency_key))]
    async fn apply_wallet(&self, change: &WalletChange, now: Millis) -> StorageResult<WalletOutcome> {
        self.apply_wallet_noted(change, None, None, now).await
    }

    #[instrument(skip_all, fields(user_id = %change.user, key = %change.idempotency_key))]
    async fn apply_wallet_noted(
        &self,
        change: &WalletChange,
        note: Option<&str>,
        expected_balance: Option<Decimal>,
        now: Millis,
    ) -> StorageResult<WalletOutcome> {
        let expected = expected_balance.map(|balance| to_micros(balance, "balance")).transpose()?;
        let (_turn, mut tx) = self.begin_write().await?;
        let applied = apply_ledger(&mut tx, change, note, expected, now).await;
        let (applied, balance) = settle(tx, applied).await?;
        if !applied {
            tracing::debug!("wallet entry already applied");
        }
        Ok(WalletOutcome { applied, balance: from_micros(balance) })
    }

    async fn wallet_balance(&self, user: UserId) -> StorageResult<Decimal> {
        let balance: Option<i64> = sqlx::query_scalar("SELECT wallet_balance_micros FROM users WHERE id = $1")
            .bind(user.0)
            .fetch_optional(&self.pool)
            .await?;
        found(balance).map(from_micros)
    }

    async fn wallet_entry(&self, user: UserId, idempotency_key: &str) -> StorageResult<Option<WalletRecord>> {
        let row: Option<WalletRow> = sqlx::query_as(
            "SELECT w.entry_type, w.amount_micros, w.date, w.tx_ref, w.idempotency_key, w.id, w.description
             FROM wallet_entries w WHERE w.user_id = $1 AND w.idempotency_key = $2",
        )
        .bind(user.0)
        .bind(idempotency_key)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| row.into_record()).transpose()
    }

    async fn wallet_history(&self, user: UserId, page: &PageRequest) -> StorageResult<Page<WalletRecord>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new(
            "SELECT w.entry_type, w.amount_micros, w.date, w.tx_ref, w.idempotency_key, w.id, w.description
             FROM wallet_entries w WHERE w.user_id = ",
        );
        builder.bind(Bind::Uuid(user.0));
        push_keyset(&mut builder, "w.date", "w.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "w.date", "w.id", order, limit);
        let rows: Vec<WalletRow> = fetch_all(&self.pool, builder).await?;
        let records = rows
            .into_iter()
            .map(|row| {
                let id = row.id;
                Ok((row.into_record()?, id))
            })
            .collect::<StorageResult<Vec<_>>>()?;
        let page = page_of(records, limit, |(record, id)| encode_cursor(record.entry.date, *id));
        Ok(Page { items: page.items.into_iter().map(|(record, _)| record).collect(), next: page.next })
    }

    async fn booking_ledger(&self, booking: BookingId) -> StorageResult<Vec<LedgerRecord>> {
        let rows: Vec<LedgerRow> = sqlx::query_as(
            "SELECT w.user_id, w.entry_type, w.amount_micros, w.date, w.tx_ref, w.description FROM wallet_entries w
             WHERE w.booking_id = $1 ORDER BY w.date, w.id",
        )
        .bind(booking.0)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|row| {
                Ok(LedgerRecord {
                    user: UserId(row.user_id),
                    entry: WalletEntry {
                        entry_type: parse_entry_type(&row.entry_type)?,
                        amount: from_micros(row.amount_micros),
                        date: row.date,
                        txRef: row.tx_ref,
                        description: row.description,
                    },
                })
            })
            .collect()
    }

    #[instrument(skip_all, fields(withdraw_id = %request.id, user_id = %request.uid))]
    async fn create_withdraw(
        &self,
        request: &WithdrawRequest,
        debit: &WalletChange,
        now: Millis,
    ) -> StorageResult<WalletOutcome> {
        if debit.user != request.uid {
            return Err(StorageError::Invalid("debit"));
        }
        let amount = to_micros(request.amount, "amount")?;
        let (_turn, mut tx) = self.begin_write().await?;
        let (applied, balance) = match apply_ledger(&mut tx, debit, None, None, now).await {
            Ok(outcome) => outcome,
            Err(error) => return settle(tx, Err(error)).await,
        };
        // A replayed debit means this request was stored the first time.
        if applied {
            sqlx::query(
                "INSERT INTO withdraws (id, user_id, date, amount_micros, processed, proces_date, created_at, updated_at, doc)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(request.id.0)
            .bind(request.uid.0)
            .bind(request.date)
            .bind(amount)
            .bind(request.processed)
            .bind(request.procesDate)
            .bind(now)
            .bind(Json(request))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(WalletOutcome { applied, balance: from_micros(balance) })
    }

    #[instrument(skip_all, fields(withdraw_id = %id))]
    async fn complete_withdraw(&self, id: WithdrawId, now: Millis) -> StorageResult<WithdrawRequest> {
        let completed: Option<WithdrawRow> = sqlx::query_as(
            "UPDATE withdraws SET processed = TRUE, proces_date = $2, updated_at = $2
             WHERE id = $1 AND NOT processed
             RETURNING processed, proces_date, doc",
        )
        .bind(id.0)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(row) = completed {
            return Ok(row.into_withdraw());
        }
        let exists: Option<bool> = sqlx::query_scalar("SELECT processed FROM withdraws WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?;
        match exists {
            Some(_) => Err(StorageError::AlreadyProcessed),
            None => Err(StorageError::NotFound),
        }
    }

    async fn withdraw(&self, id: WithdrawId) -> StorageResult<WithdrawRequest> {
        let row: Option<WithdrawRow> =
            sqlx::query_as("SELECT processed, proces_date, doc FROM withdraws WHERE id = $1")
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
        found(row).map(WithdrawRow::into_withdraw)
    }

    async fn withdraws(&self, user: Option<UserId>, page: &PageRequest) -> StorageResult<Page<WithdrawRequest>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new("SELECT w.processed, w.proces_date, w.doc FROM withdraws w WHERE TRUE");
        if let Some(user) = user {
            builder.push_bind(" AND w.user_id = ", Bind::Uuid(user.0));
        }
        push_keyset(&mut builder, "w.date", "w.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "w.date", "w.id", order, limit);
        let rows: Vec<WithdrawRow> = fetch_all(&self.pool, builder).await?;
        let requests = rows.into_iter().map(WithdrawRow::into_withdraw).collect();
        Ok(page_of(requests, limit, |request: &WithdrawRequest| encode_cursor(request.date, request.id.0)))
    }

    async fn insert_payment(&self, payment: &PaymentRecord) -> StorageResult<()> {
        let (order_kind, booking) = match payment.order {
            PaymentOrder::Booking(booking) => ("booking", Some(booking.0)),
            PaymentOrder::WalletTopUp => ("wallet", None),
        };
        sqlx::query(
            "INSERT INTO payments (id, gateway, order_kind, booking_id, customer, amount_micros, currency, status,
                gateway_ref, event_id, success_url, cancel_url, settled_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)",
        )
        .bind(payment.id)
        .bind(&payment.gateway)
        .bind(order_kind)
        .bind(booking)
        .bind(payment.customer.0)
        .bind(to_micros(payment.amount, "amount")?)
        .bind(&payment.currency)
        .bind(payment.status.as_str())
        .bind(&payment.gateway_ref)
        .bind(&payment.event_id)
        .bind(&payment.success_url)
        .bind(&payment.cancel_url)
        .bind(payment.settled_at)
        .bind(payment.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn payment(&self, id: Uuid) -> StorageResult<PaymentRecord> {
        let row: Option<PaymentRow> = sqlx::query_as(
            "SELECT id, gateway, order_kind, booking_id, customer, amount_micros, currency, status, gateway_ref,
                event_id, success_url, cancel_url, settled_at, created_at
             FROM payments WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        found(row)?.into_record()
    }

    async fn payments_of(&self, customer: UserId, limit: u32) -> StorageResult<Vec<PaymentRecord>> {
        let rows: Vec<PaymentRow> = sqlx::query_as(
            "SELECT id, gateway, order_kind, booking_id, customer, amount_micros, currency, status, gateway_ref,
                event_id, success_url, cancel_url, settled_at, created_at
             FROM payments WHERE customer = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
        )
        .bind(customer.0)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(PaymentRow::into_record).collect()
    }

    async fn payment_by_reference(&self, gateway: &str, gateway_ref: &str) -> StorageResult<PaymentRecord> {
        let row: Option<PaymentRow> = sqlx::query_as(
            "SELECT id, gateway, order_kind, booking_id, customer, amount_micros, currency, status, gateway_ref,
                event_id, success_url, cancel_url, settled_at, created_at
             FROM payments WHERE gateway = $1 AND gateway_ref = $2",
        )
        .bind(gateway)
        .bind(gateway_ref)
        .fetch_optional(&self.pool)
        .await?;
        found(row)?.into_record()
    }

    async fn set_payment_reference(&self, id: Uuid, gateway_ref: &str, now: Millis) -> StorageResult<()> {
        let result = sqlx::query("UPDATE payments SET gateway_ref = $1, updated_at = $2 WHERE id = $3")
            .bind(gateway_ref)
            .bind(now)
            .bind(id)
            .execute(&mut *self.write_conn().await?)
            .await
            .map_err(write_error)?;
        must_affect(result.rows_affected())
    }

    async fn settle_payment(
        &self,
        id: Uuid,
        status: PaymentStatus,
        event_id: Option<&str>,
        now: Millis,
    ) -> StorageResult<bool> {
        // One UPDATE guarded by the status: of two concurrent confirmations,
        // exactly one sees a row change.
        let result = sqlx::query(
            "UPDATE payments SET status = $1, event_id = $2, settled_at = $3, updated_at = $3
             WHERE id = $4 AND status = 'pending'",
        )
        .bind(status.as_str())
        .bind(event_id)
        .bind(now)
        .bind(id)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        if result.rows_affected() == 1 {
            return Ok(true);
        }
        let exists: Option<(Uuid,)> =
            sqlx::query_as("SELECT id FROM payments WHERE id = $1").bind(id).fetch_optional(&self.pool).await?;
        found(exists)?;
        Ok(false)
    }

    #[instrument(skip_all, fields(booking_id = %refund.booking, key = %refund.idempotency_key))]
    async fn record_failed_refund(&self, refund: &Refund, now: Millis) -> StorageResult<()> {
        if refund.status != RefundStatus::Failed {
            return Err(StorageError::Invalid("status"));
        }
        let (_turn, mut tx) = self.begin_write().await?;
        let stored = insert_refund(&mut tx, refund, now).await;
        match settle(tx, stored).await {
            // A done refund of that key stays done.
            Err(StorageError::Duplicate(_)) => Ok(()),
            other => other,
        }
    }

    async fn refund_by_key(&self, idempotency_key: &str) -> StorageResult<Option<Refund>> {
        let row: Option<RefundRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {REFUND_COLUMNS} FROM refunds WHERE idempotency_key = $1"
        )))
        .bind(idempotency_key)
        .fetch_optional(&self.pool)
        .await?;
        row.map(RefundRow::into_refund).transpose()
    }

    async fn booking_refunds(&self, booking: BookingId) -> StorageResult<Vec<Refund>> {
        let rows: Vec<RefundRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {REFUND_COLUMNS} FROM refunds WHERE booking_id = $1 ORDER BY created_at, id"
        )))
        .bind(booking.0)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(RefundRow::into_refund).collect()
    }

    async fn refunded_by_booking(&self, booking: BookingId) -> StorageResult<RefundSums> {
        refund_sums(self, "booking_id", booking.0).await
    }

    async fn refunded_by_payment(&self, payment: Uuid) -> StorageResult<RefundSums> {
        refund_sums(self, "payment_id", payment).await
    }

    async fn booking_payment(&self, booking: BookingId) -> StorageResult<Option<PaymentRecord>> {
        let row: Option<PaymentRow> = sqlx::query_as(
            "SELECT id, gateway, order_kind, booking_id, customer, amount_micros, currency, status, gateway_ref,
                event_id, success_url, cancel_url, settled_at, created_at
             FROM payments WHERE booking_id = $1 AND order_kind = 'booking' AND status = 'paid'
             ORDER BY settled_at DESC, id DESC LIMIT 1",
        )
        .bind(booking.0)
        .fetch_optional(&self.pool)
        .await?;
        row.map(PaymentRow::into_record).transpose()
    }

    async fn claim_receipt_mail(&self, booking: BookingId, to: &str, now: Millis) -> StorageResult<bool> {
        // One insert guarded by the key: of two payment events, one claims.
        let result = sqlx::query(
            "INSERT INTO receipt_mails (booking_id, sent_to, sent_at) VALUES ($1, $2, $3)
             ON CONFLICT (booking_id) DO NOTHING",
        )
        .bind(booking.0)
        .bind(to)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(result.rows_affected() == 1)
    }

    async fn release_receipt_mail(&self, booking: BookingId) -> StorageResult<()> {
        sqlx::query("DELETE FROM receipt_mails WHERE booking_id = $1")
            .bind(booking.0)
            .execute(&mut *self.write_conn().await?)
            .await
            .map_err(write_error)?;
        Ok(())
    }
}
