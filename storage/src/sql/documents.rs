//! [`Documents`]: uploaded files and the drivers' documents, with the
//! approval queue and the expiry reminders.

use super::accounts::user_rows;
use super::lists::page_of;
use super::{D, Store, fetch_all, found, push_in, settle, write_error};
use crate::Documents;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::dialect::Dialect;
use crate::common::rows::{FileRow, USER_COLUMNS};
use crate::error::{StorageError, StorageResult};
use crate::types::{FileRecord, Page, PageRequest};
use async_trait::async_trait;
use sqlx::types::Json;
use tracing::instrument;
use uuid::Uuid;
use wayfare_engine::{DocumentKind, DocumentStatus, DriverDocument, Millis, User, UserId};

/// The approval queue's FROM and WHERE: one row per driver with a pending
/// document (the pending index), who is approved already or has every
/// required kind uploaded and not rejected.
fn push_application_filter(builder: &mut SqlBuilder, fleet: Option<UserId>, required: &[DocumentKind]) {
    builder.push(
        " FROM (SELECT DISTINCT driver_id FROM driver_documents WHERE status = 'pending') p
          JOIN users u ON u.id = p.driver_id WHERE u.role = 'driver'",
    );
    if let Some(fleet) = fleet {
        builder.push_bind(" AND u.fleetadmin = ", Bind::Uuid(fleet.0));
    }
    builder.push(" AND (u.approved OR (SELECT COUNT(*) FROM driver_documents r WHERE r.driver_id = p.driver_id AND r.status <> 'rejected'");
    push_in(builder, "r.kind", required.iter().map(|kind| Bind::Text(kind.as_str().to_string())));
    builder.push_bind(") = ", Bind::Int(required.len() as i64)).push(")");
}

#[async_trait]
impl Documents for Store {
    async fn insert_file(&self, file: &FileRecord) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO files (id, owner, key, mime, size, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
        )
        .bind(file.id)
        .bind(file.owner.map(|owner| owner.0))
        .bind(&file.key)
        .bind(&file.mime)
        .bind(i64::try_from(file.size).map_err(|_| StorageError::Invalid("size"))?)
        .bind(file.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn file(&self, id: Uuid) -> StorageResult<FileRecord> {
        let row: Option<FileRow> =
            sqlx::query_as("SELECT id, owner, key, mime, size, created_at FROM files WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        let row = found(row)?;
        Ok(FileRecord {
            id: row.id,
            owner: row.owner.map(UserId),
            key: row.key,
            mime: row.mime,
            size: u64::try_from(row.size).unwrap_or_default(),
            created_at: row.created_at,
        })
    }

    async fn save_driver_document(&self, document: &DriverDocument) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO driver_documents (driver_id, kind, status, expires_at, reminded_at, created_at, updated_at, doc)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (driver_id, kind) DO UPDATE SET status = excluded.status, expires_at = excluded.expires_at,
                reminded_at = excluded.reminded_at, updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(document.driver.0)
        .bind(document.kind.as_str())
        .bind(document.status.as_str())
        .bind(document.expires_at)
        .bind(document.reminded_at)
        .bind(document.created_at)
        .bind(document.updated_at)
        .bind(Json(document))
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn driver_documents(&self, driver: UserId) -> StorageResult<Vec<DriverDocument>> {
        let rows: Vec<(Json<DriverDocument>,)> =
            sqlx::query_as("SELECT doc FROM driver_documents WHERE driver_id = $1 ORDER BY kind")
                .bind(driver.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }

    #[instrument(skip_all, fields(user_id = %driver))]
    async fn review_driver_documents(
        &self,
        driver: UserId,
        status: DocumentStatus,
        reason: Option<&str>,
        by: UserId,
        now: Millis,
    ) -> StorageResult<Vec<DriverDocument>> {
        let (_turn, mut tx) = self.begin_write().await?;
        let work = async {
            let mut select =
                SqlBuilder::new("SELECT doc FROM driver_documents WHERE status = 'pending' AND driver_id = ");
            select.push_bind("", Bind::Uuid(driver.0)).push(" ORDER BY kind").push(D::FOR_UPDATE);
            let rows: Vec<(Json<DriverDocument>,)> = fetch_all(&mut *tx, select).await?;
            let mut reviewed = Vec::with_capacity(rows.len());
            for (Json(mut document),) in rows {
                document.status = status;
                document.reason = reason.map(str::to_string);
                document.reviewed_by = Some(by);
                document.reviewed_at = Some(now);
                document.updated_at = now;
                sqlx::query(
                    "UPDATE driver_documents SET status = $3, updated_at = $4, doc = $5 WHERE driver_id = $1 AND kind = $2",
                )
                .bind(driver.0)
                .bind(document.kind.as_str())
                .bind(status.as_str())
                .bind(now)
                .bind(Json(&document))
                .execute(&mut *tx)
                .await?;
                reviewed.push(document);
            }
            Ok(reviewed)
        }
        .await;
        settle(tx, work).await
    }

    async fn driver_applications(
        &self,
        fleet: Option<UserId>,
        required: &[DocumentKind],
        page: &PageRequest,
    ) -> StorageResult<Page<User>> {
        let limit = page.limit();
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS);
        push_application_filter(&mut builder, fleet, required);
        if let Some(after) = page.after.as_deref() {
            let after = Uuid::parse_str(after).map_err(|_| StorageError::Invalid("cursor"))?;
            builder.push_bind(" AND p.driver_id > ", Bind::Uuid(after));
        }
        builder.push(" ORDER BY p.driver_id").push_bind(" LIMIT ", Bind::Int(i64::from(limit) + 1));
        let users = user_rows(fetch_all(&self.pool, builder).await?);
        Ok(page_of(users, limit, |user| user.id.0.simple().to_string()))
    }

    async fn count_driver_applications(&self, fleet: Option<UserId>, required: &[DocumentKind]) -> StorageResult<u64> {
        let mut builder = SqlBuilder::new("SELECT COUNT(*)");
        push_application_filter(&mut builder, fleet, required);
        let rows: Vec<(i64,)> = fetch_all(&self.pool, builder).await?;
        Ok(rows.first().map_or(0, |(count,)| u64::try_from(*count).unwrap_or_default()))
    }

    async fn documents_to_remind(&self, before: Millis, limit: u32) -> StorageResult<Vec<DriverDocument>> {
        let rows: Vec<(Json<DriverDocument>,)> = sqlx::query_as(
            "SELECT doc FROM driver_documents WHERE reminded_at IS NULL AND expires_at IS NOT NULL
             AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
        )
        .bind(before)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }

    async fn mark_document_reminded(&self, driver: UserId, kind: DocumentKind, now: Millis) -> StorageResult<bool> {
        let mut conn = self.write_conn().await?;
        let row: Option<(Json<DriverDocument>,)> = sqlx::query_as(
            "SELECT doc FROM driver_documents WHERE driver_id = $1 AND kind = $2 AND reminded_at IS NULL",
        )
        .bind(driver.0)
        .bind(kind.as_str())
        .fetch_optional(&mut *conn)
        .await?;
        let Some((Json(mut document),)) = row else { return Ok(false) };
        document.reminded_at = Some(now);
        // The condition decides between two sweeps: only one changes the row.
        let result = sqlx::query(
            "UPDATE driver_documents SET reminded_at = $3, doc = $4
             WHERE driver_id = $1 AND kind = $2 AND reminded_at IS NULL",
        )
        .bind(driver.0)
        .bind(kind.as_str())
        .bind(now)
        .bind(Json(&document))
        .execute(&mut *conn)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    async fn online_expired_documents(&self, now: Millis) -> StorageResult<Vec<DriverDocument>> {
        // From the online drivers' partial index, then each one's documents by key.
        let rows: Vec<(Json<DriverDocument>,)> = sqlx::query_as(
            "SELECT d.doc FROM users u JOIN driver_documents d ON d.driver_id = u.id
             WHERE u.driver_active AND u.role = 'driver' AND d.expires_at IS NOT NULL AND d.expires_at <= $1
             ORDER BY d.driver_id, d.kind",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }
}
