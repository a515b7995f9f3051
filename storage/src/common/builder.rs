//! The SQL builder: statements made of `&'static str` fragments, every value
//! bound to a numbered placeholder, so user input reaches a query only as a
//! bound value.

use uuid::Uuid;

/// A value bound to a placeholder.
#[derive(Debug)]
pub(crate) enum Bind {
    Uuid(Uuid),
    OptUuid(Option<Uuid>),
    Int(i64),
    Bool(bool),
    Text(String),
    OptText(Option<String>),
    OptFloat(Option<f64>),
    OptInt(Option<i64>),
    /// A JSON document, serialised once (TEXT on SQLite, JSONB on PostgreSQL).
    Json(Box<sqlx::types::JsonRawValue>),
}

/// Builds SQL from `&'static str` fragments only, numbering placeholders
/// (`$1`, `$2`, … — both backends accept them) as values are bound. User
/// input can reach a query only as a bound value.
#[derive(Debug, Default)]
pub(crate) struct SqlBuilder {
    pub sql: String,
    pub binds: Vec<Bind>,
}

impl SqlBuilder {
    pub fn new(start: &'static str) -> Self {
        SqlBuilder { sql: start.to_string(), binds: Vec::new() }
    }

    pub fn push(&mut self, fragment: &'static str) -> &mut Self {
        self.sql.push_str(fragment);
        self
    }

    /// Appends a placeholder for the value.
    pub fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        self.sql.push('$');
        self.sql.push_str(&self.binds.len().to_string());
        self
    }

    /// `fragment` then a placeholder, e.g. `push_bind(" AND b.customer = ", …)`.
    pub fn push_bind(&mut self, fragment: &'static str, value: Bind) -> &mut Self {
        self.push(fragment).bind(value)
    }
}
