//! Knowledge cards: the card shown after a question, and its paid first view.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;
use crate::context::AppContext;
use crate::db::cards::CardSource;
use crate::db::{self};
use crate::domain::change::ResourceChange;
use crate::ids::{CardId, QuestionId};
use crate::message::msg;
use crate::services::league;
use crate::services::player_auth::PlayerPrincipal;
use crate::services::progress::{self, ProgressSummary};
use crate::{Error, Result};

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct KnowledgeCard {
    /// The card id, or `fallback-{questionId}`.
    pub id: CardId,
    pub title: String,
    pub summary: String,
    pub fact: String,
}

/// The card shown after a question: its own, or one built from the question.
pub(super) fn knowledge_card(c: CardSource) -> KnowledgeCard {
    match (c.card_id, c.summary) {
        (Some(id), Some(summary)) => KnowledgeCard {
            id,
            title: c
                .title
                .filter(|t| !t.trim().is_empty())
                .unwrap_or(c.category_name),
            summary,
            fact: c.deep_dive.unwrap_or_default(),
        },
        _ => KnowledgeCard {
            id: CardId::fallback_of(&c.question_id),
            title: c.category_name,
            summary: format!("The answer is: {}.", c.correct_answer),
            fact: format!("{} — {}", c.stem_text, c.correct_answer),
        },
    }
}

/// The card of version `version` of a question, read on its own (when the answer
/// context had none): remembered, or read and remembered.
pub(super) async fn card_of(
    ctx: &AppContext,
    question_id: &QuestionId,
    version: i64,
) -> Result<KnowledgeCard> {
    let card = match ctx.answer_cache.card(question_id, version) {
        Some(card) => card,
        None => {
            let card = db::cards::card_for_question(&ctx.db, question_id, version)
                .await?
                .ok_or_else(|| Error::not_found(msg::QUESTION_NOT_FOUND))?;
            ctx.answer_cache.remember_card(&card);
            card
        }
    };
    Ok(knowledge_card(card))
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardViewRequest {
    /// For audit only.
    pub challenge_id: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardViewResult {
    pub card_id: String,
    /// Empty on a repeated view.
    pub rewards: Vec<RewardItem>,
    pub progress: ProgressSummary,
}

/// `POST /v1/challenges/knowledge-cards/:cardId/view`: +3 XP on a card's first view and
/// +15 XP on the player's first view of any card, each once, in one transaction. Only a
/// card the player was shown pays (the card of a question of one of their challenges,
/// or its fallback); any other id is 404, so card ids cannot be harvested for XP.
pub async fn view_card(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    card_id: &CardId,
) -> Result<CardViewResult> {
    // a card's XP is play: minor mode and the licensed-game profile limit it too
    crate::services::minors::admit_play(ctx, &player.id, &player.guard).await?;
    let shown = match card_id.fallback_for() {
        // a fallback card stands in only for a question without a card of its own
        Some(question_id) => {
            db::cards::fallback_card_shown(&ctx.db, &player.id, &question_id).await?
        }
        None => db::cards::card_shown(&ctx.db, &player.id, card_id).await?,
    };
    if !shown {
        return Err(Error::not_found(msg::KNOWLEDGE_CARD_NOT_FOUND));
    }
    let rules = &ctx.settings.rules;
    let now = ctx.clock.now();
    let mut tx = ctx.db.begin().await?;
    let p = progress::lock(&mut tx, &player.id, now.timestamp_millis()).await?;
    let region = p.region_code.as_deref();
    let mut state = p.resources.clone().at(now, rules);
    let mut rewards = Vec::new();
    let mut ranks = Vec::new();
    // the week of XP earned here: the player's first of a week joins a league cohort
    let mut week = None;
    let grants = [
        (
            format!("kcview:{}:{card_id}", player.id),
            RewardSource::ReviewExplanation,
            rules.card_view_xp,
            "Knowledge card",
        ),
        (
            format!("kcfirst:{}", player.id),
            RewardSource::FirstKnowledgeCard,
            rules.first_card_xp,
            "First knowledge card",
        ),
    ];
    for (key, source, xp, title) in grants {
        let mut next = state.clone();
        next.gain_xp(xp);
        let change = ResourceChange::new(
            &player.id,
            region,
            key,
            source.as_str(),
            state.clone(),
            next,
            rules,
            now,
        );
        if progress::record(&mut tx, &change, &mut ranks).await? {
            if let Some(w) = &change.weekly {
                week = Some(w.week_start.clone());
            }
            state = change.after;
            rewards.push(RewardItem::xp(xp, title, Some(source)));
        }
    }
    tx.commit().await?;
    ctx.publish_ranks(&ranks).await;
    if let Some(week) = week {
        league::after_weekly_xp(ctx, &player.id, &week, now.timestamp_millis()).await;
    }
    let mut summary_of = p;
    summary_of.resources = state;
    Ok(CardViewResult {
        card_id: card_id.to_string(),
        rewards,
        progress: progress::summarize(&summary_of, now, rules),
    })
}
