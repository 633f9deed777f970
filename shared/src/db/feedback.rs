//! `feedback`: what players tell the studio.

use super::{Tx, in_tx};
use crate::ids::PlayerId;

pub struct NewFeedback<'a> {
    pub id: &'a str,
    pub player_id: &'a PlayerId,
    pub content: &'a str,
    pub contact: Option<&'a str>,
    pub page_context: Option<&'a str>,
    pub now_ms: i64,
}

pub async fn insert(tx: &mut Tx, f: &NewFeedback<'_>) -> sqlx::Result<()> {
    in_tx!(tx, |ex| {
        sqlx::query(
            "INSERT INTO feedback (id, player_id, content, contact, page_context, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(f.id)
        .bind(f.player_id)
        .bind(f.content)
        .bind(f.contact)
        .bind(f.page_context)
        .bind(f.now_ms)
        .execute(ex)
        .await?
        .rows_affected()
    });
    Ok(())
}
