//! `ad_sessions`: rewarded-ad recovery sessions.

use super::{Db, Tx, in_tx, read};
use crate::domain::ad_recovery::{AdKind, AdOutcome, AdPlatform, AdSessionStatus};
use crate::ids::PlayerId;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AdSessionRow {
    pub id: String,
    pub player_id: PlayerId,
    #[sqlx(rename = "type")]
    pub kind: AdKind,
    pub client_request_id: String,
    pub ad_placement_id: String,
    pub status: AdSessionStatus,
    pub day: String,
    pub result: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
}

pub async fn by_client_request(
    db: &Db,
    player_id: &PlayerId,
    client_request_id: &str,
) -> sqlx::Result<Option<AdSessionRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, AdSessionRow>(
            "SELECT id, player_id, type, client_request_id, ad_placement_id, status, day, result, created_at, expires_at
             FROM ad_sessions WHERE player_id = $1 AND client_request_id = $2",
        )
        .bind(player_id)
        .bind(client_request_id)
        .fetch_optional(ex)
        .await?
    }))
}

pub struct NewAdSession<'a> {
    pub id: &'a str,
    pub player_id: &'a PlayerId,
    pub kind: AdKind,
    pub client_request_id: &'a str,
    pub platform: AdPlatform,
    pub ad_provider: &'a str,
    pub ad_placement_id: &'a str,
    pub day: &'a str,
    pub now_ms: i64,
    pub expires_at_ms: i64,
}

/// Creates a session; false when the player used this clientRequestId already.
pub async fn insert(tx: &mut Tx, s: &NewAdSession<'_>) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO ad_sessions (id, player_id, type, client_request_id, platform, ad_provider,
                                      ad_placement_id, status, day, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'created', $8, $9, $10) ON CONFLICT DO NOTHING",
        )
        .bind(s.id)
        .bind(s.player_id)
        .bind(s.kind)
        .bind(s.client_request_id)
        .bind(s.platform)
        .bind(s.ad_provider)
        .bind(s.ad_placement_id)
        .bind(s.day)
        .bind(s.now_ms)
        .bind(s.expires_at_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

pub async fn get(tx: &mut Tx, id: &str) -> sqlx::Result<Option<AdSessionRow>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, AdSessionRow>(
            "SELECT id, player_id, type, client_request_id, ad_placement_id, status, day, result, created_at, expires_at
             FROM ad_sessions WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Counts a player's (`$1`) completed recoveries of a type (`$2`) on a day (`$3`);
/// read inside and outside a transaction.
const COMPLETED_ON: &str = "SELECT count(*) FROM ad_sessions
     WHERE player_id = $1 AND type = $2 AND status = 'completed' AND day = $3";

/// Recoveries of a type a player completed on a Beijing day.
pub async fn completed_on(
    db: &Db,
    player_id: &PlayerId,
    kind: AdKind,
    day: &str,
) -> sqlx::Result<i64> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(COMPLETED_ON)
            .bind(player_id)
            .bind(kind)
            .bind(day)
            .fetch_one(ex)
            .await?
    }))
}

/// The same count inside a transaction.
pub async fn completed_on_tx(
    tx: &mut Tx,
    player_id: &PlayerId,
    kind: AdKind,
    day: &str,
) -> sqlx::Result<i64> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar(COMPLETED_ON)
            .bind(player_id)
            .bind(kind)
            .bind(day)
            .fetch_one(ex)
            .await?
    }))
}

/// Stores a session's one outcome (completed or failed) with its answer; false when it
/// had one already.
pub async fn finish(
    tx: &mut Tx,
    id: &str,
    status: AdOutcome,
    result: &str,
    day: &str,
    now_ms: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE ad_sessions SET status = $2, result = $3, day = $4, completed_at = $5
             WHERE id = $1 AND status = 'created'",
        )
        .bind(id)
        .bind(status)
        .bind(result)
        .bind(day)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// A player's open sessions (not completed or failed, not expired at `now_ms`) other
/// than the one of `client_request_id`, and the first instant one of them expires:
/// over the partial index of open sessions, read in `tx` after the player's lock.
pub async fn open_sessions(
    tx: &mut Tx,
    player_id: &PlayerId,
    client_request_id: &str,
    now_ms: i64,
) -> sqlx::Result<(i64, Option<i64>)> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_as::<_, (i64, Option<i64>)>(
            "SELECT count(*), min(expires_at) FROM ad_sessions
             WHERE player_id = $1 AND status = 'created' AND expires_at > $3
               AND client_request_id <> $2",
        )
        .bind(player_id)
        .bind(client_request_id)
        .bind(now_ms)
        .fetch_one(ex)
        .await?
    }))
}
