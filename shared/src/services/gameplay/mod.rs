//! Tracks, challenges, judged answers and knowledge-card views, one module per use case.

mod answer;
mod cards;
mod challenges;
mod tracks;

use serde::Serialize;
use utoipa::ToSchema;

use crate::message::msg;
use crate::{Error, Result};

pub use answer::{AnswerProgress, AnswerRequest, AnswerResult, answer};
pub use cards::{CardViewRequest, CardViewResult, KnowledgeCard, view_card};
pub use challenges::{
    AnswerOption, Challenge, ChallengeQuestion, ChallengeQuestionBody, next_challenge,
    next_in_mode, next_review_challenge,
};
pub use tracks::{Track, TrackNode, track, tracks};

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RewardItem {
    /// `xp` or `item`.
    #[serde(rename = "type")]
    pub kind: String,
    pub amount: i64,
    pub title: String,
    /// review_explanation, first_knowledge_card or inventory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
}

impl RewardItem {
    fn xp(amount: i64, title: &str, source: Option<&str>) -> Self {
        Self {
            kind: "xp".into(),
            amount,
            title: title.into(),
            source: source.map(Into::into),
            item_id: None,
            quantity: None,
        }
    }
}

fn field<'a>(value: &'a str, name: &str) -> Result<&'a str> {
    let v = value.trim();
    if v.is_empty() || v.len() > 128 {
        return Err(Error::validation(msg::field_must_be_1_128_characters(name)));
    }
    Ok(v)
}
