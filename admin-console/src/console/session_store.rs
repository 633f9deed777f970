//! tower-sessions store over the shared database (`console_sessions`), so every
//! admin-console process behind a load balancer sees the same sessions.

use std::sync::Arc;

use async_trait::async_trait;
use shared::context::AppContext;
use shared::services::console_sessions;
use time::OffsetDateTime;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};

#[derive(Clone)]
pub struct DbSessionStore {
    ctx: Arc<AppContext>,
}

impl std::fmt::Debug for DbSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DbSessionStore")
    }
}

impl DbSessionStore {
    pub fn new(ctx: Arc<AppContext>) -> Self {
        Self { ctx }
    }
}

/// Session expiry is wall-clock time (the cookie's max-age is too), not the service
/// clock that game rules read.
fn wall_clock_ms() -> i64 {
    i64::try_from(OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

fn expiry_ms(record: &Record) -> i64 {
    i64::try_from(record.expiry_date.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

/// Opens the text of a store error whose database could not be reached:
/// tower-sessions carries store errors as text, and `auth::session_error` reads
/// this mark to answer 503 like the API rather than 500.
pub const UNREACHABLE: &str = "database unreachable: ";

/// A service error as the store reports it, an outage marked.
fn backend(e: shared::Error) -> session_store::Error {
    match e {
        shared::Error::DatabaseUnavailable(detail) => {
            session_store::Error::Backend(format!("{UNREACHABLE}{detail}"))
        }
        other => session_store::Error::Backend(format!("{other:#}")),
    }
}

fn encode(record: &Record) -> session_store::Result<String> {
    serde_json::to_string(&record.data).map_err(|e| session_store::Error::Encode(e.to_string()))
}

#[async_trait]
impl SessionStore for DbSessionStore {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        let data = encode(record)?;
        while !console_sessions::create(
            &self.ctx,
            &record.id.to_string(),
            &data,
            expiry_ms(record),
            wall_clock_ms(),
        )
        .await
        .map_err(backend)?
        {
            record.id = Id::default();
        }
        Ok(())
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        // Only an existing row is updated: a session deleted while this request was in
        // flight (a sign-out) stays deleted. Its cookie then finds nothing and signs in
        // again; new sessions are made by `create` alone.
        let updated = console_sessions::save(
            &self.ctx,
            &record.id.to_string(),
            &encode(record)?,
            expiry_ms(record),
        )
        .await
        .map_err(backend)?;
        if !updated {
            tracing::debug!("a console session ended while a request was in flight; not saved");
        }
        Ok(())
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let Some((data, expires_at)) =
            console_sessions::load(&self.ctx, &id.to_string(), wall_clock_ms())
                .await
                .map_err(backend)?
        else {
            return Ok(None);
        };
        let data =
            serde_json::from_str(&data).map_err(|e| session_store::Error::Decode(e.to_string()))?;
        let expiry_date =
            OffsetDateTime::from_unix_timestamp_nanos(i128::from(expires_at) * 1_000_000)
                .map_err(|e| session_store::Error::Decode(e.to_string()))?;
        Ok(Some(Record {
            id: *id,
            data,
            expiry_date,
        }))
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        console_sessions::delete(&self.ctx, &id.to_string())
            .await
            .map_err(backend)
    }
}
