//! The reports the NPPA anti-addiction system requires of verified players' logins and
//! logouts (the licensed-game profile): queued in the sign-in's or the logout's own
//! transaction and sent by a background job ([`send_reports`]), at most 128 a call; a
//! refused or unanswered call is tried again later, so a request never waits for NPPA.
//! A report still not taken a day after it happened is given up (kept, marked so).

use chrono::Utc;
use sha2::{Digest, Sha256};

use crate::Result;
use crate::context::AppContext;
use crate::db::{self, Tx};
use crate::ids::PlayerId;
use crate::providers::nppa::{Behaviour, LOGINOUT_BATCH, Reported};
use crate::services::job_clock;

/// The `si` of a sign-in: 32 hex digits of its refresh-token family, the same for its
/// login and its logout.
pub fn session_id(family: &str) -> String {
    let digest = Sha256::digest(family.as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Behaviour types (`bt`).
pub const LOGIN: i64 = 1;
pub const LOGOUT: i64 = 0;

/// Queues the report of a verified player's login or logout in `tx` (nothing outside
/// the licensed-game profile, or for a player not verified). A logout is reported only
/// after its session's login: a sign-in left idle when the player verified, never
/// reported as a login, ends unreported too.
pub async fn queue(
    ctx: &AppContext,
    tx: &mut Tx,
    player_id: &PlayerId,
    pi: Option<&str>,
    family: &str,
    behaviour: i64,
) -> Result<()> {
    let Some(pi) = pi.filter(|_| ctx.settings.compliance.licensed_game()) else {
        return Ok(());
    };
    let si = session_id(family);
    if behaviour == LOGOUT && !db::real_name::login_queued(tx, player_id, &si).await? {
        return Ok(());
    }
    db::real_name::queue_report(
        tx,
        &uuid::Uuid::new_v4().to_string(),
        player_id,
        &si,
        behaviour,
        pi,
        ctx.clock.now_ms(),
    )
    .await?;
    Ok(())
}

/// The NPPA person id of a verified player, in the licensed-game profile (None
/// otherwise, without a statement). Read under the player's lock in `tx`: a
/// verification at the same moment (which takes that lock before it reads the open
/// sign-ins) either sees this sign-in or logout done, or is seen by it, so a session's
/// login is reported once and its logout only after it.
pub async fn verified_pi_locked(
    ctx: &AppContext,
    tx: &mut Tx,
    player_id: &PlayerId,
) -> Result<Option<String>> {
    if !ctx.settings.compliance.licensed_game() {
        return Ok(None);
    }
    Ok(db::progress::lock(tx, player_id).await?.and_then(|p| {
        let guard = p.account.guard();
        guard.verified_birth().and(guard.pi)
    }))
}

/// What one run of the report job did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    pub sent: usize,
    pub retried: usize,
    /// Reports given up this run: not taken a day after they happened.
    pub given_up: usize,
}

/// How long a report is tried: a report NPPA refused or could not take for a day
/// (refused for good, or the interface down that long) is of an event long over, whose
/// time the interface no longer takes.
const GIVE_UP_AFTER_MS: i64 = 86_400_000;

/// How long a refused report waits before its next try: 30 s, doubling, at most an hour.
fn retry_delay_ms(attempts: i64) -> i64 {
    (30_000_i64 << attempts.clamp(0, 7)).min(3_600_000)
}

/// The interface takes an event time at most 180 s before the call: an event kept
/// waiting longer is reported at the oldest time it still takes (its order with its
/// session's other event is kept by the sequence of the batch).
fn reported_time_secs(occurred_at_ms: i64, now_ms: i64) -> i64 {
    occurred_at_ms.max(now_ms - 170_000).min(now_ms - 1_000) / 1000
}

/// The background job: sends the due reports, a batch of at most 128 per call, a few
/// calls a run. Nothing without the NPPA interface configured.
pub async fn send_reports(ctx: &AppContext) -> Result<Sent> {
    let Some(nppa) = ctx.providers.nppa.as_ref() else {
        return Ok(Sent::default());
    };
    let mut done = Sent::default();
    // aged by the earlier of the process's and the database's clocks: a process whose
    // clock runs ahead must not give up the queue
    let now_ms = job_clock::cautious_now_ms(ctx).await?;
    let given_up = db::real_name::give_up_stale(
        &ctx.db,
        now_ms - GIVE_UP_AFTER_MS,
        now_ms,
        4 * LOGINOUT_BATCH as i64,
    )
    .await?;
    if given_up > 0 {
        tracing::warn!(
            reports = given_up,
            "NPPA reports: given up a day after they happened"
        );
    }
    done.given_up = usize::try_from(given_up).unwrap_or(usize::MAX);
    for _ in 0..4 {
        let now_ms = ctx.clock.now_ms();
        let due = db::real_name::due_reports(&ctx.db, now_ms, LOGINOUT_BATCH as i64).await?;
        if due.is_empty() {
            break;
        }
        // the interface's times are the real clock's, as its `timestamps` header is
        let real_now = Utc::now().timestamp_millis();
        let collections: Vec<Behaviour> = due
            .iter()
            .enumerate()
            .map(|(i, r)| Behaviour {
                no: u32::try_from(i + 1).unwrap_or(u32::MAX),
                si: r.session_id.clone(),
                bt: u8::from(r.behaviour == LOGIN),
                ot: reported_time_secs(r.occurred_at + (real_now - now_ms), real_now),
                ct: 0,
                pi: r.pi.clone(),
            })
            .collect();
        let (sent, refused): (Vec<String>, Vec<String>) = match nppa.loginout(&collections).await {
            Ok(Reported::All) => (due.iter().map(|r| r.id.clone()).collect(), Vec::new()),
            Ok(Reported::AllBut(nos)) => due.iter().enumerate().fold(
                (Vec::new(), Vec::new()),
                |(mut sent, mut refused), (i, r)| {
                    if nos.contains(&u32::try_from(i + 1).unwrap_or(u32::MAX)) {
                        refused.push(r.id.clone());
                    } else {
                        sent.push(r.id.clone());
                    }
                    (sent, refused)
                },
            ),
            Err(e) => {
                tracing::warn!(error = %e, reports = due.len(), "NPPA reports: call failed, retried later");
                (Vec::new(), due.iter().map(|r| r.id.clone()).collect())
            }
        };
        db::real_name::mark_sent(&ctx.db, &sent, now_ms).await?;
        let attempts = due.iter().map(|r| r.attempts).max().unwrap_or(0);
        db::real_name::retry_later(&ctx.db, &refused, now_ms + retry_delay_ms(attempts)).await?;
        done.sent += sent.len();
        done.retried += refused.len();
        if !refused.is_empty() {
            break;
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_32_hex_digits_and_stable() {
        let si = session_id("family");
        assert_eq!(si.len(), 32);
        assert!(si.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(si, session_id("family"));
        assert_ne!(si, session_id("another"));
    }

    #[test]
    fn event_times_stay_within_what_the_interface_takes() {
        let now = 1_800_000_000_000;
        assert_eq!(reported_time_secs(now - 5_000, now), (now - 5_000) / 1000);
        // kept waiting an hour: reported 170 s back
        assert_eq!(
            reported_time_secs(now - 3_600_000, now),
            (now - 170_000) / 1000
        );
        // never at or after the call
        assert!(reported_time_secs(now, now) < now / 1000);
    }

    #[test]
    fn retries_back_off_to_an_hour() {
        assert_eq!(retry_delay_ms(0), 30_000);
        assert_eq!(retry_delay_ms(1), 60_000);
        assert_eq!(retry_delay_ms(20), 3_600_000);
    }
}
