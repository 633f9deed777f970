//! Boards after merges and bans (issue 28), through HTTP: a merge adds to the account's
//! weekly rows exactly what its ledger gained, week by week (every player's weekly rows
//! equal their ledger's XP of that week, on every board); a ban or a fair-play hold takes
//! a player off every board still shown, last week's frozen standings, the admin history
//! and league results included, the others close up and an unban brings them back; a
//! ban before settlement hides last week too; a fair-play ban withdraws a promotion
//! earned while cheating.

use std::collections::HashMap;

use chrono::Duration;
use serde_json::{Value, json};
use shared::clock::beijing;
use shared::services::settlement;
use tests::apple::AppleFake;
use tests::{Engine, Resp, Service, TestApp, both_engines_raw};

use crate::fair_play::{Player, demo, held_board};

both_engines_raw!(
    merged_guests_add_what_the_ledger_granted,
    merged_days_count_on_the_boards_up_to_one_players_day,
    a_ban_after_settlement_closes_up_last_weeks_boards,
    a_cheaters_promotion_is_withdrawn,
    a_plain_ban_of_a_cheater_withdraws_the_promotion_too,
);

mod ban_before_settlement {
    use super::*;
    both_engines_raw!(a_ban_before_settlement_hides_last_week);

    async fn a_ban_before_settlement_hides_last_week(engine: Engine) {
        ban_before_settlement_on(engine, &[]).await;
    }
}

mod with_redis {
    use super::*;
    both_engines_raw!(a_ban_before_settlement_leaves_the_rank_index);

    async fn a_ban_before_settlement_leaves_the_rank_index(engine: Engine) {
        let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
        ban_before_settlement_on(
            engine,
            &[
                ("REDIS_URL", "redis://127.0.0.1:6379".into()),
                ("REDIS_KEY_PREFIX", prefix),
            ],
        )
        .await;
    }
}

const TRACK_WEEK: &str = "2026-11-16";
/// Monday 00:00:30 in Beijing: the week of [`TRACK_WEEK`] has just ended.
const NEXT_MONDAY: &str = "2026-11-22T16:00:30Z";

/// (user id, rank, xp) of each entry.
fn entries(r: &Resp) -> Vec<(String, i64, i64)> {
    r.ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["userId"].as_str().unwrap().to_string(),
                e["rank"].as_i64().unwrap(),
                e["xp"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn user_ids(r: &Resp) -> Vec<String> {
    entries(r).into_iter().map(|(id, _, _)| id).collect()
}

async fn admin_put(app: &TestApp, admin: &str, path: &str, body: Option<Value>) -> Resp {
    app.call(
        Service::Admin,
        reqwest::Method::PUT,
        path,
        body,
        Some(admin),
    )
    .await
}

// ---------------------------------------------------------------------------------------
// Merges

/// Plays one challenge right (at a person's pace) and views every card it showed.
async fn play_and_view_cards(p: &Player<'_>) {
    let c = p.next().await;
    let mut cards = Vec::new();
    for i in 0..5 {
        p.app.clock.advance(Duration::seconds(3));
        let r = p.answer(&c, i, true, 2500).await;
        cards.push(r.ok()["knowledgeCard"]["id"].as_str().unwrap().to_string());
    }
    for card in cards {
        p.app
            .post(
                &format!("/v1/challenges/knowledge-cards/{card}/view"),
                json!({}),
                Some(&p.token),
            )
            .await
            .ok();
    }
}

/// Every player's weekly rows against their ledger: each row's XP is the XP their
/// ledger gained that Beijing week, and every week with ledger XP has its all-players
/// row (a merged-away guest has none). Returns the ledger's XP per (player, week).
async fn boards_equal_ledgers(app: &TestApp) -> HashMap<(String, String), i64> {
    // (player, created_at, xp) of every ledger row with XP
    let ledger: Vec<(String, i64, i64)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as(
            "SELECT player_id, created_at, xp_delta FROM reward_ledger WHERE xp_delta <> 0",
        )
        .fetch_all(ex)
        .await
        .unwrap()
    });
    // (player, week, board, xp) of every weekly row
    let rows: Vec<(String, String, String, i64)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as("SELECT player_id, week_start, board, xp FROM weekly_xp")
            .fetch_all(ex)
            .await
            .unwrap()
    });
    let merged: Vec<String> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_scalar("SELECT id FROM players WHERE merged_into IS NOT NULL")
            .fetch_all(ex)
            .await
            .unwrap()
    });
    let mut earned: HashMap<(String, String), i64> = HashMap::new();
    // a merged-away guest keeps the rewards the account held already, and no row
    for (player, at, xp) in ledger.into_iter().filter(|(p, _, _)| !merged.contains(p)) {
        let week = beijing::day_key(beijing::week_start(shared::clock::from_ms(at)));
        *earned.entry((player, week)).or_default() += xp;
    }
    for (player, week, board, xp) in &rows {
        assert_eq!(
            earned
                .get(&(player.clone(), week.clone()))
                .copied()
                .unwrap_or(0),
            *xp,
            "{player}'s {board} row of {week}"
        );
    }
    for ((player, week), xp) in &earned {
        if *xp != 0 {
            assert!(
                rows.iter()
                    .any(|(p, w, b, _)| p == player && w == week && b == "topic:all"),
                "{player} earned {xp} XP in {week} but has no row"
            );
        }
    }
    earned
}

async fn merged_guests_add_what_the_ledger_granted(engine: Engine) {
    let apple = AppleFake::start("merge-apple").await;
    let app = demo(engine, &apple.vars()).await;
    let identity = apple.token("merge-account");
    let signed_in = app
        .post(
            "/v1/auth/ios_vendor",
            json!({ "identityToken": identity }),
            None,
        )
        .await;
    let account = Player {
        app: &app,
        id: signed_in.ok()["user"]["id"].as_str().unwrap().to_string(),
        token: signed_in.ok()["tokens"]["accessToken"]
            .as_str()
            .unwrap()
            .to_string(),
    };
    app.call(
        Service::Player,
        reqwest::Method::PATCH,
        "/v1/users/me/region",
        Some(json!({ "regionCode": "310000" })),
        Some(&account.token),
    )
    .await
    .ok();
    // last week: the account and three guests (in its region, in another, in none)
    // each play and view their cards: each holds its own first-card 15 XP, and card
    // views the account was paid for too (an account takes in three guests a month)
    play_and_view_cards(&account).await;
    let regions = [Some("310000"), Some("440000"), None];
    let mut guests = Vec::new();
    for (i, region) in regions.into_iter().enumerate() {
        let g = Player::new(&app, &format!("merge-guest-{i}"), region).await;
        play_and_view_cards(&g).await;
        guests.push(g);
    }
    // this week (signed in again: their tokens have expired): every one plays again
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    app.clock.advance(Duration::hours(10));
    let account = Player {
        token: app
            .post(
                "/v1/auth/ios_vendor",
                json!({ "identityToken": identity }),
                None,
            )
            .await
            .ok()["tokens"]["accessToken"]
            .as_str()
            .unwrap()
            .to_string(),
        ..account
    };
    let mut guests_again = Vec::new();
    for (i, g) in guests.iter().enumerate() {
        let again = Player::new(&app, &format!("merge-guest-{i}"), None).await;
        assert_eq!(again.id, g.id);
        guests_again.push(again);
    }
    let guests = guests_again;
    play_and_view_cards(&account).await;
    for g in &guests {
        play_and_view_cards(g).await;
    }
    boards_equal_ledgers(&app).await;
    let before = account.get("/v1/leaderboards/me?scope=topic").await;
    let own_xp = before.ok()["xp"].as_i64().unwrap();

    for (i, g) in guests.iter().enumerate() {
        let r = app
            .post(
                "/v1/auth/link",
                json!({
                    "provider": "ios_vendor",
                    "credential": { "identityToken": identity },
                    "mergePolicy": "server_account_first",
                    "clientMigrationId": format!("merge-{i}"),
                }),
                Some(&g.token),
            )
            .await;
        let summary = &r.ok()["migrationSummary"];
        assert_eq!(r.ok()["session"]["user"]["id"], account.id.as_str());
        // the first-card reward stays with the guest, each week's rows gain the rest
        assert!(
            summary["skipped"]["rewards"].as_i64().unwrap() >= 1,
            "{summary}"
        );
        assert!(
            summary["conflicts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["key"] == format!("kcfirst:{}", account.id)),
            "{summary}"
        );
        assert!(
            summary["imported"]["weeklyXp"].as_i64().unwrap() >= 2,
            "{summary}"
        );
        boards_equal_ledgers(&app).await;
    }
    let earned = boards_equal_ledgers(&app).await;
    let this_week = earned[&(account.id.clone(), "2026-11-23".to_string())];
    let last_week = earned[&(account.id.clone(), TRACK_WEEK.to_string())];
    assert!(this_week > own_xp, "the guests' answers moved in");
    // as the boards show it: this week's and last week's (not settled yet, then settled)
    for scope in ["topic", "region"] {
        let me = account
            .get(&format!("/v1/leaderboards/me?scope={scope}"))
            .await;
        assert_eq!(me.ok()["xp"], this_week, "{scope}");
        let me = account
            .get(&format!("/v1/leaderboards/me?scope={scope}&week=previous"))
            .await;
        assert_eq!(me.ok()["xp"], last_week, "{scope}");
    }
    settlement::settle(&app.ctx).await.unwrap();
    for scope in ["topic", "region"] {
        let me = account
            .get(&format!("/v1/leaderboards/me?scope={scope}&week=previous"))
            .await;
        assert_eq!(me.ok()["xp"], last_week, "{scope}, settled");
    }
    // the account's XP is still its ledger's
    let ledger = app
        .scalar(
            "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
            &[&account.id],
        )
        .await;
    assert_eq!(account.get("/v1/progress/summary").await.ok()["xp"], ledger);
    assert_eq!(this_week + last_week, ledger);
}

// ---------------------------------------------------------------------------------------
// Bans and holds on last week's boards

/// After [`held_board`]: the four honest players as they sign in again.
async fn honest_again(app: &TestApp) -> Vec<Player<'_>> {
    let mut out = Vec::new();
    for i in 0..4 {
        out.push(Player::new(app, &format!("fp-honest-{i}"), None).await);
    }
    out
}

/// What `viewer` sees of last week on `scope`: the entries and the total.
async fn previous(viewer: &Player<'_>, scope: &str) -> (Vec<(String, i64, i64)>, i64) {
    let r = viewer
        .get(&format!("/v1/leaderboards?week=previous&scope={scope}"))
        .await;
    (entries(&r), r.body["pagination"]["total"].as_i64().unwrap())
}

async fn a_ban_after_settlement_closes_up_last_weeks_boards(engine: Engine) {
    let app = demo(engine, &[("FAIRPLAY_HOLD_SCORE", "15".into())]).await;
    let (honest, script) = held_board(&app).await;
    let ids: Vec<String> = honest.iter().map(|p| p.id.clone()).collect();
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    settlement::settle(&app.ctx).await.unwrap();
    let honest = honest_again(&app).await;
    let (admin, _, _) = app.admin_login().await;
    let all_four: Vec<(String, i64, i64)> = (0..4)
        .map(|i| (ids[i].clone(), i as i64 + 1, 40 - 10 * i as i64))
        .collect();
    for scope in ["region", "topic", "league"] {
        assert_eq!(previous(&honest[1], scope).await, (all_four.clone(), 4));
    }

    // banned after settlement: off last week's podium, the others close up
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/ban", ids[0]),
        Some(json!({"reason": "scripted answers"})),
    )
    .await
    .ok();
    let closed_up: Vec<(String, i64, i64)> = (1..4)
        .map(|i| (ids[i].clone(), i as i64, 40 - 10 * i as i64))
        .collect();
    for scope in ["region", "topic", "league"] {
        let r = honest[1]
            .get(&format!("/v1/leaderboards?week=previous&scope={scope}"))
            .await;
        assert_eq!(entries(&r), closed_up, "{scope}");
        assert_eq!(r.body["pagination"]["total"], 3, "{scope}");
        assert_eq!(r.ok()[0]["badge"], "gold", "{scope}");
        let me = honest[1]
            .get(&format!("/v1/leaderboards/me?week=previous&scope={scope}"))
            .await;
        assert_eq!(me.ok()["rank"], 1, "{scope}");
        assert_eq!(me.ok()["badge"], "gold", "{scope}");
        // the neighbours of the last, and a deep page of one
        let me = honest[3]
            .get(&format!(
                "/v1/leaderboards/me?week=previous&scope={scope}&around=5"
            ))
            .await;
        assert_eq!(me.ok()["rank"], 3, "{scope}");
        let around: Vec<(String, i64)> = tests::ids_with(&me.body["meta"]["around"], "rank");
        assert_eq!(
            around,
            vec![(ids[1].clone(), 1), (ids[2].clone(), 2)],
            "{scope}"
        );
        let r = honest[3]
            .get(&format!(
                "/v1/leaderboards?week=previous&scope={scope}&limit=1&page=2"
            ))
            .await;
        assert_eq!(entries(&r), vec![(ids[2].clone(), 2, 20)], "{scope}");
    }
    // the league's moves stay as settled: four promoted, three shown, all promotion
    let r = honest[1]
        .get("/v1/leaderboards?week=previous&scope=league")
        .await;
    assert!(
        r.ok()
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["zone"] == "promotion"),
        "{}",
        r.body
    );
    let h = app
        .admin_get(
            &format!("/v1/admin/leaderboards/history?board=topic:all&weekStart={TRACK_WEEK}"),
            Some(&admin),
        )
        .await;
    let history: Vec<(String, i64)> = tests::ids_with(h.ok(), "rank");
    assert_eq!(
        history,
        vec![
            (ids[1].clone(), 1),
            (ids[2].clone(), 2),
            (ids[3].clone(), 3)
        ]
    );
    assert_eq!(h.body["pagination"]["total"], 3);

    // an unban brings them back
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/unban", ids[0]),
        None,
    )
    .await
    .ok();
    for scope in ["region", "topic", "league"] {
        assert_eq!(
            previous(&honest[1], scope).await,
            (all_four.clone(), 4),
            "{scope}"
        );
    }
    // a hold after settlement hides too, a clear shows again; the held script stays off
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/fair-play", ids[1]),
        Some(json!({"decision": "hold"})),
    )
    .await
    .ok();
    let (seen, total) = previous(&honest[0], "topic").await;
    assert_eq!(
        seen,
        vec![
            (ids[0].clone(), 1, 40),
            (ids[2].clone(), 2, 20),
            (ids[3].clone(), 3, 10)
        ]
    );
    assert_eq!(total, 3);
    // the held player sees themselves where they would be
    let me = honest[1]
        .get("/v1/leaderboards/me?week=previous&scope=topic")
        .await;
    assert_eq!(me.ok()["rank"], 2);
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/fair-play", ids[1]),
        Some(json!({"decision": "clear"})),
    )
    .await
    .ok();
    let (seen, _) = previous(&honest[0], "topic").await;
    assert_eq!(seen, all_four);
    assert!(!seen.iter().any(|(id, _, _)| *id == script.id));
}

/// A ban in the days between a week's end and its settlement, or before the week ends:
/// last week's live board hides the player at once, its settlement leaves them out of
/// the moves, and an unban shows them again on the frozen standings.
async fn ban_before_settlement_on(engine: Engine, extra: &[(&str, String)]) {
    let mut vars = vec![("FAIRPLAY_HOLD_SCORE", "15".to_string())];
    vars.extend(extra.iter().cloned());
    let app = demo(engine, &vars).await;
    let (honest, _script) = held_board(&app).await;
    let ids: Vec<String> = honest.iter().map(|p| p.id.clone()).collect();
    // the week has ended; no process has settled it yet
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    let honest = honest_again(&app).await;
    let me = honest[1]
        .get("/v1/leaderboards/me?week=previous&scope=topic")
        .await;
    assert_eq!(me.ok()["rank"], 2);
    let (admin, _, _) = app.admin_login().await;
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/ban", ids[0]),
        Some(json!({})),
    )
    .await
    .ok();
    for scope in ["region", "topic", "league"] {
        let (seen, total) = previous(&honest[1], scope).await;
        assert_eq!(
            seen.first().map(|e| e.0.as_str()),
            Some(ids[1].as_str()),
            "{scope}"
        );
        assert_eq!((seen[0].1, total), (1, 3), "{scope}");
        let me = honest[1]
            .get(&format!("/v1/leaderboards/me?week=previous&scope={scope}"))
            .await;
        assert_eq!(me.ok()["rank"], 1, "{scope}");
    }
    settlement::settle(&app.ctx).await.unwrap();
    for scope in ["region", "topic", "league"] {
        let (seen, total) = previous(&honest[1], scope).await;
        assert_eq!(
            seen.iter().map(|e| e.0.clone()).collect::<Vec<_>>(),
            ids[1..].to_vec(),
            "{scope}"
        );
        assert_eq!(total, 3, "{scope}");
    }
    // banned when the week was settled: no promotion; the others went up
    assert_eq!(tier(&app, &ids[0]).await, 0);
    assert_eq!(
        honest[1].get("/v1/app/bootstrap").await.ok()["user"]["league"]["tier"],
        "silver"
    );
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/unban", ids[0]),
        None,
    )
    .await
    .ok();
    for scope in ["region", "topic", "league"] {
        let r = honest[1]
            .get(&format!("/v1/leaderboards?week=previous&scope={scope}"))
            .await;
        assert_eq!(user_ids(&r), ids.clone(), "{scope}");
        assert_eq!(r.ok()[0]["rank"], 1);
        if scope == "league" {
            // back on the board, still without the move it did not get
            assert_eq!(r.ok()[0]["zone"], "stay");
            assert_eq!(r.ok()[1]["zone"], "promotion");
        }
    }
}

/// A player's league tier (0: bronze).
async fn tier(app: &TestApp, player: &str) -> i64 {
    app.scalar(
        "SELECT COALESCE((SELECT tier FROM league_players WHERE player_id = $1), 0)",
        &[player],
    )
    .await
}

async fn a_cheaters_promotion_is_withdrawn(engine: Engine) {
    // the script's score stays under the hold: it tops the cohort and is promoted
    let app = demo(engine, &[]).await;
    let (honest, script) = held_board(&app).await;
    let ids: Vec<String> = honest.iter().map(|p| p.id.clone()).collect();
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    settlement::settle(&app.ctx).await.unwrap();
    let honest = honest_again(&app).await;
    assert_eq!(tier(&app, &script.id).await, 1, "promoted to silver");
    let r = honest[0]
        .get("/v1/leaderboards?week=previous&scope=league")
        .await;
    assert_eq!(user_ids(&r)[0], script.id);

    let (admin, _, _) = app.admin_login().await;
    // a fair-play ban of a player who raised signals that week: the promotion goes
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/fair-play", script.id),
        Some(json!({"decision": "ban", "reason": "scripted answers"})),
    )
    .await
    .ok();
    assert_eq!(tier(&app, &script.id).await, 0, "back to bronze");
    let audit = app
        .text(
            "SELECT after_state FROM audit_log WHERE action = 'player.fair_play' AND target_id = $1",
            &[&script.id],
        )
        .await;
    assert!(audit.contains("\"promotionWithdrawn\":true"), "{audit}");
    let r = honest[0]
        .get("/v1/leaderboards?week=previous&scope=league")
        .await;
    assert_eq!(user_ids(&r), ids);
    assert_eq!(r.ok()[0]["rank"], 1);
    assert_eq!(r.ok()[0]["badge"], "gold");
    // a ban that is no fair-play decision, or of a player without signals that week,
    // leaves the promotion: it was earned fairly
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/ban", ids[0]),
        Some(json!({})),
    )
    .await
    .ok();
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/fair-play", ids[1]),
        Some(json!({"decision": "ban"})),
    )
    .await
    .ok();
    assert_eq!(tier(&app, &ids[0]).await, 1);
    assert_eq!(tier(&app, &ids[1]).await, 1);
    let r = honest[2]
        .get("/v1/leaderboards?week=previous&scope=league")
        .await;
    assert_eq!(
        entries(&r),
        vec![(ids[2].clone(), 1, 20), (ids[3].clone(), 2, 10)]
    );
}

/// Issue 53: three guests each play a full day (every attempt right, every card opened)
/// and are merged into one account. Its lifetime XP keeps all of it, but its weekly
/// boards (and so its league) count that day only up to what one player can earn in a
/// day; the second and third merges queue it for fair play, and a fourth within 30
/// days is refused.
async fn merged_days_count_on_the_boards_up_to_one_players_day(engine: Engine) {
    let apple = AppleFake::start("day-apple").await;
    let mut vars = apple.vars().to_vec();
    vars.extend([
        ("RULE_DAILY_ATTEMPTS", "2".to_string()),
        ("RULE_AD_ATTEMPTS_PER_DAY", "0".to_string()),
    ]);
    let app = demo(engine, &vars).await;
    let rules = &app.ctx.settings.rules;
    // 2 challenges of 5 answers at 10 XP with their cards at 3, the first card's 15,
    // the review allowance's 50
    let ceiling = rules.daily_xp_ceiling();
    assert_eq!(ceiling, 2 * 5 * 13 + 15 + 50);
    let identity = apple.token("day-account");
    let link = |token: String, id: String| {
        let app = &app;
        // a fresh identity token each time: the test clock runs ahead of its expiry
        let identity = apple.token("day-account");
        async move {
            app.post(
                "/v1/auth/link",
                json!({
                    "provider": "ios_vendor",
                    "credential": { "identityToken": identity },
                    "mergePolicy": "server_account_first",
                    "clientMigrationId": format!("day-{id}"),
                }),
                Some(&token),
            )
            .await
        }
    };
    let account = app
        .post(
            "/v1/auth/ios_vendor",
            json!({ "identityToken": identity }),
            None,
        )
        .await
        .ok()["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut earned = 0;
    for i in 0..3 {
        let guest = Player::new(&app, &format!("day-guest-{i}"), None).await;
        for _ in 0..2 {
            play_and_view_cards(&guest).await;
        }
        let played = guest.get("/v1/progress/summary").await.ok()["xp"]
            .as_i64()
            .unwrap();
        assert!(played > 100, "a full day of challenges and cards: {played}");
        let linked = link(guest.token.clone(), guest.id.clone()).await;
        let summary = &linked.ok()["migrationSummary"];
        // (card rewards the account holds already stay with the guest)
        let xp = summary["imported"]["xp"].as_i64().unwrap();
        assert!(xp > 90 && xp <= played, "{summary}");
        earned += xp;
        let token = linked.ok()["session"]["tokens"]["accessToken"]
            .as_str()
            .unwrap()
            .to_string();
        // lifetime XP keeps all of it; the week's board one player's day at most
        let me = app.get("/v1/progress/summary", Some(&token)).await;
        assert_eq!(me.ok()["xp"], earned);
        let board = app
            .get("/v1/leaderboards/me?scope=topic", Some(&token))
            .await;
        let board_xp = board.ok()["xp"].as_i64().unwrap();
        assert_eq!(board_xp, earned.min(ceiling), "after merge {i}");
        assert_eq!(
            summary["skipped"]["boardXp"].as_i64().unwrap(),
            xp - (earned.min(ceiling) - (earned - xp).min(ceiling)),
            "{summary}"
        );
    }
    // the weekly rows hold one player's day on every board
    let rows: Vec<(String, i64)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as("SELECT board, xp FROM weekly_xp WHERE player_id = $1")
            .bind(&account)
            .fetch_all(ex)
            .await
            .unwrap()
    });
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|(_, xp)| *xp == ceiling), "{rows:?}");
    // the second and third merges are unusual: the account is in the fair-play queue
    let (admin, _, _) = app.admin_login().await;
    let queue = app.admin_get("/v1/admin/fair-play", Some(&admin)).await;
    let entry = queue
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["userId"] == account.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("the account is queued: {}", queue.body));
    assert_eq!(entry["signals"]["merges"], 2);
    assert_eq!(entry["weekScore"], 20);
    // a fourth guest within 30 days is refused, and may come once the first leaves
    let fourth = Player::new(&app, "day-guest-3", None).await;
    let refused = link(fourth.token.clone(), fourth.id.clone()).await;
    refused.assert_error(429, "RATE_LIMITED");
    app.clock.advance(Duration::days(31));
    let fourth = Player::new(&app, "day-guest-3", None).await;
    let linked = link(fourth.token.clone(), format!("{}-later", fourth.id)).await;
    assert_eq!(linked.ok()["session"]["user"]["id"], account.as_str());
}

/// Issue 53: staff ban a cheater by the plain door (`PUT /users/{id}/ban`, no fair-play
/// decision): the promotion the cheater earned in last week's cohort while raising
/// signals goes as with a fair-play ban (a plain ban of an honest player keeps it:
/// `a_cheaters_promotion_is_withdrawn`).
async fn a_plain_ban_of_a_cheater_withdraws_the_promotion_too(engine: Engine) {
    let app = demo(engine, &[]).await;
    let (honest, script) = held_board(&app).await;
    let ids: Vec<String> = honest.iter().map(|p| p.id.clone()).collect();
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    settlement::settle(&app.ctx).await.unwrap();
    let honest = honest_again(&app).await;
    assert_eq!(tier(&app, &script.id).await, 1, "promoted to silver");
    let (admin, _, _) = app.admin_login().await;
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/ban", script.id),
        Some(json!({"reason": "abuse"})),
    )
    .await
    .ok();
    assert_eq!(tier(&app, &script.id).await, 0, "back to bronze");
    let r = honest[0]
        .get("/v1/leaderboards?week=previous&scope=league")
        .await;
    assert_eq!(user_ids(&r), ids);
    // lifting the ban does not give the promotion back
    admin_put(
        &app,
        &admin,
        &format!("/v1/admin/users/{}/unban", script.id),
        None,
    )
    .await
    .ok();
    assert_eq!(tier(&app, &script.id).await, 0);
}
