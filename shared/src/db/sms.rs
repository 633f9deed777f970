//! `sms_codes`, `sms_daily_counters`, `sms_sends`: the pending code per number, its resend
//! window, failed guesses, and the daily send limits. Every rule is a conditional write,
//! so it holds across processes.

use super::{Db, Tx, in_tx, read};

/// Why a send was refused before reaching the provider.
#[derive(Debug, PartialEq, Eq)]
pub enum SendRefusal {
    /// Inside the resend window; seconds until the next send is allowed.
    ResendTooSoon(i64),
    PhoneDailyLimit,
    IpDailyLimit,
}

pub struct SendClaim<'a> {
    pub send_id: &'a str,
    pub phone: &'a str,
    pub client_ip: &'a str,
    pub day: &'a str,
    pub code_hash: Option<&'a str>,
    pub now_ms: i64,
    pub expires_at_ms: i64,
    pub resend_ms: i64,
    pub phone_daily_limit: i64,
    pub ip_daily_limit: i64,
}

/// Claims the resend window and one send from each daily allowance, and stores the new
/// pending code. Nothing is kept when refused (the caller drops the transaction).
pub async fn claim_send(tx: &mut Tx, c: &SendClaim<'_>) -> sqlx::Result<Result<(), SendRefusal>> {
    let window_start = c.now_ms - c.resend_ms;
    let claimed: Option<String> = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "INSERT INTO sms_codes (phone, code_hash, sent_at, expires_at, failed_attempts, consumed_at)
             VALUES ($1, $2, $3, $4, 0, NULL)
             ON CONFLICT (phone) DO UPDATE SET code_hash = excluded.code_hash,
                 sent_at = excluded.sent_at, expires_at = excluded.expires_at,
                 failed_attempts = 0, consumed_at = NULL
             WHERE sms_codes.sent_at <= $5
             RETURNING phone",
        )
        .bind(c.phone)
        .bind(c.code_hash)
        .bind(c.now_ms)
        .bind(c.expires_at_ms)
        .bind(window_start)
        .fetch_optional(ex)
        .await?
    });
    if claimed.is_none() {
        let sent_at: i64 = in_tx!(tx, |ex| {
            sqlx::query_scalar("SELECT sent_at FROM sms_codes WHERE phone = $1")
                .bind(c.phone)
                .fetch_one(ex)
                .await?
        });
        let wait_ms = sent_at + c.resend_ms - c.now_ms;
        return Ok(Err(SendRefusal::ResendTooSoon((wait_ms + 999) / 1000)));
    }
    if !increment_counter(
        tx,
        &format!("phone:{}", c.phone),
        c.day,
        c.phone_daily_limit,
    )
    .await?
    {
        return Ok(Err(SendRefusal::PhoneDailyLimit));
    }
    if !increment_counter(tx, &format!("ip:{}", c.client_ip), c.day, c.ip_daily_limit).await? {
        return Ok(Err(SendRefusal::IpDailyLimit));
    }
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO sms_sends (id, phone, client_ip, day, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(c.send_id)
        .bind(c.phone)
        .bind(c.client_ip)
        .bind(c.day)
        .bind(c.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(Ok(()))
}

/// Adds one to a daily counter unless it reached `limit`; false when it had.
async fn increment_counter(tx: &mut Tx, key: &str, day: &str, limit: i64) -> sqlx::Result<bool> {
    let count: Option<i64> = in_tx!(tx, |ex| {
        sqlx::query_scalar(
            "INSERT INTO sms_daily_counters (counter_key, day, count) VALUES ($1, $2, 1)
             ON CONFLICT (counter_key, day) DO UPDATE SET count = sms_daily_counters.count + 1
             WHERE sms_daily_counters.count < $3
             RETURNING count",
        )
        .bind(key)
        .bind(day)
        .bind(limit)
        .fetch_optional(ex)
        .await?
    });
    Ok(count.is_some())
}

/// Gives back a claimed send whose delivery failed: the number may be retried at once
/// and the failed send does not count against the daily limits.
pub async fn release_send(tx: &mut Tx, c: &SendClaim<'_>) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE sms_codes SET sent_at = 0, expires_at = 0 WHERE phone = $1 AND sent_at = $2",
        )
        .bind(c.phone)
        .bind(c.now_ms)
        .execute(&mut *ex)
        .await?;
        for key in [format!("phone:{}", c.phone), format!("ip:{}", c.client_ip)] {
            sqlx::query(
                "UPDATE sms_daily_counters SET count = count - 1
                 WHERE counter_key = $1 AND day = $2 AND count > 0",
            )
            .bind(key)
            .bind(c.day)
            .execute(&mut *ex)
            .await?;
        }
        sqlx::query("DELETE FROM sms_sends WHERE id = $1")
            .bind(c.send_id)
            .execute(&mut *ex)
            .await?
            .rows_affected()
    });
    Ok(())
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PendingCode {
    pub code_hash: Option<String>,
    pub sent_at: i64,
    pub expires_at: i64,
    pub failed_attempts: i64,
    pub consumed_at: Option<i64>,
}

pub async fn pending(db: &Db, phone: &str) -> sqlx::Result<Option<PendingCode>> {
    Ok(read!(db, |ex| {
        sqlx::query_as::<_, PendingCode>(
            "SELECT code_hash, sent_at, expires_at, failed_attempts, consumed_at
             FROM sms_codes WHERE phone = $1",
        )
        .bind(phone)
        .fetch_optional(ex)
        .await?
    }))
}

/// Reserves one guess at the pending code sent at `sent_at`: fails when the code is
/// used, expired, replaced or out of guesses. Reserving before comparing means no more
/// than `max_failures` guesses are ever judged, even concurrently.
pub async fn reserve_guess(
    tx: &mut Tx,
    phone: &str,
    sent_at: i64,
    now_ms: i64,
    max_failures: i64,
) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE sms_codes SET failed_attempts = failed_attempts + 1
             WHERE phone = $1 AND sent_at = $2 AND consumed_at IS NULL
               AND expires_at > $3 AND failed_attempts < $4",
        )
        .bind(phone)
        .bind(sent_at)
        .bind(now_ms)
        .bind(max_failures)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Marks the pending code used (once) and takes back the guess reserved for it.
pub async fn consume(tx: &mut Tx, phone: &str, sent_at: i64, now_ms: i64) -> sqlx::Result<bool> {
    Ok(in_tx!(tx, |ex| {
        sqlx::query(
            "UPDATE sms_codes SET consumed_at = $3, failed_attempts = failed_attempts - 1
             WHERE phone = $1 AND sent_at = $2 AND consumed_at IS NULL",
        )
        .bind(phone)
        .bind(sent_at)
        .bind(now_ms)
        .execute(ex)
        .await?
        .rows_affected()
            == 1
    }))
}

/// Forgets everything kept about a number (account deletion).
pub async fn forget_phone(tx: &mut Tx, phone: &str) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query("DELETE FROM sms_codes WHERE phone = $1")
            .bind(phone)
            .execute(&mut *ex)
            .await?;
        // The day's send counter stays until the day is over: deleting an account must
        // not reset the abuse limit of its number.
        sqlx::query("DELETE FROM sms_sends WHERE phone = $1")
            .bind(phone)
            .execute(&mut *ex)
            .await?
            .rows_affected()
    });
    Ok(())
}
