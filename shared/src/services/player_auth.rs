//! Player sessions: guest sign-in, token refresh with rotation, authentication of
//! access tokens, the current-user view.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::clock::beijing;
use crate::context::AppContext;
use crate::db::{self, players::NewPlayer};
use crate::domain::identity::IdentityProvider;
use crate::ids::PlayerId;
use crate::message::msg;
use crate::services::refresh_sessions;
use crate::tokens::{Audience, TokenType};
use crate::{Error, Result};

/// The signed-in player behind a request.
#[derive(Clone, Debug)]
pub struct PlayerPrincipal {
    pub id: PlayerId,
    pub is_guest: bool,
    /// Linked to a formal identity before (upgraded in place, or merged away).
    pub linked: bool,
    /// Minor mode and real-name verification, as the account row says.
    pub guard: crate::domain::anti_addiction::PlayGuard,
}

/// `user` of a Session.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserSummary {
    pub id: PlayerId,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
    pub tier: crate::domain::subscription::Tier,
}

pub use super::refresh_sessions::TokenPair;

/// What every sign-in answers.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Session {
    pub user: UserSummary,
    pub tokens: TokenPair,
}

/// `GET /v1/auth/me`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CurrentUser {
    pub id: PlayerId,
    pub nickname: Option<String>,
    pub avatar_url: Option<String>,
    pub tier: crate::domain::subscription::Tier,
    pub xp_total: i64,
    pub streak_days: i64,
    pub hearts_remaining: i64,
    pub daily_xp_earned: i64,
    pub daily_xp_goal: i64,
}

/// Verifies an access token and loads its player: unknown, deleted or merged-away
/// players and ended sign-ins are 401, banned players 403.
pub async fn authenticate(ctx: &AppContext, token: &str) -> Result<PlayerPrincipal> {
    authenticate_as(ctx, token, false).await
}

/// [`authenticate`] for `POST /auth/link`, which also serves a guest its link merged
/// away: a replay of that link proves itself with the identity token instead
/// (`services::vendor_auth::link`), and anything else is refused as already linked.
pub async fn authenticate_linking(ctx: &AppContext, token: &str) -> Result<PlayerPrincipal> {
    authenticate_as(ctx, token, true).await
}

async fn authenticate_as(
    ctx: &AppContext,
    token: &str,
    merged_guest_too: bool,
) -> Result<PlayerPrincipal> {
    let subject = verify_access(ctx, token)?;
    let mut row = db::players::auth_row(&ctx.db, &subject.player_id).await?;
    if merged_guest_too && let Some(row) = row.as_mut() {
        row.account.merged_into = None;
    }
    admit(
        row.as_ref().map(|r| &r.account),
        &subject,
        ctx.clock.now_ms(),
    )?;
    let row = row.ok_or_else(|| Error::unauthorized(msg::UNKNOWN_PLAYER))?;
    Ok(PlayerPrincipal {
        guard: row.account.guard(),
        id: row.id,
        is_guest: row.is_guest,
        linked: row.linked_at.is_some(),
    })
}

/// Who a valid access token speaks for: the player, and the token version it was
/// issued at (every live token carries the player's current one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessSubject {
    pub player_id: PlayerId,
    pub token_version: i64,
}

/// The subject of a valid access token, checked against nothing stored: the caller
/// must [`admit`] the player with the account state its own first query reads (routes
/// on the hot path save the separate auth read that way).
pub fn verify_access(ctx: &AppContext, token: &str) -> Result<AccessSubject> {
    let claims = ctx.tokens.verify(
        Audience::Player,
        TokenType::Access,
        token,
        ctx.clock.now_ms(),
    )?;
    Ok(AccessSubject {
        player_id: PlayerId::from_trusted(claims.sub),
        token_version: claims.ver,
    })
}

/// Whether the holder of `subject`'s token may be served: no row is 401 (unknown
/// player), a deleted account, a guest merged into another account and a token of an
/// ended sign-in (its version is not the player's) 401, a banned one 403.
pub fn admit(
    account: Option<&db::players::AccountState>,
    subject: &AccessSubject,
    now_ms: i64,
) -> Result<()> {
    let account = account.ok_or_else(|| Error::unauthorized(msg::UNKNOWN_PLAYER))?;
    if account.deleted_at.is_some() {
        return Err(Error::unauthorized(msg::ACCOUNT_DELETED));
    }
    admit_holder(account, subject)?;
    ensure_not_banned(account.is_banned, account.banned_until, now_ms)
}

/// The checks of [`admit`] no route skips, not even account deletion: the tokens of a
/// guest merged into another account and of an ended sign-in are dead.
pub fn admit_holder(account: &db::players::AccountState, subject: &AccessSubject) -> Result<()> {
    ensure_not_merged(account)?;
    if account.token_version != subject.token_version {
        return Err(Error::unauthorized(
            msg::THIS_SIGN_IN_HAS_ENDED_SIGN_IN_AGAIN,
        ));
    }
    Ok(())
}

/// A guest merged into another account is gone: 401 for whatever it asks.
pub fn ensure_not_merged(account: &db::players::AccountState) -> Result<()> {
    if account.merged_into.is_some() {
        return Err(Error::unauthorized(
            msg::THIS_GUEST_WAS_LINKED_INTO_ANOTHER_ACCOUNT_SIGN_IN_WITH_THAT,
        ));
    }
    Ok(())
}

/// A ban without `until` lasts until unban; one with `until` ends by itself.
pub fn ensure_not_banned(is_banned: bool, banned_until: Option<i64>, now_ms: i64) -> Result<()> {
    if is_banned && banned_until.is_none_or(|until| until > now_ms) {
        Err(Error::forbidden(msg::THIS_ACCOUNT_IS_BANNED))
    } else {
        Ok(())
    }
}

fn validate_device_id(device_id: &str) -> Result<&str> {
    let trimmed = device_id.trim();
    if trimmed.is_empty() || trimmed.chars().count() > 128 {
        return Err(Error::validation(msg::DEVICEID_MUST_BE_1_128_CHARACTERS));
    }
    Ok(trimmed)
}

/// `POST /v1/auth/guest`: the same deviceId gets the same guest back.
pub async fn guest_sign_in(ctx: &AppContext, device_id: &str) -> Result<Session> {
    // A licensed game serves nobody before real-name registration, guests included.
    if ctx.settings.compliance.licensed_game() {
        return Err(Error::RealNameRequired(
            msg::GUEST_MODE_IS_NOT_OFFERED_SIGN_IN_AND_VERIFY_YOUR_REAL_NAME,
        ));
    }
    let device_id = validate_device_id(device_id)?;
    sign_in_identity(ctx, IdentityProvider::Device, device_id, true).await
}

/// Signs in the player of an identity, creating it (with its progress) when new.
/// Concurrent first sign-ins of one identity create one player. A new player's rows and
/// first refresh token are written together, and its Session is known without reading.
pub async fn sign_in_identity(
    ctx: &AppContext,
    provider: IdentityProvider,
    subject: &str,
    is_guest: bool,
) -> Result<Session> {
    if let Some(id) = db::players::find_by_identity(&ctx.db, provider, subject).await? {
        return start_session(ctx, &id).await;
    }
    let id = PlayerId::generate();
    let nickname = format!("Player{}", &id.as_str()[..6].to_uppercase());
    let now = ctx.clock.now_ms();
    let pair = ctx
        .tokens
        .issue_pair(Audience::Player, id.as_str(), 0, now)?;
    let created = db::players::create_with_identity(
        &ctx.db,
        &NewPlayer {
            id: &id,
            is_guest,
            nickname: Some(&nickname),
            provider,
            subject,
            hearts: ctx.settings.rules.max_hearts,
            refresh_token_hash: &pair.refresh_hash,
            refresh_expires_at_ms: pair.refresh_expires_at_ms,
            now_ms: now,
        },
    )
    .await?;
    if !created {
        // Another request won the identity: sign in to its player.
        let winner = db::players::find_by_identity(&ctx.db, provider, subject)
            .await?
            .ok_or_else(|| Error::internal("identity vanished after a concurrent sign-in"))?;
        return start_session(ctx, &winner).await;
    }
    Ok(Session {
        user: UserSummary {
            id,
            nickname: Some(nickname),
            avatar_url: None,
            tier: crate::domain::subscription::Tier::Free,
        },
        tokens: TokenPair {
            access_token: pair.access_token,
            refresh_token: pair.refresh_token,
        },
    })
}

/// Issues tokens for a player (refused when banned) and answers the Session.
pub async fn start_session(ctx: &AppContext, player_id: &PlayerId) -> Result<Session> {
    let row = db::players::auth_row(&ctx.db, player_id)
        .await?
        .ok_or_else(|| Error::internal("player vanished"))?;
    let now = ctx.clock.now_ms();
    ensure_not_banned(row.account.is_banned, row.account.banned_until, now)?;
    let profile = db::players::profile(&ctx.db, player_id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    let tokens = issue_tokens(ctx, player_id, row.account.token_version).await?;
    Ok(Session {
        user: UserSummary {
            id: profile.id,
            nickname: profile.nickname,
            avatar_url: profile.avatar_url,
            tier: profile.tier,
        },
        tokens,
    })
}

/// A new sign-in's tokens: a new refresh-token family; a verified player's login is
/// queued for NPPA with it (the licensed-game profile).
async fn issue_tokens(
    ctx: &AppContext,
    player_id: &PlayerId,
    token_version: i64,
) -> Result<TokenPair> {
    let now = ctx.clock.now_ms();
    let mut tx = ctx.db.begin().await?;
    let verified_pi = super::nppa_reports::verified_pi_locked(ctx, &mut tx, player_id).await?;
    let pair = refresh_sessions::issue_stored_pair(
        ctx,
        &mut tx,
        Audience::Player,
        player_id.as_str(),
        token_version,
        None,
        now,
    )
    .await?;
    // the first token of a family names it
    let family = pair.refresh_hash.clone();
    super::nppa_reports::queue(
        ctx,
        &mut tx,
        player_id,
        verified_pi.as_deref(),
        &family,
        super::nppa_reports::LOGIN,
    )
    .await?;
    tx.commit().await?;
    Ok(pair.into())
}

/// `POST /v1/auth/refresh`: each refresh token works once; the answer is a new pair of
/// the same family. A used token presented again means a copy is in other hands: the
/// whole family is revoked and every access token of the player ends (RFC 9700 §4.14),
/// so the thief and the victim both sign in again.
pub async fn refresh(ctx: &AppContext, refresh_token: &str) -> Result<TokenPair> {
    let now = ctx.clock.now_ms();
    let claims = ctx
        .tokens
        .verify(Audience::Player, TokenType::Refresh, refresh_token, now)?;
    let row = db::players::auth_row(&ctx.db, &PlayerId::from_trusted(claims.sub))
        .await?
        .filter(|r| r.account.deleted_at.is_none() && r.account.merged_into.is_none())
        .ok_or_else(|| Error::unauthorized(msg::UNKNOWN_PLAYER))?;
    ensure_not_banned(row.account.is_banned, row.account.banned_until, now)?;

    refresh_sessions::rotate(
        ctx,
        Audience::Player,
        row.id.as_str(),
        row.account.token_version,
        refresh_token,
        now,
    )
    .await
}

/// `GET /v1/auth/me`.
pub async fn current_user(ctx: &AppContext, player: &PlayerPrincipal) -> Result<CurrentUser> {
    let p = db::players::profile(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    let progress = db::progress::read(&ctx.db, &player.id)
        .await?
        .ok_or_else(|| Error::unauthorized(msg::ACCOUNT_DELETED))?;
    let now: DateTime<Utc> = ctx.clock.now();
    let rules = &ctx.settings.rules;
    let r = progress.resources.at(now, rules);
    Ok(CurrentUser {
        id: p.id,
        nickname: p.nickname,
        avatar_url: p.avatar_url,
        tier: progress.tier,
        xp_total: r.xp,
        streak_days: r.streak_on(beijing::day(now)),
        hearts_remaining: r.hearts,
        daily_xp_earned: r.daily_xp,
        daily_xp_goal: rules.daily_xp_goal,
    })
}
