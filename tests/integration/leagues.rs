//! Weekly settlement, the previous week's boards, leagues and the entries around a
//! player, through HTTP: a week's boards are frozen exactly once when it ends (two
//! processes racing, a settler killed mid-way and taken over), `week=previous` reads
//! them, cohorts fill in arrival order under 200 concurrent first answers and never
//! take more than their size, the top of a cohort moves up and the bottom down, and
//! `around` shows the neighbours of any rank in bounded work.

use chrono::Duration;
use futures::future::join_all;
use serde_json::{Value, json};
use shared::metrics::Metrics;
use shared::services::jobs::{self, Job};
use shared::services::settlement::{self, Settled};
use tests::{Engine, Resp, TestApp, both_engines_raw};

use crate::fair_play::{Player, demo, held_board};

both_engines_raw!(with_pgbouncer;
    a_week_is_settled_once_and_read_as_previous,
    a_killed_settler_is_taken_over,
    cohorts_fill_in_arrival_order_under_concurrency,
    the_top_of_a_cohort_moves_up_and_the_bottom_down,
    a_first_answer_before_settlement_joins_at_the_new_tier,
    around_shows_the_neighbours_of_any_rank,
);

mod with_redis {
    use super::*;
    both_engines_raw!(with_pgbouncer; around_with_the_rank_index);

    async fn around_with_the_rank_index(engine: Engine) {
        let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
        around_on(
            engine,
            &[
                ("REDIS_URL", "redis://127.0.0.1:6379".into()),
                ("REDIS_KEY_PREFIX", prefix),
            ],
        )
        .await;
    }
}

const WEEK: &str = "2026-11-16";
/// Monday 00:00:30 in Beijing: the week of [`WEEK`] has just ended.
const NEXT_MONDAY: &str = "2026-11-22T16:00:30Z";

fn run_as<'a>(app: &'a TestApp, holder: &'a str) -> impl std::future::Future<Output = bool> + 'a {
    let metrics = Metrics::new(app.ctx.db.clone());
    async move { jobs::run(&app.ctx, holder, Job::Settlement, &metrics.jobs()).await }
}

fn ids_ranks(r: &Resp) -> Vec<(String, i64)> {
    tests::ids_with(r.ok(), "rank")
}

async fn results(app: &TestApp) -> (i64, i64) {
    (
        app.scalar("SELECT count(*) FROM board_settlements", &[])
            .await,
        app.scalar("SELECT count(*) FROM board_results", &[]).await,
    )
}

async fn a_week_is_settled_once_and_read_as_previous(engine: Engine) {
    let app = demo(engine, &[("FAIRPLAY_HOLD_SCORE", "15".into())]).await;
    let (honest, script) = held_board(&app).await;
    let ids: Vec<String> = honest.iter().map(|p| p.id.clone()).collect();
    let held_id = script.id.clone();
    // before the week ends nothing is settled, and the previous week is empty
    assert!(run_as(&app, "process-a").await);
    assert_eq!(results(&app).await, (0, 0));
    let r = honest[0].get("/v1/leaderboards?week=previous").await;
    assert_eq!(r.ok(), &json!([]));
    assert_eq!(r.body["meta"]["weekStart"], "2026-11-09");

    app.clock.set(NEXT_MONDAY.parse().unwrap());
    let (a, b) = tokio::join!(run_as(&app, "process-a"), run_as(&app, "process-b"));
    assert!(a ^ b, "one process settles: {a} {b}");
    // the region's board, everyone's board and the one league cohort, each once: five
    // rows each (the held script kept unshown)
    assert_eq!(results(&app).await, (3, 15));
    assert_eq!(
        app.scalar("SELECT count(*) FROM week_settlements", &[])
            .await,
        1
    );
    // settling again, even racing and without the lease, changes nothing
    let (x, y) = tokio::join!(settlement::settle(&app.ctx), settlement::settle(&app.ctx));
    assert_eq!(
        (x.unwrap(), y.unwrap()),
        (Settled::default(), Settled::default())
    );
    settlement::settle_week(&app.ctx, WEEK, &mut Settled::default())
        .await
        .unwrap();
    assert_eq!(results(&app).await, (3, 15));

    // last week as the players see it, in this week's shapes
    let devices: Vec<String> = (0..4).map(|i| format!("fp-honest-{i}")).collect();
    let tokens: Vec<Player<'_>> =
        join_all(devices.iter().map(|d| Player::new(&app, d, None))).await;
    let script = Player::new(&app, "fp-cheater", None).await;
    assert_eq!(held_id, script.id);
    for scope in ["region", "topic"] {
        let r = tokens[1]
            .get(&format!("/v1/leaderboards?week=previous&scope={scope}"))
            .await;
        assert_eq!(
            ids_ranks(&r),
            (0..4)
                .map(|i| (ids[i].clone(), i as i64 + 1))
                .collect::<Vec<_>>(),
            "{scope}"
        );
        assert_eq!(r.ok()[0]["xp"], 40);
        assert_eq!(r.ok()[0]["badge"], "gold");
        assert_eq!(r.ok()[1]["isMe"], true);
        assert_eq!(r.body["pagination"]["total"], 4);
        let meta = &r.body["meta"];
        assert_eq!(meta["weekStart"], WEEK);
        assert_eq!(meta["weekEnd"], "2026-11-22");
        assert_eq!(meta["nextRefreshAt"], "2026-11-23");
        let me = tokens[1]
            .get(&format!("/v1/leaderboards/me?week=previous&scope={scope}"))
            .await;
        assert_eq!(me.ok()["rank"], 2);
        assert_eq!(me.body["meta"]["rank"], 2);
        // the held script sees itself first, the rest a rank lower
        let r = script
            .get(&format!("/v1/leaderboards?week=previous&scope={scope}"))
            .await;
        assert_eq!(ids_ranks(&r)[0], (script.id.clone(), 1));
        assert_eq!(ids_ranks(&r)[1], (ids[0].clone(), 2));
        let me = script
            .get(&format!("/v1/leaderboards/me?week=previous&scope={scope}"))
            .await;
        assert_eq!(
            (me.ok()["rank"].clone(), me.ok()["xp"].clone()),
            (json!(1), json!(50))
        );
    }
    let r = tokens[0]
        .get("/v1/leaderboards?week=previous&scope=region")
        .await;
    assert_eq!(r.body["meta"]["groupId"], format!("region:310000:{WEEK}"));
    // this week: a new, empty board
    let r = tokens[0].get("/v1/leaderboards").await;
    assert_eq!(r.ok(), &json!([]));
    assert_eq!(r.body["meta"]["weekStart"], "2026-11-23");
    // last week's league: all four honest players promote (a cohort of four shown)
    let r = tokens[0]
        .get("/v1/leaderboards?week=previous&scope=league")
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 4);
    assert!(
        r.ok()
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["zone"] == "promotion")
    );
    assert_eq!(r.body["meta"]["league"]["tier"], "bronze");
    assert_eq!(
        r.body["meta"]["league"]["cohortId"],
        format!("{WEEK}:bronze:1")
    );
    for (p, tier) in tokens
        .iter()
        .map(|p| (p, "silver"))
        .chain([(&script, "bronze")])
    {
        let boot = p.get("/v1/app/bootstrap").await;
        assert_eq!(boot.ok()["user"]["league"]["tier"], tier);
    }

    // staff read any settled board of any week
    let (admin, _, _) = app.admin_login().await;
    let h = app
        .admin_get(
            &format!(
                "/v1/admin/leaderboards/history?board=topic:all&weekStart={WEEK}&limit=2&page=2"
            ),
            Some(&admin),
        )
        .await;
    let rows: Vec<(String, i64, i64)> = h
        .ok()
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
        .collect();
    assert_eq!(rows, vec![(ids[2].clone(), 3, 20), (ids[3].clone(), 4, 10)]);
    assert!(h.ok()[0]["displayName"].as_str().is_some());
    assert_eq!(h.body["pagination"]["total"], 4);
    let h = app
        .admin_get(
            &format!("/v1/admin/leaderboards/history?board=league:{WEEK}:bronze:1"),
            Some(&admin),
        )
        .await;
    assert_eq!(
        h.ok().as_array().unwrap().len(),
        4,
        "the last ended week by default"
    );
    for (query, status, code) in [
        ("board=topic:all&weekStart=2026-11-23", 404, "NOT_FOUND"),
        (
            "board=topic:all&weekStart=2026-11-17",
            400,
            "VALIDATION_ERROR",
        ),
        ("board=topic:all&weekStart=soon", 400, "VALIDATION_ERROR"),
        ("weekStart=2026-11-16", 400, "VALIDATION_ERROR"),
        ("board=topic:all&limit=51", 400, "VALIDATION_ERROR"),
    ] {
        app.admin_get(
            &format!("/v1/admin/leaderboards/history?{query}"),
            Some(&admin),
        )
        .await
        .assert_error(status, code);
    }
    for bad in ["week=last", "around=11", "around=-1", "scope=cohort"] {
        tokens[0]
            .get(&format!("/v1/leaderboards/me?{bad}"))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
}

async fn a_killed_settler_is_taken_over(engine: Engine) {
    let app = demo(engine, &[]).await;
    let mut players = Vec::new();
    for i in 0..3 {
        let p = Player::new(&app, &format!("settle-{i}"), Some("110000")).await;
        p.play_fairly(Duration::seconds(2 + i)).await;
        players.push(p);
    }
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    // the settler dies after freezing the boards, before the cohorts
    app.exec(
        "ALTER TABLE league_members RENAME TO league_members_away",
        &[],
    )
    .await;
    assert!(!run_as(&app, "process-a").await);
    app.exec(
        "ALTER TABLE league_members_away RENAME TO league_members",
        &[],
    )
    .await;
    assert_eq!(results(&app).await, (2, 6), "the two boards froze");
    assert_eq!(
        app.scalar("SELECT count(*) FROM week_settlements", &[])
            .await,
        0
    );
    // its lease still holds another process off …
    assert!(!run_as(&app, "process-b").await);
    // … until it runs out (by the database's clock): the other takes over and finishes
    // what was left
    app.clock.advance(Duration::minutes(4));
    app.exec(
        "UPDATE job_leases SET expires_at = expires_at - 240000",
        &[],
    )
    .await;
    assert!(run_as(&app, "process-b").await);
    assert_eq!(results(&app).await, (3, 9));
    assert_eq!(
        app.scalar("SELECT count(*) FROM week_settlements", &[])
            .await,
        1
    );
    let first = Player::new(&app, "settle-0", None).await;
    assert_eq!(first.id, players[0].id);
    let r = first
        .get("/v1/leaderboards?week=previous&scope=league")
        .await;
    assert_eq!(r.ok().as_array().unwrap().len(), 3);
}

async fn cohorts_fill_in_arrival_order_under_concurrency(engine: Engine) {
    let app = demo(engine, &[]).await;
    let devices: Vec<String> = (0..200).map(|i| format!("cohort-{i}")).collect();
    let players: Vec<Player<'_>> =
        join_all(devices.iter().map(|d| Player::new(&app, d, None))).await;
    let mut challenges = Vec::new();
    for p in &players {
        challenges.push(p.next().await);
    }
    app.clock.advance(Duration::seconds(5));
    // 200 first answers at once: 200 first XP of the week
    let answers = join_all(
        players
            .iter()
            .zip(&challenges)
            .map(|(p, c)| p.answer(c, 0, true, 1000)),
    )
    .await;
    assert!(answers.iter().all(|a| a.status == 200));
    let sizes: Vec<(String, i64)> = shared::read!(&app.ctx.db, |ex| {
        sqlx::query_as(
            "SELECT cohort_id, count(*) FROM league_members WHERE week_start = $1
             GROUP BY cohort_id ORDER BY cohort_id",
        )
        .bind(WEEK)
        .fetch_all(ex)
        .await
        .unwrap()
    });
    let mut counts: Vec<i64> = sizes.iter().map(|(_, n)| *n).collect();
    counts.sort_unstable();
    assert_eq!(counts, vec![20, 30, 30, 30, 30, 30, 30], "{sizes:?}");
    assert_eq!(
        app.scalar(
            "SELECT cohort_seq * 1000 + size FROM league_open WHERE week_start = '2026-11-16' AND tier = 0",
            &[]
        )
        .await,
        7020
    );
    // each player's league is their cohort
    let r = players[7]
        .get("/v1/leaderboards?scope=league&limit=100")
        .await;
    let cohort = r.body["meta"]["league"]["cohortId"]
        .as_str()
        .unwrap()
        .to_string();
    let size = sizes.iter().find(|(c, _)| *c == cohort).unwrap().1;
    assert_eq!(r.ok().as_array().unwrap().len() as i64, size);
    assert_eq!(r.body["pagination"]["total"], size);
    assert_eq!(r.body["meta"]["league"]["tier"], "bronze");
    assert_eq!(r.body["meta"]["groupId"], format!("league:{cohort}"));
    // a player without XP this week is in no cohort
    let idle = Player::new(&app, "cohort-idle", None).await;
    let r = idle.get("/v1/leaderboards?scope=league").await;
    assert_eq!(r.ok(), &json!([]));
    assert_eq!(r.body["meta"]["league"]["cohortId"], Value::Null);
    let me = idle.get("/v1/leaderboards/me?scope=league").await;
    assert!(me.ok().is_null());
}

async fn the_top_of_a_cohort_moves_up_and_the_bottom_down(engine: Engine) {
    let app = demo(engine, &[]).await;
    let mut players = Vec::new();
    for i in 0..15 {
        players.push(Player::new(&app, &format!("gold-{i}"), None).await);
    }
    for p in &players {
        app.exec(
            "INSERT INTO league_players (player_id, tier, updated_at) VALUES ($1, 2, 0)",
            &[&p.id],
        )
        .await;
    }
    // fourteen play (one to five right answers, so XP and times differ); one does not
    for (i, p) in players[..14].iter().enumerate() {
        let c = p.next().await;
        for q in 0..5 {
            app.clock.advance(Duration::seconds(2));
            p.answer(&c, q, q <= i % 5, 1500).await.ok();
        }
    }
    let r = players[0]
        .get("/v1/leaderboards?scope=league&limit=20")
        .await;
    let league = &r.body["meta"]["league"];
    assert_eq!(league["tier"], "gold");
    assert_eq!(
        (
            league["promoteCount"].clone(),
            league["demoteCount"].clone()
        ),
        (json!(7), json!(5))
    );
    let board = r.ok().as_array().unwrap().clone();
    assert_eq!(board.len(), 14);
    let zones: Vec<&str> = board.iter().map(|e| e["zone"].as_str().unwrap()).collect();
    assert_eq!(zones.iter().filter(|z| **z == "promotion").count(), 7);
    assert_eq!(zones.iter().filter(|z| **z == "stay").count(), 2);
    assert_eq!(zones.iter().filter(|z| **z == "demotion").count(), 5);
    // ranks in order of XP (ties: the earlier first)
    let xps: Vec<i64> = board.iter().map(|e| e["xp"].as_i64().unwrap()).collect();
    assert!(xps.windows(2).all(|w| w[0] >= w[1]), "{xps:?}");
    let me = players[3].get("/v1/leaderboards/me?scope=league").await;
    let mine = board
        .iter()
        .find(|e| e["userId"] == players[3].id.as_str())
        .unwrap();
    assert_eq!(me.ok()["rank"], mine["rank"]);
    assert_eq!(me.ok()["zone"], mine["zone"]);

    app.clock.set(NEXT_MONDAY.parse().unwrap());
    assert_eq!(settlement::settle(&app.ctx).await.unwrap().cohorts, 1);
    for e in &board {
        let p = players
            .iter()
            .find(|p| e["userId"] == p.id.as_str())
            .unwrap();
        let boot = Player::new(
            &app,
            &format!(
                "gold-{}",
                players.iter().position(|q| q.id == p.id).unwrap()
            ),
            None,
        )
        .await;
        let tier = boot.get("/v1/app/bootstrap").await.ok()["user"]["league"]["tier"].clone();
        let expected = match e["zone"].as_str().unwrap() {
            "promotion" => "sapphire",
            "demotion" => "silver",
            _ => "gold",
        };
        assert_eq!(tier, expected, "{e}");
    }
    let idle = Player::new(&app, "gold-14", None).await;
    assert_eq!(
        idle.get("/v1/app/bootstrap").await.ok()["user"]["league"]["tier"],
        "gold",
        "no XP that week: no cohort, the same tier"
    );
    // this week's first XP joins a cohort of the new tier
    let top = board[0]["userId"].as_str().unwrap();
    let top = players.iter().find(|p| p.id == top).unwrap();
    let top = Player::new(
        &app,
        &format!(
            "gold-{}",
            players.iter().position(|q| q.id == top.id).unwrap()
        ),
        None,
    )
    .await;
    let c = top.next().await;
    app.clock.advance(Duration::seconds(3));
    top.answer(&c, 0, true, 2000).await.ok();
    let r = top.get("/v1/leaderboards?scope=league").await;
    assert_eq!(r.body["meta"]["league"]["tier"], "sapphire");
    assert_eq!(
        r.body["meta"]["league"]["cohortId"],
        "2026-11-23:sapphire:1"
    );
}

async fn around_shows_the_neighbours_of_any_rank(engine: Engine) {
    around_on(engine, &[]).await;
}

/// 25 players on everyone's board, with ties; the viewer's neighbours by `around`
/// equal the slices of the full page, at the top, the middle and the end, without a
/// row, and held; then on the settled board.
async fn around_on(engine: Engine, extra: &[(&str, String)]) {
    let app = demo(engine, extra).await;
    let base = "2026-11-17T00:00:00Z"
        .parse::<chrono::DateTime<chrono::Utc>>()
        .unwrap()
        .timestamp_millis();
    let mut players = Vec::new();
    for i in 0..25i64 {
        let p = Player::new(&app, &format!("around-{i}"), None).await;
        let (xp, at) = (((i * 7) % 10) * 10 + 10, base + (i % 3) * 1000);
        app.exec(
            "INSERT INTO weekly_xp (week_start, board, player_id, xp, last_earned_at)
             VALUES ('2026-11-16', 'topic:all', $1, CAST($2 AS BIGINT), CAST($3 AS BIGINT))",
            &[&p.id, &xp.to_string(), &at.to_string()],
        )
        .await;
        players.push(p);
    }
    if let Some(ranks) = &app.ctx.ranks {
        ranks
            .rebuild(&app.ctx.db, WEEK, "topic:all", app.clock.now_ms())
            .await
            .unwrap();
    }
    let full = players[0]
        .get("/v1/leaderboards?scope=topic&limit=100")
        .await;
    let order: Vec<(String, i64)> = ids_ranks(&full);
    for (pos, n) in [(0usize, 3usize), (12, 3), (24, 3), (1, 10), (23, 2)] {
        let viewer = players.iter().find(|p| p.id == order[pos].0).unwrap();
        let from = pos.saturating_sub(n);
        let to = (pos + n + 1).min(order.len());
        let expected: Vec<(String, i64)> = order[from..to]
            .iter()
            .filter(|(id, _)| *id != viewer.id)
            .cloned()
            .collect();
        check_around(viewer, n, expected).await;
    }
    // without around: no meta.around
    let r = players[0].get("/v1/leaderboards/me?scope=topic").await;
    assert!(r.body["meta"].get("around").is_none());
    // a player without a row stands after the last: the last rows are above them
    let newcomer = Player::new(&app, "around-new", None).await;
    check_around(&newcomer, 3, order[22..].to_vec()).await;
    // a held player sees the rows around the place they would have
    let held = players.iter().find(|p| p.id == order[10].0).unwrap();
    app.exec(
        "UPDATE players SET fairplay_held = TRUE WHERE id = $1",
        &[&held.id],
    )
    .await;
    app.exec(
        "UPDATE weekly_xp SET hidden_until = 9223372036854775807 WHERE player_id = $1",
        &[&held.id],
    )
    .await;
    if let Some(ranks) = &app.ctx.ranks {
        ranks
            .rebuild(&app.ctx.db, WEEK, "topic:all", app.clock.now_ms())
            .await
            .unwrap();
    }
    app.ctx.board_cache.forget_all();
    check_around(
        held,
        2,
        order[8..13]
            .iter()
            .filter(|(id, _)| *id != held.id)
            .cloned()
            .collect(),
    )
    .await;
    // others no longer see it: the rows after it move up a rank
    let viewer = players.iter().find(|p| p.id == order[12].0).unwrap();
    // (order[12] is now rank 12: the held one was ahead of it)
    check_around(
        viewer,
        1,
        vec![(order[11].0.clone(), 11), (order[13].0.clone(), 13)],
    )
    .await;

    // the settled board: the same neighbours, read by rank
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    settlement::settle(&app.ctx).await.unwrap();
    let viewer = players.iter().find(|p| p.id == order[5].0).unwrap();
    let viewer = Player::new(
        &app,
        &format!(
            "around-{}",
            players.iter().position(|p| p.id == viewer.id).unwrap()
        ),
        None,
    )
    .await;
    let r = viewer
        .get("/v1/leaderboards/me?scope=topic&week=previous&around=2")
        .await;
    let around: Vec<(String, i64)> = tests::ids_with(&r.body["meta"]["around"], "rank");
    assert_eq!(
        around,
        order[3..8]
            .iter()
            .filter(|(id, _)| *id != viewer.id)
            .cloned()
            .collect::<Vec<_>>()
    );
}

/// The viewer's `meta.around` with `n` is `expected`.
async fn check_around(viewer: &Player<'_>, n: usize, expected: Vec<(String, i64)>) {
    let r = viewer
        .get(&format!("/v1/leaderboards/me?scope=topic&around={n}"))
        .await;
    let around: Vec<(String, i64)> = tests::ids_with(&r.body["meta"]["around"], "rank");
    assert_eq!(around, expected, "{}", viewer.id);
}

/// Monday's first answers can come before the job settles last week: the player's last
/// cohort is settled then and there, so they join at their new tier, and the job later
/// moves nobody twice.
async fn a_first_answer_before_settlement_joins_at_the_new_tier(engine: Engine) {
    let app = demo(engine, &[]).await;
    let mut devices = Vec::new();
    for i in 0..3 {
        let device = format!("early-{i}");
        let p = Player::new(&app, &device, None).await;
        let c = p.next().await;
        for q in 0..(3 - i) {
            app.clock.advance(Duration::seconds(2));
            p.answer(&c, q, true, 1500).await.ok();
        }
        devices.push(device);
    }
    app.clock.set(NEXT_MONDAY.parse().unwrap());
    let top = Player::new(&app, &devices[0], None).await;
    let c = top.next().await;
    app.clock.advance(Duration::seconds(2));
    // (its challenge of last week is unfinished: the fourth question is new)
    top.answer(&c, 3, true, 1500).await.ok();
    let r = top.get("/v1/leaderboards?scope=league").await;
    assert_eq!(r.body["meta"]["league"]["tier"], "silver");
    assert_eq!(r.body["meta"]["league"]["cohortId"], "2026-11-23:silver:1");
    // the job finds that cohort settled: every tier moved once
    let done = settlement::settle(&app.ctx).await.unwrap();
    assert_eq!((done.cohorts, done.weeks), (0, 1));
    for device in &devices {
        let p = Player::new(&app, device, None).await;
        let boot = p.get("/v1/app/bootstrap").await;
        assert_eq!(boot.ok()["user"]["league"]["tier"], "silver", "{device}");
    }
}
