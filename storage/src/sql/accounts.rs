//! [`Accounts`]: users (a row of typed columns beside the JSON document),
//! the drivers' flags and last-known positions, sign-in challenges and
//! sessions; and the bulk import of users.

use super::lists::{ListSpec, page_of};
use super::{
    Conn, D, Store, built, fetch_all, found, insert_in_chunks, json, must_affect, push_in, push_row, settle,
    write_error,
};
use crate::Accounts;
use crate::common::builder::{Bind, SqlBuilder};
use crate::common::columns::{UserColumns, parse_platform, parse_role, platform_text};
use crate::common::cursor::{SortKind, decode_cursor, encode_cursor};
use crate::common::dialect::Dialect;
use crate::common::rows::{
    ChallengeRow, OAuthAttemptRow, PushTargetRow, SESSION_COLUMNS, SessionRow, SessionUserRow, USER_COLUMNS, UserRow,
};
use crate::common::search::{SearchQuery, SearchTable};
use crate::error::{StorageError, StorageResult};
use crate::types::{
    Challenge, OAuthAttempt, Page, PageRequest, PushFilter, PushTarget, Session, SortOrder, UserFilter, UserIdentity,
};
use async_trait::async_trait;
use sqlx::FromRow;
use sqlx::types::Json;
use tracing::instrument;
use uuid::Uuid;
use wayfare_engine::{LatLng, Millis, Ratings, User, UserId};

pub(super) const INSERT_USER: &str = "INSERT INTO users (
    id, role, email, mobile, referral, fleetadmin, approved, driver_active, queue, car_type,
    lat, lng, platform, push_token, language, search_text, created_at, updated_at, doc
) VALUES ";

pub(super) const USER_VALUES: usize = 19;

/// Binds one user's values in [`INSERT_USER`]'s column order; `updated_at`
/// is `now`. The wallet balance column starts at zero.
pub(super) fn push_user_values(builder: &mut SqlBuilder, user: &User, now: Millis) -> StorageResult<()> {
    let columns = UserColumns::of(user);
    let values = [
        Bind::Uuid(user.id.0),
        Bind::Text(columns.role.to_string()),
        Bind::Text(user.email.clone()),
        Bind::Text(user.mobile.clone()),
        Bind::Text(user.referralId.clone()),
        Bind::OptUuid(columns.fleetadmin),
        Bind::Bool(user.approved),
        Bind::Bool(user.driverActiveStatus),
        Bind::Bool(user.queue),
        Bind::OptText(user.carType.clone()),
        Bind::OptFloat(columns.lat),
        Bind::OptFloat(columns.lng),
        Bind::Text(columns.platform.to_string()),
        Bind::OptText(user.pushToken.clone()),
        Bind::OptText(columns.language),
        Bind::Text(columns.search_text),
        Bind::Int(user.createdAt),
        Bind::Int(now),
        json(user)?,
    ];
    debug_assert_eq!(values.len(), USER_VALUES);
    push_row(builder, values);
    Ok(())
}

/// Writes every column and the document of `user` but the wallet balance,
/// the online flag and the queue: their setters write them while a request
/// holds a copy of the user read earlier (a booking assigned during a profile
/// edit must stay assigned), and reads take all three from their columns.
async fn write_user(conn: &mut Conn, user: &User, now: Millis) -> StorageResult<()> {
    let columns = UserColumns::of(user);
    let result = sqlx::query(
        "UPDATE users SET
            role = $2, email = $3, mobile = $4, referral = $5, fleetadmin = $6, approved = $7,
            car_type = $8, lat = $9, lng = $10, platform = $11,
            push_token = $12, language = $13, search_text = $14, updated_at = $15, doc = $16
         WHERE id = $1",
    )
    .bind(user.id.0)
    .bind(columns.role)
    .bind(&user.email)
    .bind(&user.mobile)
    .bind(&user.referralId)
    .bind(columns.fleetadmin)
    .bind(user.approved)
    .bind(&user.carType)
    .bind(columns.lat)
    .bind(columns.lng)
    .bind(columns.platform)
    .bind(&user.pushToken)
    .bind(columns.language)
    .bind(columns.search_text)
    .bind(now)
    .bind(Json(user))
    .execute(&mut *conn)
    .await
    .map_err(write_error)?;
    must_affect(result.rows_affected())
}

/// Reads a user's document for an update later in the same transaction.
pub(super) async fn user_document_for_update(conn: &mut Conn, user: UserId) -> StorageResult<Option<User>> {
    let mut builder = SqlBuilder::new("SELECT doc FROM users WHERE id = ");
    builder.bind(Bind::Uuid(user.0)).push(D::FOR_UPDATE);
    let row = built(builder).fetch_optional(&mut *conn).await?;
    row.map(|row| <(Json<User>,)>::from_row(&row).map(|(document,)| document.0)).transpose().map_err(StorageError::from)
}

pub(super) async fn write_user_document(conn: &mut Conn, user: &User, now: Millis) -> StorageResult<()> {
    sqlx::query("UPDATE users SET doc = $1, updated_at = $2 WHERE id = $3")
        .bind(Json(user))
        .bind(now)
        .bind(user.id.0)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Positions per statement (and transaction) in `save_locations`: 3 values
/// each. Small, because SQLite binds in time quadratic in the number of
/// values (see `Dialect::MAX_BINDS_PER_STATEMENT`) and a chunk holds the
/// write lock while it is written.
const POSITION_CHUNK: usize = 200;

pub(super) fn user_rows(rows: Vec<UserRow>) -> Vec<User> {
    rows.into_iter().map(UserRow::into_user).collect()
}

impl Store {
    /// Inserts many users in one transaction with multi-row statements: for
    /// imports, seeds and load tests. Same rules as [`Accounts::insert_user`].
    pub async fn import_users(&self, users: &[User], now: Millis) -> StorageResult<()> {
        let (_turn, mut tx) = self.begin_write().await?;
        insert_in_chunks(&mut tx, INSERT_USER, USER_VALUES, users, |builder, user| {
            push_user_values(builder, user, now)
        })
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

#[async_trait]
impl Accounts for Store {
    #[instrument(skip_all, fields(user_id = %user.id))]
    async fn insert_user(&self, user: &User) -> StorageResult<()> {
        let mut builder = SqlBuilder::new(INSERT_USER);
        push_user_values(&mut builder, user, user.createdAt)?;
        built(builder).execute(&mut *self.write_conn().await?).await.map_err(write_error)?;
        Ok(())
    }

    async fn user(&self, id: UserId) -> StorageResult<User> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push_bind(" FROM users u WHERE u.id = ", Bind::Uuid(id.0));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        found(rows.into_iter().next()).map(UserRow::into_user)
    }

    async fn users_by_id(&self, ids: &[UserId]) -> StorageResult<Vec<User>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE TRUE");
        push_in(&mut builder, "u.id", ids.iter().map(|id| Bind::Uuid(id.0)));
        builder.push(" ORDER BY u.id");
        Ok(user_rows(fetch_all(&self.pool, builder).await?))
    }

    async fn user_by_email(&self, email: &str) -> StorageResult<Option<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE u.email <> ''");
        builder.push_bind(" AND u.email = ", Bind::Text(email.to_string()));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(UserRow::into_user))
    }

    async fn user_by_mobile(&self, mobile: &str) -> StorageResult<Option<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE u.mobile <> ''");
        builder.push_bind(" AND u.mobile = ", Bind::Text(mobile.to_string()));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(UserRow::into_user))
    }

    async fn user_by_referral(&self, referral_id: &str) -> StorageResult<Option<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM users u WHERE u.referral <> ''");
        builder.push_bind(" AND u.referral = ", Bind::Text(referral_id.to_string()));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(UserRow::into_user))
    }

    #[instrument(skip_all, fields(user_id = %user.id))]
    async fn update_user(&self, user: &User, now: Millis) -> StorageResult<()> {
        write_user(&mut *self.write_conn().await?, user, now).await
    }

    #[instrument(skip_all, fields(user_id = %id))]
    async fn modify_user(
        &self,
        id: UserId,
        now: Millis,
        edit: &mut (dyn for<'u> FnMut(&'u mut User) -> bool + Send),
    ) -> StorageResult<Option<User>> {
        let (_turn, mut tx) = self.begin_write().await?;
        // The row stays locked (PostgreSQL; SQLite writers take turns) from
        // this read to the commit, so no other write falls in between.
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push_bind(" FROM users u WHERE u.id = ", Bind::Uuid(id.0)).push(D::FOR_UPDATE);
        let row = built(builder).fetch_optional(&mut *tx).await?;
        let mut user = found(row.map(|row| UserRow::from_row(&row)).transpose()?)?.into_user();
        if !edit(&mut user) {
            tx.rollback().await?;
            return Ok(None);
        }
        if user.id != id {
            // Only the row read above is locked.
            return settle(tx, Err(StorageError::Invalid("id"))).await;
        }
        let written = write_user(&mut tx, &user, now).await;
        settle(tx, written).await?;
        Ok(Some(user))
    }

    #[instrument(skip_all, fields(user_id = %id))]
    async fn delete_user(&self, id: UserId) -> StorageResult<()> {
        let result =
            sqlx::query("DELETE FROM users WHERE id = $1").bind(id.0).execute(&mut *self.write_conn().await?).await?;
        must_affect(result.rows_affected())
    }

    async fn list_users(&self, filter: &UserFilter, page: &PageRequest) -> StorageResult<Page<User>> {
        let limit = page.limit();
        let order = SortOrder::Desc;
        let list = ListSpec {
            table: SearchTable::Users,
            columns: USER_COLUMNS,
            sort_column: "u.created_at",
            sort_kind: SortKind::Int,
            order,
            limit,
            after: page.after.as_deref(),
        };
        let filters = |builder: &mut SqlBuilder| {
            push_in(builder, "u.role", filter.roles.iter().map(|role| Bind::Text(role.as_str().to_string())));
            if let Some(fleetadmin) = filter.fleetadmin {
                builder.push_bind(" AND u.fleetadmin = ", Bind::Uuid(fleetadmin.0));
            }
            if let Some(approved) = filter.approved {
                builder.push_bind(" AND u.approved = ", Bind::Bool(approved));
            }
        };
        let search = filter.search.as_deref().and_then(SearchQuery::parse);
        let rows = self.list_page(&list, &filters, search.as_ref(), false).await?;
        let users = user_rows(rows);
        Ok(page_of(users, limit, |user| encode_cursor(user.createdAt, user.id.0)))
    }

    async fn push_targets(&self, filter: &PushFilter, page: &PageRequest) -> StorageResult<Page<PushTarget>> {
        let limit = page.limit();
        let mut builder =
            SqlBuilder::new("SELECT u.id, u.role, u.platform, u.push_token, u.language FROM users u WHERE TRUE");
        push_in(&mut builder, "u.role", filter.roles.iter().map(|role| Bind::Text(role.as_str().to_string())));
        push_in(
            &mut builder,
            "u.platform",
            filter.platforms.iter().map(|platform| Bind::Text(platform_text(*platform).to_string())),
        );
        if let Some(cursor) = page.after.as_deref() {
            let (_, after) = decode_cursor(cursor)?;
            builder.push_bind(" AND u.id > ", Bind::Uuid(after));
        }
        builder.push_bind(" ORDER BY u.id LIMIT ", Bind::Int(i64::from(limit) + 1));
        let rows: Vec<PushTargetRow> = fetch_all(&self.pool, builder).await?;
        let targets = rows
            .into_iter()
            .map(|row| {
                Ok(PushTarget {
                    user: UserId(row.id),
                    role: parse_role(&row.role)?,
                    platform: parse_platform(&row.platform)?,
                    push_token: row.push_token,
                    language: row.language,
                })
            })
            .collect::<StorageResult<Vec<_>>>()?;
        Ok(page_of(targets, limit, |target| encode_cursor(0, target.user.0)))
    }

    async fn ratings(&self, driver: UserId) -> StorageResult<Option<Ratings>> {
        let row: Option<(Json<User>,)> =
            sqlx::query_as("SELECT doc FROM users WHERE id = $1").bind(driver.0).fetch_optional(&self.pool).await?;
        found(row).map(|(document,)| document.0.ratings)
    }

    async fn set_driver_active(&self, driver: UserId, active: bool, now: Millis) -> StorageResult<()> {
        let result = sqlx::query("UPDATE users SET driver_active = $1, updated_at = $2 WHERE id = $3")
            .bind(active)
            .bind(now)
            .bind(driver.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    async fn set_queue(&self, driver: UserId, busy: bool, now: Millis) -> StorageResult<()> {
        let result = sqlx::query("UPDATE users SET queue = $1, updated_at = $2 WHERE id = $3")
            .bind(busy)
            .bind(now)
            .bind(driver.0)
            .execute(&mut *self.write_conn().await?)
            .await?;
        must_affect(result.rows_affected())
    }

    #[instrument(skip_all, fields(positions = positions.len()))]
    async fn save_locations(&self, positions: &[(UserId, LatLng)], now: Millis) -> StorageResult<()> {
        if positions.is_empty() {
            return Ok(());
        }
        // One order for every batch, so two batches never wait on each other's rows.
        let mut ordered: Vec<&(UserId, LatLng)> = positions.iter().collect();
        ordered.sort_by_key(|(user, _)| *user);
        // One statement and one transaction per chunk, so a booking's commit
        // waits behind one chunk at most, never the whole batch (the rows are
        // last-known positions: a batch cut short by a crash loses nothing
        // the next batch would not rewrite). Positions of accounts deleted
        // meanwhile are skipped.
        for chunk in ordered.chunks(POSITION_CHUNK) {
            let (_turn, mut tx) = self.begin_relaxed_write().await?;
            let mut builder = SqlBuilder::new("WITH v (id, lat, lng) AS (VALUES ");
            for (index, (user, location)) in chunk.iter().enumerate() {
                builder.push(if index == 0 { "(" } else { ", (" });
                builder.push_bind("", Bind::Uuid(user.0));
                builder.push_bind(", ", Bind::OptFloat(Some(location.lat)));
                builder.push_bind(", ", Bind::OptFloat(Some(location.lng)));
                builder.push(")");
            }
            builder.push_bind(
                ") INSERT INTO driver_positions (user_id, lat, lng, updated_at) SELECT v.id, v.lat, v.lng, ",
                Bind::Int(now),
            );
            builder.push(
                " FROM v WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = v.id)
                 ON CONFLICT (user_id) DO UPDATE SET lat = excluded.lat, lng = excluded.lng, updated_at = excluded.updated_at",
            );
            built(builder).execute(&mut *tx).await?;
            tx.commit().await?;
        }
        Ok(())
    }

    async fn online_drivers(&self) -> StorageResult<Vec<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(
            " FROM users u WHERE u.driver_active AND u.role = 'driver'
               AND (u.lat IS NOT NULL OR EXISTS (SELECT 1 FROM driver_positions p WHERE p.user_id = u.id))
             ORDER BY u.id",
        );
        Ok(user_rows(fetch_all(&self.pool, builder).await?))
    }

    async fn insert_challenge(&self, challenge: &Challenge) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO otp_challenges
                (id, contact, code_hash, expires_at, attempts, consumed_at, client, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
        )
        .bind(challenge.id)
        .bind(&challenge.contact)
        .bind(&challenge.code_hash)
        .bind(challenge.expires_at)
        .bind(i64::from(challenge.attempts))
        .bind(challenge.consumed_at)
        .bind(&challenge.client)
        .bind(challenge.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn latest_challenge(&self, contact: &str) -> StorageResult<Option<Challenge>> {
        let row: Option<ChallengeRow> = sqlx::query_as(
            "SELECT id, contact, code_hash, created_at, expires_at, attempts, consumed_at, client
             FROM otp_challenges WHERE contact = $1 AND consumed_at IS NULL
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(contact)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|row| Challenge {
            id: row.id,
            contact: row.contact,
            code_hash: row.code_hash,
            created_at: row.created_at,
            expires_at: row.expires_at,
            attempts: u32::try_from(row.attempts).unwrap_or(u32::MAX),
            consumed_at: row.consumed_at,
            client: row.client,
        }))
    }

    async fn record_failed_attempt(&self, id: Uuid) -> StorageResult<u32> {
        let attempts: Option<i64> =
            sqlx::query_scalar("UPDATE otp_challenges SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts")
                .bind(id)
                .fetch_optional(&mut *self.write_conn().await?)
                .await?;
        found(attempts).map(|attempts| u32::try_from(attempts).unwrap_or(u32::MAX))
    }

    async fn consume_challenge(&self, id: Uuid, now: Millis) -> StorageResult<()> {
        let result = sqlx::query(
            "UPDATE otp_challenges SET consumed_at = $2, updated_at = $2 WHERE id = $1 AND consumed_at IS NULL",
        )
        .bind(id)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        if result.rows_affected() == 1 {
            return Ok(());
        }
        // Two verifications of one code: only the first signs in.
        let exists: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM otp_challenges WHERE id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        if exists > 0 { Err(StorageError::AlreadyProcessed) } else { Err(StorageError::NotFound) }
    }

    async fn challenges_since(&self, contact: &str, since: Millis) -> StorageResult<u64> {
        let count: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM otp_challenges WHERE contact = $1 AND created_at >= $2")
                .bind(contact)
                .bind(since)
                .fetch_one(&self.pool)
                .await?;
        Ok(u64::try_from(count).unwrap_or_default())
    }

    async fn insert_session(&self, session: &Session) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO sessions (token_hash, user_id, expires_at, revoked_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(&session.token_hash)
        .bind(session.user.0)
        .bind(session.expires_at)
        .bind(session.revoked_at)
        .bind(session.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn session(&self, token_hash: &str) -> StorageResult<Option<Session>> {
        let row: Option<SessionRow> = sqlx::query_as(
            "SELECT token_hash, user_id, created_at, expires_at, revoked_at FROM sessions WHERE token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(SessionRow::into_session))
    }

    async fn session_with_user(&self, token_hash: &str) -> StorageResult<Option<(Session, User)>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(SESSION_COLUMNS).push(USER_COLUMNS).push_bind(
            " FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ",
            Bind::Text(token_hash.to_string()),
        );
        let rows: Vec<SessionUserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(|row| (row.session.into_session(), row.user.into_user())))
    }

    async fn revoke_session(&self, token_hash: &str, now: Millis) -> StorageResult<()> {
        // Revoking twice keeps the first time.
        let result = sqlx::query(
            "UPDATE sessions SET revoked_at = COALESCE(revoked_at, $2), updated_at = $2 WHERE token_hash = $1",
        )
        .bind(token_hash)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        must_affect(result.rows_affected())
    }

    async fn revoke_user_sessions(&self, user: UserId, now: Millis) -> StorageResult<u64> {
        let result = sqlx::query(
            "UPDATE sessions SET revoked_at = $2, updated_at = $2 WHERE user_id = $1 AND revoked_at IS NULL",
        )
        .bind(user.0)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        Ok(result.rows_affected())
    }

    async fn insert_oauth_attempt(&self, attempt: &OAuthAttempt) -> StorageResult<()> {
        let mut conn = self.write_conn().await?;
        // Abandoned attempts are forgotten here: no sweeper needed.
        sqlx::query("DELETE FROM oauth_attempts WHERE expires_at < $1")
            .bind(attempt.created_at)
            .execute(&mut *conn)
            .await?;
        sqlx::query(
            "INSERT INTO oauth_attempts
                (id, provider, state_hash, code_verifier, nonce, redirect_uri, return_to, expires_at, created_at,
                 updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
        )
        .bind(attempt.id)
        .bind(&attempt.provider)
        .bind(&attempt.state_hash)
        .bind(&attempt.code_verifier)
        .bind(&attempt.nonce)
        .bind(&attempt.redirect_uri)
        .bind(&attempt.return_to)
        .bind(attempt.expires_at)
        .bind(attempt.created_at)
        .execute(&mut *conn)
        .await
        .map_err(write_error)?;
        Ok(())
    }

    async fn take_oauth_attempt(&self, id: Uuid, state_hash: &str, now: Millis) -> StorageResult<OAuthAttempt> {
        let row: Option<OAuthAttemptRow> = sqlx::query_as(
            "UPDATE oauth_attempts SET consumed_at = $3, updated_at = $3
             WHERE id = $1 AND state_hash = $2 AND consumed_at IS NULL AND expires_at > $3
             RETURNING id, provider, state_hash, code_verifier, nonce, redirect_uri, return_to, created_at, expires_at",
        )
        .bind(id)
        .bind(state_hash)
        .bind(now)
        .fetch_optional(&mut *self.write_conn().await?)
        .await?;
        found(row).map(OAuthAttemptRow::into_attempt)
    }

    async fn user_by_identity(&self, provider: &str, subject: &str) -> StorageResult<Option<User>> {
        let mut builder = SqlBuilder::new("SELECT ");
        builder.push(USER_COLUMNS).push(" FROM user_identities i JOIN users u ON u.id = i.user_id WHERE ");
        builder.push_bind("i.provider = ", Bind::Text(provider.to_string()));
        builder.push_bind(" AND i.subject = ", Bind::Text(subject.to_string()));
        let rows: Vec<UserRow> = fetch_all(&self.pool, builder).await?;
        Ok(rows.into_iter().next().map(UserRow::into_user))
    }

    async fn link_identity(&self, identity: &UserIdentity) -> StorageResult<()> {
        sqlx::query(
            "INSERT INTO user_identities (provider, subject, user_id, email, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(&identity.provider)
        .bind(&identity.subject)
        .bind(identity.user.0)
        .bind(&identity.email)
        .bind(identity.created_at)
        .execute(&mut *self.write_conn().await?)
        .await
        .map_err(write_error)?;
        Ok(())
    }
}
