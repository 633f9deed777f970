//! Challenges: the player's unfinished one on a track's current node, or a new one of
//! fresh questions.

use std::collections::HashSet;

use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::answer_cache;
use crate::context::AppContext;
use crate::db::gameplay::{NewSessionQuestion, SessionRow};
use crate::db::{self};
use crate::domain::answer::{SessionKind, SessionStatus};
use crate::domain::memory;
use crate::domain::pick::{self, Candidate};
use crate::domain::skill::{self, Estimate};
use crate::ids::{ChallengeId, PlayerId, QuestionId};
use crate::message::msg;
use crate::services::media::{self, PlayerMedia};
use crate::services::player_auth::PlayerPrincipal;
use crate::services::{minors, review};
use crate::tokens::random_token;
use crate::{Error, Result};

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct AnswerOption {
    pub id: String,
    pub text: String,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChallengeQuestionBody {
    pub id: QuestionId,
    pub prompt: String,
    /// Shuffled; no correctness marker.
    pub options: Vec<AnswerOption>,
    /// The picture, sound or clip of an image, audio or video question; absent for a
    /// text question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<PlayerMedia>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeQuestion {
    pub challenge_id: ChallengeId,
    pub track_id: String,
    pub node_id: String,
    pub question: ChallengeQuestionBody,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Challenge {
    pub challenge_id: ChallengeId,
    pub track_id: String,
    pub node_id: String,
    pub total_questions: i64,
    pub high_reward_eligible: bool,
    pub questions: Vec<ChallengeQuestion>,
    pub answered_question_ids: Vec<QuestionId>,
}

async fn challenge_of(ctx: &AppContext, s: &SessionRow) -> Result<Challenge> {
    let rows = db::gameplay::session_questions(&ctx.db, &s.id).await?;
    let mut questions = Vec::with_capacity(rows.len());
    let mut answered = Vec::new();
    for r in rows {
        let options: Vec<AnswerOption> = serde_json::from_str(&r.options)
            .map_err(|e| Error::internal(format!("stored options unreadable: {e}")))?;
        if r.answered {
            answered.push(r.question_id.clone());
        }
        questions.push(ChallengeQuestion {
            challenge_id: s.id.clone(),
            track_id: s.track_id.clone(),
            node_id: s.node_id.clone(),
            question: ChallengeQuestionBody {
                media: media::for_player(ctx, &r.media).await?,
                id: r.question_id,
                prompt: r.stem_text,
                options,
            },
        });
    }
    Ok(Challenge {
        challenge_id: s.id.clone(),
        track_id: s.track_id.clone(),
        node_id: s.node_id.clone(),
        total_questions: questions.len() as i64,
        high_reward_eligible: false,
        questions,
        answered_question_ids: answered,
    })
}

/// An unfinished session served again: the server's answer times run from now, unless
/// it was served moments ago (`domain::fairplay::serves_again`): a client asking again
/// and again writes nothing.
async fn serve_again(ctx: &AppContext, open: &db::gameplay::OpenSession) -> Result<()> {
    let now = ctx.clock.now_ms();
    if crate::domain::fairplay::serves_again(open.served_at, now) {
        db::gameplay::mark_served(&ctx.db, &open.session.id, now).await?;
        ctx.answer_cache.mark_served(&open.session.id, now);
    }
    Ok(())
}

/// `GET /v1/challenges/next?trackId=&mode=`: a track's challenge ([`next_challenge`],
/// mode `challenge` or none) or a review challenge ([`next_review_challenge`]); refused
/// in minor mode past the day's limit or at night.
pub async fn next_in_mode(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    track_key: Option<&str>,
    mode: Option<&str>,
) -> Result<Option<Challenge>> {
    minors::admit_play(ctx, &player.id, &player.guard).await?;
    let next = match mode.map(str::trim) {
        None | Some("challenge") => next_challenge(ctx, player, track_key.unwrap_or("")).await?,
        Some("review") => next_review_challenge(ctx, player, track_key).await?,
        Some(_) => return Err(Error::validation(msg::MODE_MUST_BE_CHALLENGE_OR_REVIEW)),
    };
    if next.is_some() {
        minors::count(ctx, &player.id, &player.guard).await?;
    }
    Ok(next)
}

/// `GET /v1/challenges/next?trackId=`: the player's unfinished session on the track's
/// current node, or a new one of fresh questions; None when the node's pool has too few.
pub async fn next_challenge(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    track_key: &str,
) -> Result<Option<Challenge>> {
    let track_key = track_key.trim();
    if track_key.is_empty() {
        return Err(Error::validation(msg::TRACKID_IS_REQUIRED));
    }
    let track = db::tracks::track(&ctx.db, track_key)
        .await?
        .ok_or_else(|| Error::not_found(msg::TRACK_NOT_FOUND))?;
    let nodes = db::tracks::nodes_of(&ctx.db, &track.id).await?;
    let done: HashSet<String> = db::tracks::done_nodes(&ctx.db, &player.id)
        .await?
        .into_iter()
        .collect();
    // the first node not done; once all are done, practise from the first again
    let Some(node) = nodes
        .iter()
        .find(|n| !done.contains(&n.id))
        .or(nodes.first())
    else {
        return Ok(None);
    };
    if let Some(open) = db::gameplay::unfinished_session(&ctx.db, &player.id, &node.id).await? {
        serve_again(ctx, &open).await?;
        return Ok(Some(challenge_of(ctx, &open.session).await?));
    }
    let wanted = node.questions_required.max(1);
    let (pool, answered) = pick_questions(ctx, &player.id, &track.id, wanted).await?;
    if (pool.len() as i64) < wanted {
        return Ok(None);
    }
    remember_cards(ctx, &pool);
    let memory_parameters = pool
        .first()
        .and_then(|q| q.memory.memory_parameters.clone());
    let questions = shuffled_questions(pool, &answered)?;
    let session = SessionRow {
        id: ChallengeId::generate(),
        player_id: player.id.clone(),
        track_id: track.id.clone(),
        node_id: node.id.clone(),
        status: SessionStatus::Pending,
        review: false,
    };
    open_challenge(
        ctx,
        session,
        questions,
        node.pass_threshold,
        memory_parameters,
    )
    .await
}

/// `GET /v1/challenges/next?mode=review` (`trackId` optional): the player's unfinished
/// review challenge (whatever scope it was opened with), or a new one of up to five questions answered
/// before that are due or were answered wrong, lowest predicted recall first; None when
/// no question is.
pub async fn next_review_challenge(
    ctx: &AppContext,
    player: &PlayerPrincipal,
    track_key: Option<&str>,
) -> Result<Option<Challenge>> {
    let track = match track_key.map(str::trim) {
        Some("") => return Err(Error::validation(msg::TRACKID_IS_REQUIRED)),
        Some(key) => Some(
            db::tracks::track(&ctx.db, key)
                .await?
                .ok_or_else(|| Error::not_found(msg::TRACK_NOT_FOUND))?,
        ),
        None => None,
    };
    let track_id = track.as_ref().map(|t| t.id.as_str());
    let node_id = SessionKind::REVIEW_NODE.to_string();
    if let Some(open) = db::gameplay::unfinished_session(&ctx.db, &player.id, &node_id).await? {
        serve_again(ctx, &open).await?;
        return Ok(Some(challenge_of(ctx, &open.session).await?));
    }
    let now = ctx.clock.now_ms();
    let candidates = db::review::candidates(&ctx.db, &player.id, track_id, now).await?;
    let memory_parameters = candidates
        .first()
        .and_then(|c| c.columns.memory_parameters.clone());
    let schedule = review::schedule(ctx, memory_parameters.as_deref());
    let n = usize::try_from(ctx.settings.rules.questions_per_challenge).unwrap_or(5);
    let picked = memory::pick_reviews(
        &schedule,
        candidates
            .into_iter()
            .filter_map(|c| c.columns.memory().map(|m| ((c.question_id, c.track_id), m)))
            .collect(),
        now,
        n,
    );
    let Some(((_, first_track), _)) = picked.first() else {
        return Ok(None);
    };
    let session_track = track_id.unwrap_or(first_track).to_string();
    let ids: Vec<QuestionId> = picked.iter().map(|((q, _), _)| q.clone()).collect();
    let pool = db::gameplay::pool_questions(
        &ctx.db,
        &player.id,
        &ids,
        ctx.settings.fairplay.pace_min_players,
    )
    .await?;
    if pool.is_empty() {
        return Ok(None);
    }
    remember_cards(ctx, &pool);
    let answered: HashSet<QuestionId> = ids.into_iter().collect();
    let mut questions = shuffled_questions(pool, &answered)?;
    // each answer moves the skill of its question's own track
    for q in &mut questions {
        q.track_id = picked
            .iter()
            .find(|((id, _), _)| *id == q.question_id)
            .map(|((_, track), _)| track.clone());
    }
    let session = SessionRow {
        id: ChallengeId::generate(),
        player_id: player.id.clone(),
        track_id: session_track,
        node_id,
        status: SessionStatus::Pending,
        review: true,
    };
    open_challenge(ctx, session, questions, 0, memory_parameters).await
}

/// Their cards too: the answers show them without reading them again.
fn remember_cards(ctx: &AppContext, pool: &[db::gameplay::PoolQuestion]) {
    for card in pool
        .iter()
        .filter_map(db::gameplay::PoolQuestion::card_source)
    {
        ctx.answer_cache.remember_card(&card);
    }
}

/// Writes a new session of `questions` and answers with it (or with the one a
/// concurrent request made first); its answers are judged from memory while this
/// process remembers it.
async fn open_challenge(
    ctx: &AppContext,
    session: SessionRow,
    questions: Vec<NewSessionQuestion>,
    pass_threshold: i64,
    memory_parameters: Option<String>,
) -> Result<Option<Challenge>> {
    let now = ctx.clock.now_ms();
    if !db::gameplay::create_session(&ctx.db, &session, &questions, now).await? {
        // A concurrent request made the session first: answer with that one.
        let s = db::gameplay::unfinished_session(&ctx.db, &session.player_id, &session.node_id)
            .await?
            .ok_or_else(|| Error::internal("unfinished session vanished"))?;
        return Ok(Some(challenge_of(ctx, &s.session).await?));
    }
    ctx.answer_cache.remember_challenge(
        &session.id,
        answer_cache::Challenge {
            player_id: session.player_id.clone(),
            track_id: session.track_id.clone(),
            node_id: session.node_id.clone(),
            pass_threshold,
            questions: questions
                .iter()
                .map(|q| {
                    Ok(answer_cache::ChallengeQuestion {
                        question_id: q.question_id.clone(),
                        question_version: q.question_version,
                        options: option_ids_json(&q.options_json)?,
                        correct_option_id: q.correct_option_id.clone(),
                        median_ms: q.median_ms,
                        difficulty: q.difficulty,
                        first_answer: q.first_answer,
                        memory: q.memory,
                        track_id: q.track_id.clone(),
                    })
                })
                .collect::<Result<_>>()?,
            status: session.status,
            attempt_consumed: false,
            answered_count: 0,
            correct_count: 0,
            served_at: now,
            last_answered_at: None,
            created_at: now,
            fast_correct_count: 0,
            review: session.review,
            memory_parameters,
        },
    );
    // answered from what was written: nothing is read back
    let mut made = Vec::with_capacity(questions.len());
    for q in questions {
        let options: Vec<AnswerOption> = serde_json::from_str(&q.options_json)
            .map_err(|e| Error::internal(format!("options unreadable: {e}")))?;
        made.push(ChallengeQuestion {
            challenge_id: session.id.clone(),
            track_id: session.track_id.clone(),
            node_id: session.node_id.clone(),
            question: ChallengeQuestionBody {
                media: media::for_player(ctx, &q.media).await?,
                id: q.question_id,
                prompt: q.stem_text,
                options,
            },
        });
    }
    Ok(Some(Challenge {
        challenge_id: session.id,
        track_id: session.track_id,
        node_id: session.node_id,
        total_questions: made.len() as i64,
        high_reward_eligible: false,
        questions: made,
        answered_question_ids: Vec::new(),
    }))
}

/// The options the near read's target difficulty is computed for: most questions offer
/// four (each candidate's own floor is used when predicting its success).
const TYPICAL_OPTIONS: usize = 4;

/// Up to `n` published questions of the track for the player, by [`pick`]'s rule, and
/// which of them the player has answered before.
async fn pick_questions(
    ctx: &AppContext,
    player_id: &PlayerId,
    track_id: &str,
    n: i64,
) -> Result<(Vec<db::gameplay::PoolQuestion>, HashSet<QuestionId>)> {
    let rules = &ctx.settings.learning;
    let start = pick::new_key();
    let mut read = Vec::new();
    let mut near = Vec::new();
    for category in db::tracks::track_categories(&ctx.db, track_id).await? {
        let window = db::gameplay::pick_candidates(
            &ctx.db,
            player_id,
            track_id,
            &category,
            start,
            pick::WINDOW as i64,
        )
        .await?;
        // A category the window did not read whole: its questions near the player's
        // target difficulty too (the window then holds only a handful of them).
        if rules.adaptive_pick
            && window.len() >= pick::WINDOW
            && let Some(first) = window.first()
        {
            let target = skill::target_difficulty(
                first.track_skill.value,
                rules.target_success,
                skill::guessing_floor(TYPICAL_OPTIONS),
            );
            near.extend(
                db::gameplay::pick_near_candidates(
                    &ctx.db,
                    player_id,
                    track_id,
                    &category,
                    start,
                    pick::near_bands(target),
                    pick::PER_BAND,
                )
                .await?,
            );
        }
        read.extend(window);
    }
    let answered: HashSet<QuestionId> = read
        .iter()
        .chain(&near)
        .filter(|c| c.candidate.answered)
        .map(|c| c.candidate.question.clone())
        .collect();
    let n = usize::try_from(n).unwrap_or(0);
    let chosen = if rules.adaptive_pick {
        // read with every candidate (a new player's when the track has none)
        let skill = read.first().map_or(Estimate::NEW_PLAYER, |c| c.track_skill);
        let predicted = |c: db::gameplay::PickCandidate| {
            let floor = skill::guessing_floor(c.options);
            Candidate {
                success: skill::predicted_success(skill.value, c.difficulty, floor),
                ..c.candidate
            }
        };
        let window = read.into_iter().map(predicted).collect();
        let near = near.into_iter().map(predicted).collect();
        pick::choose_adaptive(
            window,
            near,
            start,
            n,
            rules.target_success,
            &mut rand::rng(),
        )
    } else {
        let candidates = read.into_iter().map(|c| c.candidate).collect();
        pick::choose(candidates, start, n, &mut rand::rng())
    };
    let pool = db::gameplay::pool_questions(
        &ctx.db,
        player_id,
        &chosen,
        ctx.settings.fairplay.pace_min_players,
    )
    .await?;
    Ok((pool, answered))
}

/// An option as judging reads it: its id (the text, when present, is ignored).
#[derive(Deserialize, Serialize)]
pub(super) struct StoredOption {
    pub(super) id: String,
}

/// `[{id, text}]` → `[{id}]`: what [`crate::answer_cache`] keeps of a question's options.
fn option_ids_json(options_json: &str) -> Result<String> {
    let ids: Vec<StoredOption> = serde_json::from_str(options_json)
        .map_err(|e| Error::internal(format!("options unreadable: {e}")))?;
    serde_json::to_string(&ids).map_err(|e| Error::internal(format!("serialising options: {e}")))
}

/// The session form of picked questions: the right answer and the distractors in random
/// order, each under a random option id, and the version they were read at (which the
/// session then serves: its stem on every return, its card with each answer).
fn shuffled_questions(
    pool: Vec<db::gameplay::PoolQuestion>,
    answered: &HashSet<QuestionId>,
) -> Result<Vec<NewSessionQuestion>> {
    let mut rng = rand::rng();
    let mut questions = Vec::with_capacity(pool.len());
    for q in pool {
        let difficulty = q.difficulty();
        let first_answer = !answered.contains(&q.id);
        let memory = q.memory.memory();
        let distractors: Vec<String> = serde_json::from_str(&q.distractors).unwrap_or_default();
        let correct_id = random_token(6);
        let mut options = vec![AnswerOption {
            id: correct_id.clone(),
            text: q.correct_answer,
        }];
        options.extend(
            distractors
                .into_iter()
                .filter(|d| !d.trim().is_empty())
                .map(|text| AnswerOption {
                    id: random_token(6),
                    text,
                }),
        );
        options.shuffle(&mut rng);
        questions.push(NewSessionQuestion {
            question_id: q.id,
            stem_text: q.stem_text,
            question_version: q.version,
            median_ms: q.median_ms,
            difficulty,
            first_answer,
            memory,
            track_id: None,
            media: q.media,
            options_json: serde_json::to_string(&options)
                .map_err(|e| Error::internal(format!("serialising options: {e}")))?,
            correct_option_id: correct_id,
        });
    }
    Ok(questions)
}
