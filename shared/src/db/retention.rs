//! Purges of stored data that is not the record, in small batches (see
//! `services::jobs`). Answers, the reward ledger and the audit log are the record and
//! are never purged here; feedback goes after `FEEDBACK_RETENTION_DAYS`.

use super::{Db, in_tx};

/// A kind of row that is purged: its table, the key a batch deletes by, which rows are
/// old (`$1` is the cut-off) and from when on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Purge {
    /// The `table` label of the metrics.
    pub table: &'static str,
    key: &'static str,
    old: &'static str,
    pub age: Age,
}

/// How old a row must be to go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Age {
    /// Past its own expiry (`$1`: now, in Unix milliseconds).
    Expired,
    /// Older than this many days (`$1`: the instant, in Unix milliseconds).
    Days(i64),
    /// Older than the configured retention (`RETENTION_DAYS`).
    Retention,
    /// Older than the feedback's retention (`FEEDBACK_RETENTION_DAYS`).
    FeedbackRetention,
    /// Of a Beijing day this many days before today (`$1`: that day, `YYYY-MM-DD`).
    BeijingDays(i64),
}

/// The cut-off of one purge, as its condition compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cutoff {
    Instant(i64),
    Day(String),
}

/// What is purged (each condition has an index).
pub const PURGES: [Purge; 12] = [
    // refresh tokens past their expiry can neither refresh nor be reused
    Purge {
        table: "refresh_tokens",
        key: "token_hash",
        old: "expires_at < $1",
        age: Age::Expired,
    },
    Purge {
        table: "console_sessions",
        key: "id",
        old: "expires_at < $1",
        age: Age::Expired,
    },
    // a pending code past its expiry can no longer be checked
    Purge {
        table: "sms_codes",
        key: "phone",
        old: "expires_at < $1",
        age: Age::Expired,
    },
    // the daily send limits read only today's sends and counters
    Purge {
        table: "sms_sends",
        key: "id",
        old: "created_at < $1",
        age: Age::Days(2),
    },
    Purge {
        table: "sms_daily_counters",
        key: "counter_key, day",
        old: "day < $1",
        age: Age::BeijingDays(2),
    },
    Purge {
        table: "admin_sign_in_failures",
        key: "scope_key, window_start",
        old: "expires_at < $1",
        age: Age::Expired,
    },
    // a counter's window that ended limits nothing
    Purge {
        table: "request_counters",
        key: "scope_key, window_start",
        old: "expires_at < $1",
        age: Age::Expired,
    },
    // what players told the studio, read within the year
    Purge {
        table: "feedback",
        key: "id",
        old: "created_at < $1",
        age: Age::FeedbackRetention,
    },
    // replays of a link or an ad completion come within minutes, not weeks
    Purge {
        table: "idempotency_records",
        key: "scope, key",
        old: "created_at < $1",
        age: Age::Retention,
    },
    Purge {
        table: "ad_sessions",
        key: "id",
        old: "created_at < $1",
        age: Age::Retention,
    },
    // who answered on a day counts that day's active players once each; the statistics
    // job counts answers within minutes, a week covers any backlog it may have
    Purge {
        table: "daily_players",
        key: "day, player_id",
        old: "day < $1",
        age: Age::BeijingDays(7),
    },
    // a login or logout NPPA has taken, or that was given up, is kept as long as
    // idempotency records are
    Purge {
        table: "nppa_reports",
        key: "id",
        old: "sent_at < $1",
        age: Age::Retention,
    },
];

/// Deletes at most `batch` rows of `purge` older than `cutoff`; returns how many.
pub async fn purge_batch(db: &Db, purge: &Purge, cutoff: &Cutoff, batch: i64) -> sqlx::Result<u64> {
    let Purge {
        table, key, old, ..
    } = *purge;
    // Row values compare composite keys on both engines; every text here is a constant.
    let sql = format!(
        "DELETE FROM {table} WHERE ({key}) IN (SELECT {key} FROM {table} WHERE {old} LIMIT $2)"
    );
    let mut tx = db.begin().await?;
    let removed = in_tx!(&mut tx, |ex| {
        let query = sqlx::query(sqlx::AssertSqlSafe(sql));
        let query = match cutoff {
            Cutoff::Instant(ms) => query.bind(*ms),
            Cutoff::Day(day) => query.bind(day.clone()),
        };
        query.bind(batch).execute(ex).await?.rows_affected()
    });
    tx.commit().await?;
    Ok(removed)
}
