//! Every statement's arguments checked against its placeholders before it is sent, and
//! a PostgreSQL connection whose cached statements went stale cleaned before it is used
//! again.
//!
//! Why: sqlx caches a prepared statement per connection under its SQL text, declared
//! with the parameter types of the first call. On PostgreSQL a later call of the same
//! text with another number of arguments then fails on that connection (`bind message
//! supplies 2 parameters, but prepared statement … requires 1`), and keeps failing
//! there; on SQLite a missing argument silently binds NULL and an extra one is
//! ignored. So the count is a rule here: a statement binds exactly the arguments
//! `$1 … $n` it names, each one used, on both engines, or it is refused before it
//! reaches the database ([`sqlx::Error::InvalidArgument`], a server fault: 500).
//!
//! One exception, declared in the text: a statement built in variants that all take
//! the same arguments (the answer's write), some of which leave a few unused, carries
//! [`some_arguments_unused!`] and is checked for missing arguments only. Its text
//! always binds the same arguments, so the cached statement still fits.
//!
//! [`read!`](crate::db::read) and [`in_tx!`](crate::db::in_tx) hand every statement a
//! [`Checked`] executor; the few statements outside them are wrapped by hand.

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use sqlx::{
    Database, Either, Execute, Executor, PgConnection, PgPool, Postgres, SqlStr, Sqlite,
    SqliteConnection, SqlitePool,
};

/// The comment that declares a statement a variant of a family that binds the same
/// arguments, some unused here (see the module's documentation); for `concat!`.
#[macro_export]
macro_rules! some_arguments_unused {
    () => {
        "/* a variant: some arguments unused */"
    };
}
pub use crate::some_arguments_unused;

/// An executor (a connection or a pool) whose statements are checked before they go:
/// see the module's documentation.
#[derive(Debug)]
pub struct Checked<E>(pub E);

/// A statement after its check: the text, its arguments and whether it may be cached.
struct Statement<DB: Database> {
    sql: SqlStr,
    arguments: Option<DB::Arguments>,
    persistent: bool,
}

impl<'q, DB: Database> Execute<'q, DB> for Statement<DB> {
    fn sql(self) -> SqlStr {
        self.sql
    }

    fn statement(&self) -> Option<&DB::Statement> {
        None
    }

    fn take_arguments(&mut self) -> Result<Option<DB::Arguments>, sqlx::error::BoxDynError> {
        Ok(self.arguments.take())
    }

    fn persistent(&self) -> bool {
        self.persistent
    }
}

/// `query` checked: its arguments against its placeholders ([`placeholder_count`]).
/// A query on a prepared statement object, or with no arguments at all (plain text),
/// goes as it is.
fn check<'q, DB: Database, E: Execute<'q, DB>>(
    mut query: E,
) -> Result<Either<E, Statement<DB>>, sqlx::Error> {
    use sqlx::Arguments as _;
    if query.statement().is_some() {
        return Ok(Either::Left(query));
    }
    let arguments = query.take_arguments().map_err(sqlx::Error::Encode)?;
    let persistent = query.persistent();
    let sql = query.sql();
    if let Some(arguments) = &arguments {
        let bound = arguments.len();
        let text = sql.as_str();
        let variant = text.contains(some_arguments_unused!());
        let named = match placeholder_count(text) {
            Ok(named) => named,
            Err(Gap::Missing { highest, .. }) if variant => highest,
            Err(gap) => {
                return Err(sqlx::Error::InvalidArgument(statement_error(
                    &sql,
                    bound,
                    &gap.to_string(),
                )));
            }
        };
        if named > bound || (named < bound && !variant) {
            return Err(sqlx::Error::InvalidArgument(statement_error(
                &sql,
                bound,
                &format!("it names {named}"),
            )));
        }
    }
    Ok(Either::Right(Statement {
        sql,
        arguments,
        persistent,
    }))
}

fn statement_error(sql: &SqlStr, bound: usize, what: &str) -> String {
    let text: String = sql
        .as_str()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let start: String = text.chars().take(160).collect();
    format!("statement binds {bound} arguments but {what}: {start}")
}

/// Why a statement's placeholders are not `$1 … $n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gap {
    /// `$highest` is named but `$missing` (lower) is not.
    Missing { highest: usize, missing: usize },
    /// `$0`, or past the protocol's 65,535.
    OutOfRange(String),
}

impl std::fmt::Display for Gap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing { highest, missing } => {
                write!(f, "it names ${highest} without ${missing}")
            }
            Self::OutOfRange(p) => write!(f, "placeholder ${p} is out of range"),
        }
    }
}

/// How many arguments `sql` takes: the highest `$n` it names outside string literals,
/// quoted identifiers and comments. Every `$1 … $n` must appear (an unused argument is
/// as wrong as a missing one); the error names the first missing.
pub fn placeholder_count(sql: &str) -> Result<usize, Gap> {
    let bytes = sql.as_bytes();
    let mut used: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'\'' | b'"') => {
                // to the closing quote; a doubled one is an escaped quote inside
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == quote {
                        if bytes.get(i + 1) == Some(&quote) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'$' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                && !(i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let digits = &sql[start..i];
                let n: usize = digits
                    .parse()
                    .ok()
                    .filter(|n| (1..=u16::MAX as usize).contains(n))
                    .ok_or_else(|| Gap::OutOfRange(digits.to_string()))?;
                if used.len() < n {
                    used.resize(n, false);
                }
                used[n - 1] = true;
            }
            _ => i += 1,
        }
    }
    match used.iter().position(|u| !u) {
        Some(missing) => Err(Gap::Missing {
            highest: used.len(),
            missing: missing + 1,
        }),
        None => Ok(used.len()),
    }
}

/// True when a PostgreSQL statement failed on the connection's statement cache rather
/// than on its data: the arguments did not fit the statement prepared under that text
/// (08P01 protocol_violation), the statement is gone (26000), or its plan changed
/// under it (0A000, "cached plan must not change result type"). The cache is then
/// cleared, so the connection does not fail the same way for every later borrower.
fn stale_statement(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d)
        if matches!(d.code().as_deref(), Some("08P01" | "26000" | "0A000")))
}

/// After a PostgreSQL statement failed: clears the connection's statement cache when
/// the failure was a stale statement's.
async fn clean_postgres(conn: &mut PgConnection, e: &sqlx::Error) {
    if stale_statement(e) {
        tracing::warn!(error = %e, "clearing a connection's stale statements");
        if let Err(e) = sqlx::Connection::clear_cached_statements(conn).await {
            tracing::warn!(error = %e, "clearing stale statements failed");
        }
    }
}

/// SQLite checks its own statements against the schema: nothing goes stale.
async fn clean_sqlite(_: &mut SqliteConnection, _: &sqlx::Error) {}

/// Runs `$method` on the connection `$conn` with `$query` checked; after a failure,
/// `$clean` looks after the connection.
macro_rules! on_connection {
    ($conn:expr, $query:expr, $method:ident, $clean:ident) => {{
        let conn = $conn;
        match check($query) {
            Err(e) => Box::pin(async move { Err(e) }),
            Ok(query) => Box::pin(async move {
                let result = match query {
                    Either::Left(q) => (&mut *conn).$method(q).await,
                    Either::Right(q) => (&mut *conn).$method(q).await,
                };
                if let Err(e) = &result {
                    $clean(&mut *conn, e).await;
                }
                result
            }),
        }
    }};
}

/// Runs `$method` on a connection of the pool `$pool` with `$query` checked; on
/// PostgreSQL a connection whose statement went stale is closed, not pooled again.
macro_rules! on_pool {
    ($pool:expr, $query:expr, $method:ident) => {{
        let pool = $pool;
        match check($query) {
            Err(e) => Box::pin(async move { Err(e) }),
            Ok(query) => Box::pin(async move {
                let mut conn = pool.acquire().await?;
                let result = match query {
                    Either::Left(q) => (&mut *conn).$method(q).await,
                    Either::Right(q) => (&mut *conn).$method(q).await,
                };
                if let Err(e) = &result
                    && stale_statement(e)
                {
                    tracing::warn!(error = %e, "closing a connection with stale statements");
                    conn.close_on_drop();
                }
                result
            }),
        }
    }};
}

macro_rules! checked_executor {
    ($on:ident, $db:ty, $target:ty, $self_ty:ty, [$($m:tt)?] $(, $clean:ident)?) => {
        impl<'c, 'a: 'c> Executor<'c> for $self_ty {
            type Database = $db;

            fn execute<'e, 'q: 'e, E>(
                self,
                query: E,
            ) -> BoxFuture<'e, Result<<$db as Database>::QueryResult, sqlx::Error>>
            where
                'c: 'e,
                E: 'q + Execute<'q, $db>,
            {
                let inner: $target = &$($m)? *self.0;
                $on!(inner, query, execute $(, $clean)?)
            }

            fn fetch_all<'e, 'q: 'e, E>(
                self,
                query: E,
            ) -> BoxFuture<'e, Result<Vec<<$db as Database>::Row>, sqlx::Error>>
            where
                'c: 'e,
                E: 'q + Execute<'q, $db>,
            {
                let inner: $target = &$($m)? *self.0;
                $on!(inner, query, fetch_all $(, $clean)?)
            }

            fn fetch_one<'e, 'q: 'e, E>(
                self,
                query: E,
            ) -> BoxFuture<'e, Result<<$db as Database>::Row, sqlx::Error>>
            where
                'c: 'e,
                E: 'q + Execute<'q, $db>,
            {
                let inner: $target = &$($m)? *self.0;
                $on!(inner, query, fetch_one $(, $clean)?)
            }

            fn fetch_optional<'e, 'q: 'e, E>(
                self,
                query: E,
            ) -> BoxFuture<'e, Result<Option<<$db as Database>::Row>, sqlx::Error>>
            where
                'c: 'e,
                E: 'q + Execute<'q, $db>,
            {
                let inner: $target = &$($m)? *self.0;
                $on!(inner, query, fetch_optional $(, $clean)?)
            }

            /// Streams (a data copy's sections) are checked, not cleaned: a stale
            /// statement fails the stream, and the next call on that connection cleans.
            fn fetch_many<'e, 'q: 'e, E>(
                self,
                query: E,
            ) -> BoxStream<
                'e,
                Result<Either<<$db as Database>::QueryResult, <$db as Database>::Row>, sqlx::Error>,
            >
            where
                'c: 'e,
                E: 'q + Execute<'q, $db>,
            {
                let inner: $target = &$($m)? *self.0;
                match check(query) {
                    Err(e) => Box::pin(futures::stream::once(async move { Err(e) })),
                    Ok(Either::Left(q)) => inner.fetch_many(q),
                    Ok(Either::Right(q)) => inner.fetch_many(q),
                }
            }

            fn prepare_with<'e>(
                self,
                sql: SqlStr,
                parameters: &'e [<$db as Database>::TypeInfo],
            ) -> BoxFuture<'e, Result<<$db as Database>::Statement, sqlx::Error>>
            where
                'c: 'e,
            {
                let inner: $target = &$($m)? *self.0;
                inner.prepare_with(sql, parameters)
            }

            fn describe<'e>(
                self,
                sql: SqlStr,
            ) -> BoxFuture<'e, Result<sqlx::Describe<$db>, sqlx::Error>>
            where
                'c: 'e,
            {
                let inner: $target = &$($m)? *self.0;
                inner.describe(sql)
            }
        }
    };
}

checked_executor!(
    on_connection,
    Postgres,
    &'c mut PgConnection,
    &'c mut Checked<&'a mut PgConnection>,
    [mut],
    clean_postgres
);
checked_executor!(
    on_connection,
    Sqlite,
    &'c mut SqliteConnection,
    &'c mut Checked<&'a mut SqliteConnection>,
    [mut],
    clean_sqlite
);
checked_executor!(on_pool, Postgres, &'c PgPool, &'c Checked<&'a PgPool>, []);
checked_executor!(
    on_pool,
    Sqlite,
    &'c SqlitePool,
    &'c Checked<&'a SqlitePool>,
    []
);

#[cfg(test)]
mod tests {
    use super::{check, placeholder_count};
    use sqlx::{Postgres, Sqlite};

    #[test]
    fn arguments_must_fit_the_placeholders() {
        let refused = |e: sqlx::Error| matches!(e, sqlx::Error::InvalidArgument(_));
        // exact: passes, on both engines' queries
        assert!(check(sqlx::query::<Sqlite>("SELECT $1").bind(1)).is_ok());
        assert!(check(sqlx::query::<Postgres>("SELECT $2, $1").bind(1).bind(2)).is_ok());
        // one too many, one too few, a gap
        assert!(refused(
            check(
                sqlx::query::<Postgres>("DELETE FROM t WHERE a = $1")
                    .bind(1)
                    .bind(2)
            )
            .err()
            .unwrap()
        ));
        assert!(refused(
            check(sqlx::query::<Sqlite>("SELECT $1, $2").bind(1))
                .err()
                .unwrap()
        ));
        assert!(refused(
            check(sqlx::query::<Sqlite>("SELECT $2").bind(1).bind(2))
                .err()
                .unwrap()
        ));
        // a declared variant may leave arguments unused, never miss one
        let variant = concat!(crate::some_arguments_unused!(), " SELECT $3");
        assert!(
            check(
                sqlx::query::<Sqlite>(variant)
                    .bind(1)
                    .bind(2)
                    .bind(3)
                    .bind(4)
            )
            .is_ok()
        );
        assert!(refused(
            check(sqlx::query::<Sqlite>(variant).bind(1).bind(2))
                .err()
                .unwrap()
        ));
        // plain text without arguments goes as it is
        assert!(check::<Postgres, _>("SELECT 1").is_ok());
    }

    #[test]
    fn counts_the_highest_placeholder() {
        assert_eq!(placeholder_count("SELECT 1"), Ok(0));
        assert_eq!(placeholder_count("SELECT $1"), Ok(1));
        assert_eq!(placeholder_count("SELECT $2, $1, $2::text"), Ok(2));
        assert_eq!(
            placeholder_count(
                "UPDATE t SET a = $1 WHERE b = $10 AND c IN ($2,$3,$4,$5,$6,$7,$8,$9)"
            ),
            Ok(10)
        );
        // a script's statements share their arguments
        assert_eq!(
            placeholder_count(
                "BEGIN IMMEDIATE; UPDATE t SET a = $1; UPDATE u SET b = $1, c = $2; COMMIT"
            ),
            Ok(2)
        );
    }

    #[test]
    fn literals_identifiers_and_comments_name_no_argument() {
        assert_eq!(
            placeholder_count("SELECT '$1', \"a$2\" FROM t WHERE x = $1"),
            Ok(1)
        );
        assert_eq!(placeholder_count("SELECT 'it''s $3' WHERE a = $1"), Ok(1));
        assert_eq!(placeholder_count("SELECT 1 -- $4\n, $1"), Ok(1));
        assert_eq!(placeholder_count("SELECT /* $5 */ $1"), Ok(1));
        assert_eq!(placeholder_count("SELECT col$1 FROM t"), Ok(0));
        assert_eq!(placeholder_count("SELECT '$1"), Ok(0));
    }

    #[test]
    fn a_gap_is_refused() {
        assert_eq!(
            placeholder_count("SELECT $2").unwrap_err().to_string(),
            "it names $2 without $1"
        );
        assert_eq!(
            placeholder_count("SELECT $1, $3"),
            Err(super::Gap::Missing {
                highest: 3,
                missing: 2
            })
        );
        assert!(placeholder_count("SELECT $0").is_err());
        assert!(placeholder_count("SELECT $99999999999999999999999").is_err());
    }
}
