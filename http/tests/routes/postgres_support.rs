//! Route tests that run on PostgreSQL too (`WAYFARE_TEST_POSTGRES_URL`,
//! which `make test` sets; CI fails without it), each in a fresh schema
//! dropped when the test is over, passed or failed.

use sqlx::AssertSqlSafe;

pub struct Schema {
    base: String,
    name: String,
    /// The database URL of the schema, for `config.database_url`.
    pub url: String,
}

async fn run(base: &str, sql: String) {
    let pool =
        sqlx::PgPool::connect(base).await.expect("WAYFARE_TEST_POSTGRES_URL is set but PostgreSQL does not answer");
    sqlx::query(AssertSqlSafe(sql)).execute(&pool).await.expect("a schema statement");
    pool.close().await;
}

impl Schema {
    /// A fresh schema; `None` (the PostgreSQL variant is not run) without
    /// the variable, outside CI.
    pub async fn create(prefix: &str) -> Option<Schema> {
        let Ok(base) = std::env::var("WAYFARE_TEST_POSTGRES_URL") else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI runs this test on PostgreSQL: set WAYFARE_TEST_POSTGRES_URL"
            );
            eprintln!("not run on PostgreSQL: WAYFARE_TEST_POSTGRES_URL is not set");
            return None;
        };
        // Only hex digits follow the prefix: the name needs no quoting.
        let name = format!("{prefix}_{}", uuid::Uuid::now_v7().simple());
        run(&base, format!("CREATE SCHEMA {name}")).await;
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options[search_path]={name}");
        Some(Schema { base, name, url })
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        // Dropped inside a test's runtime, which cannot block on itself.
        let (base, sql) = (self.base.clone(), format!("DROP SCHEMA {} CASCADE", self.name));
        let dropped = std::thread::spawn(move || {
            tokio::runtime::Runtime::new().expect("a runtime").block_on(run(&base, sql));
        });
        let _ = dropped.join();
    }
}
