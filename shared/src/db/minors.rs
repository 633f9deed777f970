//! Minor mode's rows: the declared age band and guardian PIN on `players`, a minor's
//! counted play of the day (`minor_play`), and the day's copy of a player's data.

use super::progress::{self, Target, Update};
use super::{Db, Tx, in_tx, read};
use crate::domain::minor::AgeBand;
use crate::ids::PlayerId;

/// A minor's counted play: the Beijing day it is of, and how much.
pub async fn played(db: &Db, player_id: &PlayerId) -> sqlx::Result<Option<(String, i64)>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT day, played_ms FROM minor_play WHERE player_id = $1",
        )
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Counts an activity of a minor at `now_ms` on Beijing day `day`, in one statement so
/// two at once both count: it adds the gap since the last activity, capped at `cap_ms`
/// (`domain::minor::counted_gap_ms`); the first activity of a day starts from nothing.
/// Answers the day's counted play.
pub async fn count_activity(
    db: &Db,
    player_id: &PlayerId,
    day: &str,
    now_ms: i64,
    cap_ms: i64,
) -> sqlx::Result<i64> {
    let mut tx = db.begin().await?;
    let played = in_tx!(&mut tx, |ex| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO minor_play (player_id, day, played_ms, last_activity_at)
             VALUES ($1, $2, 0, $3)
             ON CONFLICT (player_id) DO UPDATE SET
                 played_ms = CASE
                     WHEN minor_play.day <> $2 THEN 0
                     ELSE minor_play.played_ms + CASE
                         WHEN $3 - minor_play.last_activity_at > $4 THEN $4
                         WHEN $3 - minor_play.last_activity_at < 0 THEN 0
                         ELSE $3 - minor_play.last_activity_at END
                     END,
                 day = $2,
                 last_activity_at = CASE WHEN $3 > minor_play.last_activity_at
                     THEN $3 ELSE minor_play.last_activity_at END
             RETURNING played_ms",
        )
        .bind(player_id)
        .bind(day)
        .bind(now_ms)
        .bind(cap_ms)
        .fetch_one(ex)
        .await?
    });
    tx.commit().await?;
    Ok(played)
}

/// A player's guardian settings.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Guardian {
    pub age_band: Option<AgeBand>,
    pub guardian_pin_hash: Option<String>,
    pub guardian_pin_locked_until: Option<i64>,
    pub guardian_pin_failures: i64,
    /// When the last wrong try was (the day's count is of that day).
    pub guardian_pin_failed_at: Option<i64>,
}

pub async fn guardian(db: &Db, player_id: &PlayerId) -> sqlx::Result<Option<Guardian>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, Guardian>(
            "SELECT age_band, guardian_pin_hash, guardian_pin_locked_until,
                    guardian_pin_failures, guardian_pin_failed_at
             FROM players WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    }))
}

/// Takes one try of the guardian PIN before it is checked, counted as a failure until
/// a right PIN clears it ([`set_age_band`], [`clear_pin_failures`]): the day's count
/// (tries since `day_start`, the Beijing day's first instant) starts afresh each day, and
/// the try that reaches `tries` locks the PIN until `locked_until` (the next midnight).
/// None while it is locked (no try is taken). A try is taken in one statement, so tries
/// at once from several processes count one by one.
pub async fn take_pin_try(
    db: &Db,
    player_id: &PlayerId,
    now_ms: i64,
    day_start: i64,
    tries: i64,
    locked_until: i64,
) -> sqlx::Result<Option<String>> {
    let mut tx = db.begin().await?;
    let hash = in_tx!(&mut tx, |ex| {
        sqlx::query_scalar::<_, Option<String>>(
            "UPDATE players SET
                 guardian_pin_failures = CASE WHEN guardian_pin_failed_at >= $3
                     THEN guardian_pin_failures + 1 ELSE 1 END,
                 guardian_pin_locked_until = CASE WHEN (CASE WHEN guardian_pin_failed_at >= $3
                     THEN guardian_pin_failures + 1 ELSE 1 END) >= $4
                     THEN $5 ELSE guardian_pin_locked_until END,
                 guardian_pin_failed_at = $2
             WHERE id = $1 AND guardian_pin_hash IS NOT NULL
               AND (guardian_pin_locked_until IS NULL OR guardian_pin_locked_until <= $2)
             RETURNING guardian_pin_hash",
        )
        .bind(player_id)
        .bind(now_ms)
        .bind(day_start)
        .bind(tries)
        .bind(locked_until)
        .fetch_optional(ex)
        .await?
    });
    tx.commit().await?;
    Ok(hash.flatten())
}

/// The stored guardian PIN hash, read in the caller's transaction (after its lock).
pub async fn guardian_pin_of(tx: &mut Tx, player_id: &PlayerId) -> sqlx::Result<Option<String>> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query_scalar::<_, Option<String>>(
            "SELECT guardian_pin_hash FROM players WHERE id = $1",
        )
        .bind(player_id)
        .fetch_optional(ex)
        .await?
    })
    .flatten())
}

/// A right PIN clears the count of wrong ones (and a lock that has passed).
pub async fn clear_pin_failures(tx: &mut Tx, player_id: &PlayerId) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET guardian_pin_failures = 0, guardian_pin_failed_at = NULL
             WHERE id = $1",
        )
        .bind(player_id)
        .execute(ex)
        .await?;
    });
    Ok(())
}

/// Staff's reset of a guardian PIN at the guardian's request: a new PIN (its hash), no
/// wrong tries, no lock, the progress revision advanced. False when the player has no
/// guardian PIN (minor mode off) or is gone.
pub async fn reset_pin(
    tx: &mut Tx,
    player_id: &PlayerId,
    pin_hash: &str,
    now_ms: i64,
) -> sqlx::Result<bool> {
    let changed = in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET guardian_pin_hash = $2, guardian_pin_failures = 0,
                 guardian_pin_failed_at = NULL, guardian_pin_locked_until = NULL, updated_at = $3
             WHERE id = $1 AND guardian_pin_hash IS NOT NULL AND deleted_at IS NULL",
        )
        .bind(player_id)
        .bind(pin_hash)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    });
    if changed {
        progress::write(Target::Tx(tx), player_id, Update::Touch, now_ms).await?;
    }
    Ok(changed)
}

/// Sets the age band and the PIN (none: minor mode off and no PIN), clears the PIN's
/// failures, and advances the progress revision so no answer judged on what a process
/// remembered of the player from before passes. Only while the stored PIN hash is still
/// `expected` (the one the change was proved against): false, and nothing written, when
/// another change came first.
pub async fn set_age_band(
    tx: &mut Tx,
    player_id: &PlayerId,
    band: AgeBand,
    pin_hash: Option<&str>,
    expected: Option<&str>,
    now_ms: i64,
) -> sqlx::Result<bool> {
    let changed = in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET age_band = $2, guardian_pin_hash = $3,
                 guardian_pin_failures = 0, guardian_pin_failed_at = NULL,
                 guardian_pin_locked_until = NULL, updated_at = $4
             WHERE id = $1 AND guardian_pin_hash IS NOT DISTINCT FROM $5",
        )
        .bind(player_id)
        .bind(band)
        .bind(pin_hash)
        .bind(now_ms)
        .bind(expected)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    });
    if changed {
        progress::write(Target::Tx(tx), player_id, Update::Touch, now_ms).await?;
    }
    Ok(changed)
}

/// Claims the player's copy of their data for now, unless one was made less than
/// `every_ms` ago: None when claimed, else when the last one was made. A conditional
/// update, so of two requests at once one claims it.
pub async fn claim_export(
    tx: &mut Tx,
    player_id: &PlayerId,
    now_ms: i64,
    every_ms: i64,
) -> sqlx::Result<Option<i64>> {
    let claimed = in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE players SET last_export_at = $2
             WHERE id = $1 AND (last_export_at IS NULL OR last_export_at <= $2 - $3)",
        )
        .bind(player_id)
        .bind(now_ms)
        .bind(every_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    if claimed == 1 {
        return Ok(None);
    }
    let last = in_tx!(tx, |ex| {
        sqlx::query_scalar::<_, Option<i64>>("SELECT last_export_at FROM players WHERE id = $1")
            .bind(player_id)
            .fetch_optional(ex)
            .await?
    });
    Ok(Some(last.flatten().unwrap_or(now_ms)))
}

/// Gives back the claim made at `claimed_at` of a copy that could not be finished.
pub async fn release_export(db: &Db, player_id: &PlayerId, claimed_at: i64) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    in_tx!(&mut tx, |ex| {
        sqlx::query(
            "UPDATE players SET last_export_at = NULL WHERE id = $1 AND last_export_at = $2",
        )
        .bind(player_id)
        .bind(claimed_at)
        .execute(ex)
        .await?
        .rows_affected()
    });
    tx.commit().await
}
