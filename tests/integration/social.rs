//! Regions, weekly leaderboards (SQL and the Redis index), bootstrap, shop and
//! subscription, rewarded-ad recovery, feedback.

use chrono::Duration;
use futures::future::join_all;
use serde_json::{Value, json};
use shared::ids::PlayerId;
use tests::{Engine, Resp, TestApp, both_engines_demo};

macro_rules! engine_tests {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() { super::$name(tests::Engine::Sqlite).await }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() { super::$name(tests::Engine::Postgres).await }
            }
        )*
    };
}

both_engines_demo!(
    region_change_rule_across_a_month_boundary,
    leaderboard_ranks_weekly_xp_within_the_region,
    leaderboard_week_rolls_over_on_monday,
    leaderboard_meta_and_limits,
    xp_from_play_reaches_both_boards,
    own_ranks_match_a_brute_force_order,
    leaderboard_pages_are_remembered_for_a_second_unless_this_process_writes,
    bootstrap_has_the_whole_aggregate,
    shop_and_subscription_validate_then_refuse,
    ad_recovery_grants_once_per_session,
    ad_recovery_reasons,
    feedback_is_stored_with_limits,
);
engine_tests!(
    banned_players_are_on_no_board,
    redis_ranks_match_the_sql_oracle,
    mock_ads_are_refused_in_production
);

async fn guest(app: &TestApp, device: &str) -> (String, String) {
    let (id, token, _) = app.guest(device).await;
    (id, token)
}

async fn patch(app: &TestApp, path: &str, body: Value, token: &str) -> Resp {
    app.call(
        tests::Service::Player,
        reqwest::Method::PATCH,
        path,
        Some(body),
        Some(token),
    )
    .await
}

async fn region_change_rule_across_a_month_boundary(app: TestApp) {
    let (_, mut token) = guest(&app, "d-region").await;
    let r = patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "440000"}),
        &token,
    )
    .await;
    let region = r.ok()["region"].clone();
    assert_eq!(region["code"], "440000");
    assert_eq!(region["name"], "广东省");
    assert_eq!(region["shortName"], "广东");
    assert_eq!(region["nextChangeAllowedAt"], "2026-11-30T16:00:00Z");
    // same region again: nothing changes, nothing is used up
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "440000"}),
        &token,
    )
    .await
    .ok();
    // a change in the same Beijing month is refused
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "110000"}),
        &token,
    )
    .await
    .assert_error(400, "REGION_CHANGE_LIMIT_REACHED");
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "999999"}),
        &token,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // 15:59:59Z on Nov 30 is still November in Beijing; 16:00:00Z is December
    for (instant, allowed) in [
        ("2026-11-30T15:59:59Z", false),
        ("2026-11-30T16:00:00Z", true),
    ] {
        app.clock.set(instant.parse().unwrap());
        token = app.guest("d-region").await.1;
        let r = patch(
            &app,
            "/v1/users/me/region",
            json!({"regionCode": "110000"}),
            &token,
        )
        .await;
        if allowed {
            assert_eq!(
                r.ok()["region"]["nextChangeAllowedAt"],
                "2026-12-31T16:00:00Z"
            );
        } else {
            r.assert_error(400, "REGION_CHANGE_LIMIT_REACHED");
        }
    }
    let boot = app.get("/v1/app/bootstrap", Some(&token)).await;
    assert_eq!(boot.ok()["user"]["region"]["code"], "110000");
}

/// A player with a region and this week's XP, written as the game would.
async fn ranked_player(app: &TestApp, id: &str, region: &str, xp: i64, earned_at_ms: i64) {
    let week = "2026-11-16";
    app.exec(
        "INSERT INTO players (id, nickname, is_guest, region_code, created_at, updated_at) VALUES ($1, $1, TRUE, $2, 0, 0)",
        &[id, region],
    )
    .await;
    let (xp, at) = (xp.to_string(), earned_at_ms.to_string());
    for board in [format!("region:{region}"), "topic:all".to_string()] {
        app.exec(
            "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at)
             VALUES ($1, $2, $3, CAST($4 AS BIGINT), CAST($5 AS BIGINT))",
            &[week, &board, id, &xp, &at],
        )
        .await;
    }
}

fn ms(s: &str) -> i64 {
    s.parse::<chrono::DateTime<chrono::Utc>>()
        .unwrap()
        .timestamp_millis()
}

async fn leaderboard_ranks_weekly_xp_within_the_region(app: TestApp) {
    let (me, token) = guest(&app, "d-lb").await;
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "310000"}),
        &token,
    )
    .await
    .ok();
    ranked_player(&app, "p-a", "310000", 120, ms("2026-11-17T01:00:00Z")).await;
    ranked_player(&app, "p-b", "310000", 90, ms("2026-11-17T03:00:00Z")).await;
    ranked_player(&app, "p-c", "310000", 90, ms("2026-11-17T02:00:00Z")).await; // tie: earlier wins
    ranked_player(&app, "p-d", "310000", 60, ms("2026-11-17T02:00:00Z")).await;
    ranked_player(&app, "p-x", "440000", 500, ms("2026-11-17T02:00:00Z")).await; // another region
    app.exec(
        "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at) VALUES ('2026-11-16', 'region:310000', $1, 75, 0)",
        &[&me],
    )
    .await;
    let r = app.get("/v1/leaderboards", Some(&token)).await;
    let entries = r.ok().as_array().unwrap().clone();
    let order: Vec<&str> = entries
        .iter()
        .map(|e| e["userId"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["p-a", "p-c", "p-b", me.as_str(), "p-d"]);
    let ranks: Vec<i64> = entries
        .iter()
        .map(|e| e["rank"].as_i64().unwrap())
        .collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5]);
    let badges: Vec<&str> = entries
        .iter()
        .map(|e| e["badge"].as_str().unwrap())
        .collect();
    assert_eq!(badges, ["gold", "silver", "bronze", "", ""]);
    assert_eq!(entries[3]["isMe"], true);
    assert_eq!(entries[0]["isMe"], false);
    assert_eq!(entries[0]["displayName"], "p-a");
    assert_eq!(
        r.body["pagination"],
        json!({"total": 5, "page": 1, "limit": 20})
    );
    // page 2 of 2
    let r = app
        .get("/v1/leaderboards?limit=2&page=2", Some(&token))
        .await;
    let page: Vec<i64> = r
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["rank"].as_i64().unwrap())
        .collect();
    assert_eq!(page, [3, 4]);
    // own rank
    let r = app.get("/v1/leaderboards/me", Some(&token)).await;
    assert_eq!(r.ok()["rank"], 4);
    assert_eq!(r.ok()["xp"], 75);
    assert_eq!(r.body["meta"]["rank"], 4);
    // another region by code; the all-players board
    let r = app
        .get("/v1/leaderboards?regionCode=440000", Some(&token))
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 1);
    assert_eq!(r.body["meta"]["viewRegion"]["code"], "440000");
    assert_eq!(r.body["meta"]["selectedRegion"]["code"], "310000");
    let r = app.get("/v1/leaderboards?scope=topic", Some(&token)).await;
    assert_eq!(r.ok()[0]["userId"], "p-x");
    assert_eq!(r.body["meta"]["groupId"], "topic:all:2026-11-16");
}

async fn leaderboard_week_rolls_over_on_monday(app: TestApp) {
    let (_, token) = guest(&app, "d-week").await;
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "310000"}),
        &token,
    )
    .await
    .ok();
    ranked_player(&app, "p-w", "310000", 40, ms("2026-11-17T01:00:00Z")).await;
    // Sunday 23:59:59 Beijing: still this week
    app.clock.set("2026-11-22T15:59:59Z".parse().unwrap());
    let token = app.guest("d-week").await.1;
    let r = app.get("/v1/leaderboards", Some(&token)).await;
    assert_eq!(r.ok().as_array().unwrap().len(), 1);
    assert_eq!(r.body["meta"]["weekStart"], "2026-11-16");
    assert_eq!(r.body["meta"]["weekEnd"], "2026-11-22");
    assert_eq!(r.body["meta"]["nextRefreshAt"], "2026-11-23");
    // Monday 00:00 Beijing: a new, empty week
    app.clock.set("2026-11-22T16:00:00Z".parse().unwrap());
    let r = app.get("/v1/leaderboards", Some(&token)).await;
    assert_eq!(r.ok().as_array().unwrap().len(), 0);
    assert_eq!(r.body["meta"]["weekStart"], "2026-11-23");
    assert_eq!(r.body["meta"]["groupId"], "region:310000:2026-11-23");
}

async fn leaderboard_meta_and_limits(app: TestApp) {
    let (_, token) = guest(&app, "d-meta").await;
    // no region: empty, requiresRegionSelection
    let r = app.get("/v1/leaderboards", Some(&token)).await;
    assert_eq!(r.ok(), &json!([]));
    let meta = &r.body["meta"];
    assert_eq!(meta["requiresRegionSelection"], true);
    assert!(meta["selectedRegion"].is_null());
    assert_eq!(
        meta["rewardPreview"],
        json!([{"rank":1,"coins":100},{"rank":2,"coins":50},{"rank":3,"coins":30}])
    );
    for key in ["weekStart", "weekEnd", "nextRefreshAt", "groupId"] {
        assert!(meta[key].as_str().is_some(), "{key}");
    }
    let r = app.get("/v1/leaderboards/me", Some(&token)).await;
    assert!(r.ok().is_null());
    assert_eq!(r.body["meta"]["requiresRegionSelection"], true);
    for bad in [
        "limit=0",
        "limit=101",
        "page=0",
        "limit=abc",
        "scope=world",
        "regionCode=999999",
    ] {
        app.get(&format!("/v1/leaderboards?{bad}"), Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    app.get("/v1/leaderboards?limit=100", Some(&token))
        .await
        .ok();
    app.get("/v1/leaderboards", None)
        .await
        .assert_error(401, "UNAUTHORIZED");
}

async fn correct_option(app: &TestApp, challenge: &Value, i: usize) -> String {
    app.text(
        "SELECT correct_option_id FROM challenge_session_questions WHERE session_id = $1 AND question_id = $2",
        &[challenge["challengeId"].as_str().unwrap(), challenge["questions"][i]["question"]["id"].as_str().unwrap()],
    )
    .await
}

/// Starts a science-basics challenge and answers its first `right` questions correctly.
async fn answer_right(app: &TestApp, token: &str, right: usize) {
    let c = app
        .get("/v1/challenges/next?trackId=science-basics", Some(token))
        .await
        .ok()
        .clone();
    for i in 0..right {
        let option = correct_option(app, &c, i).await;
        app.post(
            "/v1/challenges/answer",
            json!({"challengeId": c["challengeId"], "questionId": c["questions"][i]["question"]["id"], "selectedOptionId": option}),
            Some(token),
        )
        .await
        .ok();
    }
}

async fn xp_from_play_reaches_both_boards(app: TestApp) {
    let (me, token) = guest(&app, "d-play-lb").await;
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "510000"}),
        &token,
    )
    .await
    .ok();
    answer_right(&app, &token, 2).await;
    let region = app.get("/v1/leaderboards", Some(&token)).await.ok().clone();
    assert_eq!(region[0]["userId"], me.as_str());
    assert_eq!(region[0]["xp"], 20);
    let topic = app
        .get("/v1/leaderboards/me?scope=topic", Some(&token))
        .await
        .ok()
        .clone();
    assert_eq!(
        (topic["xp"].clone(), topic["rank"].clone()),
        (json!(20), json!(1))
    );
    // a region change carries this week's XP into the new region's board
    app.clock.set("2026-12-01T04:00:00Z".parse().unwrap());
    let token = app.guest("d-play-lb").await.1;
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "500000"}),
        &token,
    )
    .await
    .ok();
    // (a new week began on Monday 11-30, so this week's XP is 0 on every board)
    let r = app.get("/v1/leaderboards", Some(&token)).await;
    assert_eq!(r.ok(), &json!([]));
}

/// The own-rank read (region state, row and SQL rank in one query) against a ranking
/// computed here, over many equal XP values and equal instants.
async fn own_ranks_match_a_brute_force_order(app: TestApp) {
    let week = "2026-11-16";
    let base = ms("2026-11-17T00:00:00Z");
    let mut rows = Vec::new();
    for i in 0..120i64 {
        let id = format!("o-{:03}", (i * 37) % 120);
        let (xp, at) = ((i % 7) * 10 + 10, base + (i % 3) * 1000);
        ranked_player(&app, &id, "320000", xp, at).await;
        rows.push((id, xp, at));
    }
    // XP descending, then the earliest instant, then the greater id
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)).then(b.0.cmp(&a.0)));
    for board in [None, Some("topic:all")] {
        for (position, (id, xp, _)) in rows.iter().enumerate() {
            let (state, row) = shared::db::leaderboard::viewer_row_and_rank(
                &app.ctx.db,
                &PlayerId::from_trusted(id.as_str()),
                week,
                board,
                app.clock.now_ms(),
            )
            .await
            .unwrap()
            .unwrap();
            assert_eq!(state.region_code.as_deref(), Some("320000"));
            let (row, rank) = row.unwrap();
            assert_eq!(
                (row.xp, rank),
                (*xp, position as i64 + 1),
                "{id} on {board:?}"
            );
        }
    }
    // a player without a row this week, and one who does not exist
    let (me, token) = guest(&app, "d-no-row").await;
    let (_, row) = shared::db::leaderboard::viewer_row_and_rank(
        &app.ctx.db,
        &PlayerId::from_trusted(me.as_str()),
        week,
        Some("topic:all"),
        app.clock.now_ms(),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(row.is_none());
    assert!(
        shared::db::leaderboard::viewer_row_and_rank(
            &app.ctx.db,
            &PlayerId::from_trusted("nobody"),
            week,
            None,
            app.clock.now_ms()
        )
        .await
        .unwrap()
        .is_none()
    );
    // through the API: after the last ranked player
    let r = app
        .get("/v1/leaderboards/me?scope=topic", Some(&token))
        .await;
    assert_eq!(
        (r.ok()["xp"].clone(), r.ok()["rank"].clone()),
        (json!(0), json!(121))
    );
}

/// A page read in the last second is served again to every viewer of this process, but
/// this process's own XP writes show at once, and own ranks are always exact.
async fn leaderboard_pages_are_remembered_for_a_second_unless_this_process_writes(app: TestApp) {
    let (me, token) = guest(&app, "d-page-cache").await;
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "330000"}),
        &token,
    )
    .await
    .ok();
    let first_read = std::time::Instant::now();
    ranked_player(&app, "c-a", "330000", 20, ms("2026-11-17T01:00:00Z")).await;
    let ids = |r: &Resp| -> Vec<String> {
        r.ok()
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["userId"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(&app.get("/v1/leaderboards", Some(&token)).await),
        ["c-a"]
    );
    // a row written elsewhere (another process): the remembered page for up to a second
    ranked_player(&app, "c-b", "330000", 900, ms("2026-11-17T02:00:00Z")).await;
    let page = app.get("/v1/leaderboards", Some(&token)).await;
    if first_read.elapsed() < std::time::Duration::from_millis(800) {
        assert_eq!(ids(&page), ["c-a"], "served from the page read just before");
    }
    // own rank: exact at once
    let r = app
        .get("/v1/leaderboards/me?scope=topic", Some(&token))
        .await;
    assert_eq!(r.ok()["rank"], 3);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(
        ids(&app.get("/v1/leaderboards", Some(&token)).await),
        ["c-b", "c-a"]
    );
    // this process's own answer: on the page at once
    answer_right(&app, &token, 3).await;
    assert_eq!(
        ids(&app.get("/v1/leaderboards", Some(&token)).await),
        ["c-b", me.as_str(), "c-a"]
    );
}

/// Both boards of the viewer list `expected` (the viewer as `me`), with that total, and
/// the viewer at `rank`; the Redis index, when configured, holds `p-a` just when listed.
async fn boards_show(app: &TestApp, token: &str, me: &str, expected: &[&str], rank: i64) {
    for scope in ["region", "topic"] {
        let r = app
            .get(&format!("/v1/leaderboards?scope={scope}"), Some(token))
            .await;
        let listed: Vec<&str> = r
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["userId"].as_str().unwrap())
            .map(|id| if id == me { "me" } else { id })
            .collect();
        assert_eq!(listed, expected, "{scope}");
        assert_eq!(r.body["pagination"]["total"], expected.len(), "{scope}");
        let r = app
            .get(&format!("/v1/leaderboards/me?scope={scope}"), Some(token))
            .await;
        assert_eq!(r.ok()["rank"], rank, "{scope}");
    }
    if let Some(ranks) = &app.ctx.ranks {
        let now = app.clock.now_ms();
        let a = ranks
            .rank(
                &app.ctx.db,
                "2026-11-16",
                "region:310000",
                &PlayerId::from_trusted("p-a"),
                now,
            )
            .await
            .unwrap();
        assert_eq!(a.is_some(), expected.contains(&"p-a"), "p-a in the index");
    }
}

/// While banned, a player is on no board: not on pages, not in totals, not ahead of
/// anyone, not in the Redis index; unbanned (or when a ban ends), their week shows again.
async fn banned_players_are_on_no_board(engine: Engine) {
    for redis in [false, true] {
        let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
        let mut vars = vec![("DEMO_CONTENT", "true".to_string())];
        if redis {
            vars.push(("REDIS_URL", "redis://127.0.0.1:6379".into()));
            vars.push(("REDIS_KEY_PREFIX", prefix));
        }
        let app = TestApp::spawn_with(engine, &vars).await;
        let (me, mut token) = guest(&app, "d-ban-lb").await;
        patch(
            &app,
            "/v1/users/me/region",
            json!({"regionCode": "310000"}),
            &token,
        )
        .await
        .ok();
        ranked_player(&app, "p-a", "310000", 120, ms("2026-11-17T01:00:00Z")).await;
        ranked_player(&app, "p-b", "310000", 90, ms("2026-11-17T03:00:00Z")).await;
        for board in ["region:310000", "topic:all"] {
            app.exec(
                "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at) VALUES ('2026-11-16', $1, $2, 75, 0)",
                &[board, &me],
            )
            .await;
        }
        let (admin, _, _) = app.admin_login().await;
        boards_show(&app, &token, &me, &["p-a", "p-b", "me"], 3).await;
        app.call(
            tests::Service::Admin,
            reqwest::Method::PUT,
            "/v1/admin/users/p-a/ban",
            Some(json!({"reason": "scripted answers"})),
            Some(&admin),
        )
        .await
        .ok();
        boards_show(&app, &token, &me, &["p-b", "me"], 2).await;
        app.call(
            tests::Service::Admin,
            reqwest::Method::PUT,
            "/v1/admin/users/p-a/unban",
            None,
            Some(&admin),
        )
        .await
        .ok();
        boards_show(&app, &token, &me, &["p-a", "p-b", "me"], 3).await;
        // a ban with an end: hidden until then, then back by itself
        let until = (app.clock.now() + Duration::minutes(30)).to_rfc3339();
        app.call(
            tests::Service::Admin,
            reqwest::Method::PUT,
            "/v1/admin/users/p-a/ban",
            Some(json!({"until": until})),
            Some(&admin),
        )
        .await
        .ok();
        boards_show(&app, &token, &me, &["p-b", "me"], 2).await;
        app.clock.advance(Duration::minutes(31));
        token = guest(&app, "d-ban-lb").await.1;
        // no write marks the ban's end: pages remembered in the last second still show
        // the board as it was
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        boards_show(&app, &token, &me, &["p-a", "p-b", "me"], 3).await;
    }
}

async fn redis_ranks_match_the_sql_oracle(engine: Engine) {
    let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::spawn_with(
        engine,
        &[
            ("REDIS_URL", "redis://127.0.0.1:6379".into()),
            ("REDIS_KEY_PREFIX", prefix.clone()),
            ("DEMO_CONTENT", "true".into()),
        ],
    )
    .await;
    assert!(app.ctx.ranks.is_some());
    let base = ms("2026-11-17T00:00:00Z");
    // 300 players with many equal XP values and equal seconds
    let mut ids = Vec::new();
    for i in 0..300i64 {
        let id = format!("r-{:03}", (i * 7919) % 1000);
        let xp = (i % 23) * 10;
        let at = base + ((i % 5) * 1000);
        ranked_player(&app, &id, "320000", xp, at).await;
        ids.push(id);
    }
    let week = "2026-11-16";
    let check = |board: &'static str| {
        let app = &app;
        let ids = &ids;
        async move {
            for id in ids.iter().step_by(7) {
                let row = shared::db::leaderboard::row_of(
                    &app.ctx.db,
                    week,
                    board,
                    &PlayerId::from_trusted(id.as_str()),
                    app.clock.now_ms(),
                )
                .await
                .unwrap()
                .unwrap();
                let sql = shared::db::leaderboard::rank(
                    &app.ctx.db,
                    week,
                    board,
                    &row,
                    app.clock.now_ms(),
                )
                .await
                .unwrap();
                let redis = app
                    .ctx
                    .ranks
                    .as_ref()
                    .unwrap()
                    .rank(
                        &app.ctx.db,
                        week,
                        board,
                        &PlayerId::from_trusted(id.as_str()),
                        app.clock.now_ms(),
                    )
                    .await
                    .unwrap();
                assert_eq!(Some(sql), redis, "{board} {id}");
            }
        }
    };
    check("region:320000").await; // built from the database on first use
    check("topic:all").await;
    // the page order agrees with the index order too
    let page =
        shared::db::leaderboard::page(&app.ctx.db, week, "topic:all", 50, 0, app.clock.now_ms())
            .await
            .unwrap();
    for (i, entry) in page.iter().enumerate() {
        let r = app
            .ctx
            .ranks
            .as_ref()
            .unwrap()
            .rank(
                &app.ctx.db,
                week,
                "topic:all",
                &entry.player_id,
                app.clock.now_ms(),
            )
            .await
            .unwrap();
        assert_eq!(r, Some(i as i64 + 1));
    }
    // deleted set: rebuilt, same ranks
    app.ctx
        .ranks
        .as_ref()
        .unwrap()
        .invalidate(week, &["region:320000".to_string()])
        .await;
    check("region:320000").await;
    // a write while the set is gone must not create a one-member set taken for the board
    let ranks = app.ctx.ranks.as_ref().unwrap();
    ranks.invalidate(week, &["region:320000".to_string()]).await;
    let top = shared::db::leaderboard::row_of(
        &app.ctx.db,
        week,
        "region:320000",
        &PlayerId::from_trusted(ids[0].as_str()),
        app.clock.now_ms(),
    )
    .await
    .unwrap()
    .unwrap();
    ranks
        .apply(&[shared::rank_index::RankUpdate {
            week_start: week.into(),
            board: "region:320000".into(),
            player_id: PlayerId::from_trusted(ids[0].as_str()),
            xp: top.xp,
            last_earned_at: top.last_earned_at,
        }])
        .await;
    check("region:320000").await;
    // live XP goes to the index after commit
    let (me, token) = guest(&app, "d-redis").await;
    patch(
        &app,
        "/v1/users/me/region",
        json!({"regionCode": "320000"}),
        &token,
    )
    .await
    .ok();
    let c = app
        .get("/v1/challenges/next?trackId=world-geography", Some(&token))
        .await
        .ok()
        .clone();
    for i in 0..5 {
        let option = correct_option(&app, &c, i).await;
        app.post(
            "/v1/challenges/answer",
            json!({"challengeId": c["challengeId"], "questionId": c["questions"][i]["question"]["id"], "selectedOptionId": option}),
            Some(&token),
        )
        .await
        .ok();
    }
    let r = app.get("/v1/leaderboards/me", Some(&token)).await;
    let row = shared::db::leaderboard::row_of(
        &app.ctx.db,
        week,
        "region:320000",
        &PlayerId::from_trusted(me.as_str()),
        app.clock.now_ms(),
    )
    .await
    .unwrap()
    .unwrap();
    let sql =
        shared::db::leaderboard::rank(&app.ctx.db, week, "region:320000", &row, app.clock.now_ms())
            .await
            .unwrap();
    assert_eq!(r.ok()["rank"], sql);
    assert_eq!(r.ok()["xp"], 50);
    check("region:320000").await;
    // a deleted account leaves the index
    let r = app
        .call(
            tests::Service::Player,
            reqwest::Method::DELETE,
            "/v1/users/me",
            None,
            Some(&token),
        )
        .await;
    r.ok();
    let gone = app
        .ctx
        .ranks
        .as_ref()
        .unwrap()
        .rank(
            &app.ctx.db,
            week,
            "region:320000",
            &PlayerId::from_trusted(me.as_str()),
            app.clock.now_ms(),
        )
        .await
        .unwrap();
    assert_eq!(gone, None);
    app.ctx
        .ranks
        .as_ref()
        .unwrap()
        .invalidate(
            week,
            &["region:320000".to_string(), "topic:all".to_string()],
        )
        .await;
}

async fn bootstrap_has_the_whole_aggregate(app: TestApp) {
    let (id, token) = guest(&app, "d-boot").await;
    let r = app.get("/v1/app/bootstrap", Some(&token)).await;
    let b = r.ok();
    assert_eq!(b["user"]["id"], id.as_str());
    assert_eq!(b["user"]["tier"], "free");
    assert_eq!(b["user"]["level"], 1);
    assert!(b["user"]["region"].is_null());
    assert_eq!(b["progress"]["hearts"], 5);
    assert_eq!(b["tracks"].as_array().unwrap().len(), 6);
    assert_eq!(b["shopBenefits"], b["shop"]["benefits"]);
    assert_eq!(b["shop"]["benefits"].as_array().unwrap().len(), 3);
    assert_eq!(b["wallet"], json!({"coinsBalance": 0}));
    assert_eq!(b["inventory"], json!({"items": []}));
    assert_eq!(
        b["subscription"],
        json!({"status": "none", "tier": "free", "expiresAt": null, "autoRenew": false})
    );
    let products = b["shop"]["products"].as_array().unwrap();
    let got: Vec<(String, String, i64)> = products
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().into(),
                p["itemId"].as_str().unwrap().into(),
                p["priceCoins"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("hint-feather".into(), "hint_feather".into(), 80),
            ("heart-supply".into(), "heart_supply".into(), 150),
            ("double-xp-potion".into(), "double_xp_potion".into(), 250),
            ("streak-shield".into(), "streak_shield".into(), 400),
            (
                "mascot-outfit-starter".into(),
                "mascot_outfit_starter".into(),
                800
            ),
        ]
    );
    for p in products {
        assert_eq!(p["type"], "item");
        assert!(p["quantity"].as_i64().is_some() && p["enabled"].is_boolean());
    }
    assert_eq!(app.get("/v1/shop", Some(&token)).await.ok(), &b["shop"]);
    // inventory and wallet are read from their tables
    app.exec("INSERT INTO inventory_items (player_id, item_id, quantity, updated_at) VALUES ($1, 'streak_shield', 2, 0)", &[&id]).await;
    app.exec(
        "UPDATE wallets SET coins_balance = 35 WHERE player_id = $1",
        &[&id],
    )
    .await;
    let b = app
        .get("/v1/app/bootstrap", Some(&token))
        .await
        .ok()
        .clone();
    assert_eq!(b["wallet"]["coinsBalance"], 35);
    assert_eq!(b["inventory"]["items"][0]["itemId"], "streak_shield");
    assert_eq!(b["inventory"]["items"][0]["quantity"], 2);
}

async fn shop_and_subscription_validate_then_refuse(app: TestApp) {
    let (_, token) = guest(&app, "d-shop").await;
    let post = |path: &'static str, body: Value| {
        let app = &app;
        let token = token.clone();
        async move { app.post(path, body, Some(&token)).await }
    };
    post(
        "/v1/shop/purchase",
        json!({"productId": "heart-supply", "clientRequestId": "c1"}),
    )
    .await
    .assert_error(400, "NOT_AVAILABLE_IN_MVP");
    post(
        "/v1/shop/purchase",
        json!({"productId": "golden-goose", "clientRequestId": "c1"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    post("/v1/shop/purchase", json!({"productId": "heart-supply"}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    post(
        "/v1/inventory/items/use",
        json!({"itemId": "streak_shield", "clientRequestId": "c2"}),
    )
    .await
    .assert_error(400, "NOT_AVAILABLE_IN_MVP");
    post(
        "/v1/inventory/items/use",
        json!({"itemId": "hint_feather", "clientRequestId": "c2"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    post(
        "/v1/inventory/items/use",
        json!({"itemId": "hint_feather", "clientRequestId": "c2", "questionId": "q"}),
    )
    .await
    .assert_error(400, "NOT_AVAILABLE_IN_MVP");
    post(
        "/v1/inventory/items/use",
        json!({"itemId": "mascot", "clientRequestId": "c2"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let verify =
        json!({"platform": "ios", "purchaseToken": "t", "productId": "pro-monthly", "tier": "pro"});
    post("/v1/subscription/verify", verify.clone())
        .await
        .assert_error(400, "NOT_AVAILABLE_IN_MVP");
    let mut web = verify.clone();
    web["platform"] = json!("web");
    post("/v1/subscription/verify", web)
        .await
        .assert_error(400, "UNSUPPORTED_PLATFORM");
    let mut bad_tier = verify;
    bad_tier["tier"] = json!("gold");
    post("/v1/subscription/verify", bad_tier)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let s = app.get("/v1/subscription", Some(&token)).await;
    assert_eq!(s.ok()["status"], "none");
    // removed restore routes are gone
    for path in [
        "/v1/rewards/hearts/restore",
        "/v1/rewards/attempts/restore",
        "/v1/rewards/streak/protect",
        "/v1/progress/hearts/restore",
    ] {
        app.post(path, json!({}), Some(&token))
            .await
            .assert_error(404, "NOT_FOUND");
    }
}

async fn open_ad(app: &TestApp, token: &str, kind: &str, crid: &str) -> Value {
    app.post(
        "/v1/rewards/ad-recovery/session",
        json!({"type": kind, "clientRequestId": crid, "platform": "android", "adProvider": "mock"}),
        Some(token),
    )
    .await
    .ok()
    .clone()
}

async fn complete_ad(app: &TestApp, token: &str, session: &Value) -> Resp {
    app.post(
        "/v1/rewards/ad-recovery/complete",
        json!({"sessionId": session["sessionId"], "clientRequestId": "done", "adProvider": "mock", "completedAt": "2026-11-18T04:01:00Z"}),
        Some(token),
    )
    .await
}

async fn ad_recovery_grants_once_per_session(app: TestApp) {
    let (id, token) = guest(&app, "d-ads").await;
    app.exec("UPDATE player_progress SET hearts = 2, hearts_regen_from = CAST($2 AS BIGINT) WHERE player_id = $1", &[&id, &app.clock.now_ms().to_string()]).await;
    let s = open_ad(&app, &token, "hearts", "ad-1").await;
    assert_eq!(s["eligible"], true);
    assert_eq!(s["type"], "hearts");
    assert_eq!(s["remainingToday"], 5);
    assert!(s["adPlacementId"].as_str().is_some() && s["expiresAt"].as_str().is_some());
    // the same clientRequestId answers the same session
    assert_eq!(
        open_ad(&app, &token, "hearts", "ad-1").await["sessionId"],
        s["sessionId"]
    );
    // 20 concurrent completions: one grant, every answer the same
    let results = join_all((0..20).map(|_| complete_ad(&app, &token, &s))).await;
    let answers: Vec<Value> = results.iter().map(|r| r.ok().clone()).collect();
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
    let a = &answers[0];
    assert_eq!(a["status"], "completed");
    assert_eq!(
        a["reward"],
        json!({"heartsDelta": 1, "dailyAttemptsDelta": 0, "streakProtectionGranted": false})
    );
    assert_eq!(a["limits"]["remainingHeartsRecoveriesToday"], 4);
    assert_eq!(a["limits"]["remainingAttemptRecoveriesToday"], 3);
    assert_eq!(a["progress"]["hearts"], 3);
    let summary = app
        .get("/v1/progress/summary", Some(&token))
        .await
        .ok()
        .clone();
    assert_eq!(summary["hearts"], 3);
    let key = format!("ad_recovery:{}", s["sessionId"].as_str().unwrap());
    assert_eq!(app.scalar("SELECT count(*) FROM reward_ledger WHERE idempotency_key = $1 AND before_snapshot LIKE '%\"hearts\":2%' AND after_snapshot LIKE '%\"hearts\":3%'", &[&key]).await, 1);
    // bonus attempts and streak protection
    let s = open_ad(&app, &token, "bonusAttempts", "ad-2").await;
    let a = complete_ad(&app, &token, &s).await.ok().clone();
    assert_eq!(a["reward"]["dailyAttemptsDelta"], 1);
    assert_eq!(a["progress"]["dailyAttemptsLeft"], 11);
    let s = open_ad(&app, &token, "streakProtection", "ad-3").await;
    assert_eq!(s["eligible"], true);
    let a = complete_ad(&app, &token, &s).await.ok().clone();
    assert_eq!(a["reward"]["streakProtectionGranted"], true);
    // through the end of the next Beijing day (2026-11-19 23:59:59.999 +08:00)
    assert_eq!(
        a["progress"]["streakProtectedUntil"],
        "2026-11-19T15:59:59.999Z"
    );
    assert!(
        a["limits"]["nextStreakProtectionAvailableAt"]
            .as_str()
            .is_some()
    );
    // another player's session is not theirs
    let (_, other) = guest(&app, "d-ads-other").await;
    complete_ad(&app, &other, &s)
        .await
        .assert_error(404, "NOT_FOUND");
}

async fn ad_recovery_reasons(app: TestApp) {
    let (id, token) = guest(&app, "d-reasons").await;
    // invalid type
    let s = open_ad(&app, &token, "coins", "r-0").await;
    assert_eq!(
        (
            s["eligible"].clone(),
            s["reason"].clone(),
            s["sessionId"].clone()
        ),
        (json!(false), json!("invalid_type"), Value::Null)
    );
    // bad provider, bad platform
    app.post("/v1/rewards/ad-recovery/session", json!({"type": "hearts", "clientRequestId": "x", "platform": "android", "adProvider": "admob"}), Some(&token))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.post(
        "/v1/rewards/ad-recovery/session",
        json!({"type": "hearts", "clientRequestId": "x", "platform": "tv", "adProvider": "mock"}),
        Some(&token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // expired via the clock
    let s = open_ad(&app, &token, "hearts", "r-1").await;
    app.clock.advance(Duration::minutes(11));
    let token = app.guest("d-reasons").await.1;
    let a = complete_ad(&app, &token, &s).await.ok().clone();
    assert_eq!(
        (a["status"].clone(), a["reason"].clone()),
        (json!("failed"), json!("session_expired"))
    );
    assert!(a["message"].as_str().is_some() && a["progress"]["hearts"].is_number());
    // ...and stays failed
    assert_eq!(
        complete_ad(&app, &token, &s).await.ok()["reason"],
        "session_expired"
    );
    // daily limit: 5 heart recoveries, then refused until Beijing midnight
    for i in 0..5 {
        let s = open_ad(&app, &token, "hearts", &format!("h-{i}")).await;
        assert_eq!(
            complete_ad(&app, &token, &s).await.ok()["status"],
            "completed"
        );
    }
    let s = open_ad(&app, &token, "hearts", "h-5").await;
    assert_eq!(
        (s["eligible"].clone(), s["reason"].clone()),
        (json!(false), json!("daily_limit_reached"))
    );
    assert_eq!(s["nextAvailableAt"], "2026-11-18T16:00:00Z");
    // cooldown: streak protection once a week
    let s = open_ad(&app, &token, "streakProtection", "s-1").await;
    complete_ad(&app, &token, &s).await.ok();
    let s = open_ad(&app, &token, "streakProtection", "s-2").await;
    assert_eq!(s["reason"], "cooldown_active");
    let next: chrono::DateTime<chrono::Utc> =
        s["nextAvailableAt"].as_str().unwrap().parse().unwrap();
    assert!(
        (next - app.clock.now() - Duration::days(7))
            .num_seconds()
            .abs()
            < 5
    );
    // subscribed players need no ads
    app.exec(
        "UPDATE subscriptions SET status = 'active', tier = 'pro' WHERE player_id = $1",
        &[&id],
    )
    .await;
    let s = open_ad(&app, &token, "bonusAttempts", "sub-1").await;
    assert_eq!(s["reason"], "already_subscribed");
    assert_eq!(s["subscriptionBenefits"]["tier"], "pro");
    assert_eq!(s["subscriptionBenefits"]["unlimitedHearts"], true);
    assert!(s["subscriptionBenefits"]["dailyHighRewardSessions"].is_null());
    // the ledger holds exactly the completed recoveries
    assert_eq!(app.scalar("SELECT count(*) FROM reward_ledger WHERE player_id = $1 AND idempotency_key LIKE 'ad_recovery:%'", &[&id]).await, 6);
}

async fn mock_ads_are_refused_in_production(engine: Engine) {
    let app = TestApp::spawn_with(
        engine,
        &[
            ("APP_ENV", "production".into()),
            ("JWT_SECRET", "p".repeat(40)),
            ("ADMIN_JWT_SECRET", "a".repeat(40)),
            (
                "SECRETS_KEY",
                "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=".into(),
            ),
        ],
    )
    .await;
    let (_, token) = guest(&app, "d-prod").await;
    app.post(
        "/v1/rewards/ad-recovery/session",
        json!({"type": "hearts", "clientRequestId": "p1", "platform": "ios", "adProvider": "mock"}),
        Some(&token),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
}

async fn feedback_is_stored_with_limits(app: TestApp) {
    let (id, token) = guest(&app, "d-fb").await;
    let r = app.post("/v1/feedback", json!({"content": "Love the geography track!", "contact": "me@example.com", "pageContext": "track:world-geography"}), Some(&token)).await;
    assert!(r.ok()["id"].as_str().is_some());
    assert_eq!(
        app.scalar("SELECT count(*) FROM feedback WHERE player_id = $1", &[&id])
            .await,
        1
    );
    for bad in [
        json!({"content": ""}),
        json!({"content": "x".repeat(2001)}),
        json!({"content": "ok", "contact": "c".repeat(256)}),
        json!({"content": "ok", "pageContext": "p".repeat(201)}),
        json!({}),
    ] {
        app.post("/v1/feedback", bad, Some(&token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    app.post(
        "/v1/feedback",
        json!({"content": "x".repeat(2000)}),
        Some(&token),
    )
    .await
    .ok();
    app.post("/v1/feedback", json!({"content": "hi"}), None)
        .await
        .assert_error(401, "UNAUTHORIZED");
}
