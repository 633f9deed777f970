//! The judged answer: load (memory or database) → judge (`domain::answer`) → record
//! (`db::progress::write`) → remember (`crate::answer_cache`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::cards::{card_of, knowledge_card};
use super::challenges::StoredOption;
use super::*;
use crate::answer_cache::Recorded;
use crate::context::AppContext;
use crate::db::answers::{AnswerRows, LearnedRows, NewAnswer};
use crate::db::gameplay::{AnswerContext, AnswerLookup, AnswerRow};
use crate::db::ledger::HIDDEN_FOR_GOOD;
use crate::db::progress::{Beside, PlayerProgress, Target, TrackSkill, Update, Written};
use crate::db::{self};
use crate::domain::answer::{
    self, AnswerRefusal, AnswerState, Outcome, PlayerSnapshot, QuestionState, SessionKind,
    SessionState, Submission,
};
use crate::domain::fairplay as timing;
use crate::domain::rules::GameRules;
use crate::domain::skill;
use crate::ids::{ChallengeId, OptionId, PlayerId, QuestionId, SubmitRequestId};
use crate::message::msg;
use crate::services::minors;
use crate::services::player_auth::{self, AccessSubject};
use crate::services::progress::{self};
use crate::services::{fairplay, league, review};
use crate::{Error, Result};

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerRequest {
    pub challenge_id: String,
    pub question_id: String,
    pub selected_option_id: String,
    /// Optional, non-negative (default 0).
    pub time_ms: Option<i64>,
    /// Optional, non-negative (default 0).
    pub combo_count: Option<i64>,
    /// Optional idempotency key of this submission.
    pub submit_request_id: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerProgress {
    pub hearts: i64,
    pub daily_attempts_left: i64,
    pub high_reward_sessions_left: i64,
    pub high_reward_sessions_max: i64,
    pub xp: i64,
    pub streak_days: i64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerResult {
    pub challenge_id: ChallengeId,
    pub answer_state: AnswerState,
    pub correct_option_id: String,
    pub xp_delta: i64,
    pub progress: AnswerProgress,
    pub knowledge_card: KnowledgeCard,
    pub rewards: Vec<RewardItem>,
}

/// The progress part of an answer's result: `p` (as stored once the answer commits)
/// summarized at `now`.
fn answer_progress(p: &PlayerProgress, now: DateTime<Utc>, rules: &GameRules) -> AnswerProgress {
    let s = progress::summarize(p, now, rules);
    AnswerProgress {
        hearts: s.hearts,
        daily_attempts_left: s.daily_attempts_left,
        high_reward_sessions_left: s.high_reward_sessions_left,
        high_reward_sessions_max: s.high_reward_sessions_max,
        xp: s.xp,
        streak_days: s.streak_days,
    }
}

fn answer_result(
    answer: &AnswerRow,
    correct_option_id: String,
    progress: AnswerProgress,
    knowledge_card: KnowledgeCard,
) -> AnswerResult {
    AnswerResult {
        challenge_id: answer.session_id.clone(),
        answer_state: if answer.is_correct {
            AnswerState::Correct
        } else {
            AnswerState::Wrong
        },
        correct_option_id,
        xp_delta: answer.xp_delta,
        progress,
        knowledge_card,
        rewards: if answer.xp_delta > 0 {
            vec![RewardItem::xp(answer.xp_delta, "Correct answer", None)]
        } else {
            Vec::new()
        },
    }
}

/// An answer request, checked: its ids parsed, its numbers in range.
struct Submitted {
    challenge_id: ChallengeId,
    question_id: QuestionId,
    selected: OptionId,
    request_id: Option<SubmitRequestId>,
    time_ms: i64,
    combo: i64,
}

impl TryFrom<&AnswerRequest> for Submitted {
    type Error = Error;

    fn try_from(req: &AnswerRequest) -> Result<Self> {
        let submitted = Self {
            challenge_id: ChallengeId::parse(&req.challenge_id, "challengeId")?,
            question_id: QuestionId::parse(&req.question_id, "questionId")?,
            selected: OptionId::parse(&req.selected_option_id, "selectedOptionId")?,
            request_id: req
                .submit_request_id
                .as_deref()
                .map(|id| SubmitRequestId::parse(id, "submitRequestId"))
                .transpose()?,
            time_ms: req.time_ms.unwrap_or(0),
            combo: req.combo_count.unwrap_or(0),
        };
        if submitted.time_ms < 0 || submitted.combo < 0 {
            return Err(Error::validation(
                msg::TIMEMS_AND_COMBOCOUNT_MUST_NOT_BE_NEGATIVE,
            ));
        }
        Ok(submitted)
    }
}

/// How many times one answer request is judged before it is refused with 409, when each
/// of its writes lost the race to another change of the same player's progress (only
/// that player's own concurrent requests can cause that). Between tries it waits a
/// random while of up to 1, 2, 4 … 64 ms, so a burst of the player's other requests
/// passes first; 16 tries wait at most about 0.7 s in all.
const ANSWER_TRIES: u32 = 16;

/// The random wait before try `n + 1` of an answer (see [`ANSWER_TRIES`]).
fn answer_backoff(n: u32) -> std::time::Duration {
    let cap_us = 1000u64 << n.min(6);
    std::time::Duration::from_micros(rand::random_range(0..cap_us))
}

/// `POST /v1/challenges/answer`: judged here; a replay (same submitRequestId, or same
/// challenge and question) returns the first judgement and changes nothing.
///
/// For the subject of a verified access token: the progress row read admits the player
/// (ban, deletion). Optimistic: one read (progress row with its revision, earlier
/// answer, session question and card), the answer judged in memory, one all-or-nothing
/// write guarded by the revision read. A write that lost a race (the player's progress
/// changed meanwhile, or a concurrent duplicate was recorded first) wrote nothing, and
/// the answer is judged again on a fresh read, where a recorded duplicate is a replay.
/// The response is built from what was read and written: nothing is read after it.
pub async fn answer(
    ctx: &AppContext,
    subject: &AccessSubject,
    req: &AnswerRequest,
) -> Result<AnswerResult> {
    let fields = match Submitted::try_from(req) {
        Ok(fields) => fields,
        Err(e) => {
            // Ban and deletion answer first, as on every route.
            let account = db::progress::read_with_account(&ctx.db, &subject.player_id).await?;
            player_auth::admit(
                account.as_ref().map(|p| &p.account),
                subject,
                ctx.clock.now_ms(),
            )?;
            return Err(e);
        }
    };
    if let Some(result) = judge_from_memory(ctx, subject, &fields).await? {
        ctx.answer_cache.judged.from_memory();
        return Ok(result);
    }
    let mut duplicate_seen = false;
    for n in 0..ANSWER_TRIES {
        match judge_answer(ctx, subject, &fields).await? {
            Judged::Done(result) => {
                ctx.answer_cache.judged.on_read();
                return Ok(*result);
            }
            Judged::Lost(Lost::Duplicate) if !duplicate_seen => {
                // the concurrent duplicate is read as the first answer now
                duplicate_seen = true;
            }
            Judged::Lost(Lost::Duplicate) => {
                // not an answer this read finds: its ledger key is taken otherwise
                return Err(Error::conflict(
                    msg::THIS_ANSWER_WAS_SUBMITTED_CONCURRENTLY_RETRY_TO_READ_IT,
                ));
            }
            Judged::Lost(_) if n + 1 < ANSWER_TRIES => {
                tokio::time::sleep(answer_backoff(n)).await;
            }
            Judged::Lost(_) => {}
        }
    }
    Err(Error::conflict(
        msg::THIS_PLAYER_S_PROGRESS_KEPT_CHANGING_WHILE_THE_ANSWER_WAS_RE,
    ))
}

/// One judgement of an answer.
enum Judged {
    Done(Box<AnswerResult>),
    /// Its write lost a race and wrote nothing.
    Lost(Lost),
}

/// How an answer's write lost a race (nothing was written).
#[derive(Debug)]
enum Lost {
    /// The progress row or the session changed since they were read (another request
    /// of the player, a ban, a deletion): judged again on a fresh read, it may pass.
    Stale,
    /// The answer or its ledger key exists already (a concurrent duplicate, which a
    /// fresh read finds as the first answer).
    Duplicate,
}

/// Judges an answer on what this process remembers of the challenge and the player (see
/// [`crate::answer_cache`]), when it does. Only a recorded answer counts: its write was
/// guarded by the revision and the session count it was judged on. Anything else (a
/// refusal, a lost write, a replay the memory cannot know of) is judged again on a
/// fresh read, and the player is read again from then on. An unreachable database is
/// answered at once (503): the read would only wait for it again.
async fn judge_from_memory(
    ctx: &AppContext,
    subject: &AccessSubject,
    fields: &Submitted,
) -> Result<Option<AnswerResult>> {
    let player_id = &subject.player_id;
    let Some((progress, context)) =
        ctx.answer_cache
            .answer_context(player_id, &fields.challenge_id, &fields.question_id)
    else {
        return Ok(None);
    };
    let rules = &ctx.settings.rules;
    if !answer::may_judge_from_memory(
        &progress.resources.clone().at(ctx.clock.now(), rules),
        rules,
    ) {
        return Ok(None);
    }
    let lookup = AnswerLookup {
        existing: None,
        context: Some(context),
    };
    match judge(ctx, subject, fields, progress, lookup).await {
        Ok(Judged::Done(result)) => Ok(Some(*result)),
        Ok(Judged::Lost(lost)) => {
            tracing::debug!(
                ?lost,
                "an answer judged from memory is judged again on a read"
            );
            ctx.answer_cache.forget_player(player_id);
            Ok(None)
        }
        Err(outage @ Error::DatabaseUnavailable(_)) => {
            // The write may have committed before the connection broke: forgotten, the
            // player is read again on the client's retry, which then finds a replay.
            ctx.answer_cache.forget_player(player_id);
            Err(outage)
        }
        Err(refusal) => {
            tracing::debug!(
                ?refusal,
                "an answer judged from memory is judged again on a read"
            );
            ctx.answer_cache.forget_player(player_id);
            Ok(None)
        }
    }
}

/// Judges an answer on a fresh read and writes it.
async fn judge_answer(
    ctx: &AppContext,
    subject: &AccessSubject,
    fields: &Submitted,
) -> Result<Judged> {
    let (progress, lookup) = db::gameplay::progress_with_answer_context(
        &ctx.db,
        &subject.player_id,
        &fields.challenge_id,
        &fields.question_id,
        fields.request_id.as_ref(),
    )
    .await?
    .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    if let Some(card) = lookup.context.as_ref().and_then(|c| c.card.as_ref()) {
        ctx.answer_cache.remember_card(card);
    }
    judge(ctx, subject, fields, progress, lookup).await
}

/// Judges an answer on `progress` and `lookup` (read, or remembered): load → judge →
/// record → remember.
async fn judge(
    ctx: &AppContext,
    subject: &AccessSubject,
    fields: &Submitted,
    mut progress: PlayerProgress,
    lookup: AnswerLookup,
) -> Result<Judged> {
    let player_id = &subject.player_id;
    let rules = &ctx.settings.rules;
    let now = ctx.clock.now();
    // The caller's token was verified only: the row read admits them.
    player_auth::admit(Some(&progress.account), subject, now.timestamp_millis())?;
    if let Some(first) = lookup.existing {
        return replay(ctx, player_id, fields, &progress, first, lookup.context).await;
    }
    // Minor mode: past the day's limit or at night, no new answer is judged.
    let guard = progress.account.guard();
    minors::admit_play(ctx, player_id, &guard).await?;
    let Some(c): Option<AnswerContext> = lookup.context else {
        return Err(
            match db::gameplay::session_owner(&ctx.db, &fields.challenge_id).await? {
                Some(owner) if owner == *player_id => {
                    Error::validation(msg::QUESTIONID_IS_NOT_PART_OF_THIS_CHALLENGE)
                }
                _ => Error::not_found(msg::CHALLENGE_NOT_FOUND),
            },
        );
    };
    let options: Vec<StoredOption> = serde_json::from_str(&c.options)
        .map_err(|e| Error::internal(format!("stored options unreadable: {e}")))?;
    let option_ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
    let outcome = answer::judge(
        PlayerSnapshot {
            player_id,
            resources: &progress.resources,
            region_code: progress.region_code.as_deref(),
        },
        SessionState {
            session_id: fields.challenge_id.as_str(),
            player_id: &c.player_id,
            open: c.status.is_open(),
            attempt_consumed: c.attempt_consumed,
            answered_count: c.answered_count,
            correct_count: c.correct_count,
            total_questions: c.total_questions,
            pass_threshold: c.pass_threshold,
            node_id: &c.node_id,
            kind: SessionKind::of(c.review),
        },
        QuestionState {
            question_id: fields.question_id.as_str(),
            option_ids: &option_ids,
            correct_option_id: &c.correct_option_id,
            zero_heart_refused: c.zero_heart_refused,
        },
        Submission {
            selected_option_id: fields.selected.as_str(),
        },
        rules,
        now,
    );
    let judgement = match outcome {
        Outcome::Judged(judgement) => judgement,
        Outcome::Refused(refusal) => return Err(refused(refusal)),
        Outcome::OutOfHearts => {
            return close_at_zero_hearts(ctx, player_id, fields, &progress).await;
        }
    };
    let elapsed_ms = timing::elapsed_ms(c.served_at, c.last_answered_at, judgement.change.at_ms);
    let timed = timing::judge(
        timing::TimedAnswer {
            elapsed_ms,
            claim_window_ms: judgement.change.at_ms - c.last_answered_at.unwrap_or(c.created_at),
            claimed_ms: fields.time_ms,
            median_ms: c.median_ms,
            correct: judgement.correct,
            fast_correct_before: c.fast_correct_count,
            finishes: judgement.finished,
            total_questions: c.total_questions,
        },
        &ctx.settings.fairplay,
    );
    let fair_play = fairplay::score_of_answer(
        timed.signals,
        judgement.change.at_ms,
        &ctx.settings.fairplay,
    );
    let learned = if c.review {
        // a review's answers are free: they move no estimate (see `skill::unmoved`)
        skill::unmoved(c.track_skill, progress.skill)
    } else {
        skill::learn(
            &ctx.settings.learning.elo,
            c.track_skill,
            progress.skill,
            c.difficulty,
            skill::guessing_floor(option_ids.len()),
            judgement.correct,
            c.first_answer,
        )
    };
    // a held player's or a signalled answer's surprise moves no question's difficulty
    // (the fold leaves out flagged and banned players too)
    let surprise = learned
        .surprise
        .filter(|_| timing::counts_in_estimates(!progress.fairplay_held, timed.signals));
    // with what the fold takes the surprise from again (sequential Elo: `skill::fold_first_answers`)
    let floor = skill::guessing_floor(option_ids.len());
    let memory = review::schedule(ctx, c.memory_parameters.as_deref()).review(
        c.memory.as_ref(),
        judgement.correct,
        judgement.change.at_ms,
    );
    let rows = AnswerRows {
        answer: NewAnswer {
            id: &Uuid::new_v4().to_string(),
            session_id: &fields.challenge_id,
            player_id,
            question_id: &fields.question_id,
            question_version: c.question_version,
            selected_option_id: &fields.selected,
            is_correct: judgement.correct,
            xp_delta: judgement.xp,
            hearts_delta: judgement.change.deltas.hearts,
            time_ms: fields.time_ms,
            combo_count: fields.combo,
            submit_request_id: fields.request_id.as_ref(),
            now_ms: judgement.change.at_ms,
            server_elapsed_ms: elapsed_ms,
            signals: timed.signals,
        },
        finished: judgement.finished,
        completed_node: judgement.completed_node.as_deref(),
        answered_before: c.answered_count,
        fast_correct: timed.fast_correct,
        weekly_hidden_until: progress.fairplay_held.then_some(HIDDEN_FOR_GOOD),
        fair_play: fair_play.as_ref(),
        learned: LearnedRows {
            track_id: &c.track_id,
            track_delta: learned.track.value - c.track_skill.value,
            overall_delta: learned.overall.value - progress.skill.value,
            surprise,
            answer_skill: surprise.map(|_| c.track_skill.value),
            guess_floor: surprise.map(|_| floor),
        },
        memory,
        memory_read: c.memory.map(|m| m.reviews),
    };
    let written = db::progress::write(
        Target::Guarded {
            db: &ctx.db,
            revision: progress.revision,
            beside: Beside::Answer(&rows),
        },
        player_id,
        Update::Change(&judgement.change),
        judgement.change.at_ms,
    )
    .await?;
    let (revision, totals, scored) = match written {
        Written::Recorded {
            revision,
            weekly,
            fair_play,
        } => (revision, weekly, fair_play),
        Written::Stale | Written::NoRow => return Ok(Judged::Lost(Lost::Stale)),
        Written::Duplicate | Written::KeyTaken => return Ok(Judged::Lost(Lost::Duplicate)),
    };
    minors::count(ctx, player_id, &guard).await?;
    // remembered as a read of the committed row would give it, for the next answer
    progress.resources = judgement.change.after.clone();
    progress.revision = revision;
    progress.skill = learned.overall;
    progress.track_skill = Some(TrackSkill {
        track_id: c.track_id.clone(),
        estimate: learned.track,
    });
    ctx.answer_cache
        .remember_player(player_id, progress.clone());
    ctx.answer_cache.record_answer(
        &fields.challenge_id,
        &c,
        Recorded {
            correct: judgement.correct,
            fast_correct: timed.fast_correct,
            at_ms: judgement.change.at_ms,
        },
    );
    // a held player's rows are hidden: on no board others see, nor in the rank index
    if !progress.fairplay_held {
        ctx.publish_ranks(&progress::rank_updates(&judgement.change, totals))
            .await;
    }
    // What follows the recorded answer: the league join (the week's first XP) and a
    // fair-play hold (a score past the threshold). Neither fails the answer; once the
    // database is found unreachable the rest is skipped, so an outage that begins now
    // costs the answer one wait.
    let mut reachable = true;
    if let Some(w) = &judgement.change.weekly {
        reachable =
            league::after_weekly_xp(ctx, player_id, &w.week_start, judgement.change.at_ms).await;
    }
    if let Some(scored) = scored.filter(|_| reachable) {
        fairplay::after_scored(ctx, player_id, &scored, judgement.change.at_ms).await;
    }

    // the card of the version the session served, as it was then
    let card = match c.card {
        Some(card) => knowledge_card(card),
        None => card_of(ctx, &fields.question_id, c.question_version).await?,
    };
    let answer = AnswerRow {
        session_id: fields.challenge_id.clone(),
        question_id: fields.question_id.clone(),
        is_correct: judgement.correct,
        xp_delta: judgement.xp,
        question_version: c.question_version,
    };
    Ok(Judged::Done(Box::new(answer_result(
        &answer,
        c.correct_option_id,
        answer_progress(&progress, now, rules),
        card,
    ))))
}

/// A replay: the first judgement, possibly of another challenge or question when the
/// submitRequestId names an earlier answer. Nothing is written.
async fn replay(
    ctx: &AppContext,
    player_id: &PlayerId,
    fields: &Submitted,
    progress: &PlayerProgress,
    first: AnswerRow,
    context: Option<AnswerContext>,
) -> Result<Judged> {
    let context =
        if first.session_id == fields.challenge_id && first.question_id == fields.question_id {
            context
        } else {
            db::gameplay::answer_context(
                &ctx.db,
                player_id,
                &first.session_id,
                &first.question_id,
                None,
            )
            .await?
            .context
        };
    let (correct_option, card) = match context {
        Some(c) => (c.correct_option_id, c.card),
        None => (String::new(), None),
    };
    let card = match card {
        Some(card) => knowledge_card(card),
        None => card_of(ctx, &first.question_id, first.question_version).await?,
    };
    let progress = answer_progress(progress, ctx.clock.now(), &ctx.settings.rules);
    Ok(Judged::Done(Box::new(answer_result(
        &first,
        correct_option,
        progress,
        card,
    ))))
}

/// A wrong answer found no heart: the question closes (remembered with it, ordered
/// against every other answer of the player by the revision; a mark that lost the
/// race is judged again) and the answer is refused.
async fn close_at_zero_hearts(
    ctx: &AppContext,
    player_id: &PlayerId,
    fields: &Submitted,
    progress: &PlayerProgress,
) -> Result<Judged> {
    let written = db::progress::write(
        Target::Guarded {
            db: &ctx.db,
            revision: progress.revision,
            beside: Beside::ZeroHeartMark {
                session_id: &fields.challenge_id,
                question_id: &fields.question_id,
            },
        },
        player_id,
        Update::Touch,
        ctx.clock.now_ms(),
    )
    .await?;
    if !matches!(written, Written::Recorded { .. }) {
        return Ok(Judged::Lost(Lost::Stale));
    }
    ctx.answer_cache.forget_player(player_id);
    Err(Error::validation(
        msg::NO_HEARTS_LEFT_WAIT_FOR_ONE_TO_COME_BACK_OR_WATCH_AN_AD,
    ))
}

/// The error a refused answer gets.
fn refused(refusal: AnswerRefusal) -> Error {
    match refusal {
        AnswerRefusal::NotYourChallenge => Error::not_found(msg::CHALLENGE_NOT_FOUND),
        AnswerRefusal::ChallengeOver => Error::validation(msg::THIS_CHALLENGE_IS_OVER),
        AnswerRefusal::NotAnOption => {
            Error::validation(msg::SELECTEDOPTIONID_IS_NOT_AN_OPTION_OF_THIS_QUESTION)
        }
        // Any option: otherwise each would be tried until the right one is accepted.
        AnswerRefusal::QuestionClosed => {
            Error::validation(msg::NO_HEARTS_LEFT_FOR_THIS_QUESTION_WAIT_FOR_ONE_TO_COME_BACK_O)
        }
        AnswerRefusal::NoAttemptsLeft => Error::validation(msg::NO_ATTEMPTS_LEFT_TODAY),
    }
}
