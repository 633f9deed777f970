//! Tracks, challenges, judged answers and knowledge-card views, one module per use case.

mod answer;
mod cards;
mod challenges;
mod tracks;

use serde::Serialize;
use utoipa::ToSchema;

use crate::closed_set::closed_set;

pub use answer::{AnswerProgress, AnswerRequest, AnswerResult, answer};
pub use cards::{CardViewRequest, CardViewResult, KnowledgeCard, view_card};
pub use challenges::{
    AnswerOption, Challenge, ChallengeQuestion, ChallengeQuestionBody, next_challenge,
    next_in_mode, next_review_challenge,
};
pub use tracks::{NodeStatus, Track, TrackNode, track, tracks};

closed_set! {
    /// What a reward gives: `xp` or an `item`.
    pub enum RewardKind in "reward-kind" {
        Xp = "xp",
        Item = "item",
    }
}

closed_set! {
    /// What earned a reward: `review_explanation` (a knowledge card read),
    /// `first_knowledge_card` (the player's first) or `inventory`.
    pub enum RewardSource in "reward-source" {
        ReviewExplanation = "review_explanation",
        FirstKnowledgeCard = "first_knowledge_card",
        Inventory = "inventory",
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RewardItem {
    #[serde(rename = "type")]
    pub kind: RewardKind,
    pub amount: i64,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<RewardSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
}

impl RewardItem {
    fn xp(amount: i64, title: &str, source: Option<RewardSource>) -> Self {
        Self {
            kind: RewardKind::Xp,
            amount,
            title: title.into(),
            source,
            item_id: None,
            quantity: None,
        }
    }
}
