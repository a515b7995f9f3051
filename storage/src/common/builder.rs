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
    /// Plain `?` placeholders, bound in order: see [`SqlBuilder::rows`].
    anonymous: bool,
}

impl SqlBuilder {
    pub fn new(start: &'static str) -> Self {
        SqlBuilder { sql: start.to_string(), binds: Vec::new(), anonymous: false }
    }

    /// A bulk write's builder: with `anonymous` (the dialect's
    /// `ANONYMOUS_ROW_BINDS`) its placeholders are plain `?`, which SQLite
    /// binds by position; a numbered one is looked up by a linear scan of
    /// the statement's names, n² over a statement of many rows. Every value
    /// of such a statement must go through [`SqlBuilder::bind`].
    pub fn rows(start: &'static str, anonymous: bool) -> Self {
        debug_assert!(!anonymous || !start.contains('$'), "a numbered placeholder in an anonymous statement");
        SqlBuilder { sql: start.to_string(), binds: Vec::new(), anonymous }
    }

    pub fn push(&mut self, fragment: &'static str) -> &mut Self {
        debug_assert!(!self.anonymous || !fragment.contains('$'), "a numbered placeholder in an anonymous statement");
        self.sql.push_str(fragment);
        self
    }

    /// Appends a placeholder for the value.
    pub fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        if self.anonymous {
            self.sql.push('?');
        } else {
            self.sql.push('$');
            self.sql.push_str(&self.binds.len().to_string());
        }
        self
    }

    /// `fragment` then a placeholder, e.g. `push_bind(" AND b.customer = ", …)`.
    pub fn push_bind(&mut self, fragment: &'static str, value: Bind) -> &mut Self {
        self.push(fragment).bind(value)
    }
}
