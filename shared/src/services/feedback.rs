//! `POST /v1/feedback`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::context::AppContext;
use crate::db::{self, feedback::NewFeedback};
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
        Some(v) if v.chars().count() > max => Err(Error::validation(format!(
            "{name} must be at most {max} characters"
        ))),
        other => Ok(other),
    }
}

pub async fn submit(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    req: &FeedbackRequest,
) -> Result<FeedbackReceipt> {
    let content = req.content.trim();
    let len = content.chars().count();
    if !(1..=2000).contains(&len) {
        return Err(Error::validation("content must be 1-2000 characters"));
    }
    let contact = at_most(req.contact.as_deref(), 255, "contact")?;
    let page_context = at_most(req.page_context.as_deref(), 200, "pageContext")?;
    let id = Uuid::new_v4().to_string();
    let now = ctx.clock.now();
    let mut tx = ctx.db.begin().await?;
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
