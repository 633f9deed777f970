//! `POST /v1/feedback`: at most `FEEDBACK_PER_HOUR` per player and
//! `FEEDBACK_PER_ADDRESS_PER_HOUR` per client address in a clock hour, counted in the
//! database (`db::request_counters`) in the transaction that stores the feedback, so the
//! limits hold across processes and a refused or failed request takes no place.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::client_addr::LimitKey;
use crate::context::AppContext;
use crate::db::request_counters::Counter;
use crate::db::{self, feedback::NewFeedback};
use crate::message::msg;
use crate::services::player_auth::PlayerPrincipal;
use crate::{Error, Result};

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackRequest {
    /// 1-2000 characters.
    pub content: String,
    /// Up to 255 characters.
    pub contact: Option<String>,
    /// Up to 200 characters: where in the app it was sent from.
    pub page_context: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackReceipt {
    pub id: String,
    pub created_at: DateTime<Utc>,
}

fn at_most<'a>(value: Option<&'a str>, max: usize, name: &str) -> Result<Option<&'a str>> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) if v.chars().count() > max => Err(Error::validation(
            msg::field_must_be_at_most_max_characters(name, max),
        )),
        other => Ok(other),
    }
}

/// The limits' window: a clock hour (fixed windows, as the admin sign-in throttle's).
const WINDOW_MS: i64 = 3_600_000;

pub async fn submit(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    client: LimitKey,
    req: &FeedbackRequest,
) -> Result<FeedbackReceipt> {
    let content = req.content.trim();
    let len = content.chars().count();
    if !(1..=2000).contains(&len) {
        return Err(Error::validation(msg::CONTENT_MUST_BE_1_2000_CHARACTERS));
    }
    let contact = at_most(req.contact.as_deref(), 255, "contact")?;
    let page_context = at_most(req.page_context.as_deref(), 200, "pageContext")?;
    let id = Uuid::new_v4().to_string();
    let now = ctx.clock.now();
    let now_ms = now.timestamp_millis();
    let window_start_ms = now_ms - now_ms.rem_euclid(WINDOW_MS);
    let limits = &ctx.settings.limits;
    let counters = [
        (
            format!("feedback:player:{}", player.id),
            limits.feedback_per_hour,
            msg::TOO_MUCH_FEEDBACK_FROM_THIS_ACCOUNT_TRY_AGAIN_LATER,
        ),
        (
            format!("feedback:addr:{client}"),
            limits.feedback_per_address_per_hour,
            msg::TOO_MUCH_FEEDBACK_FROM_THIS_ADDRESS_TRY_AGAIN_LATER,
        ),
    ];
    fn counter(key: &str, limit: i64, window_start_ms: i64) -> Counter<'_> {
        Counter {
            key,
            window_start_ms,
            expires_at_ms: window_start_ms + WINDOW_MS,
            limit,
        }
    }
    let refused = |refusal| {
        let wait_ms = (window_start_ms + WINDOW_MS - now_ms).max(1);
        Error::RateLimited {
            message: refusal,
            retry_after_secs: crate::error::retry_after_secs(wait_ms),
        }
    };
    // a full counter refuses with a read: a flood of refused feedback writes nothing
    for (key, limit, refusal) in &counters {
        if db::request_counters::is_full(&ctx.db, &counter(key, *limit, window_start_ms)).await? {
            return Err(refused(refusal.clone()));
        }
    }
    let mut tx = ctx.db.begin().await?;
    for (key, limit, refusal) in &counters {
        if !db::request_counters::take_place(&mut tx, &counter(key, *limit, window_start_ms))
            .await?
        {
            // dropping the transaction gives back a place taken above
            return Err(refused(refusal.clone()));
        }
    }
    db::feedback::insert(
        &mut tx,
        &NewFeedback {
            id: &id,
            player_id: &player.id,
            content,
            contact,
            page_context,
            now_ms: now.timestamp_millis(),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(FeedbackReceipt {
        id,
        created_at: now,
    })
}
