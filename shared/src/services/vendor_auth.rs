//! Vendor sign-in (HUAWEI ID, Sign in with Apple) and linking a guest to Apple, with the
//! merge into an existing formal account.

use crate::domain::merge;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::closed_set::closed_set;
use crate::context::AppContext;
use crate::db::{self, accounts::MergeCounts};
use crate::domain::board::BoardKey;
use crate::domain::identity::IdentityProvider;
use crate::ids::PlayerId;
use crate::message::msg;
use crate::providers::oidc::{IdTokenError, VerifiedIdentity};
use crate::services::player_auth::{self, PlayerPrincipal, Session};
use crate::services::providers::{self, APPLE, HUAWEI};
use crate::{Error, Result};

/// Seconds since the epoch on the real clock: outside providers stamp their tokens
/// with real time, whatever the service clock says.
fn real_now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

fn required(value: &str, field: &str) -> Result<String> {
    let v = value.trim();
    if v.is_empty() || v.len() > 8192 {
        return Err(Error::validation(msg::field_is_required(field)));
    }
    Ok(v.to_string())
}

/// `POST /v1/auth/android_vendor` (alias `/auth/huawei`).
pub async fn huawei_sign_in(ctx: &AppContext, authorization_code: &str) -> Result<Session> {
    let code = required(authorization_code, "authorizationCode")?;
    providers::ensure_available(ctx, HUAWEI).await?;
    let client = ctx
        .providers
        .huawei
        .as_ref()
        .ok_or_else(|| Error::ServiceUnavailable(msg::HUAWEI_ID_IS_NOT_CONFIGURED))?;
    let identity = client
        .sign_in(&code, real_now_secs())
        .await
        .map_err(|e| sign_in_error("HUAWEI ID", LinkTokenError::Token(e)))?;
    player_auth::sign_in_identity(ctx, IdentityProvider::Huawei, &identity.subject, false).await
}

/// `POST /v1/auth/ios_vendor` (alias `/auth/apple`).
pub async fn apple_sign_in(ctx: &AppContext, identity_token: &str) -> Result<Session> {
    let token = required(identity_token, "identityToken")?;
    let identity = verify_apple(ctx, &token)
        .await
        .map_err(|e| sign_in_error("Apple", e))?;
    player_auth::sign_in_identity(ctx, IdentityProvider::Apple, &identity.subject, false).await
}

/// A refused token on a sign-in route is 401; a provider that cannot be reached 503.
fn sign_in_error(provider: &str, e: LinkTokenError) -> Error {
    match e {
        LinkTokenError::Refused(e) => e,
        LinkTokenError::Token(IdTokenError::Invalid(reason)) => {
            tracing::info!(provider, %reason, "sign-in refused");
            Error::unauthorized(msg::provider_sign_in_failed(provider))
        }
        LinkTokenError::Token(IdTokenError::Unavailable(reason)) => {
            tracing::warn!(provider, %reason, "sign-in provider unavailable");
            Error::ServiceUnavailable(msg::provider_cannot_be_reached_try_again_later(provider))
        }
    }
}

enum LinkTokenError {
    /// Disabled (403) or not configured (503).
    Refused(Error),
    Token(IdTokenError),
}

async fn verify_apple(ctx: &AppContext, token: &str) -> Result<VerifiedIdentity, LinkTokenError> {
    providers::ensure_available(ctx, APPLE)
        .await
        .map_err(LinkTokenError::Refused)?;
    let verifier = ctx.providers.apple.as_ref().ok_or_else(|| {
        LinkTokenError::Refused(Error::ServiceUnavailable(
            msg::APPLE_SIGN_IN_IS_NOT_CONFIGURED,
        ))
    })?;
    verifier
        .verify(token, real_now_secs())
        .await
        .map_err(LinkTokenError::Token)
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkCredential {
    pub identity_token: String,
    pub authorization_code: Option<String>,
}

#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkRequest {
    /// `ios_vendor` (alias `apple`): the only provider that links.
    pub provider: String,
    pub credential: LinkCredential,
    /// `server_account_first` (the default and only value).
    pub merge_policy: Option<String>,
    /// Client-made id, the guest's own (another player's equal id is no conflict);
    /// repeating it replays the first answer.
    pub client_migration_id: String,
    /// The account's guardian PIN, when the guest merges into an account in minor mode:
    /// a guest's play (made outside the minor's limits) joins a protected account only
    /// with the guardian's consent.
    pub guardian_pin: Option<String>,
}

closed_set! {
    /// The kind of guest data a merge could not move: a `reward` the account already
    /// holds.
    pub enum ConflictKind in "conflict-kind" {
        Reward = "reward",
    }
}

/// One item of guest data the account already had.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MigrationConflict {
    #[serde(rename = "type")]
    pub kind: ConflictKind,
    /// The reward's idempotency key in the account's key space.
    pub key: String,
    pub xp: i64,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MigrationSummary {
    pub policy: String,
    /// Data type → count moved into the account.
    pub imported: BTreeMap<String, i64>,
    /// Data type → count left behind.
    pub skipped: BTreeMap<String, i64>,
    pub conflicts: Vec<MigrationConflict>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkResult {
    pub session: Session,
    pub migration_summary: MigrationSummary,
    /// Always null: the client calls `GET /v1/app/bootstrap` next.
    #[schema(value_type = Option<Object>)]
    pub bootstrap: Option<serde_json::Value>,
}

/// What a link stores under its clientMigrationId, replayed by later calls.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredLink {
    target_player_id: PlayerId,
    migration_summary: MigrationSummary,
}

const POLICY: &str = "server_account_first";
const LINK_SCOPE: &str = "link";

fn summary_of(c: &MergeCounts) -> MigrationSummary {
    let imported = BTreeMap::from([
        ("answers".to_string(), c.answers),
        ("sessions".to_string(), c.sessions),
        ("rewards".to_string(), c.rewards),
        ("xp".to_string(), c.xp),
        ("nodeCompletions".to_string(), c.node_completions),
        ("weeklyXp".to_string(), c.weekly_rows),
    ]);
    let skipped = BTreeMap::from([
        ("rewards".to_string(), c.reward_conflicts.len() as i64),
        ("nodeCompletions".to_string(), c.node_completions_skipped),
        ("unfinishedSessions".to_string(), c.unfinished_sessions),
        ("coins".to_string(), c.skipped_coins),
        ("inventoryItems".to_string(), c.skipped_inventory),
        ("streakDays".to_string(), c.skipped_streak_days),
        // merged XP the boards leave out: a day counts there up to one player's day
        ("boardXp".to_string(), c.board_xp_withheld),
    ]);
    let conflicts = c
        .reward_conflicts
        .iter()
        .map(|r| MigrationConflict {
            kind: ConflictKind::Reward,
            key: r.idempotency_key.clone(),
            xp: r.xp_delta,
            reason: "the account already holds this reward".into(),
        })
        .collect();
    MigrationSummary {
        policy: POLICY.into(),
        imported,
        skipped,
        conflicts,
    }
}

fn validate_link(req: &LinkRequest) -> Result<(String, String)> {
    if !matches!(req.provider.as_str(), "ios_vendor" | "apple") {
        return Err(Error::validation(msg::PROVIDER_MUST_BE_IOS_VENDOR));
    }
    if let Some(policy) = &req.merge_policy
        && policy != POLICY
    {
        return Err(Error::validation(
            msg::MERGEPOLICY_MUST_BE_SERVER_ACCOUNT_FIRST,
        ));
    }
    let migration_id = req.client_migration_id.trim();
    if migration_id.is_empty() || migration_id.len() > 128 {
        return Err(Error::validation(
            msg::CLIENTMIGRATIONID_MUST_BE_1_128_CHARACTERS,
        ));
    }
    let token = required(&req.credential.identity_token, "credential.identityToken")?;
    Ok((migration_id.to_string(), token))
}

/// Replays the guest's stored link answer when the request proves the same Apple
/// identity the link went to (`None` otherwise: a guest's token alone, which may be
/// stolen, replays nothing).
async fn replay(
    ctx: &AppContext,
    response: &str,
    identity: &VerifiedIdentity,
) -> Result<Option<LinkResult>> {
    let stored: StoredLink = serde_json::from_str(response)
        .map_err(|e| Error::internal(format!("stored link answer unreadable: {e}")))?;
    let owner =
        db::players::find_by_identity(&ctx.db, IdentityProvider::Apple, &identity.subject).await?;
    if owner.as_ref() != Some(&stored.target_player_id) {
        return Ok(None);
    }
    Ok(Some(LinkResult {
        session: player_auth::start_session(ctx, &stored.target_player_id).await?,
        migration_summary: stored.migration_summary,
        bootstrap: None,
    }))
}

/// How `/auth/link` answers an identity token it could not use.
fn link_token_error(e: LinkTokenError) -> Error {
    match e {
        LinkTokenError::Refused(e) => e,
        LinkTokenError::Token(IdTokenError::Invalid(reason)) => {
            Error::validation(msg::invalid_identity_token_detail(reason))
        }
        LinkTokenError::Token(IdTokenError::Unavailable(_)) => {
            Error::ServiceUnavailable(msg::APPLE_CANNOT_BE_REACHED_TRY_AGAIN_LATER)
        }
    }
}

/// `POST /v1/auth/link`.
pub async fn link(
    ctx: &AppContext,
    caller: &PlayerPrincipal,
    req: &LinkRequest,
) -> Result<LinkResult> {
    let (migration_id, token) = validate_link(req)?;

    // A replay answers to the identity token of the identity linked to, even when the
    // guest is gone (merged away); without one it is refused as a first link would be.
    // The id is the guest's own: another player's equal id is none of its business.
    let existing =
        db::accounts::find_idempotent_response(&ctx.db, &caller.id, LINK_SCOPE, &migration_id)
            .await?;
    if let Some(response) = existing {
        match verify_apple(ctx, &token).await {
            Ok(identity) => {
                if let Some(replayed) = replay(ctx, &response, &identity).await? {
                    return Ok(replayed);
                }
            }
            // a refused token is answered below, as a first link would answer it
            Err(LinkTokenError::Token(IdTokenError::Invalid(_))) => {}
            Err(e) => return Err(link_token_error(e)),
        }
    }
    if caller.linked {
        return Err(Error::conflict(msg::THIS_GUEST_ACCOUNT_IS_ALREADY_LINKED));
    }
    if !caller.is_guest {
        return Err(Error::forbidden(msg::ONLY_A_GUEST_ACCOUNT_CAN_BE_LINKED));
    }
    let identity = verify_apple(ctx, &token).await.map_err(link_token_error)?;

    let now_ms = ctx.clock.now_ms();
    // What the merge needs about an existing account, read before the transaction: a
    // transaction never waits for a second pooled connection (under concurrent replays
    // that would starve the pool). The owner is checked again inside.
    let existing =
        match db::players::find_by_identity(&ctx.db, IdentityProvider::Apple, &identity.subject)
            .await?
        {
            Some(target) => {
                let row = db::players::auth_row(&ctx.db, &target)
                    .await?
                    .filter(|r| r.account.deleted_at.is_none())
                    .ok_or_else(|| Error::internal("identity points at a missing player"))?;
                player_auth::ensure_not_banned(
                    row.account.is_banned,
                    row.account.banned_until,
                    now_ms,
                )?;
                let region = db::players::region_state(&ctx.db, &target)
                    .await?
                    .and_then(|s| s.region_code);
                let guardian =
                    super::minors::prove_guardian(ctx, &target, req.guardian_pin.as_deref())
                        .await?;
                // a guest in minor mode would leave its protection behind in an account
                // without it: its guardian turns minor mode off first (with the PIN)
                if guardian.is_none()
                    && db::minors::guardian(&ctx.db, &caller.id)
                        .await?
                        .is_some_and(|g| g.guardian_pin_hash.is_some())
                {
                    return Err(Error::forbidden(
                        msg::A_GUEST_IN_MINOR_MODE_JOINS_ONLY_AN_ACCOUNT_IN_MINOR_MODE,
                    ));
                }
                Some((target, region, guardian))
            }
            None => None,
        };
    let mut tx = ctx.db.begin().await?;
    // One lock per player, guest first, then the account (before any merge write).
    db::progress::lock(&mut tx, &caller.id).await?;
    if !db::accounts::claim_idempotency(&mut tx, LINK_SCOPE, &migration_id, &caller.id, now_ms)
        .await?
    {
        // The same id is being (or was just) linked by a concurrent request of this
        // guest: replay it.
        let response =
            db::accounts::idempotent_response(&mut tx, &caller.id, LINK_SCOPE, &migration_id)
                .await?
                .ok_or_else(|| Error::internal("link record vanished"))?;
        drop(tx);
        return replay(ctx, &response, &identity).await?.ok_or_else(|| {
            Error::conflict(msg::THIS_CLIENTMIGRATIONID_WAS_LINKED_TO_ANOTHER_IDENTITY)
        });
    }
    if !db::accounts::mark_guest_linked(&mut tx, &caller.id, now_ms).await? {
        return Err(Error::conflict(msg::THIS_GUEST_ACCOUNT_IS_ALREADY_LINKED));
    }
    let owner =
        db::accounts::identity_owner(&mut tx, IdentityProvider::Apple, &identity.subject).await?;
    let mut merge_signal = None;
    let (target, summary) = match (owner, existing) {
        (None, None) => {
            if !db::accounts::upgrade_guest(
                &mut tx,
                &caller.id,
                IdentityProvider::Apple,
                &identity.subject,
                now_ms,
            )
            .await?
            {
                return Err(Error::conflict(
                    msg::THIS_APPLE_ACCOUNT_WAS_JUST_REGISTERED_TRY_AGAIN,
                ));
            }
            let empty = MigrationSummary {
                policy: POLICY.into(),
                imported: BTreeMap::new(),
                skipped: BTreeMap::new(),
                conflicts: Vec::new(),
            };
            (caller.id.clone(), empty)
        }
        (Some(target), Some((known, region, guardian))) if target == known => {
            db::progress::lock(&mut tx, &target).await?;
            if let Some(proved) = &guardian {
                // the PIN proved is still the account's (not changed or reset meanwhile)
                if db::minors::guardian_pin_of(&mut tx, &target)
                    .await?
                    .as_ref()
                    != Some(proved)
                {
                    return Err(Error::conflict(
                        msg::MINOR_MODE_CHANGED_MEANWHILE_READ_IT_AND_RETRY,
                    ));
                }
            }
            // at most a few guests a month: each brings a player's day (under the
            // account's lock, so two merges at once count each other)
            let recent =
                db::accounts::merges_since(&mut tx, &target, merge::window_start(now_ms)).await?;
            let unusual = match merge::admit(&recent, now_ms) {
                merge::Admission::Admitted { unusual } => unusual,
                merge::Admission::Refused { retry_at_ms } => {
                    return Err(Error::RateLimited {
                        message: msg::THIS_ACCOUNT_TOOK_IN_AS_MANY_GUESTS_AS_IT_MAY_LATELY,
                        retry_after_secs: crate::error::retry_after_secs(retry_at_ms - now_ms),
                    });
                }
            };
            let regions: Vec<String> = ctx
                .regions
                .list()
                .regions
                .iter()
                .map(|r| r.code.clone())
                .collect();
            let boards = db::accounts::MergeBoards {
                daily_xp_ceiling: ctx.settings.rules.daily_xp_ceiling(),
                target_region: region.as_deref(),
                regions: &regions,
            };
            let counts =
                db::accounts::merge_guest(&mut tx, &caller.id, &target, &boards, now_ms).await?;
            // The account's region row this week is its all-players row (which now holds
            // the guest's XP too): regions rank the players who live there.
            if let Some(code) = region {
                let week = crate::clock::beijing::day_key(crate::clock::beijing::week_start(
                    ctx.clock.now(),
                ));
                let board = String::from(BoardKey::region(&code));
                db::leaderboard::move_region_row(
                    &mut tx,
                    &week,
                    &target,
                    Some(&board),
                    &board,
                    now_ms,
                )
                .await?;
            }
            if unusual {
                let week = crate::clock::beijing::day_key(crate::clock::beijing::week_start(
                    ctx.clock.now(),
                ));
                merge_signal = Some(
                    db::fairplay::add_merge_signal(
                        &mut tx,
                        &target,
                        &week,
                        merge::MERGE_SIGNAL_WEIGHT,
                        ctx.settings.fairplay.hold_score,
                        now_ms,
                    )
                    .await?,
                );
            }
            (target, summary_of(&counts))
        }
        _ => {
            return Err(Error::conflict(
                msg::THIS_APPLE_ACCOUNT_CHANGED_MEANWHILE_TRY_AGAIN,
            ));
        }
    };
    let stored = StoredLink {
        target_player_id: target.clone(),
        migration_summary: summary.clone(),
    };
    let stored = serde_json::to_string(&stored)
        .map_err(|e| Error::internal(format!("serialising link answer: {e}")))?;
    db::accounts::store_idempotent_response(
        &mut tx,
        &caller.id,
        LINK_SCOPE,
        &migration_id,
        &stored,
    )
    .await?;
    tx.commit().await?;
    tracing::info!(guest = %caller.id, account = %target, merged = target != caller.id, "guest linked");
    if let Some(scored) = &merge_signal {
        crate::services::fairplay::after_scored(ctx, &target, scored, now_ms).await;
    }
    if target != caller.id {
        // the guest's weekly XP moved into the account's rows
        let mut boards = vec![String::from(BoardKey::all_players())];
        for player in [&caller.id, &target] {
            if let Some(code) = db::players::region_state(&ctx.db, player)
                .await?
                .and_then(|s| s.region_code)
            {
                boards.push(BoardKey::region(&code).into());
            }
        }
        ctx.resync_ranks(&caller.id, &boards).await;
        ctx.resync_ranks(&target, &boards).await;
    }
    Ok(LinkResult {
        session: player_auth::start_session(ctx, &target).await?,
        migration_summary: summary,
        bootstrap: None,
    })
}
