//! Players: search with a pager, a player's page (progress, region, sign-in methods, ban
//! state), ban and unban — over `moderation`, as the JSON API.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Deserialize;
use shared::Error;
use shared::ids::PlayerId;
use shared::message::msg;
use shared::services::moderation::{self, BanRequest, PlayerListQuery, PlayerRecord};

use super::auth::{ConsoleAdmin, ConsoleForm};
use super::fields::{Filtered, LIST_ROWS, ListFilters, PagePath, Pager, non_empty, parse_int};
use super::i18n;
use super::nav::Nav;
use super::page::HxRequest;
use super::page::{Chrome, FormOf, PageResult, html, page, redirect_with, save_or_rerender};
use super::urls;
use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(urls::PLAYERS, get(list))
        .route(urls::pattern::PLAYER, get(show))
        .route(urls::pattern::PLAYER_BAN, post(ban))
        .route(urls::pattern::PLAYER_UNBAN, post(unban))
        .route(
            urls::pattern::PLAYER_GUARDIAN_PIN_RESET,
            post(reset_guardian_pin),
        )
}

// ---------------------------------------------------------------------------------------
// The list

/// The list's filter: part of a name, phone or id.
#[derive(Debug, Default, Deserialize)]
struct Search {
    #[serde(default)]
    search: String,
}

impl ListFilters for Search {
    const LIST: &'static str = urls::PLAYERS;

    fn params(&self) -> Vec<(&'static str, &str)> {
        vec![("search", &self.search)]
    }
}

struct PlayerTable {
    items: Vec<PlayerRecord>,
    search: String,
    pager: Pager,
}

#[derive(Template)]
#[template(path = "console/players.html")]
struct ListPage {
    chrome: Chrome,
    table: PlayerTable,
}

#[derive(Template)]
#[template(path = "console/_player_table.html")]
struct TableFragment {
    table: PlayerTable,
}

async fn list(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    list: Filtered<Search>,
) -> PageResult {
    let query = PlayerListQuery {
        page: list.page,
        limit: Some(LIST_ROWS),
        search: non_empty(&list.filters.search),
    };
    let (items, pagination) = moderation::players(&state.ctx, &query).await?;
    let table = PlayerTable {
        pager: list.pager(&pagination),
        items,
        search: list.filters.search.trim().to_string(),
    };
    if htmx.0 {
        return Ok(page(&TableFragment { table }));
    }
    Ok(page(&ListPage {
        chrome: me.chrome(Nav::Players).await,
        table,
    }))
}

// ---------------------------------------------------------------------------------------
// One player, ban and unban

/// The ban form as typed: a reason, and an end given as a number of days or a Beijing
/// time (as every time the console shows).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct BanForm {
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub days: String,
    /// `datetime-local` (`YYYY-MM-DDTHH:MM[:SS]`), read as Beijing time.
    #[serde(default)]
    pub until: String,
}

fn parse_local(s: &str) -> Result<DateTime<Utc>, Error> {
    ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        // Beijing has one offset all year: every local time is one instant
        .and_then(|t| t.and_local_timezone(chrono_tz::Asia::Shanghai).single())
        .map(|t| t.to_utc())
        .ok_or_else(|| {
            Error::validation(msg::UNTIL_MUST_BE_A_DATE_AND_TIME_YYYY_MM_DDTHH_MM_BEIJING_TIME)
        })
}

impl BanForm {
    fn to_request(&self, now: DateTime<Utc>) -> Result<BanRequest, Error> {
        let days = parse_int("days", &self.days)?;
        let until = self.until.trim();
        let until = match (days, until.is_empty()) {
            (Some(_), false) => {
                return Err(Error::validation(
                    msg::GIVE_THE_BAN_S_END_EITHER_IN_DAYS_OR_AS_A_TIME_NOT_BOTH,
                ));
            }
            (Some(d), true) => {
                if !(1..=36_500).contains(&d) {
                    return Err(Error::validation(msg::DAYS_MUST_BE_1_36500));
                }
                Some(now + chrono::Duration::days(d))
            }
            (None, false) => Some(parse_local(until)?),
            (None, true) => None,
        };
        Ok(BanRequest {
            reason: Some(self.reason.clone()),
            until,
        })
    }
}

/// The ban state with its forms (swapped by htmx after a ban or unban).
pub struct BanPanel {
    pub player: PlayerRecord,
    pub form: BanForm,
    pub error: Option<String>,
    pub csrf: String,
}

#[derive(Template)]
#[template(path = "console/player.html")]
struct PlayerPage {
    chrome: Chrome,
    player: PlayerRecord,
    panel: BanPanel,
}

#[derive(Template)]
#[template(path = "console/_player_ban.html")]
struct BanFragment {
    panel: BanPanel,
    message: Option<String>,
}

async fn player_page(
    me: &ConsoleAdmin,
    player: PlayerRecord,
    form: BanForm,
    error: Option<String>,
) -> PlayerPage {
    PlayerPage {
        chrome: me.chrome(Nav::Players).await,
        panel: BanPanel {
            player: player.clone(),
            form,
            error,
            csrf: me.csrf.clone(),
        },
        player,
    }
}

async fn show(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<PlayerId>,
) -> PageResult {
    let player = moderation::player(&state.ctx, &id).await?;
    Ok(page(
        &player_page(&me, player, BanForm::default(), None).await,
    ))
}

/// After a ban or unban: the panel for htmx, else flash + 303 to the player's page.
async fn done(
    me: &ConsoleAdmin,
    htmx: HxRequest,
    player: PlayerRecord,
    message: String,
) -> PageResult {
    if htmx.0 {
        return Ok(page(&BanFragment {
            panel: BanPanel {
                player,
                form: BanForm::default(),
                error: None,
                csrf: me.csrf.clone(),
            },
            message: Some(message),
        }));
    }
    Ok(redirect_with(&me.session, "ok", message, &urls::player(&player.id)).await)
}

async fn ban(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    PagePath(id): PagePath<PlayerId>,
    ConsoleForm(form): ConsoleForm<BanForm>,
) -> PageResult {
    let result = async {
        let req = form.to_request(state.ctx.clock.now())?;
        moderation::ban(&state.ctx, &me.admin, &id, &req).await
    }
    .await;
    // With htmx the refusal goes to the flash area; without, the page comes again with
    // the message and the typed values.
    save_or_rerender(
        htmx,
        FormOf::Existing,
        result,
        async |player| {
            let message = match player.banned_until {
                Some(until) => i18n::t1("people-flash-banned-until", "at", i18n::when(&until)),
                None => i18n::t("people-flash-banned-open"),
            };
            done(&me, htmx, player, message).await
        },
        async |refused| {
            let player = moderation::player(&state.ctx, &id).await?;
            let page = player_page(&me, player, form, Some(refused.message)).await;
            Ok(html(refused.status, &page))
        },
    )
    .await
}

async fn unban(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    htmx: HxRequest,
    PagePath(id): PagePath<PlayerId>,
    ConsoleForm(_): ConsoleForm<serde::de::IgnoredAny>,
) -> PageResult {
    let player = moderation::unban(&state.ctx, &me.admin, &id).await?;
    done(&me, htmx, player, i18n::t("people-flash-unbanned")).await
}

/// A guardian's forgotten or locked PIN, reset at their request: the new PIN is shown
/// once, on the player's page answered here (not through a redirect's flash, which the
/// session store would keep), for staff to hand over.
async fn reset_guardian_pin(
    State(state): State<AppState>,
    me: ConsoleAdmin,
    PagePath(id): PagePath<PlayerId>,
    ConsoleForm(_): ConsoleForm<serde::de::IgnoredAny>,
) -> PageResult {
    let reset = shared::services::minors::reset_guardian_pin(&state.ctx, &me.admin, &id).await?;
    let player = moderation::player(&state.ctx, &id).await?;
    let mut shown = player_page(&me, player, BanForm::default(), None).await;
    shown.chrome.flash = Some(super::page::Flash {
        kind: "ok".into(),
        text: i18n::t1("people-flash-guardian-pin", "pin", &reset.guardian_pin),
    });
    Ok(page(&shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(days: &str, until: &str) -> BanForm {
        BanForm {
            reason: "spam".into(),
            days: days.into(),
            until: until.into(),
        }
    }

    #[test]
    fn ban_end_from_days_or_a_beijing_time() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .map(|t| t.to_utc())
            .unwrap_or_default();
        assert_eq!(
            form("", "").to_request(now).ok().and_then(|r| r.until),
            None
        );
        assert_eq!(
            form("2", "").to_request(now).ok().and_then(|r| r.until),
            Some(now + chrono::Duration::days(2))
        );
        assert_eq!(
            form("", "2026-01-03T10:30")
                .to_request(now)
                .ok()
                .and_then(|r| r.until)
                .map(|t| t.to_rfc3339()),
            Some("2026-01-03T02:30:00+00:00".to_string()),
            "10:30 in Beijing is 02:30 UTC"
        );
        assert!(form("2", "2026-01-03T10:30").to_request(now).is_err());
        assert!(form("0", "").to_request(now).is_err());
        assert!(form("x", "").to_request(now).is_err());
        assert!(form("", "tomorrow").to_request(now).is_err());
    }
}
