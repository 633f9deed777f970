//! What the answers say, as pictures: a question's statistics page (option pick rates as
//! bars, accuracy per day as a line, the flags in words, the version history with a
//! word-level diff between any two versions and a revert button), and the "Needs
//! attention" screen (flagged questions, worst first, with a bulk "send to review").

use askama::Template;
use axum::Router;
use axum::extract::{Query, State};
use axum::routing::{get, post};
use chrono::NaiveDate;
use serde::Deserialize;
use shared::domain::question_stats::{Flag, QualityRules};
use shared::domain::question_status::BatchAction;
use shared::domain::skill;
use shared::ids::QuestionId;
use shared::message::Message;
use shared::services::question_stats::{self, QuestionStats, StatsQuery};
use shared::services::questions::{
    self, AdminQuestion, BatchRequest, ListQuery, QuestionVersion, QuestionVersionSummary,
};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::charts::{self, DailyPoint, OptionBar, ValueFormat};
use super::diff::{self, FieldDiff};
use super::fields::PagePath;
use super::i18n;
use super::nav::Nav;
use super::page::{Chrome, PageResult, page, redirect_with};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::ATTENTION, get(attention))
        .route(urls::ATTENTION_REVIEW, post(send_to_review))
        .route(urls::pattern::QUESTION_STATS, get(stats_page))
        .route(urls::pattern::QUESTION_REVERT, post(revert))
}

/// Message `id` with four arguments.
fn t4(id: &str, args: [(&str, String); 4]) -> String {
    i18n::current().t_args(id, &args)
}

/// A flag said in words, with the numbers that raised it, in the page's language.
fn flag_sentence(flag: Flag, s: &QuestionStats, rules: &QualityRules) -> String {
    let percent = |r: Option<f64>| r.map_or_else(|| "—".to_string(), charts::format_percent);
    let answer = s.options.iter().find(|o| o.is_correct);
    let distractors = || s.options.iter().filter(|o| !o.is_correct);
    match flag {
        Flag::LikelyMiskeyed => {
            let top = distractors().max_by_key(|o| o.picks);
            t4(
                "quality-flag-likely-miskeyed",
                [
                    ("top", top.map_or("", |o| o.text.as_str()).to_string()),
                    ("answer", answer.map_or("", |o| o.text.as_str()).to_string()),
                    ("top_rate", percent(top.and_then(|o| o.pick_rate))),
                    ("answer_rate", percent(answer.and_then(|o| o.pick_rate))),
                ],
            )
        }
        Flag::NegativeDiscrimination => i18n::t1(
            "quality-flag-negative-discrimination",
            "discrimination",
            s.discrimination
                .map_or_else(|| "—".into(), |d| format!("{d:.2}")),
        ),
        Flag::TooHard => i18n::t1("quality-flag-too-hard", "accuracy", percent(s.accuracy)),
        Flag::TooEasy => i18n::t1("quality-flag-too-easy", "accuracy", percent(s.accuracy)),
        Flag::DeadDistractor => {
            let dead: Vec<String> = distractors()
                .filter(|o| o.pick_rate.is_some_and(|r| r < rules.dead_distractor_rate))
                .map(|o| i18n::t1("quality-quoted", "text", &o.text))
                .collect();
            i18n::t1("quality-flag-dead-distractor", "options", i18n::list(dead))
        }
    }
}

#[derive(Deserialize)]
struct StatsParams {
    version: Option<String>,
    /// The diff's two versions.
    from: Option<i64>,
    to: Option<i64>,
}

#[derive(Template)]
#[template(path = "console/question_stats.html")]
struct StatsPage {
    chrome: Chrome,
    question: AdminQuestion,
    stats: QuestionStats,
    flags: Vec<String>,
    bars: String,
    line: String,
    numbers: Vec<(String, String)>,
    /// Attempts before a version gets flags (`RULE_STATS_MIN_ATTEMPTS`).
    min_attempts: i64,
    versions: Vec<QuestionVersionSummary>,
    from: i64,
    to: i64,
    diff: Vec<FieldDiff>,
}

impl StatsPage {
    /// What version row `fields` changed (`created` for the first version).
    fn changed(&self, fields: &[String]) -> String {
        changed_fields(fields)
    }
}

/// A version's fields as the diff compares them, named in the page's language.
fn fields_of(v: &QuestionVersion) -> Vec<(String, String)> {
    let card = v.knowledge_card.as_ref();
    vec![
        (i18n::t("quality-field-stem"), v.stem.text.clone()),
        (i18n::t("quality-field-answer"), v.correct_answer.clone()),
        (
            i18n::t("quality-field-distractors"),
            v.distractors.join("\n"),
        ),
        (i18n::t("quality-field-category"), v.category_id.clone()),
        (
            i18n::t("quality-field-difficulty"),
            v.difficulty.to_string(),
        ),
        (
            i18n::t("quality-field-content-type"),
            v.content_type.label(i18n::current()),
        ),
        (
            i18n::t("quality-field-card-title"),
            card.and_then(|c| c.title.clone()).unwrap_or_default(),
        ),
        (
            i18n::t("quality-field-card-summary"),
            card.map(|c| c.summary.clone()).unwrap_or_default(),
        ),
        (
            i18n::t("quality-field-card-deep-dive"),
            card.and_then(|c| c.deep_dive.clone()).unwrap_or_default(),
        ),
        (
            i18n::t("quality-field-card-source"),
            card.and_then(|c| c.source_ref.clone()).unwrap_or_default(),
        ),
    ]
}

/// The name of a field a version changed (its API name, as the history stores it), in
/// the page's language; the stored name for a field this page does not know.
fn changed_field_name(field: &str) -> String {
    let id = match field {
        "stem" => "quality-field-stem",
        "correctAnswer" => "quality-field-answer",
        "distractors" => "quality-field-distractors",
        "categoryId" => "quality-field-category",
        "difficulty" => "quality-field-difficulty",
        "contentType" => "quality-field-content-type",
        "knowledgeCard.title" => "quality-field-card-title",
        "knowledgeCard.summary" => "quality-field-card-summary",
        "knowledgeCard.deepDive" => "quality-field-card-deep-dive",
        "knowledgeCard.sourceRef" => "quality-field-card-source",
        other => return other.to_string(),
    };
    i18n::t(id)
}

/// What a version changed, as its row in the history says it (`created` for the first).
fn changed_fields(fields: &[String]) -> String {
    if fields.is_empty() {
        return i18n::t("quality-version-created");
    }
    i18n::list(fields.iter().map(|f| changed_field_name(f)))
}

async fn stats_page(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<QuestionId>,
    Query(params): Query<StatsParams>,
) -> PageResult {
    let ctx = &state.ctx;
    let question = questions::get(ctx, &id).await?;
    let stats = question_stats::question_stats(
        ctx,
        &id,
        &StatsQuery {
            version: params.version,
        },
    )
    .await?;
    let versions = questions::list_versions(ctx, &id).await?;
    let current = question.version;
    let to = params.to.unwrap_or(current).clamp(1, current);
    let from = params.from.unwrap_or(to - 1).clamp(1, current);
    let diff = if from == to {
        Vec::new()
    } else {
        let old = questions::get_version(ctx, &id, from).await?;
        let new = questions::get_version(ctx, &id, to).await?;
        let (old, new) = (fields_of(&old), fields_of(&new));
        let old: Vec<(&str, String)> = old.iter().map(|(k, s)| (k.as_str(), s.clone())).collect();
        let new: Vec<(&str, String)> = new.iter().map(|(k, s)| (k.as_str(), s.clone())).collect();
        diff::diff_fields(&old, &new)
    };
    let bars = charts::pick_rate_bars(
        &stats
            .options
            .iter()
            .map(|o| OptionBar {
                text: o.text.clone(),
                is_correct: o.is_correct,
                picks: o.picks,
                pick_rate: o.pick_rate,
            })
            .collect::<Vec<_>>(),
        i18n::current(),
    );
    let line = charts::daily_line(&daily_points(&stats), ValueFormat::Percent, i18n::current());
    let numbers = vec![
        (i18n::t("quality-attempts"), i18n::num(stats.attempts)),
        (
            i18n::t("quality-accuracy"),
            stats
                .accuracy
                .map_or_else(|| "—".into(), charts::format_percent),
        ),
        (
            i18n::t("quality-median-time"),
            stats.median_time_ms.map_or_else(
                || "—".into(),
                |ms| {
                    i18n::t1(
                        "quality-seconds",
                        "seconds",
                        format!("{:.1}", ms as f64 / 1000.0),
                    )
                },
            ),
        ),
        (
            i18n::t("quality-discrimination"),
            stats
                .discrimination
                .map_or_else(|| "—".into(), |d| format!("{d:.2}")),
        ),
        (
            i18n::t("quality-card-views"),
            i18n::t2(
                "quality-card-views-value",
                "views",
                i18n::num(stats.card_views),
                "rate",
                stats
                    .card_view_rate
                    .map_or_else(|| "—".into(), charts::format_percent),
            ),
        ),
    ];
    let mut numbers = numbers;
    numbers.push((
        i18n::t("quality-calibrated-difficulty"),
        stats.calibration.as_ref().map_or_else(
            || i18n::t1("quality-uncalibrated", "authored", question.difficulty),
            |c| {
                i18n::t3(
                    "quality-calibrated-difficulty-value",
                    ("difficulty", &format!("{:+.2}", c.difficulty)),
                    (
                        "error",
                        &c.standard_error
                            .map_or_else(|| "—".to_string(), |e| format!("{e:.2}")),
                    ),
                    ("authored", &question.difficulty),
                )
            },
        ),
    ));
    if let Some(m) = &stats.memory {
        numbers.push((
            i18n::t("quality-average-stability"),
            i18n::t2(
                "quality-average-stability-value",
                "days",
                format!("{:.1}", m.average_stability),
                "players",
                i18n::num(m.players),
            ),
        ));
    }
    let quality = &ctx.settings.quality;
    let mut flags: Vec<String> = stats
        .flags
        .iter()
        .map(|f| flag_sentence(*f, &stats, quality))
        .collect();
    // the answers' difficulty against the author's, once a fit has calibrated it
    if let Some(c) = &stats.calibration
        && skill::difficulty_mismatch(question.difficulty, c.difficulty)
    {
        flags.push(i18n::t2(
            "quality-flag-difficulty-mismatch",
            "band",
            skill::difficulty_band(c.difficulty),
            "authored",
            question.difficulty,
        ));
    }
    // the players forget it faster than nine questions in ten
    if stats.memory.as_ref().is_some_and(|m| m.quickly_forgotten) {
        flags.push(i18n::t("quality-flag-quickly-forgotten"));
    }
    Ok(page(&StatsPage {
        chrome: me.chrome(Nav::Questions).await,
        question,
        flags,
        bars,
        line,
        numbers,
        min_attempts: quality.min_attempts,
        versions,
        from,
        to,
        diff,
        stats,
    }))
}

fn daily_points(stats: &QuestionStats) -> Vec<DailyPoint> {
    stats
        .daily
        .iter()
        .filter_map(|d| {
            Some(DailyPoint {
                day: NaiveDate::parse_from_str(&d.day, "%Y-%m-%d").ok()?,
                value: d.accuracy,
            })
        })
        .collect()
}

async fn revert(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath((id, version)): PagePath<(QuestionId, i64)>,
    ConsoleForm(_): ConsoleForm<Empty>,
) -> PageResult {
    let before = questions::get(&state.ctx, &id).await?;
    let after = questions::revert(&state.ctx, &me.admin, &id, version).await?;
    let message = if after.version == before.version {
        i18n::t1("quality-revert-unchanged", "version", version)
    } else {
        i18n::t2("quality-reverted", "new", after.version, "version", version)
    };
    Ok(redirect_with(&me.session, "ok", message, &urls::question_stats(&id)).await)
}

#[derive(Deserialize)]
struct Empty {}

// ---------------------------------------------------------------------------------------
// Needs attention

/// Flagged questions shown on one screen, worst first.
const ATTENTION_LIMIT: i64 = 50;

struct AttentionRow {
    question: AdminQuestion,
    sentences: Vec<String>,
    accuracy: String,
}

#[derive(Template)]
#[template(path = "console/attention.html")]
struct AttentionPage {
    chrome: Chrome,
    rows: Vec<AttentionRow>,
    total: i64,
}

impl AttentionPage {
    /// What the screen lists, and how many of them it shows when not all.
    fn lede(&self) -> String {
        let shown = i64::try_from(self.rows.len()).unwrap_or(i64::MAX);
        if self.total > shown {
            i18n::t2(
                "quality-attention-lede-some",
                "shown",
                i18n::num(shown),
                "total",
                i18n::num(self.total),
            )
        } else {
            i18n::t("quality-attention-lede")
        }
    }
}

async fn attention(State(state): State<AppState>, me: ConsoleAdmin) -> PageResult {
    let (items, pagination) = questions::list(
        &state.ctx,
        &ListQuery {
            flagged: Some(true),
            sort_by: Some("severity".into()),
            sort_order: Some("desc".into()),
            limit: Some(ATTENTION_LIMIT),
            ..ListQuery::default()
        },
    )
    .await?;
    let ids: Vec<&str> = items.iter().map(|q| q.id.as_str()).collect();
    let mut stats = question_stats::current_stats(&state.ctx, &ids).await?;
    let mut rows = Vec::with_capacity(items.len());
    for question in items {
        let Some(at) = stats.iter().position(|s| s.question_id == question.id) else {
            continue;
        };
        let stats = stats.swap_remove(at);
        rows.push(AttentionRow {
            sentences: stats
                .flags
                .iter()
                .map(|f| flag_sentence(*f, &stats, &state.ctx.settings.quality))
                .collect(),
            accuracy: stats
                .accuracy
                .map_or_else(|| "—".into(), charts::format_percent),
            question,
        });
    }
    Ok(page(&AttentionPage {
        chrome: me.chrome(Nav::Attention).await,
        rows,
        total: pagination.total,
    }))
}

#[derive(Deserialize)]
struct ReviewForm {
    #[serde(default)]
    ids: Vec<String>,
}

/// Moves the selected published questions to reviewing (one batch, audited); says how
/// many moved and which could not.
async fn send_to_review(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    ConsoleForm(form): ConsoleForm<ReviewForm>,
) -> PageResult {
    if form.ids.is_empty() {
        return Ok(redirect_with(
            &me.session,
            "error",
            i18n::t("quality-review-none-selected"),
            urls::ATTENTION,
        )
        .await);
    }
    let result = questions::batch(
        &state.ctx,
        &me.admin,
        BatchAction::Review,
        &BatchRequest { ids: form.ids },
    )
    .await?;
    let sent = i18n::num(i64::try_from(result.succeeded).unwrap_or(i64::MAX));
    let message = if result.failed.is_empty() {
        i18n::t1("quality-review-sent", "count", sent)
    } else {
        let failed: Vec<String> = result
            .failed
            .iter()
            .map(|f| {
                i18n::t2(
                    "quality-review-failure",
                    "id",
                    &f.id,
                    "reason",
                    failure_reason(&f.reason),
                )
            })
            .collect();
        i18n::t2(
            "quality-review-sent-some",
            "count",
            sent,
            "failed",
            failed.join(&i18n::t("quality-review-failure-sep")),
        )
    };
    Ok(redirect_with(&me.session, "ok", message, urls::ATTENTION).await)
}

/// Why the batch left a question where it was (`not found`, or the service's refused
/// move), in the page's language.
fn failure_reason(reason: &Message) -> String {
    super::page::move_refusal(
        reason,
        "quality-review-not-found",
        "quality-review-cannot-move",
    )
}
