//! Phone sign-in: send a code (resend window and daily limits in the database), then sign
//! in with it (at most N guesses per code, each code used once).

use rand::Rng;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::client_addr::LimitKey;
use crate::clock::beijing;
use crate::context::AppContext;
use crate::db::sms::{self, SendClaim, SendRefusal};
use crate::domain::identity::IdentityProvider;
use crate::domain::phone::{PhoneNumber, VerifyCode};
use crate::message::msg;
use crate::providers::SmsBackend;
use crate::services::player_auth::{self, Session};
use crate::services::providers::{self, PHONE_SMS};
use crate::tokens::constant_time_eq;
use crate::{Error, Result};

fn code_hash(phone: &PhoneNumber, code: &str) -> String {
    let digest = Sha256::digest(format!("{}:{code}", phone.as_str()).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `POST /v1/auth/phone/send-code`; `client` is what the per-address daily limit counts.
pub async fn send_code(ctx: &AppContext, phone: &str, client: LimitKey) -> Result<()> {
    providers::ensure_available(ctx, PHONE_SMS).await?;
    let phone = PhoneNumber::parse(phone)?;
    let limits = &ctx.settings.limits;
    let now = ctx.clock.now();
    let now_ms = now.timestamp_millis();
    let console_code = matches!(ctx.providers.sms, SmsBackend::Console)
        .then(|| format!("{:06}", rand::rng().random_range(0..1_000_000)));
    let hash = console_code.as_deref().map(|c| code_hash(&phone, c));
    let send_id = Uuid::new_v4().to_string();
    let day = beijing::day_key(beijing::day(now));
    let client_ip = client.to_string();
    let claim = SendClaim {
        send_id: &send_id,
        phone: phone.as_str(),
        client_ip: &client_ip,
        day: &day,
        code_hash: hash.as_deref(),
        now_ms,
        expires_at_ms: now_ms + limits.sms_code_ttl_seconds * 1000,
        resend_ms: limits.sms_resend_seconds * 1000,
        phone_daily_limit: limits.sms_sends_per_phone_per_day,
        ip_daily_limit: limits.sms_sends_per_ip_per_day,
    };
    let mut tx = ctx.db.begin().await?;
    if let Err(refusal) = sms::claim_send(&mut tx, &claim).await? {
        drop(tx);
        let until_midnight = (beijing::next_midnight(now) - now).num_seconds().max(1) as u64;
        return Err(match refusal {
            SendRefusal::ResendTooSoon(secs) => Error::RateLimited {
                message: msg::a_code_was_sent_less_than_seconds_seconds_ago(
                    limits.sms_resend_seconds,
                ),
                retry_after_secs: secs.max(1) as u64,
            },
            SendRefusal::PhoneDailyLimit => Error::RateLimited {
                message: msg::TOO_MANY_CODES_SENT_TO_THIS_NUMBER_TODAY,
                retry_after_secs: until_midnight,
            },
            SendRefusal::IpDailyLimit => Error::RateLimited {
                message: msg::TOO_MANY_CODES_REQUESTED_FROM_THIS_ADDRESS_TODAY,
                retry_after_secs: until_midnight,
            },
        });
    }
    tx.commit().await?;

    let delivered = match (&ctx.providers.sms, console_code) {
        (SmsBackend::Aliyun(client), _) => client.send_code(phone.as_str()).await,
        (SmsBackend::Console, Some(code)) => {
            tracing::info!(phone = %phone.masked(), %code, "console SMS provider: verification code");
            Ok(())
        }
        _ => Err(Error::ServiceUnavailable(msg::SMS_SERVICE_NOT_CONFIGURED)),
    };
    if let Err(e) = delivered {
        // The provider never sent it: give back the window and the daily allowance.
        let mut tx = ctx.db.begin().await?;
        sms::release_send(&mut tx, &claim).await?;
        tx.commit().await?;
        return Err(e);
    }
    Ok(())
}

/// `POST /v1/auth/phone`: a correct code finds or creates the player of that number.
pub async fn sign_in(ctx: &AppContext, phone: &str, verify_code: &str) -> Result<Session> {
    providers::ensure_available(ctx, PHONE_SMS).await?;
    let phone = PhoneNumber::parse(phone)?;
    let code = VerifyCode::parse(verify_code)?;
    let now_ms = ctx.clock.now_ms();
    let wrong = || Error::InvalidVerifyCode(msg::WRONG_OR_EXPIRED_VERIFICATION_CODE);
    let pending = sms::pending(&ctx.db, phone.as_str())
        .await?
        .ok_or_else(wrong)?;

    let mut tx = ctx.db.begin().await?;
    let reserved = sms::reserve_guess(
        &mut tx,
        phone.as_str(),
        pending.sent_at,
        now_ms,
        ctx.settings.limits.sms_max_verify_failures,
    )
    .await?;
    tx.commit().await?;
    if !reserved {
        return Err(Error::InvalidVerifyCode(
            msg::THE_CODE_HAS_EXPIRED_WAS_USED_OR_HAD_TOO_MANY_WRONG_TRIES_RE,
        ));
    }

    let correct = match &ctx.providers.sms {
        SmsBackend::Console => pending
            .code_hash
            .as_deref()
            .is_some_and(|stored| constant_time_eq(stored, &code_hash(&phone, code.as_str()))),
        SmsBackend::Aliyun(client) => client.check_code(phone.as_str(), code.as_str()).await?,
        SmsBackend::Unconfigured => {
            return Err(Error::ServiceUnavailable(msg::SMS_SERVICE_NOT_CONFIGURED));
        }
    };
    if !correct {
        return Err(wrong());
    }
    let mut tx = ctx.db.begin().await?;
    let consumed = sms::consume(&mut tx, phone.as_str(), pending.sent_at, now_ms).await?;
    tx.commit().await?;
    if !consumed {
        return Err(wrong());
    }
    player_auth::sign_in_identity(ctx, IdentityProvider::Phone, phone.as_str(), false).await
}
