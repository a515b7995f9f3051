//! [`Cluster`]: the leases that say which node serves what.

use super::Store;
use crate::Cluster;
use crate::error::StorageResult;
use crate::types::Lease;
use async_trait::async_trait;
use wayfare_engine::Millis;

#[async_trait]
impl Cluster for Store {
    async fn acquire_lease(
        &self,
        kind: &str,
        key: &str,
        node: &str,
        now: Millis,
        expires_at: Millis,
    ) -> StorageResult<bool> {
        // One statement: a free key is inserted; a held one changes hands
        // only when it lapsed or is already this node's.
        let result = sqlx::query(
            "INSERT INTO leases (kind, key, node, expires_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (kind, key) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
             WHERE leases.expires_at <= $5 OR leases.node = excluded.node",
        )
        .bind(kind)
        .bind(key)
        .bind(node)
        .bind(expires_at)
        .bind(now)
        .execute(&mut *self.write_conn().await?)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    async fn renew_leases(&self, node: &str, now: Millis, expires_at: Millis) -> StorageResult<Vec<Lease>> {
        // A lapsed lease is not revived: another node may be taking it over,
        // and this node stops serving it.
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
            "UPDATE leases SET expires_at = $1 WHERE node = $2 AND expires_at > $3
             RETURNING kind, key, node, expires_at",
        )
        .bind(expires_at)
        .bind(node)
        .bind(now)
        .fetch_all(&mut *self.write_conn().await?)
        .await?;
        Ok(rows.into_iter().map(|(kind, key, node, expires_at)| Lease { kind, key, node, expires_at }).collect())
    }

    async fn lapsed_leases(&self, kind: &str, now: Millis, limit: u32) -> StorageResult<Vec<Lease>> {
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
            "SELECT kind, key, node, expires_at FROM leases WHERE kind = $1 AND expires_at <= $2
             ORDER BY expires_at, key LIMIT $3",
        )
        .bind(kind)
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(kind, key, node, expires_at)| Lease { kind, key, node, expires_at }).collect())
    }

    async fn lease(&self, kind: &str, key: &str) -> StorageResult<Option<Lease>> {
        let row: Option<(String, String, String, i64)> =
            sqlx::query_as("SELECT kind, key, node, expires_at FROM leases WHERE kind = $1 AND key = $2")
                .bind(kind)
                .bind(key)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(kind, key, node, expires_at)| Lease { kind, key, node, expires_at }))
    }

    async fn release_lease(&self, kind: &str, key: &str, node: &str) -> StorageResult<()> {
        sqlx::query("DELETE FROM leases WHERE kind = $1 AND key = $2 AND node = $3")
            .bind(kind)
            .bind(key)
            .bind(node)
            .execute(&mut *self.write_conn().await?)
            .await?;
        Ok(())
    }

    async fn release_node_leases(&self, node: &str) -> StorageResult<u64> {
        // Lapsed, not deleted: the other nodes' keepers take them over at
        // their next round (a deleted lease of an active booking is served
        // by no one until some node restarts).
        let result = sqlx::query("UPDATE leases SET expires_at = 0 WHERE node = $1")
            .bind(node)
            .execute(&mut *self.write_conn().await?)
            .await?;
        Ok(result.rows_affected())
    }

    async fn bury_node(&self, heartbeat_kind: &str, node: &str, now: Millis) -> StorageResult<Option<u64>> {
        let (_turn, mut tx) = self.begin_write().await?;
        let buried = async {
            // One statement decides: of several nodes burying the same dead
            // one, one deletes its heartbeat; a node that came back under
            // that name since (a fresh heartbeat) is left alone.
            let deleted = sqlx::query("DELETE FROM leases WHERE kind = $1 AND key = $2 AND expires_at <= $3")
                .bind(heartbeat_kind)
                .bind(node)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            if deleted.rows_affected() == 0 {
                return Ok(None);
            }
            let lapsed = sqlx::query("UPDATE leases SET expires_at = 0 WHERE node = $1 AND expires_at > 0")
                .bind(node)
                .execute(&mut *tx)
                .await?;
            Ok(Some(lapsed.rows_affected()))
        }
        .await;
        super::settle(tx, buried).await
    }

    fn fence_booking_writes(&self, node: &str) {
        let _ = self.fence.set(node.to_string());
    }
}
