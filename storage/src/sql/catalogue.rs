//! [`Catalogue`]: settings, car types, cancellation reasons, payment
//! providers, promos, notifications and languages.

use super::lists::{page_of, push_keyset, push_order_limit};
use super::{Conn, D, Store, built, fetch_all, found, must_affect, write_error};
use crate::Catalogue;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::cursor::encode_cursor;
use crate::common::dialect::Dialect;
use crate::common::rows::PromoRow;
use crate::error::{StorageError, StorageResult};
use crate::types::{GatewayChange, Page, PageRequest, SortOrder, StoredGateway};
use async_trait::async_trait;
use sqlx::types::Json;
use tracing::instrument;
use wayfare_engine::{
    CarType, CarTypeId, Language, LanguageId, Millis, Notification, NotificationId, PaymentProvider, Promo, PromoId,
    Settings, UserId,
};

#[derive(sqlx::FromRow)]
struct GatewayRow {
    name: String,
    active: bool,
    testing: bool,
    fields: Json<std::collections::BTreeMap<String, String>>,
    updated_by: Option<uuid::Uuid>,
    updated_at: Millis,
}

impl GatewayRow {
    fn into_gateway(self) -> StoredGateway {
        StoredGateway {
            name: self.name,
            active: self.active,
            testing: self.testing,
            fields: self.fields.0,
            updated_by: self.updated_by.map(UserId),
            updated_at: self.updated_at,
        }
    }
}

/// Moving the default flag touches two rows and the unique index; taking
/// every language row's lock in id order first (PostgreSQL; SQLite writers
/// take turns anyway) makes concurrent moves wait in line instead of
/// deadlocking. There are a handful of languages.
async fn lock_languages(conn: &mut Conn) -> StorageResult<()> {
    if D::FOR_UPDATE.is_empty() {
        return Ok(());
    }
    let mut builder = SqlBuilder::new("SELECT id FROM languages ORDER BY id");
    builder.push(D::FOR_UPDATE);
    built(builder).fetch_all(&mut *conn).await?;
    Ok(())
}

/// Two transactions making different languages the default at once: the
/// unique index lets one commit; the other lost a race, a `Conflict`.
fn default_race(error: sqlx::Error) -> StorageError {
    match write_error(error) {
        StorageError::Duplicate(_) => StorageError::Conflict,
        other => other,
    }
}

#[async_trait]
impl Catalogue for Store {
    async fn settings(&self) -> StorageResult<Option<Settings>> {
        let row: Option<(Json<Settings>,)> =
            sqlx::query_as("SELECT doc FROM settings WHERE id = 1").fetch_optional(&self.pool).await?;
        Ok(row.map(|(document,)| document.0))
    }

    async fn save_settings(&self, settings: &Settings, now: Millis) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO settings (id, created_at, updated_at, doc) VALUES (1, $1, $1, $2)
             ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(now)
        .bind(Json(settings))
        .execute(&mut *self.write_conn().await?)
        .await?;
        Ok(())
    }

    async fn car_types(&self) -> StorageResult<Vec<CarType>> {
        let rows: Vec<(Json<CarType>,)> =
            sqlx::query_as("SELECT doc FROM car_types ORDER BY created_at, name").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(|(document,)| document.0).collect())
    }

    async fn car_type(&self, id: CarTypeId) -> StorageResult<CarType> {
        let row: Option<(Json<CarType>,)> =
            sqlx::query_as("SELECT doc FROM car_types WHERE id = $1").bind(id.0).fetch_optional(&self.pool).await?;
        found(row).map(|(document,)| document.0)
    }

    async fn car_type_by_name(&self, name: &str) -> StorageResult<CarType> {
        let row: Option<(Json<CarType>,)> =
            sqlx::query_as("SELECT doc FROM car_types WHERE name = $1").bind(name).fetch_optional(&self.pool).await?;
        found(row).map(|(document,)| document.0)
    }

    async fn save_car_type(&self, car_type: &CarType, now: Millis) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO car_types (id, name, created_at, updated_at, doc) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(car_type.id.0)
        .bind(&car_type.name)
        .bind(car_type.createdAt)
        .bind(now)
        .bind(Json(car_type))
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn delete_car_type(&self, id: CarTypeId) -> StorageResult<()> {
        let result = sqlx::query("DELETE FROM car_types WHERE id = $1")
            .bind(id.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    async fn cancel_reasons(&self) -> StorageResult<Vec<String>> {
        Ok(sqlx::query_scalar("SELECT reason FROM cancel_reasons ORDER BY position").fetch_all(&self.pool).await?)
    }

    async fn save_cancel_reasons(&self, reasons: &[String], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        sqlx::query("DELETE FROM cancel_reasons").execute(&mut *tx).await?;
        for (position, reason) in reasons.iter().enumerate() {
            sqlx::query(
                "INSERT INTO cancel_reasons (position, reason, created_at, updated_at) VALUES ($1, $2, $3, $3)",
            )
            .bind(position as i64)
            .bind(reason)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn payment_providers(&self) -> StorageResult<Vec<PaymentProvider>> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT name, link FROM payment_providers ORDER BY position").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(|(name, link)| PaymentProvider { name, link }).collect())
    }

    async fn save_payment_providers(&self, providers: &[PaymentProvider], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        sqlx::query("DELETE FROM payment_providers").execute(&mut *tx).await?;
        for (position, provider) in providers.iter().enumerate() {
            sqlx::query(
                "INSERT INTO payment_providers (position, name, link, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
            )
            .bind(position as i64)
            .bind(&provider.name)
            .bind(&provider.link)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn payment_gateways(&self) -> StorageResult<Vec<StoredGateway>> {
        let rows: Vec<GatewayRow> = sqlx::query_as(
            "SELECT name, active, testing, fields, updated_by, updated_at FROM payment_gateways ORDER BY name",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(GatewayRow::into_gateway).collect())
    }

    async fn payment_gateway(&self, name: &str) -> StorageResult<Option<StoredGateway>> {
        let row: Option<GatewayRow> = sqlx::query_as(
            "SELECT name, active, testing, fields, updated_by, updated_at FROM payment_gateways WHERE name = $1",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(GatewayRow::into_gateway))
    }

    #[instrument(skip_all, fields(gateway = %gateway.name))]
    async fn save_payment_gateway(&self, gateway: &StoredGateway, change: &GatewayChange) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO payment_gateways (name, active, testing, fields, updated_by, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (name) DO UPDATE SET active = excluded.active, testing = excluded.testing,
                fields = excluded.fields, updated_by = excluded.updated_by, updated_at = excluded.updated_at",
        )
        .bind(&gateway.name)
        .bind(gateway.active)
        .bind(gateway.testing)
        .bind(Json(&gateway.fields))
        .bind(gateway.updated_by.map(|user| user.0))
        .bind(gateway.updated_at)
        .execute(&mut *tx)
        .await
        .map_err(write_error)?;
        sqlx::query(
            "INSERT INTO payment_gateway_changes (id, name, changed_by, changed_at, changed) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(change.id)
        .bind(&change.gateway)
        .bind(change.changed_by.map(|user| user.0))
        .bind(change.changed_at)
        .bind(Json(&change.changed))
        .execute(&mut *tx)
        .await
        .map_err(write_error)?;
        tx.commit().await?;
        Ok(())
    }

    async fn payment_gateway_changes(
        &self,
        gateway: Option<&str>,
        page: &PageRequest,
    ) -> StorageResult<Page<GatewayChange>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new(
            "SELECT c.id, c.name, c.changed_by, c.changed_at, c.changed FROM payment_gateway_changes c WHERE TRUE",
        );
        if let Some(gateway) = gateway {
            builder.push_bind(" AND c.name = ", Bind::Text(gateway.to_string()));
        }
        push_keyset(&mut builder, "c.changed_at", "c.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "c.changed_at", "c.id", order, limit);
        let rows: Vec<(uuid::Uuid, String, Option<uuid::Uuid>, Millis, Json<Vec<String>>)> =
            fetch_all(&self.pool, builder).await?;
        let changes = rows
            .into_iter()
            .map(|(id, gateway, changed_by, changed_at, changed)| GatewayChange {
                id,
                gateway,
                changed_by: changed_by.map(UserId),
                changed_at,
                changed: changed.0,
            })
            .collect();
        Ok(page_of(changes, limit, |change: &GatewayChange| encode_cursor(change.changed_at, change.id)))
    }

    async fn promos(&self) -> StorageResult<Vec<Promo>> {
        let rows: Vec<PromoRow> =
            sqlx::query_as("SELECT user_avail, doc FROM promos ORDER BY created_at, id").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(PromoRow::into_promo).collect())
    }

    async fn promo(&self, id: PromoId) -> StorageResult<Promo> {
        let row: Option<PromoRow> = sqlx::query_as("SELECT user_avail, doc FROM promos WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?;
        found(row).map(PromoRow::into_promo)
    }

    async fn promo_by_name(&self, name: &str) -> StorageResult<Option<Promo>> {
        let row: Option<PromoRow> = sqlx::query_as("SELECT user_avail, doc FROM promos WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(PromoRow::into_promo))
    }

    async fn save_promo(&self, promo: &Promo, now: Millis) -> StorageResult<()> {
        // user_avail is counted by the store: written on insert, kept on update.
        sqlx::query(
            "INSERT INTO promos (id, name, user_avail, created_at, updated_at, doc) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(promo.id.0)
        .bind(&promo.promo_name)
        .bind(i64::from(promo.user_avail))
        .bind(promo.createdAt)
        .bind(now)
        .bind(Json(promo))
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn delete_promo(&self, id: PromoId) -> StorageResult<()> {
        let result =
            sqlx::query("DELETE FROM promos WHERE id = $1").bind(id.0).execute(&mut *self.write_conn().await?).await?;
        must_affect(result.rows_affected())
    }

    async fn promo_used_by(&self, promo_name: &str, user: UserId) -> StorageResult<bool> {
        let uses: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM promo_uses WHERE promo_name = $1 AND user_id = $2")
            .bind(promo_name)
            .bind(user.0)
            .fetch_one(&self.pool)
            .await?;
        Ok(uses > 0)
    }

    async fn insert_notification(&self, notification: &Notification) -> StorageResult<()> {
        sqlx::query("INSERT INTO notifications (id, created_at, updated_at, doc) VALUES ($1, $2, $2, $3)")
            .bind(notification.id.0)
            .bind(notification.createdAt)
            .bind(Json(notification))
            .execute(&mut *self.write_conn().await?)
            .await
            .map_err(write_error)?;
        Ok(())
    }

    async fn notifications(&self, page: &PageRequest) -> StorageResult<Page<Notification>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let mut builder = SqlBuilder::new("SELECT n.doc FROM notifications n WHERE TRUE");
        push_keyset(&mut builder, "n.created_at", "n.id", order, page.after.as_deref())?;
        push_order_limit(&mut builder, "n.created_at", "n.id", order, limit);
        let rows: Vec<(Json<Notification>,)> = fetch_all(&self.pool, builder).await?;
        let notifications = rows.into_iter().map(|(document,)| document.0).collect();
        Ok(page_of(notifications, limit, |notification: &Notification| {
            encode_cursor(notification.createdAt, notification.id.0)
        }))
    }

    async fn delete_notification(&self, id: NotificationId) -> StorageResult<()> {
        let result = sqlx::query("DELETE FROM notifications WHERE id = $1")
            .bind(id.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    async fn languages(&self) -> StorageResult<Vec<Language>> {
        let rows: Vec<(bool, Json<Language>)> =
            sqlx::query_as("SELECT is_default, doc FROM languages ORDER BY created_at, id")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(is_default, document)| Language { default: is_default, ..document.0 }).collect())
    }

    #[instrument(skip_all, fields(language_id = %language.id))]
    async fn save_language(&self, language: &Language, now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        if language.default {
            lock_languages(&mut tx).await?;
        }
        let mut builder = SqlBuilder::new("SELECT is_default FROM languages WHERE id = ");
        builder.bind(Bind::Uuid(language.id.0)).push(D::FOR_UPDATE);
        let current: Option<(bool,)> = fetch_all(&mut *tx, builder).await?.into_iter().next();
        if language.default {
            sqlx::query("UPDATE languages SET is_default = FALSE, updated_at = $1 WHERE is_default AND id <> $2")
                .bind(now)
                .bind(language.id.0)
                .execute(&mut *tx)
                .await?;
        } else if current == Some((true,)) {
            return Err(StorageError::DefaultLanguage);
        }
        sqlx::query(
            "INSERT INTO languages (id, locale, is_default, created_at, updated_at, doc) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET
                locale = excluded.locale, is_default = excluded.is_default,
                updated_at = excluded.updated_at, doc = excluded.doc",
        )
        .bind(language.id.0)
        .bind(&language.langLocale)
        .bind(language.default)
        .bind(language.createdAt)
        .bind(now)
        .bind(Json(language))
        .execute(&mut *tx)
        .await
        .map_err(default_race)?;
        tx.commit().await?;
        Ok(())
    }

    #[instrument(skip_all, fields(language_id = %id))]
    async fn delete_language(&self, id: LanguageId) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        let mut builder = SqlBuilder::new("SELECT is_default FROM languages WHERE id = ");
        builder.bind(Bind::Uuid(id.0)).push(D::FOR_UPDATE);
        let current: Option<(bool,)> = fetch_all(&mut *tx, builder).await?.into_iter().next();
        match current {
            None => return Err(StorageError::NotFound),
            Some((true,)) => return Err(StorageError::DefaultLanguage),
            Some((false,)) => {}
        }
        sqlx::query("DELETE FROM languages WHERE id = $1").bind(id.0).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(())
    }

    #[instrument(skip_all, fields(language_id = %id))]
    async fn make_default_language(&self, id: LanguageId, now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        lock_languages(&mut tx).await?;
        // Two statements: a unique index is checked row by row, so the old
        // default must be cleared before the new one is set.
        sqlx::query("UPDATE languages SET is_default = FALSE, updated_at = $1 WHERE is_default AND id <> $2")
            .bind(now)
            .bind(id.0)
            .execute(&mut *tx)
            .await?;
        let result = sqlx::query("UPDATE languages SET is_default = TRUE, updated_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id.0)
            .execute(&mut *tx)
            .await
            .map_err(default_race)?;
        must_affect(result.rows_affected())?;
        tx.commit().await?;
        Ok(())
    }
}
