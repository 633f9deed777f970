//! Players as admins manage them (list, search, detail, ban, unban), statistics, the
//! feedback inbox, and the sign-in provider toggles.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::clock::{beijing, from_ms};
use crate::context::AppContext;
use crate::db::ledger::HIDDEN_FOR_GOOD;
use crate::db::{self, moderation::PlayerAdminRow};
use crate::domain::fairplay::FairPlayState;
use crate::domain::identity::{IdentityProvider, Platform, ProviderKind};
use crate::domain::resources;
use crate::envelope::Pagination;
use crate::ids::PlayerId;
use crate::message::msg;
use crate::services::admin_auth::AdminPrincipal;
use crate::services::audit::{self, PageQuery, Write};
use crate::services::board_visibility::{self, VisibilityChange};
use crate::services::review::{self, PlayerReview};
use crate::{Error, Result};

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerRecord {
    pub id: PlayerId,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
    pub is_guest: bool,
    pub tier: crate::domain::subscription::Tier,
    pub region_code: Option<String>,
    pub xp: i64,
    pub level: i64,
    pub streak_days: i64,
    pub check_in_days: i64,
    pub active_track_id: Option<String>,
    pub is_banned: bool,
    pub ban_reason: Option<String>,
    pub banned_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// Fair play: the staff's last decision, or the service's hold; null without a
    /// signal.
    pub fair_play_state: Option<FairPlayState>,
    /// Held by fair play: on no board others see.
    pub fair_play_held: bool,
    /// Sign-in methods (detail only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sign_in_methods: Option<Vec<IdentityProvider>>,
    /// Spaced review: due count, mean predicted recall, parameters (detail only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<PlayerReview>,
    /// Minor mode and real-name verification, without personal identifiers (detail
    /// only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protection: Option<crate::services::minors::PlayerProtection>,
}

fn record(r: PlayerAdminRow, now_ms: i64) -> PlayerRecord {
    let xp = r.xp.unwrap_or(0);
    // An expired ban shows as not banned.
    let banned = r.is_banned && r.banned_until.is_none_or(|until| until > now_ms);
    PlayerRecord {
        id: r.id,
        nickname: r.nickname,
        avatar_url: r.avatar_url,
        is_guest: r.is_guest,
        tier: r.tier.unwrap_or(crate::domain::subscription::Tier::Free),
        region_code: r.region_code,
        xp,
        level: resources::level_for(xp),
        streak_days: r.streak_days.unwrap_or(0),
        check_in_days: r.check_in_days.unwrap_or(0),
        active_track_id: r.active_track_id,
        is_banned: banned,
        ban_reason: if banned { r.ban_reason } else { None },
        banned_until: if banned {
            r.banned_until.map(from_ms)
        } else {
            None
        },
        created_at: from_ms(r.created_at),
        fair_play_state: r.fairplay_state,
        fair_play_held: r.fairplay_held,
        sign_in_methods: None,
        review: None,
        protection: None,
    }
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PlayerListQuery {
    pub page: Option<i64>,
    pub limit: Option<i64>,
    /// Part of an id, a nickname or a phone number.
    pub search: Option<String>,
}

pub async fn players(
    ctx: &AppContext,
    q: &PlayerListQuery,
) -> Result<(Vec<PlayerRecord>, Pagination)> {
    let (page, limit, offset) = PageQuery {
        page: q.page,
        limit: q.limit,
    }
    .resolve()?;
    let search = q.search.as_deref().map(str::trim).filter(|s| !s.is_empty());
    if search.is_some_and(|s| s.chars().count() > 100) {
        return Err(Error::validation(
            msg::SEARCH_MUST_BE_AT_MOST_100_CHARACTERS,
        ));
    }
    let (rows, total) = crate::lagging_read!(ctx, |db| {
        db::moderation::players(db, search, limit, offset).await
    })?;
    let now = ctx.clock.now_ms();
    Ok((
        rows.into_iter().map(|r| record(r, now)).collect(),
        Pagination { total, page, limit },
    ))
}

pub async fn player(ctx: &AppContext, id: &PlayerId) -> Result<PlayerRecord> {
    let row = db::moderation::player(&ctx.db, id)
        .await?
        .ok_or_else(|| Error::not_found(msg::PLAYER_NOT_FOUND))?;
    let mut r = record(row, ctx.clock.now_ms());
    r.sign_in_methods = Some(db::moderation::identities(&ctx.db, id).await?);
    r.review = Some(review::player_review(ctx, id).await?);
    r.protection = Some(crate::services::minors::staff_view(ctx, id).await?);
    Ok(r)
}

#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
pub struct BanRequest {
    pub reason: Option<String>,
    /// RFC 3339; without it the ban lasts until unban.
    pub until: Option<DateTime<Utc>>,
}

/// `PUT /v1/admin/users/:id/ban`: effective on the player's next request.
pub async fn ban(
    ctx: &AppContext,
    actor: &AdminPrincipal,
    id: &PlayerId,
    req: &BanRequest,
) -> Result<PlayerRecord> {
    let reason = staff_reason(req.reason.as_deref())?;
    let now = ctx.clock.now();
    if req.until.is_some_and(|u| u <= now) {
        return Err(Error::validation(msg::UNTIL_MUST_BE_IN_THE_FUTURE));
    }
    set_ban(
        ctx,
        actor,
        id,
        true,
        reason,
        req.until.map(|u| u.timestamp_millis()),
        "player.ban",
    )
    .await
}

/// A reason staff typed (a ban's, a fair-play decision's): trimmed, empty as none, at
/// most 500 characters.
pub(crate) fn staff_reason(reason: Option<&str>) -> Result<Option<&str>> {
    let reason = reason.map(str::trim).filter(|r| !r.is_empty());
    if reason.is_some_and(|r| r.chars().count() > 500) {
        return Err(Error::validation(
            msg::REASON_MUST_BE_AT_MOST_500_CHARACTERS,
        ));
    }
    Ok(reason)
}

pub async fn unban(
    ctx: &AppContext,
    actor: &AdminPrincipal,
    id: &PlayerId,
) -> Result<PlayerRecord> {
    set_ban(ctx, actor, id, false, None, None, "player.unban").await
}

async fn set_ban(
    ctx: &AppContext,
    actor: &AdminPrincipal,
    id: &PlayerId,
    banned: bool,
    reason: Option<&str>,
    until: Option<i64>,
    action: &str,
) -> Result<PlayerRecord> {
    let before = player(ctx, id).await?;
    let mut tx = ctx.db.begin().await?;
    let change = set_ban_in(&mut tx, ctx, actor, &before, banned, reason, until, action).await?;
    // Any ban of a player who raised fair-play signals in last week's cohort takes back
    // the promotion earned there, as a fair-play ban does: staff may ban a cheater by
    // either door. A player without signals that week keeps it (earned fairly).
    if banned {
        board_visibility::withdraw_last_week_promotion(&mut tx, ctx, id).await?;
    }
    tx.commit().await?;
    after_ban(ctx, &change).await;
    player(ctx, id).await
}

/// What a ban written in a transaction leaves to do once it commits: the rank index.
pub(crate) struct BanChange {
    visibility: VisibilityChange,
    week: String,
    banned: bool,
    until: Option<i64>,
}

/// A ban (or its lifting) of player `before` inside `tx`, with its audit row: for a
/// caller that writes more in the same transaction (a fair-play decision).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn set_ban_in(
    tx: &mut db::Tx,
    ctx: &AppContext,
    actor: &AdminPrincipal,
    before: &PlayerRecord,
    banned: bool,
    reason: Option<&str>,
    until: Option<i64>,
    action: &str,
) -> Result<BanChange> {
    let id = &before.id;
    let week = beijing::day_key(beijing::week_start(ctx.clock.now()));
    // The region under the lock: a move committed since `before` was read is seen.
    let region = db::moderation::set_ban(tx, id, banned, reason, until, ctx.clock.now_ms())
        .await?
        .ok_or_else(|| Error::not_found(msg::PLAYER_NOT_FOUND))?;
    // On no board while banned (a ban without end hides until the largest instant);
    // back at unban, or by itself when the ban ends: this week's rows, and last week's,
    // live or frozen (`board_visibility`). A banned player earns nothing meanwhile.
    // A held player stays hidden when the ban ends or is lifted.
    let hidden_until = if db::fairplay::is_held(tx, id).await? {
        Some(HIDDEN_FOR_GOOD)
    } else if banned {
        Some(until.unwrap_or(HIDDEN_FOR_GOOD))
    } else {
        None
    };
    let visibility =
        board_visibility::set_hidden(tx, ctx, id, region.as_deref(), hidden_until).await?;
    let after = serde_json::json!({ "isBanned": banned, "banReason": reason, "bannedUntil": until.map(from_ms) });
    audit::record(tx, ctx, actor, Write {
        action,
        target_type: "player",
        target_id: Some(id.as_str()),
        before: Some(serde_json::json!({
            "isBanned": before.is_banned, "banReason": before.ban_reason, "bannedUntil": before.banned_until
        })),
        after: Some(after),
    })
    .await?;
    Ok(BanChange {
        visibility,
        week,
        banned,
        until,
    })
}

/// After a ban's transaction committed: the Redis rank index follows the boards.
pub(crate) async fn after_ban(ctx: &AppContext, change: &BanChange) {
    board_visibility::after_commit(ctx, &change.visibility).await;
    if let (Some(ranks), true, Some(until)) = (&ctx.ranks, change.banned, change.until) {
        ranks
            .rebuild_after(&change.week, &change.visibility.this_week_boards, until)
            .await;
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Statistics {
    /// Existing players.
    pub total_users: i64,
    /// Players who played or signed up in the last 7 days.
    pub active_users: i64,
    pub total_questions: i64,
    pub published_questions: i64,
    /// Mean XP of existing players.
    pub average_xp: f64,
}

/// The statistics the background job computed last (`ADMIN_STATS_REFRESH_SECONDS`), so
/// no request counts whole tables; computed here only when no process has done it for two
/// intervals (a first start, or every process has `JOBS_ENABLED=false`).
pub async fn stats(ctx: &AppContext) -> Result<Statistics> {
    let max_age_ms = 2 * ctx.settings.jobs.stats_refresh_seconds * 1000;
    let snapshot = crate::lagging_read!(ctx, |db| db::jobs::stats_snapshot(db).await)?;
    let s = match snapshot {
        Some((s, age_ms)) if age_ms <= max_age_ms => s,
        _ => super::jobs::refresh_stats(ctx).await?,
    };
    let average_xp = if s.total_users > 0 {
        s.xp_sum as f64 / s.total_users as f64
    } else {
        0.0
    };
    Ok(Statistics {
        total_users: s.total_users,
        active_users: s.active_users,
        total_questions: s.total_questions,
        published_questions: s.published_questions,
        average_xp: (average_xp * 100.0).round() / 100.0,
    })
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackRecord {
    pub id: String,
    /// null once the player deleted the account.
    pub player_id: Option<PlayerId>,
    pub content: String,
    pub contact: Option<String>,
    pub page_context: Option<String>,
    pub created_at: DateTime<Utc>,
}

pub async fn feedback(
    ctx: &AppContext,
    q: &PageQuery,
) -> Result<(Vec<FeedbackRecord>, Pagination)> {
    let (page, limit, offset) = q.resolve()?;
    let (rows, total) = db::moderation::feedback(&ctx.db, limit, offset).await?;
    let items = rows
        .into_iter()
        .map(|r| FeedbackRecord {
            id: r.id,
            player_id: r.player_id,
            content: r.content,
            contact: r.contact,
            page_context: r.page_context,
            created_at: from_ms(r.created_at),
        })
        .collect();
    Ok((items, Pagination { total, page, limit }))
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminProvider {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ProviderKind,
    pub icon_key: Option<String>,
    pub platforms: Vec<Platform>,
    /// The stored flag.
    pub enabled: bool,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AdminProviderList {
    pub providers: Vec<AdminProvider>,
}

pub async fn providers(ctx: &AppContext) -> Result<AdminProviderList> {
    let providers = db::providers::list(&ctx.db)
        .await?
        .into_iter()
        .map(|r| AdminProvider {
            platforms: r
                .platforms
                .split(',')
                .filter_map(|p| Platform::parse(p.trim()))
                .collect(),
            id: r.id,
            name: r.name,
            kind: r.kind,
            icon_key: r.icon_key,
            enabled: r.enabled,
        })
        .collect();
    Ok(AdminProviderList { providers })
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ProviderToggle {
    pub id: String,
    pub enabled: bool,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
pub struct ProviderToggles {
    pub providers: Vec<ProviderToggle>,
}

/// `PUT /v1/admin/auth-providers`: only third-party providers can be toggled; the player
/// API reads the flags on every call, so a toggle shows at once.
pub async fn set_providers(
    ctx: &AppContext,
    actor: &AdminPrincipal,
    req: &ProviderToggles,
) -> Result<AdminProviderList> {
    if req.providers.is_empty() {
        return Err(Error::validation(msg::PROVIDERS_MUST_NOT_BE_EMPTY));
    }
    let current = providers(ctx).await?;
    for t in &req.providers {
        let known = current.providers.iter().find(|p| p.id == t.id);
        if known.is_none_or(|p| p.kind != ProviderKind::ThirdParty) {
            return Err(Error::validation(msg::id_is_not_a_third_party_provider(
                &t.id,
            )));
        }
    }
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    for t in &req.providers {
        db::providers::set_enabled(&mut tx, &t.id, t.enabled, now).await?;
    }
    let before: Vec<_> = current
        .providers
        .iter()
        .map(|p| serde_json::json!({"id": p.id, "enabled": p.enabled}))
        .collect();
    let after: Vec<_> = req
        .providers
        .iter()
        .map(|p| serde_json::json!({"id": p.id, "enabled": p.enabled}))
        .collect();
    audit::record(
        &mut tx,
        ctx,
        actor,
        Write {
            action: "auth_providers.update",
            target_type: "auth_provider",
            target_id: None,
            before: Some(serde_json::Value::Array(before)),
            after: Some(serde_json::Value::Array(after)),
        },
    )
    .await?;
    tx.commit().await?;
    providers(ctx).await
}
