//! `GET /v1/users/me/export`: a copy of everything the service stores about the player
//! (PIPL Art. 45), one JSON document streamed table by table (`db::export::SECTIONS`),
//! one a day, recorded in the audit log.
//!
//! The body is written by a task into a small channel, so memory holds a few chunks
//! whatever the player's history. A few copies are made at once per process, each within
//! a deadline: a client that stops reading cannot hold a connection of the pool for
//! longer than that. A copy that could not be finished gives its day back.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::stream::{self, BoxStream};
use serde::Serialize;
use tokio::sync::{Semaphore, mpsc};
use tokio::time::timeout;
use tracing::Instrument as _;
use utoipa::ToSchema;

use crate::context::AppContext;
use crate::db::{self, Db, audit::NewAuditEntry};
use crate::ids::PlayerId;
use crate::message::msg;
use crate::{Error, Result};

/// One copy a day per player.
const EVERY_MS: i64 = 86_400_000;
/// Copies being made at once in one process; more wait for a free one (503).
const AT_ONCE: usize = 4;
/// The most a copy may take, end to end.
const DEADLINE: Duration = Duration::from_secs(120);
/// How long one chunk may wait for the client to read.
const SEND_TIMEOUT: Duration = Duration::from_secs(15);
/// A chunk is sent once it holds this many bytes.
const CHUNK_BYTES: usize = 32 * 1024;

static EXPORTS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| Arc::new(Semaphore::new(AT_ONCE)));

/// The document's `data`, as the OpenAPI document describes it (it is written as a
/// stream, never built whole).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerDataExport {
    pub player_id: PlayerId,
    pub exported_at: DateTime<Utc>,
    /// Every `*_at` column is Unix milliseconds; days are Beijing calendar days.
    pub times_are: String,
    /// Tables with player rows that the copy leaves out, and why.
    pub left_out: Vec<LeftOutTable>,
    /// Each table's rows of the player, by table name; sign-in identifiers masked.
    #[schema(value_type = Object)]
    pub tables: BTreeMap<String, Vec<serde_json::Value>>,
}

#[derive(Serialize, ToSchema)]
pub struct LeftOutTable {
    pub table: String,
    pub reason: String,
}

/// A started copy: its body, in chunks; an `Err` ends it early (logged).
pub struct PlayerExport {
    pub chunks: BoxStream<'static, Result<Vec<u8>>>,
}

/// Starts the player's copy: 429 when one was made in the last 24 hours, 503 while
/// [`AT_ONCE`] are being made.
pub async fn export(ctx: &AppContext, player_id: &PlayerId) -> Result<PlayerExport> {
    let permit = EXPORTS
        .clone()
        .try_acquire_owned()
        .map_err(|_| Error::Overloaded {
            message: msg::DATA_EXPORTS_ARE_BUSY_RETRY_SHORTLY,
            retry_after_secs: 5,
        })?;
    let now = ctx.clock.now();
    let now_ms = now.timestamp_millis();
    let mut tx = ctx.db.begin().await?;
    if let Some(last) = db::minors::claim_export(&mut tx, player_id, now_ms, EVERY_MS).await? {
        return Err(Error::RateLimited {
            message: msg::ONE_COPY_OF_YOUR_DATA_A_DAY_THE_NEXT_ONE_IS_READY_LATER,
            retry_after_secs: u64::try_from((last + EVERY_MS - now_ms).div_euclid(1000) + 1)
                .unwrap_or(1),
        });
    }
    let id = uuid::Uuid::new_v4().to_string();
    db::audit::insert(
        &mut tx,
        &NewAuditEntry {
            id: &id,
            actor_id: player_id.as_str(),
            actor_username: "player",
            action: "player.export",
            target_type: "player",
            target_id: Some(player_id.as_str()),
            before: None,
            after: None,
            now_ms,
        },
    )
    .await?;
    tx.commit().await?;

    let head = head(player_id, now)?;
    let (sender, receiver) = mpsc::channel::<Result<Vec<u8>>>(4);
    let db = ctx.db.clone();
    let player_id = player_id.clone();
    tokio::spawn(
        async move {
            let _permit = permit;
            let written = timeout(DEADLINE, write(&db, &player_id, head, &sender)).await;
            let failure = match written {
                Ok(Ok(rows)) => {
                    tracing::info!(rows, "player data exported");
                    return;
                }
                Ok(Err(e)) => e,
                Err(_) => Error::internal("the copy took longer than its deadline"),
            };
            tracing::warn!(error = ?failure, "player data export cut short");
            if let Err(e) = db::minors::release_export(&db, &player_id, now_ms).await {
                tracing::warn!(error = %e, "the cut-short export's day is not given back");
            }
            // ends the body early: the client sees an incomplete document
            let _ = sender.try_send(Err(failure));
        }
        .instrument(tracing::Span::current()),
    );
    Ok(PlayerExport {
        chunks: Box::pin(stream::unfold(receiver, |mut receiver| async move {
            receiver.recv().await.map(|item| (item, receiver))
        })),
    })
}

/// The document up to its first table.
fn head(player_id: &PlayerId, now: DateTime<Utc>) -> Result<Vec<u8>> {
    let left_out: Vec<LeftOutTable> = db::export::LEFT_OUT
        .iter()
        .map(|(table, reason)| LeftOutTable {
            table: (*table).into(),
            reason: (*reason).into(),
        })
        .collect();
    let fields = [
        ("playerId", serde_json::to_string(player_id)),
        ("exportedAt", serde_json::to_string(&now)),
        (
            "timesAre",
            serde_json::to_string("Unix milliseconds; days are Beijing calendar days"),
        ),
        ("leftOut", serde_json::to_string(&left_out)),
    ];
    let mut out = String::from(r#"{"success":true,"error":null,"data":{"#);
    for (name, value) in fields {
        let value = value.map_err(Error::internal)?;
        out.push_str(&format!("\"{name}\":{value},"));
    }
    out.push_str(r#""tables":{"#);
    Ok(out.into_bytes())
}

/// Writes the document after `head`: each section's rows, then the closing brackets.
/// Answers how many rows it wrote.
async fn write(
    db: &Db,
    player_id: &PlayerId,
    head: Vec<u8>,
    sender: &mpsc::Sender<Result<Vec<u8>>>,
) -> Result<u64> {
    let mut out = Body {
        buffer: head,
        sender,
        rows: 0,
        first_of_section: true,
    };
    for (n, section) in db::export::SECTIONS.iter().enumerate() {
        let comma = if n == 0 { "" } else { "," };
        out.buffer
            .extend_from_slice(format!("{comma}\"{}\":[", section.table).as_bytes());
        out.first_of_section = true;
        db::export::rows(db, section, player_id, &mut out).await?;
        out.buffer.push(b']');
    }
    out.buffer.extend_from_slice(b"}}}");
    out.flush().await?;
    Ok(out.rows)
}

/// The body being written: what is not sent yet.
struct Body<'a> {
    buffer: Vec<u8>,
    sender: &'a mpsc::Sender<Result<Vec<u8>>>,
    rows: u64,
    /// No row of the current section is written yet.
    first_of_section: bool,
}

impl db::export::RowSink for Body<'_> {
    type Error = Error;

    async fn row(&mut self, row: serde_json::Map<String, serde_json::Value>) -> Result<()> {
        if !self.first_of_section {
            self.buffer.push(b',');
        }
        self.first_of_section = false;
        serde_json::to_writer(&mut self.buffer, &row).map_err(Error::internal)?;
        self.rows += 1;
        self.flush_when_full().await
    }
}

impl Body<'_> {
    async fn flush_when_full(&mut self) -> Result<()> {
        if self.buffer.len() >= CHUNK_BYTES {
            self.flush().await?;
        }
        Ok(())
    }

    /// Sends what is buffered; fails when the client has gone or stopped reading.
    async fn flush(&mut self) -> Result<()> {
        let chunk = std::mem::take(&mut self.buffer);
        match timeout(SEND_TIMEOUT, self.sender.send(Ok(chunk))).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(Error::internal("the client went away")),
            Err(_) => Err(Error::internal("the client stopped reading")),
        }
    }
}
