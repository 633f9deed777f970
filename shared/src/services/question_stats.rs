//! Question statistics: the `question_stats` job reads the answers and first card views
//! it has not read yet (by cursor, in batches, each batch and its cursor move in one
//! transaction, so every answer counts exactly once) into counters, which mark their
//! versions due; then it derives the median time, the discrimination index and the
//! flags of the due versions (`domain::question_stats`), so a run that dies between the
//! two leaves them due for the next. Requests only read what it stored.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};

use crate::clock::{beijing, from_ms};
use crate::context::AppContext;
use crate::db::question_stats::{
    self as store, ANSWER_TIMES, Addition, AnswerFact, Cursor, DAILY_ACTIVITY, Derived, Key,
    OPTION_PICKS, PACE, PLAYER_ACCURACY, QUESTION_COUNTS, QUESTION_DAYS, QUESTION_PLAYERS,
};
use crate::db::{self, Tx};
use crate::domain::fairplay as fair_rules;
use crate::domain::question_stats::{
    self as rules, Flag, OptionPicks, PlayerAnswers, PlayersRead, flags_text, parse_flags, rate,
    severity,
};
use crate::domain::question_status::QuestionStatus;
use crate::ids::QuestionId;
use crate::message::msg;
use crate::services::audit;
use crate::{Error, Result};

pub use crate::services::job_clock::SETTLE_MS;
/// Rows one batch reads (one short transaction).
const BATCH: i64 = 1000;
/// At most this many batches per source and run; the next run goes on.
const BATCHES_PER_RUN: u32 = 50;
/// Answer times above ten minutes count as ten minutes, and times are kept to 10 ms:
/// the median's histogram stays at most 60,000 rows per version, usually a few hundred.
const MAX_TIME_MS: i64 = 600_000;
const TIME_STEP_MS: i64 = 10;
/// The days of the question page's accuracy line and the dashboard's charts.
pub const DAYS_SHOWN: i64 = 30;
const DAY_MS: i64 = 86_400_000;
const ANSWERS: &str = "answers";
const CARD_VIEWS: &str = "card_views";

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Aggregated {
    pub answers: u64,
    pub card_views: u64,
    /// Question versions whose derived numbers were recomputed.
    pub versions: u64,
}

type Version = (String, i64);

/// Versions derived per run at most (each a handful of index reads); the rest are due
/// next run, which goes on after the last one derived.
const DERIVES_PER_RUN: usize = 5000;
const DUE_PAGE: i64 = 500;
/// Where the derives of the next run start (`stats_cursors`): `id` the question,
/// `created_at` the version.
const DERIVED: &str = "derived";

/// One run of the job: the new answers and card views into the counters (which mark
/// their versions due), the day's signups, then the derived numbers of due versions.
pub async fn aggregate(ctx: &AppContext) -> Result<Aggregated> {
    // by the cautious clock: one running ahead would count answers still being written
    let until = crate::services::job_clock::cautious_now_ms(ctx).await? - SETTLE_MS;
    let mut done = Aggregated::default();
    for _ in 0..BATCHES_PER_RUN {
        let from = store::cursor(&ctx.db, ANSWERS).await?;
        let facts = store::answers_after(&ctx.db, &from, until, BATCH).await?;
        let Some(last) = facts.last() else { break };
        let to = Cursor {
            created_at: last.created_at,
            id: last.id.clone(),
        };
        let mut tx = ctx.db.begin().await?;
        count_answers(&mut tx, &facts).await?;
        if !store::move_cursor(&mut tx, ANSWERS, &from, &to).await? {
            // another run counted these meanwhile: this one's counts roll back
            break;
        }
        tx.commit().await?;
        done.answers += facts.len() as u64;
        if (facts.len() as i64) < BATCH {
            break;
        }
        // leave the (SQLite: single) writer to requests between batches
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for _ in 0..BATCHES_PER_RUN {
        let from = store::cursor(&ctx.db, CARD_VIEWS).await?;
        let views = store::card_views_after(&ctx.db, &from, until, BATCH).await?;
        let Some(last) = views.last() else { break };
        let to = Cursor {
            created_at: last.created_at,
            id: last.id.clone(),
        };
        let mut tx = ctx.db.begin().await?;
        let questions: BTreeSet<&str> = views
            .iter()
            .filter_map(|v| v.question_id.as_deref())
            .collect();
        store::mark_due(&mut tx, &questions.into_iter().collect::<Vec<_>>()).await?;
        if !store::move_cursor(&mut tx, CARD_VIEWS, &from, &to).await? {
            break;
        }
        tx.commit().await?;
        done.card_views += views.len() as u64;
        if (views.len() as i64) < BATCH {
            break;
        }
    }
    count_signups(ctx).await?;
    done.versions = derive_due(ctx).await?;
    Ok(done)
}

/// Derives the versions that are due, from where the last run stopped, wrapping around
/// once; at most [`DERIVES_PER_RUN`].
async fn derive_due(ctx: &AppContext) -> Result<u64> {
    let saved = store::cursor(&ctx.db, DERIVED).await?;
    // the first pass derives what follows `start`, the second what precedes it
    let start: Version = if saved == Cursor::start() {
        (String::new(), 0)
    } else {
        (saved.id.clone(), saved.created_at)
    };
    let mut after = start.clone();
    let mut wrapped = start.0.is_empty();
    let mut derived = 0;
    'pages: while derived < DERIVES_PER_RUN {
        let due = store::due_versions(&ctx.db, &after, DUE_PAGE).await?;
        for version in &due {
            if wrapped && !start.0.is_empty() && *version > start {
                break 'pages;
            }
            derive(
                ctx,
                &QuestionId::from_trusted(version.0.as_str()),
                version.1,
            )
            .await?;
            derived += 1;
            after = version.clone();
            if derived >= DERIVES_PER_RUN {
                break 'pages;
            }
        }
        if (due.len() as i64) < DUE_PAGE {
            if wrapped {
                break;
            }
            wrapped = true;
            after = (String::new(), 0);
        }
    }
    let to = Cursor {
        created_at: after.1,
        id: after.0,
    };
    if to != saved && !to.id.is_empty() {
        let mut tx = ctx.db.begin().await?;
        // a lost race only means another run moved it: either place is a fine start
        store::move_cursor(&mut tx, DERIVED, &saved, &to).await?;
        tx.commit().await?;
    }
    Ok(derived as u64)
}

/// The key columns of a version's counter rows, with `more` after them.
fn version_row<'a>((q, v): &'a Version, more: Option<Key<'a>>, counts: &[i64]) -> Addition<'a> {
    let mut keys = vec![Key::Text(q), Key::Int(*v)];
    keys.extend(more);
    (keys, counts.to_vec())
}

/// Adds a batch of answers to the counters, one multi-row upsert per table.
async fn count_answers(tx: &mut Tx, facts: &[AnswerFact]) -> Result<()> {
    let mut questions: BTreeMap<Version, [i64; 2]> = BTreeMap::new();
    let mut picks: BTreeMap<(Version, String), i64> = BTreeMap::new();
    let mut times: BTreeMap<(Version, i64), i64> = BTreeMap::new();
    let mut days: BTreeMap<(Version, String), [i64; 2]> = BTreeMap::new();
    let mut question_players: BTreeMap<(Version, &str), [i64; 2]> = BTreeMap::new();
    let mut players: BTreeMap<&str, [i64; 2]> = BTreeMap::new();
    let mut activity: BTreeMap<String, [i64; 2]> = BTreeMap::new();
    let mut day_players: BTreeSet<(String, &str)> = BTreeSet::new();
    let add = |to: &mut [i64; 2], correct: bool| {
        to[0] += 1;
        to[1] += i64::from(correct);
    };
    let mut pace: BTreeMap<(Version, i64), i64> = BTreeMap::new();
    for f in facts {
        let v: Version = (f.question_id.to_string(), f.question_version);
        let day = beijing::day_key(beijing::day(from_ms(f.created_at)));
        // the day's activity counts every answer; the estimates others are judged by
        // only those of players in good standing that raised no signal
        add(activity.entry(day.clone()).or_default(), f.is_correct);
        day_players.insert((day.clone(), f.player_id.as_str()));
        if !fair_rules::counts_in_estimates(f.clean_player, f.signals) {
            continue;
        }
        if let Some(ms) = fair_rules::pace_sample(
            f.clean_player,
            f.signals,
            f.first_answer,
            f.server_elapsed_ms,
        ) {
            *pace
                .entry((
                    v.clone(),
                    ms.clamp(0, MAX_TIME_MS) / TIME_STEP_MS * TIME_STEP_MS,
                ))
                .or_default() += 1;
        }
        add(questions.entry(v.clone()).or_default(), f.is_correct);
        if let Some(text) = selected_text(f) {
            *picks.entry((v.clone(), text)).or_default() += 1;
        }
        *times
            .entry((
                v.clone(),
                f.time_ms.clamp(0, MAX_TIME_MS) / TIME_STEP_MS * TIME_STEP_MS,
            ))
            .or_default() += 1;
        add(days.entry((v.clone(), day)).or_default(), f.is_correct);
        add(
            question_players
                .entry((v.clone(), f.player_id.as_str()))
                .or_default(),
            f.is_correct,
        );
        add(
            players.entry(f.player_id.as_str()).or_default(),
            f.is_correct,
        );
    }
    let rows: Vec<_> = questions
        .iter()
        .map(|(v, n)| version_row(v, None, n))
        .collect();
    store::add(tx, QUESTION_COUNTS, &rows).await?;
    let rows: Vec<_> = picks
        .iter()
        .map(|((v, text), n)| version_row(v, Some(Key::Text(text)), &[*n]))
        .collect();
    store::add(tx, OPTION_PICKS, &rows).await?;
    let rows: Vec<_> = times
        .iter()
        .map(|((v, ms), n)| version_row(v, Some(Key::Int(*ms)), &[*n]))
        .collect();
    store::add(tx, ANSWER_TIMES, &rows).await?;
    let rows: Vec<_> = pace
        .iter()
        .map(|((v, ms), n)| version_row(v, Some(Key::Int(*ms)), &[*n]))
        .collect();
    store::add(tx, PACE, &rows).await?;
    let rows: Vec<_> = days
        .iter()
        .map(|((v, day), n)| version_row(v, Some(Key::Text(day)), n))
        .collect();
    store::add(tx, QUESTION_DAYS, &rows).await?;
    let rows: Vec<_> = question_players
        .iter()
        .map(|((v, player), n)| version_row(v, Some(Key::Text(player)), n))
        .collect();
    store::add(tx, QUESTION_PLAYERS, &rows).await?;
    let rows: Vec<_> = players
        .iter()
        .map(|(player, n)| (vec![Key::Text(player)], n.to_vec()))
        .collect();
    store::add(tx, PLAYER_ACCURACY, &rows).await?;
    let marks: Vec<(&str, &str)> = day_players
        .iter()
        .map(|(day, player)| (day.as_str(), *player))
        .collect();
    let mut active: BTreeMap<String, i64> = BTreeMap::new();
    for day in store::mark_daily_players(tx, &marks).await? {
        *active.entry(day).or_default() += 1;
    }
    let rows: Vec<_> = activity
        .iter()
        .map(|(day, [answers, correct])| {
            let first_today = active.get(day).copied().unwrap_or(0);
            (vec![Key::Text(day)], vec![*answers, *correct, first_today])
        })
        .collect();
    store::add(tx, DAILY_ACTIVITY, &rows).await?;
    Ok(())
}

/// The text of the option the answer picked, from its session question's options.
fn selected_text(f: &AnswerFact) -> Option<String> {
    #[derive(Deserialize)]
    struct ShownOption {
        id: String,
        text: String,
    }
    let options: Vec<ShownOption> = serde_json::from_str(f.options.as_deref()?).ok()?;
    options
        .into_iter()
        .find(|o| o.id == f.selected_option_id)
        .map(|o| o.text)
}

/// Today's and yesterday's signups (earlier days no longer change).
async fn count_signups(ctx: &AppContext) -> Result<()> {
    let today = beijing::day(ctx.clock.now());
    for day in [today - chrono::Duration::days(1), today] {
        let start = beijing::day_start(day).timestamp_millis();
        let n = store::signups(&ctx.db, start, start + DAY_MS).await?;
        let mut tx = ctx.db.begin().await?;
        store::store_signups(&mut tx, &beijing::day_key(day), n).await?;
        tx.commit().await?;
    }
    Ok(())
}

/// Recomputes the derived numbers of one version from its counters; a published
/// question newly flagged `likely_miskeyed` goes back to review when
/// `QUESTION_AUTO_REVIEW` is on.
async fn derive(ctx: &AppContext, question_id: &QuestionId, version: i64) -> Result<()> {
    let Some(content) = store::version_content(&ctx.db, question_id, version).await? else {
        return Ok(());
    };
    let Some(counts) = store::stats(&ctx.db, question_id, version).await? else {
        return Ok(());
    };
    let now = ctx.clock.now_ms();
    let picks = store::option_picks(&ctx.db, question_id, version).await?;
    let options = option_stats(&content, &picks, counts.attempts);
    let quality = &ctx.settings.quality;
    let (players, card_views, discrimination, players_read_attempts) = if rules::players_read_due(
        counts.attempts,
        counts.players_read_attempts,
        counts.players_read_at,
        now,
        PlayersRead::DEFAULT,
    ) {
        let card_id = content
            .card_id
            .clone()
            .unwrap_or_else(|| format!("fallback-{question_id}"));
        let players = store::players(&ctx.db, question_id, version, &card_id).await?;
        let ranked: Vec<PlayerAnswers> = players
            .iter()
            .map(|p| PlayerAnswers {
                player_id: p.player_id.clone(),
                overall_accuracy: rate(p.overall_correct, p.overall_attempts).unwrap_or(0.0),
                attempts: p.attempts,
                correct: p.correct,
            })
            .collect();
        (
            players.len() as i64,
            players.iter().filter(|p| p.viewed_card).count() as i64,
            rules::discrimination(&ranked, quality.discrimination_group, quality.min_attempts),
            Some(counts.attempts),
        )
    } else {
        (
            counts.players,
            counts.card_views,
            counts.discrimination,
            None,
        )
    };
    let picks_of: Vec<OptionPicks> = options
        .iter()
        .map(|o| OptionPicks {
            is_correct: o.is_correct,
            picks: o.picks,
        })
        .collect();
    let flags = rules::flags(
        counts.attempts,
        counts.correct,
        &picks_of,
        discrimination,
        quality,
    );
    let median = rules::median(&store::answer_times(&ctx.db, question_id, version).await?);
    let pace = store::pace_times(&ctx.db, question_id, version).await?;
    let pace_ms = rules::median(&pace);
    // one answer per player in the histogram: its answers are its players
    let pace_players = pace.iter().map(|(_, n)| n).sum();
    let flags_stored = flags_text(&flags);
    let mut tx = ctx.db.begin().await?;
    let before = store::store_derived(
        &mut tx,
        &Derived {
            question_id,
            version,
            players,
            card_views,
            median_time_ms: median,
            pace_ms,
            pace_players,
            discrimination,
            flags: flags_stored.as_deref(),
            severity: severity(&flags),
            now_ms: now,
            due_seen: counts.derive_due,
            players_read_attempts,
        },
    )
    .await?;
    let newly_miskeyed = flags.contains(&Flag::LikelyMiskeyed)
        && !parse_flags(before.as_deref()).contains(&Flag::LikelyMiskeyed);
    if newly_miskeyed
        && ctx.settings.jobs.auto_review
        && db::questions::move_status_at_version(
            &mut tx,
            question_id,
            version,
            QuestionStatus::Published.as_str(),
            QuestionStatus::Reviewing.as_str(),
            now,
        )
        .await?
    {
        audit::record_and_commit(
            tx,
            ctx,
            &audit::system(),
            audit::Write {
                action: "question.auto_review",
                target_type: "question",
                target_id: Some(question_id.as_str()),
                before: Some(json!({ "status": QuestionStatus::Published.as_str() })),
                after: Some(json!({
                    "status": QuestionStatus::Reviewing.as_str(),
                    "version": version,
                    "flags": flags.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                })),
            },
        )
        .await?;
        return Ok(());
    }
    tx.commit().await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// What the API shows

/// One option of a question version with how often players picked it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OptionStats {
    pub text: String,
    pub is_correct: bool,
    pub picks: i64,
    /// picks ÷ attempts (0-1), null without attempts.
    pub pick_rate: Option<f64>,
}

/// One Beijing day of a version's answers.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DayAccuracy {
    /// `YYYY-MM-DD` (Beijing).
    pub day: String,
    pub attempts: i64,
    pub correct: i64,
    /// null on a day without answers.
    pub accuracy: Option<f64>,
}

/// `GET /v1/admin/questions/{id}/stats`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionStats {
    pub question_id: QuestionId,
    pub version: i64,
    pub attempts: i64,
    pub correct: i64,
    /// correct ÷ attempts (0-1), null without attempts.
    pub accuracy: Option<f64>,
    /// The median of the answers' `timeMs` (the mean of the two middle ones, rounded
    /// down, for an even count); null without attempts.
    pub median_time_ms: Option<i64>,
    /// The correct answer first, then the distractors, as in the version.
    pub options: Vec<OptionStats>,
    /// Upper-lower index (top 27 % of the players by overall accuracy minus the bottom
    /// 27 %, on this question); null under the minimum attempts.
    pub discrimination: Option<f64>,
    /// Players who answered this version and opened its knowledge card.
    pub card_views: i64,
    /// cardViews ÷ players who answered this version; null without players.
    pub card_view_rate: Option<f64>,
    /// Most serious first.
    pub flags: Vec<Flag>,
    /// When the derived numbers were last computed; null before the first time.
    pub computed_at: Option<DateTime<Utc>>,
    /// The last 30 Beijing days, oldest first (days without answers included).
    pub daily: Vec<DayAccuracy>,
    /// The question's item response theory parameters from its category's last fit
    /// (the question, not the version); null while uncalibrated.
    pub calibration: Option<crate::services::learning::QuestionCalibration>,
    /// How fast its players forget it (the question, not the version; spaced review):
    /// null until the review job has looked at it.
    pub memory: Option<crate::services::review::QuestionMemory>,
}

#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    /// A version of the question, 1 or more (default: the current one). Read as text,
    /// so that anything else is the envelope's 400, not the query extractor's.
    #[param(value_type = Option<i64>, minimum = 1)]
    pub version: Option<String>,
}

/// The options of a version with their picks, the correct answer first.
fn option_stats(
    content: &store::VersionContent,
    picks: &[(String, i64)],
    attempts: i64,
) -> Vec<OptionStats> {
    let distractors: Vec<String> = serde_json::from_str(&content.distractors).unwrap_or_default();
    std::iter::once((content.correct_answer.clone(), true))
        .chain(distractors.into_iter().map(|d| (d, false)))
        .map(|(text, is_correct)| {
            let picks = picks
                .iter()
                .find(|(t, _)| *t == text)
                .map_or(0, |(_, n)| *n);
            OptionStats {
                text,
                is_correct,
                picks,
                pick_rate: rate(picks, attempts),
            }
        })
        .collect()
}

/// The last [`DAYS_SHOWN`] Beijing days up to today, oldest first.
fn days_shown(ctx: &AppContext) -> Vec<String> {
    let today = beijing::day(ctx.clock.now());
    (0..DAYS_SHOWN)
        .rev()
        .map(|back| beijing::day_key(today - chrono::Duration::days(back)))
        .collect()
}

/// `GET /v1/admin/questions/{id}/stats[?version=N]`.
pub async fn question_stats(
    ctx: &AppContext,
    question_id: &QuestionId,
    query: &StatsQuery,
) -> Result<QuestionStats> {
    let current = store::current_version(&ctx.db, question_id)
        .await?
        .ok_or_else(|| Error::not_found(msg::QUESTION_NOT_FOUND))?;
    let version = match query.version.as_deref().map(str::trim) {
        None | Some("") => current,
        Some(raw) => raw
            .parse::<i64>()
            .ok()
            .filter(|v| *v >= 1)
            .ok_or_else(|| Error::validation(msg::VERSION_MUST_BE_A_POSITIVE_INTEGER))?,
    };
    let content = store::version_content(&ctx.db, question_id, version)
        .await?
        .ok_or_else(|| Error::not_found(msg::QUESTION_VERSION_NOT_FOUND))?;
    // the counts are minutes old by design: a replica's lag does not matter
    let counts = crate::lagging_read!(ctx, |db| store::stats(db, question_id, version).await)?
        .unwrap_or_default();
    let picks = crate::lagging_read!(ctx, |db| store::option_picks(db, question_id, version)
        .await)?;
    let days = days_shown(ctx);
    let first = days.first().cloned().unwrap_or_default();
    let rows = crate::lagging_read!(ctx, |db| store::daily(db, question_id, version, &first)
        .await)?;
    let daily = days
        .into_iter()
        .map(|day| {
            let (attempts, correct) = rows
                .iter()
                .find(|(d, _, _)| *d == day)
                .map_or((0, 0), |(_, a, c)| (*a, *c));
            DayAccuracy {
                day,
                attempts,
                correct,
                accuracy: rate(correct, attempts),
            }
        })
        .collect();
    let mut stats = shown(question_id, version, &content, &counts, &picks, daily);
    stats.calibration = crate::services::learning::question_calibration(ctx, question_id).await?;
    stats.memory = crate::services::review::question_memory(ctx, question_id).await?;
    Ok(stats)
}

/// The statistics of a version as the API shows them.
fn shown(
    question_id: &QuestionId,
    version: i64,
    content: &store::VersionContent,
    counts: &store::StatsRow,
    picks: &[(String, i64)],
    daily: Vec<DayAccuracy>,
) -> QuestionStats {
    QuestionStats {
        question_id: question_id.clone(),
        version,
        attempts: counts.attempts,
        correct: counts.correct,
        accuracy: rate(counts.correct, counts.attempts),
        median_time_ms: counts.median_time_ms,
        options: option_stats(content, picks, counts.attempts),
        discrimination: counts.discrimination,
        card_views: counts.card_views,
        card_view_rate: rate(counts.card_views, counts.players),
        flags: parse_flags(counts.flags.as_deref()),
        computed_at: (counts.computed_at > 0).then(|| from_ms(counts.computed_at)),
        daily,
        calibration: None,
        memory: None,
    }
}

/// The statistics of the current versions of many questions (a screen's worth), without
/// their days, in two reads; a question that does not exist is left out.
pub async fn current_stats(ctx: &AppContext, question_ids: &[&str]) -> Result<Vec<QuestionStats>> {
    let (rows, picks) =
        crate::lagging_read!(ctx, |db| store::current_stats(db, question_ids).await)?;
    Ok(rows
        .iter()
        .map(|row| {
            let own: Vec<(String, i64)> = picks
                .iter()
                .filter(|(q, _, _)| row.question_id == q.as_str())
                .map(|(_, text, n)| (text.clone(), *n))
                .collect();
            shown(
                &row.question_id,
                row.version,
                &row.content,
                &row.counts,
                &own,
                Vec::new(),
            )
        })
        .collect())
}

/// One Beijing day of the dashboard.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DayActivity {
    /// `YYYY-MM-DD` (Beijing).
    pub day: String,
    /// Players who answered at least once that day.
    pub active_players: i64,
    pub answers: i64,
    pub correct: i64,
    /// correct ÷ answers, null on a day without answers.
    pub accuracy: Option<f64>,
    /// Players who signed up that day (neither deleted nor merged since).
    pub new_players: i64,
}

/// `GET /v1/admin/stats/daily`: the last 30 Beijing days, oldest first, each day present.
pub async fn daily_activity(ctx: &AppContext) -> Result<Vec<DayActivity>> {
    let days = days_shown(ctx);
    let first = days.first().cloned().unwrap_or_default();
    let rows = crate::lagging_read!(ctx, |db| store::activity(db, &first).await)?;
    Ok(days
        .into_iter()
        .map(|day| {
            let row = rows.iter().find(|r| r.day == day);
            let (answers, correct) = row.map_or((0, 0), |r| (r.answers, r.correct));
            DayActivity {
                active_players: row.map_or(0, |r| r.active_players),
                new_players: row.map_or(0, |r| r.new_players),
                accuracy: rate(correct, answers),
                answers,
                correct,
                day,
            }
        })
        .collect())
}
