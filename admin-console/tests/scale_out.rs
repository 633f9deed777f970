//! Two `player-api` and two `admin-console` processes on one database, as behind a load
//! balancer: every rule that must hold across processes does (shared signing secrets,
//! SMS resend window, answer idempotency, ledger, bans, provider toggles, console
//! sessions). Needs the `player-api` binary beside this crate's (built by
//! `cargo test --workspace`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use reqwest::Method;
use serde_json::{Value, json};
use shared::config::DatabaseUrl;
use shared::db::Db;
use tests::process::{Proc, free_port};
use tests::{Engine, TestDatabase, both_engines_raw};

const ADMIN_EXE: &str = env!("CARGO_BIN_EXE_admin-console");
const PASSWORD: &str = "Scale-out-pass-1";

both_engines_raw!(two_of_each_process_share_every_rule);

fn player_exe() -> PathBuf {
    let exe = PathBuf::from(ADMIN_EXE).with_file_name("player-api");
    assert!(
        exe.exists(),
        "{} is missing: build it (cargo test --workspace does)",
        exe.display()
    );
    exe
}

struct Http {
    client: reqwest::Client,
}

impl Http {
    async fn call(
        &self,
        method: Method,
        url: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> (u16, Value) {
        let mut req = self.client.request(method, url);
        if let Some(body) = body {
            req = req.json(&body);
        }
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }
}

async fn two_of_each_process_share_every_rule(engine: Engine) {
    let database = TestDatabase::create(engine).await;
    let common = |addr_var: &'static str, port: u16| {
        vec![
            ("DATABASE_URL", database.url.clone()),
            (addr_var, format!("127.0.0.1:{port}")),
            ("DEMO_CONTENT", "true".to_string()),
            ("SMS_PROVIDER", "console".to_string()),
            ("ADMIN_BOOTSTRAP_PASSWORD", PASSWORD.to_string()),
            ("RATE_LIMIT_AUTH_PER_MINUTE", "100000".to_string()),
            ("RATE_LIMIT_SEND_CODE_PER_MINUTE", "100000".to_string()),
        ]
    };
    // All four start at once: migrations, generated secrets, demo content and the
    // bootstrap admin are each made once.
    let player = player_exe().display().to_string();
    let (pp1, pp2, ap1, ap2) = (free_port(), free_port(), free_port(), free_port());
    let (v1, v2, v3, v4) = (
        common("PLAYER_API_ADDR", pp1),
        common("PLAYER_API_ADDR", pp2),
        common("ADMIN_CONSOLE_ADDR", ap1),
        common("ADMIN_CONSOLE_ADDR", ap2),
    );
    let (p1, p2, a1, a2) = tokio::join!(
        Proc::start(&player, &v1, pp1),
        Proc::start(&player, &v2, pp2),
        Proc::start(ADMIN_EXE, &v3, ap1),
        Proc::start(ADMIN_EXE, &v4, ap2),
    );
    let (p1, p2, a1, a2) = (&p1.base_url, &p2.base_url, &a1.base_url, &a2.base_url);
    let http = Http {
        client: reqwest::Client::new(),
    };
    let db = Db::connect(&DatabaseUrl::parse(&database.url).unwrap())
        .await
        .unwrap();
    let count = |sql: &'static str, arg: String| {
        let db = db.clone();
        async move {
            shared::read!(&db, |ex| sqlx::query_scalar::<_, i64>(sql)
                .bind(arg)
                .fetch_one(ex)
                .await
                .unwrap())
        }
    };
    assert_eq!(
        count(
            "SELECT count(*) FROM admins WHERE username <> $1",
            String::new()
        )
        .await,
        1
    );

    // A token made by one process is honoured by the other (one shared secret).
    let (s, guest) = http
        .call(
            Method::POST,
            &format!("{p1}/v1/auth/guest"),
            Some(json!({"deviceId": "scale-device"})),
            None,
        )
        .await;
    assert_eq!(s, 200, "{guest}");
    let token = guest["data"]["tokens"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    let player_id = guest["data"]["user"]["id"].as_str().unwrap().to_string();
    for p in [p1, p2] {
        let (s, _) = http
            .call(Method::GET, &format!("{p}/v1/auth/me"), None, Some(&token))
            .await;
        assert_eq!(s, 200);
    }

    // SMS: the resend window holds across processes.
    let phone = json!({"phoneNumber": "13900139001"});
    let (s, body) = http
        .call(
            Method::POST,
            &format!("{p1}/v1/auth/phone/send-code"),
            Some(phone.clone()),
            None,
        )
        .await;
    assert_eq!(s, 200, "{body}");
    let (s, body) = http
        .call(
            Method::POST,
            &format!("{p2}/v1/auth/phone/send-code"),
            Some(phone),
            None,
        )
        .await;
    assert_eq!(s, 429, "{body}");
    assert_eq!(body["error"]["code"], "RATE_LIMITED");

    // Idempotency: one answer sent to both processes at once is judged once.
    let (s, challenge) = http
        .call(
            Method::GET,
            &format!("{p1}/v1/challenges/next?trackId=world-geography"),
            None,
            Some(&token),
        )
        .await;
    assert_eq!(s, 200, "{challenge}");
    let c = &challenge["data"];
    let answer = json!({
        "challengeId": c["challengeId"],
        "questionId": c["questions"][0]["question"]["id"],
        "selectedOptionId": c["questions"][0]["question"]["options"][0]["id"],
        "submitRequestId": "scale-out-answer-1",
        "timeMs": 3000,
        "comboCount": 1,
    });
    let sends = (0..10).map(|i| {
        let url = format!("{}/v1/challenges/answer", if i % 2 == 0 { p1 } else { p2 });
        let body = answer.clone();
        let http = &http;
        let token = &token;
        async move { http.call(Method::POST, &url, Some(body), Some(token)).await }
    });
    let results = futures::future::join_all(sends).await;
    let first = &results[0].1["data"];
    for (s, body) in &results {
        assert_eq!(*s, 200, "{body}");
        assert_eq!(body["data"]["answerState"], first["answerState"]);
    }
    assert_eq!(
        count(
            "SELECT count(*) FROM challenge_answers WHERE session_id = $1",
            c["challengeId"].as_str().unwrap().to_string()
        )
        .await,
        1
    );
    let (_, summary) = http
        .call(
            Method::GET,
            &format!("{p2}/v1/progress/summary"),
            None,
            Some(&token),
        )
        .await;
    assert_eq!(
        summary["data"]["dailyAttemptsLeft"], 9,
        "one attempt deducted"
    );
    let ledger_xp = count(
        "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
        player_id.clone(),
    )
    .await;
    assert_eq!(
        json!(ledger_xp),
        summary["data"]["xp"],
        "the ledger sums to the XP"
    );

    // Admin API: sign in on one process, act on the other.
    let (s, login) = http
        .call(
            Method::POST,
            &format!("{a1}/v1/admin/login"),
            Some(json!({"username": "admin", "password": PASSWORD})),
            None,
        )
        .await;
    assert_eq!(s, 200, "{login}");
    let admin = login["data"]["accessToken"].as_str().unwrap().to_string();

    // Provider toggles: switched on admin 2, seen at once by both player processes.
    let (s, _) = http
        .call(
            Method::PUT,
            &format!("{a2}/v1/admin/auth-providers"),
            Some(json!({"providers": [{"id": "wechat", "enabled": false}]})),
            Some(&admin),
        )
        .await;
    assert_eq!(s, 200);
    for p in [p1, p2] {
        let (_, list) = http
            .call(
                Method::GET,
                &format!("{p}/v1/auth/providers?platform=ios"),
                None,
                None,
            )
            .await;
        let wechat = list["data"]["providers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == "wechat")
            .unwrap()
            .clone();
        assert_eq!(wechat["enabled"], false);
    }

    // Bans: set on admin 2, refused by both player processes on the next request.
    let (s, _) = http
        .call(
            Method::PUT,
            &format!("{a2}/v1/admin/users/{player_id}/ban"),
            Some(json!({"reason": "cheating"})),
            Some(&admin),
        )
        .await;
    assert_eq!(s, 200);
    for p in [p1, p2] {
        let (s, body) = http
            .call(Method::GET, &format!("{p}/v1/auth/me"), None, Some(&token))
            .await;
        assert_eq!(s, 403, "{body}");
    }
    let (s, _) = http
        .call(
            Method::PUT,
            &format!("{a1}/v1/admin/users/{player_id}/unban"),
            None,
            Some(&admin),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = http
        .call(Method::GET, &format!("{p2}/v1/auth/me"), None, Some(&token))
        .await;
    assert_eq!(s, 200);

    // Answers: a process judges a challenge it opened from memory; what the other
    // processes change meanwhile (answers, a region move, a ban) is never overwritten.
    let (s, challenge) = http
        .call(
            Method::GET,
            &format!("{p1}/v1/challenges/next?trackId=science-basics"),
            None,
            Some(&token),
        )
        .await;
    assert_eq!(s, 200, "{challenge}");
    let c = &challenge["data"];
    let session_id = c["challengeId"].as_str().unwrap().to_string();
    let right = |i: usize| {
        let db = db.clone();
        let session_id = session_id.clone();
        async move {
            shared::read!(&db, |ex| sqlx::query_scalar::<_, String>(
                "SELECT correct_option_id FROM challenge_session_questions
                 WHERE session_id = $1 AND position = $2"
            )
            .bind(session_id)
            .bind(i as i64)
            .fetch_one(ex)
            .await
            .unwrap())
        }
    };
    let answer_on = |p: &String, i: usize, option: String| {
        let body = json!({
            "challengeId": c["challengeId"],
            "questionId": c["questions"][i]["question"]["id"],
            "selectedOptionId": option,
        });
        let url = format!("{p}/v1/challenges/answer");
        let http = &http;
        let token = &token;
        async move { http.call(Method::POST, &url, Some(body), Some(token)).await }
    };
    let (s, body) = answer_on(p1, 0, right(0).await).await;
    assert_eq!(
        (s, &body["data"]["answerState"]),
        (200, &json!("correct")),
        "{body}"
    );
    // answered on the other process: this one's memory is stale, its write refused, and
    // the answer judged again on a read (which it remembers from then on)
    let (s, body) = answer_on(p2, 1, right(1).await).await;
    assert_eq!(s, 200, "{body}");
    let (s, body) = answer_on(p1, 2, right(2).await).await;
    assert_eq!(s, 200, "{body}");
    // the region is chosen on the other process: the next answer's XP goes to its board
    let (s, body) = http
        .call(
            Method::PATCH,
            &format!("{p2}/v1/users/me/region"),
            Some(json!({"regionCode": "440000"})),
            Some(&token),
        )
        .await;
    assert_eq!(s, 200, "{body}");
    let (s, body) = answer_on(p1, 3, right(3).await).await;
    assert_eq!(s, 200, "{body}");
    // banned on an admin process: the process that remembers the player refuses too
    let (s, _) = http
        .call(
            Method::PUT,
            &format!("{a2}/v1/admin/users/{player_id}/ban"),
            Some(json!({"reason": "cheating"})),
            Some(&admin),
        )
        .await;
    assert_eq!(s, 200);
    let (s, body) = answer_on(p1, 4, right(4).await).await;
    assert_eq!(s, 403, "{body}");
    let (s, _) = http
        .call(
            Method::PUT,
            &format!("{a1}/v1/admin/users/{player_id}/unban"),
            None,
            Some(&admin),
        )
        .await;
    assert_eq!(s, 200);
    let (s, body) = answer_on(p1, 4, right(4).await).await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(
        count(
            "SELECT count(*) FROM challenge_sessions
             WHERE id = $1 AND answered_count = 5 AND correct_count = 5 AND status = 'finished'",
            session_id.clone()
        )
        .await,
        1,
        "every answer counted once, whichever process took it"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM node_completions WHERE player_id = $1",
            player_id.clone()
        )
        .await,
        1,
        "the passed node is done"
    );
    // the move carries the week's XP to the region's board; every answer after it adds
    // to both boards
    let board_xp = |board: &'static str| {
        count(
            if board == "all" {
                "SELECT CAST(COALESCE(SUM(xp), 0) AS BIGINT) FROM weekly_xp
                 WHERE player_id = $1 AND board = 'topic:all'"
            } else {
                "SELECT CAST(COALESCE(SUM(xp), 0) AS BIGINT) FROM weekly_xp
                 WHERE player_id = $1 AND board = 'region:440000'"
            },
            player_id.clone(),
        )
    };
    let all_xp = board_xp("all").await;
    assert!(all_xp >= 50, "{all_xp}");
    assert_eq!(
        board_xp("region").await,
        all_xp,
        "the answers after the move count on the region's board"
    );
    let (_, summary) = http
        .call(
            Method::GET,
            &format!("{p1}/v1/progress/summary"),
            None,
            Some(&token),
        )
        .await;
    let ledger_xp = count(
        "SELECT CAST(COALESCE(SUM(xp_delta), 0) AS BIGINT) FROM reward_ledger WHERE player_id = $1",
        player_id.clone(),
    )
    .await;
    assert_eq!(
        json!(ledger_xp),
        summary["data"]["xp"],
        "the ledger sums to the XP"
    );
    assert_eq!(
        summary["data"]["dailyAttemptsLeft"], 8,
        "one attempt per challenge"
    );

    // Console sessions: the sign-in form of admin 1 is accepted by admin 2 (its CSRF
    // cookie is signed with a key both derive from the shared admin secret); the session
    // works on admin 1 (its CSRF token too), and signing out on admin 2 ends it on admin 1.
    let mut browser = tests::console::Console::new(a1);
    browser.get("/console/login").await.assert_status(200);
    let mut other = tests::console::Console {
        base: a2.clone(),
        client: browser.client.clone(),
        csrf: browser.csrf.clone(),
    };
    let signed_in = other
        .post(
            "/console/login",
            &[("username", "admin"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    browser.get("/console").await.assert_status(200);
    other.csrf = browser.csrf.clone();
    other
        .get("/console")
        .await
        .assert_status(200)
        .assert_contains("admin (super_admin)");
    let out = other.post("/console/logout", &[]).await;
    assert_eq!(out.status, 303);
    assert_eq!(
        browser.get("/console").await.status,
        303,
        "signed out everywhere"
    );

    db.close().await;
}
