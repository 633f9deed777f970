//! What the answers say, as pictures: a question's statistics page (option pick rates as
//! bars, accuracy per day as a line, the flags in words, the version history with a
//! word-level diff between any two versions and a revert button), and the "Needs
//! attention" screen (flagged questions, worst first, with a bulk "send to review").

use askama::Template;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use chrono::NaiveDate;
use serde::Deserialize;
use shared::domain::question_stats::QualityRules;
use shared::domain::question_status::BatchAction;
use shared::services::question_stats::{self, QuestionStats, StatsQuery};
use shared::services::questions::{
    self, AdminQuestion, BatchRequest, ListQuery, QuestionVersion, QuestionVersionSummary,
};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::charts::{self, DailyPoint, OptionBar, ValueFormat};
use super::diff::{self, FieldDiff};
use super::page::{Chrome, PageError, PageResult, page, redirect_with};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::ATTENTION, get(attention))
        .route(urls::ATTENTION_REVIEW, post(send_to_review))
        .route(urls::pattern::QUESTION_STATS, get(stats_page))
        .route(urls::pattern::QUESTION_REVERT, post(revert))
}

/// A flag said in words, with the numbers that raised it.
fn flag_sentence(flag: &str, s: &QuestionStats, rules: &QualityRules) -> String {
    let percent = |r: Option<f64>| r.map_or_else(|| "—".to_string(), charts::format_percent);
    let answer = s.options.iter().find(|o| o.is_correct);
    let distractors = || s.options.iter().filter(|o| !o.is_correct);
    match flag {
        "likely_miskeyed" => {
            let top = distractors().max_by_key(|o| o.picks);
            format!(
                "Players pick “{}” more often than the answer “{}” ({} against {}): is the key right?",
                top.map_or("", |o| o.text.as_str()),
                answer.map_or("", |o| o.text.as_str()),
                percent(top.and_then(|o| o.pick_rate)),
                percent(answer.and_then(|o| o.pick_rate)),
            )
        }
        "negative_discrimination" => format!(
            "The strongest players get it wrong more often than the weakest (discrimination {}): the wording or the key may mislead.",
            s.discrimination
                .map_or_else(|| "—".into(), |d| format!("{d:.2}"))
        ),
        "too_hard" => format!(
            "Only {} of the answers are right: too hard, or unclear?",
            percent(s.accuracy)
        ),
        "too_easy" => format!(
            "{} of the answers are right: it may be too easy to teach anything.",
            percent(s.accuracy)
        ),
        "dead_distractor" => {
            let dead: Vec<String> = distractors()
                .filter(|o| o.pick_rate.is_some_and(|r| r < rules.dead_distractor_rate))
                .map(|o| format!("“{}”", o.text))
                .collect();
            format!(
                "Almost nobody picks {}: a likelier wrong answer would teach more.",
                dead.join(", ")
            )
        }
        other => other.to_string(),
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
    numbers: Vec<(&'static str, String)>,
    /// Attempts before a version gets flags (`RULE_STATS_MIN_ATTEMPTS`).
    min_attempts: i64,
    versions: Vec<QuestionVersionSummary>,
    from: i64,
    to: i64,
    diff: Vec<FieldDiff>,
}

/// A version's fields as the diff compares them.
fn fields_of(v: &QuestionVersion) -> Vec<(&'static str, String)> {
    let card = v.knowledge_card.as_ref();
    vec![
        ("Stem", v.stem.text.clone()),
        ("Answer", v.correct_answer.clone()),
        ("Distractors", v.distractors.join("\n")),
        ("Category", v.category_id.clone()),
        ("Difficulty", v.difficulty.to_string()),
        ("Content type", v.content_type.as_str().to_string()),
        (
            "Card title",
            card.and_then(|c| c.title.clone()).unwrap_or_default(),
        ),
        (
            "Card summary",
            card.map(|c| c.summary.clone()).unwrap_or_default(),
        ),
        (
            "Card deep dive",
            card.and_then(|c| c.deep_dive.clone()).unwrap_or_default(),
        ),
        (
            "Card source",
            card.and_then(|c| c.source_ref.clone()).unwrap_or_default(),
        ),
    ]
}

async fn stats_page(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    Path(id): Path<String>,
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
        let as_refs = |v: &[(&'static str, String)]| {
            v.iter().map(|(k, s)| (*k, s.clone())).collect::<Vec<_>>()
        };
        diff::diff_fields(&as_refs(&old), &as_refs(&new))
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
    );
    let line = charts::daily_line(&daily_points(&stats), ValueFormat::Percent);
    let numbers = vec![
        ("Attempts", charts::format_count(stats.attempts)),
        (
            "Accuracy",
            stats
                .accuracy
                .map_or_else(|| "—".into(), charts::format_percent),
        ),
        (
            "Median time",
            stats
                .median_time_ms
                .map_or_else(|| "—".into(), |ms| format!("{:.1} s", ms as f64 / 1000.0)),
        ),
        (
            "Discrimination",
            stats
                .discrimination
                .map_or_else(|| "—".into(), |d| format!("{d:.2}")),
        ),
        (
            "Card views",
            format!(
                "{} ({})",
                charts::format_count(stats.card_views),
                stats
                    .card_view_rate
                    .map_or_else(|| "—".into(), charts::format_percent)
            ),
        ),
    ];
    let quality = &ctx.settings.quality;
    let flags = stats
        .flags
        .iter()
        .map(|f| flag_sentence(f, &stats, quality))
        .collect();
    Ok(page(&StatsPage {
        chrome: me.chrome("questions").await,
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
    headers: HeaderMap,
    Path((id, version)): Path<(String, i64)>,
    ConsoleForm(_): ConsoleForm<Empty>,
) -> PageResult {
    let before = questions::get(&state.ctx, &id)
        .await
        .map_err(|e| PageError::new(e, &headers))?;
    let after = questions::revert(&state.ctx, &me.admin, &id, version)
        .await
        .map_err(|e| PageError::new(e, &headers))?;
    let message = if after.version == before.version {
        format!("Version {version} is the current content already: nothing changed.")
    } else {
        format!(
            "Version {} now holds the content of version {version}.",
            after.version
        )
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
                .map(|f| flag_sentence(f, &stats, &state.ctx.settings.quality))
                .collect(),
            accuracy: stats
                .accuracy
                .map_or_else(|| "—".into(), charts::format_percent),
            question,
        });
    }
    Ok(page(&AttentionPage {
        chrome: me.chrome("attention").await,
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
    headers: HeaderMap,
    ConsoleForm(form): ConsoleForm<ReviewForm>,
) -> PageResult {
    if form.ids.is_empty() {
        return Ok(redirect_with(
            &me.session,
            "error",
            "Select the questions to send to review first.",
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
    .await
    .map_err(|e| PageError::new(e, &headers))?;
    let mut message = format!("{} sent to review.", result.succeeded);
    if !result.failed.is_empty() {
        let failed: Vec<String> = result
            .failed
            .iter()
            .map(|f| format!("{}: {}", f.id, f.reason))
            .collect();
        message.push_str(&format!(" Not moved: {}.", failed.join("; ")));
    }
    Ok(redirect_with(&me.session, "ok", message, urls::ATTENTION).await)
}
