//! `GET /v1/users/me/export`: a copy of everything the service stores about the player
//! (PIPL Art. 45), one JSON document table by table (`db::export::SECTIONS`), one a
//! day, recorded in the audit log.
//!
//! The document is written first into a temporary file, at the database's pace, and
//! then streamed from it at the client's: no connection of the pool waits for a slow
//! reader, and memory holds one row and one chunk whatever the player's history. A few
//! copies are written at once per process, each within a deadline; a copy that could
//! not be written gives the day back (a client that leaves while it downloads does not:
//! its copy was made).

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::stream::{self, BoxStream};
use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufWriter};
use tokio::time::timeout;
use utoipa::ToSchema;

use crate::context::AppContext;
use crate::db::{self, Db, audit::NewAuditEntry};
use crate::ids::PlayerId;
use crate::message::msg;
use crate::{Error, Result};

/// One copy a day per player.
const EVERY_MS: i64 = 86_400_000;
/// Copies being written at once in one process (each holds a read connection while it
/// reads); more are refused with 503. The places are the process's context's.
pub const AT_ONCE: usize = 2;
/// The most writing a copy may take.
const DEADLINE: Duration = Duration::from_secs(120);
/// The chunks the file is sent in.
const CHUNK_BYTES: usize = 32 * 1024;

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
/// the process writes as many as it may at once (two).
pub async fn export(ctx: &AppContext, player_id: &PlayerId) -> Result<PlayerExport> {
    let permit = ctx
        .data_exports
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
    let written = timeout(DEADLINE, write_file(&ctx.db, player_id, head)).await;
    drop(permit);
    let file = match written {
        Ok(Ok(file)) => file,
        failed => {
            let failure = match failed {
                Ok(Err(e)) => e,
                _ => Error::internal("the copy took longer than its deadline"),
            };
            // the day's copy was not made: it is given back
            if let Err(e) = db::minors::release_export(&ctx.db, player_id, now_ms).await {
                tracing::warn!(error = %e, "the failed export's day is not given back");
            }
            return Err(failure);
        }
    };
    Ok(PlayerExport {
        chunks: Box::pin(stream::unfold(Some(file), |file| async move {
            let mut file = file?;
            let mut chunk = vec![0; CHUNK_BYTES];
            match file.read(&mut chunk).await {
                Ok(0) => None,
                Ok(n) => {
                    chunk.truncate(n);
                    Some((Ok(chunk), Some(file)))
                }
                Err(e) => Some((
                    Err(Error::internal(format!("export file unreadable: {e}"))),
                    None,
                )),
            }
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

/// Writes the document into an unnamed temporary file (gone when dropped), read back
/// from its start.
async fn write_file(db: &Db, player_id: &PlayerId, head: Vec<u8>) -> Result<tokio::fs::File> {
    let file = tokio::task::spawn_blocking(tempfile::tempfile)
        .await
        .map_err(Error::internal)?
        .map_err(|e| Error::internal(format!("no temporary file for the export: {e}")))?;
    let mut out = Body {
        file: BufWriter::with_capacity(CHUNK_BYTES, tokio::fs::File::from_std(file)),
        rows: 0,
        first_of_section: true,
    };
    out.write(&head).await?;
    for (n, section) in db::export::SECTIONS.iter().enumerate() {
        let comma = if n == 0 { "" } else { "," };
        out.write(format!("{comma}\"{}\":[", section.table).as_bytes())
            .await?;
        out.first_of_section = true;
        db::export::rows(db, section, player_id, &mut out).await?;
        out.write(b"]").await?;
    }
    out.write(b"}}}").await?;
    out.file.flush().await.map_err(io_failure)?;
    tracing::info!(rows = out.rows, "player data exported");
    let mut file = out.file.into_inner();
    file.rewind().await.map_err(io_failure)?;
    Ok(file)
}

fn io_failure(e: std::io::Error) -> Error {
    Error::internal(format!("export file: {e}"))
}

/// The document being written.
struct Body {
    file: BufWriter<tokio::fs::File>,
    rows: u64,
    /// No row of the current section is written yet.
    first_of_section: bool,
}

impl Body {
    async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.write_all(bytes).await.map_err(io_failure)
    }
}

impl db::export::RowSink for Body {
    type Error = Error;

    async fn row(&mut self, row: serde_json::Map<String, serde_json::Value>) -> Result<()> {
        let mut bytes = Vec::with_capacity(256);
        if !self.first_of_section {
            bytes.push(b',');
        }
        self.first_of_section = false;
        serde_json::to_writer(&mut bytes, &row).map_err(Error::internal)?;
        self.rows += 1;
        self.write(&bytes).await
    }
}
