//! The start page: the statistics dashboard, with the last 30 days as small charts.

use askama::Template;
use axum::extract::State;
use chrono::NaiveDate;
use shared::services::moderation::{self, Statistics};
use shared::services::question_stats::{self, DayActivity};

use super::auth::ConsoleAdmin;
use super::charts::{self, DailyPoint, ValueFormat};
use super::i18n;
use super::nav::Nav;
use super::page::{Chrome, PageResult, page};
use super::urls;
use crate::AppState;

#[derive(Template)]
#[template(path = "console/dashboard.html")]
struct DashboardPage {
    chrome: Chrome,
    stats: Statistics,
    /// Server-rendered SVG, one per series.
    charts: Vec<String>,
    /// `COMPLIANCE_PROFILE`.
    profile: shared::config::ComplianceProfile,
}

/// One series of the days as chart points.
fn series(days: &[DayActivity], value: impl Fn(&DayActivity) -> Option<f64>) -> Vec<DailyPoint> {
    days.iter()
        .filter_map(|d| {
            Some(DailyPoint {
                day: NaiveDate::parse_from_str(&d.day, "%Y-%m-%d").ok()?,
                value: value(d),
            })
        })
        .collect()
}

pub async fn show(State(state): State<AppState>, me: ConsoleAdmin) -> PageResult {
    let stats = moderation::stats(&state.ctx).await?;
    let days = question_stats::daily_activity(&state.ctx).await?;
    let count = |f: fn(&DayActivity) -> i64| series(&days, move |d| Some(f(d) as f64));
    let lang = i18n::current();
    let charts = vec![
        charts::small_chart(
            &i18n::t("dash-chart-active-players"),
            &count(|d| d.active_players),
            ValueFormat::Count,
            lang,
        ),
        charts::small_chart(
            &i18n::t("dash-chart-answers"),
            &count(|d| d.answers),
            ValueFormat::Count,
            lang,
        ),
        charts::small_chart(
            &i18n::t("dash-chart-new-players"),
            &count(|d| d.new_players),
            ValueFormat::Count,
            lang,
        ),
        charts::small_chart(
            &i18n::t("dash-chart-accuracy"),
            &series(&days, |d| d.accuracy),
            ValueFormat::Percent,
            lang,
        ),
    ];
    Ok(page(&DashboardPage {
        chrome: me.chrome(Nav::Dashboard).await,
        stats,
        charts,
        profile: state.ctx.settings.compliance.profile,
    }))
}
