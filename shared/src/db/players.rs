//! `players`, `player_identities`, `player_progress`: who a player is, how they sign in,
//! and their game resources.

use super::progress::{self, Target, Update};
use super::{Db, Tx, in_tx, read};
use crate::domain::identity::IdentityProvider;
use crate::ids::PlayerId;

pub use super::progress::AccountState;

/// What authentication needs to know about a player, read on every request.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerAuthRow {
    pub id: PlayerId,
    pub is_guest: bool,
    pub linked_at: Option<i64>,
    #[sqlx(flatten)]
    pub account: AccountState,
}

pub async fn auth_row(db: &Db, id: &PlayerId) -> sqlx::Result<Option<PlayerAuthRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, PlayerAuthRow>(
            "SELECT id, is_guest, linked_at, is_banned, banned_until, deleted_at, merged_into, token_version, age_band, real_name_status, real_name_pi
             FROM players WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Ends every access token of a player: their version moves on (and with it the
/// progress revision, so no answer judged on a memory from before writes).
pub async fn end_access_tokens(tx: &mut Tx, player_id: &PlayerId, now_ms: i64) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET token_version = token_version + 1, updated_at = $2 WHERE id = $1",
        )
        .bind(player_id)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    progress::write(Target::Tx(tx), player_id, Update::Touch, now_ms)
        .await
        .map(drop)
}

/// The player an identity (`$1` provider, `$2` subject) belongs to; read inside and
/// outside a transaction.
pub(super) const IDENTITY_OWNER: &str =
    "SELECT player_id FROM player_identities WHERE provider = $1 AND subject = $2";

/// The player an identity belongs to.
pub async fn find_by_identity(
    db: &Db,
    provider: IdentityProvider,
    subject: &str,
) -> sqlx::Result<Option<PlayerId>> {
    Ok(read!(db, |ex| {
        sqlx::query_scalar(IDENTITY_OWNER)
            .bind(provider.as_str())
            .bind(subject)
            .fetch_optional(ex)
            .await?
    }))
}

/// A new player to create with its first identity and its first refresh token.
pub struct NewPlayer<'a> {
    pub id: &'a PlayerId,
    pub is_guest: bool,
    pub nickname: Option<&'a str>,
    pub provider: IdentityProvider,
    pub subject: &'a str,
    pub hearts: i64,
    pub refresh_token_hash: &'a str,
    pub refresh_expires_at_ms: i64,
    pub now_ms: i64,
}

/// Creates the player with its identity, progress, wallet and subscription rows and its
/// first refresh token, all or nothing. Returns false, with nothing written, when the
/// identity was taken concurrently (its unique key refuses the insert; the caller reads
/// the winner).
pub async fn create_with_identity(db: &Db, p: &NewPlayer<'_>) -> sqlx::Result<bool> {
    let written = match db {
        // One statement, so no transaction round trips: PostgreSQL checks the foreign
        // keys at its end.
        Db::Postgres(pool) => bind_new_player(
            sqlx::query(
                "WITH player AS (
                     INSERT INTO players (id, nickname, is_guest, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $4)),
                 identity AS (
                     INSERT INTO player_identities (provider, subject, player_id, created_at)
                     VALUES ($5, $6, $1, $4)),
                 progress AS (
                     INSERT INTO player_progress (player_id, hearts, updated_at) VALUES ($1, $7, $4)),
                 wallet AS (
                     INSERT INTO wallets (player_id, coins_balance, updated_at) VALUES ($1, 0, $4)),
                 subscription AS (
                     INSERT INTO subscriptions (player_id, status, tier, updated_at)
                     VALUES ($1, 'none', 'free', $4))
                 INSERT INTO refresh_tokens (token_hash, audience, subject_id, expires_at, created_at)
                 VALUES ($8, 'player', $1, $9, $4)",
            ),
            p,
        )
        .execute(&crate::db::Checked(pool))
        .await
        .map(drop),
        // SQLite has no writing CTEs: the inserts as one transaction script.
        Db::Sqlite(s) => {
            let script = bind_new_player(
                sqlx::query::<sqlx::Sqlite>(
                    "BEGIN IMMEDIATE;
                     INSERT INTO players (id, nickname, is_guest, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $4);
                     INSERT INTO player_identities (provider, subject, player_id, created_at)
                     VALUES ($5, $6, $1, $4);
                     INSERT INTO player_progress (player_id, hearts, updated_at) VALUES ($1, $7, $4);
                     INSERT INTO wallets (player_id, coins_balance, updated_at) VALUES ($1, 0, $4);
                     INSERT INTO subscriptions (player_id, status, tier, updated_at)
                     VALUES ($1, 'none', 'free', $4);
                     INSERT INTO refresh_tokens (token_hash, audience, subject_id, expires_at, created_at)
                     VALUES ($8, 'player', $1, $9, $4);
                     COMMIT",
                ),
                p,
            );
            s.write_script(script).await.map(drop)
        }
    };
    match written {
        Ok(()) => Ok(true),
        Err(e) if super::is_unique_violation(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

fn bind_new_player<'q, DB>(
    q: sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments>,
    p: &NewPlayer<'_>,
) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments>
where
    DB: sqlx::Database,
    String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<String>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    bool: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    q.bind(p.id.to_string())
        .bind(p.nickname.map(str::to_string))
        .bind(p.is_guest)
        .bind(p.now_ms)
        .bind(p.provider.as_str().to_string())
        .bind(p.subject.to_string())
        .bind(p.hearts)
        .bind(p.refresh_token_hash.to_string())
        .bind(p.refresh_expires_at_ms)
}

/// The public profile of a player (the session's user summary).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerProfileRow {
    pub id: PlayerId,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
    pub tier: crate::domain::subscription::Tier,
}

pub async fn profile(db: &Db, id: &PlayerId) -> sqlx::Result<Option<PlayerProfileRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, PlayerProfileRow>(
            "SELECT p.id, p.nickname, p.avatar_url, COALESCE(s.tier, 'free') AS tier
             FROM players p LEFT JOIN subscriptions s ON s.player_id = p.id
             WHERE p.id = $1 AND p.deleted_at IS NULL",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

/// A player's selected region and when it may change next, with the account state
/// (the leaderboards admit the caller by this row).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RegionState {
    pub region_code: Option<String>,
    pub region_selected_at: Option<i64>,
    pub region_next_change_at: Option<i64>,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
    /// Held by fair play: shown on boards to themselves alone.
    pub fairplay_held: bool,
    #[sqlx(flatten)]
    pub account: AccountState,
}

pub async fn region_state(db: &Db, id: &PlayerId) -> sqlx::Result<Option<RegionState>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, RegionState>(
            "SELECT region_code, region_selected_at, region_next_change_at, nickname, avatar_url,
                    fairplay_held, is_banned, banned_until, deleted_at, merged_into, token_version, age_band, real_name_status, real_name_pi
             FROM players WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Selects a region unless a change is not allowed yet; false when refused (the caller
/// then rolls back). The progress row is locked first, the order every writer of the
/// player's rows takes (answers, holds, bans), so two of them never wait on each other.
pub async fn select_region(
    tx: &mut Tx,
    id: &PlayerId,
    code: &str,
    now_ms: i64,
    next_change_ms: i64,
) -> sqlx::Result<bool> {
    // an answer judged before the move then fails to write (its XP would go to the old
    // region's board)
    progress::write(Target::Tx(tx), id, Update::Touch, now_ms).await?;
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET region_code = $2, region_selected_at = $3, region_next_change_at = $4, updated_at = $3
             WHERE id = $1 AND (region_next_change_at IS NULL OR region_next_change_at <= $3)",
        )
        .bind(id)
        .bind(code)
        .bind(now_ms)
        .bind(next_change_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Wallet balance and inventory of a player.
pub async fn wallet_balance(db: &Db, id: &PlayerId) -> sqlx::Result<i64> {
    let balance: Option<i64> = read!(db, |ex| {
        sqlx::query_scalar("SELECT coins_balance FROM wallets WHERE player_id = $1")
            .bind(id)
            .fetch_optional(ex)
            .await?
    });
    Ok(balance.unwrap_or(0))
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct InventoryRow {
    pub item_id: String,
    pub quantity: i64,
    pub active_until: Option<i64>,
    pub metadata: Option<String>,
}

pub async fn inventory(db: &Db, id: &PlayerId) -> sqlx::Result<Vec<InventoryRow>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, InventoryRow>(
            "SELECT item_id, quantity, active_until, metadata FROM inventory_items
             WHERE player_id = $1 ORDER BY item_id",
        )
        .bind(id)
        .fetch_all(ex)
        .await?
    }))
}
