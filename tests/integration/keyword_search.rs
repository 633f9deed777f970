//! Keyword search over the trigram indexes (issue 17): the admin question list's
//! `keyword` and the admin player search, with texts that test what the indexes must
//! keep: any case, Chinese, `%`, `_`, `\` and `"` taken literally, keywords of 1 and 2
//! characters (matched without the index) and of 3 or more, a keyword only a distractor
//! holds, a phone number but never a device id; rows changed and deleted after the
//! index was filled; and the totals of every answer.

use serde_json::json;
use tests::{TestApp, both_engines};

both_engines!(
    question_keywords_match_what_like_matched,
    player_search_matches_ids_nicknames_and_phone_numbers,
);

/// `text` as one query-string value: every byte but ASCII letters and digits escaped.
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The ids of one answer (sorted) and its `pagination.total`.
async fn search(app: &TestApp, token: &str, path: &str) -> (Vec<String>, i64) {
    let r = app.admin_get(path, Some(token)).await;
    let mut ids: Vec<String> = r
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    let total = r.body["pagination"]["total"].as_i64().unwrap();
    (ids, total)
}

fn sorted(ids: &[&String]) -> Vec<String> {
    let mut ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    ids.sort();
    ids
}

async fn create_question(app: &TestApp, token: &str, stem: &str, distractors: &[&str]) -> String {
    let body = json!({
        "stem": {"text": stem},
        "contentType": "text",
        "correctAnswer": "right",
        "distractors": distractors,
        "categoryId": "cat-k",
        "difficulty": 2,
        "knowledgeCard": {"summary": "because"}
    });
    let r = app
        .admin_post("/v1/admin/questions", body, Some(token))
        .await;
    r.ok()["id"].as_str().unwrap().to_string()
}

async fn question_keywords_match_what_like_matched(app: TestApp) {
    app.exec(
        "INSERT INTO categories (id, name, slug, created_at, updated_at) VALUES ('cat-k', 'Cat K', 'cat-k', 0, 0)",
        &[],
    )
    .await;
    let (token, _, _) = app.admin_login().await;
    let capital = create_question(
        &app,
        &token,
        "What is the Capital of FRANCE?",
        &["Lyon", "Nice"],
    )
    .await;
    let beijing = create_question(&app, &token, "北京是中国的首都吗？", &["上海", "广州"]).await;
    let rates = create_question(&app, &token, "Rates: 100% of a_b\\c", &["x1", "y1"]).await;
    let island = create_question(
        &app,
        &token,
        "Plain question",
        &["Zanzibar Island", "Other"],
    )
    .await;
    let lookalike = create_question(&app, &token, "100 percent of a-b c", &["x2", "y2"]).await;
    let quoted = create_question(&app, &token, "Say \"hi\" now", &["x3", "y3"]).await;

    let cases: Vec<(&str, Vec<&String>)> = vec![
        // 3 or more characters, any case
        ("capital of france", vec![&capital]),
        ("CAPITAL", vec![&capital]),
        ("fRaNcE?", vec![&capital]),
        // 1 and 2 characters
        ("ca", vec![&capital]),
        ("CA", vec![&capital]),
        ("北京", vec![&beijing]),
        ("京", vec![&beijing]),
        // Chinese of 3 or more characters
        ("中国的首都", vec![&beijing]),
        ("首都吗？", vec![&beijing]),
        // only a distractor holds it (2 characters, and more)
        ("上海", vec![&beijing]),
        ("zanzibar", vec![&island]),
        ("ZANZIBAR isl", vec![&island]),
        // `%`, `_`, `\` and `"` match themselves
        ("100%", vec![&rates]),
        ("%", vec![&rates]),
        ("a_b", vec![&rates]),
        ("_", vec![&rates]),
        ("\\", vec![&rates]),
        ("b\\c", vec![&rates]),
        ("% of a_b\\", vec![&rates]),
        ("\"hi\"", vec![&quoted]),
        // (every distractor list is JSON text, quotes and all)
        (
            "\"",
            vec![&capital, &beijing, &rates, &island, &lookalike, &quoted],
        ),
        // several
        ("of a", vec![&rates, &lookalike]),
        ("100", vec![&rates, &lookalike]),
        // none
        ("nothing like this", vec![]),
        ("a%b", vec![]),
        ("北京上海", vec![]),
    ];
    for (keyword, expected) in &cases {
        let path = format!("/v1/admin/questions?keyword={}&limit=50", encoded(keyword));
        let (ids, total) = search(&app, &token, &path).await;
        assert_eq!(ids, sorted(expected), "keyword {keyword:?}");
        assert_eq!(total, expected.len() as i64, "total of {keyword:?}");
    }

    // a page of a longer answer keeps the whole total
    let (ids, total) = search(&app, &token, "/v1/admin/questions?keyword=of%20a&limit=1").await;
    assert_eq!((ids.len(), total), (1, 2));
    let (ids, total) = search(
        &app,
        &token,
        "/v1/admin/questions?keyword=of%20a&limit=1&page=2",
    )
    .await;
    assert_eq!((ids.len(), total), (1, 2));
    // with the other filters
    let (ids, total) = search(
        &app,
        &token,
        "/v1/admin/questions?keyword=of%20a&status=published",
    )
    .await;
    assert_eq!((ids.len(), total), (0, 0));

    // a changed stem and distractors are found by their new text only
    app.exec(
        "UPDATE questions SET stem_text = 'Renamed Mountain', distractors = '[\"Kilimanjaro\"]' WHERE id = $1",
        &[&island],
    )
    .await;
    for (keyword, expected) in [
        ("mountain", vec![&island]),
        ("KILIMANJARO", vec![&island]),
        ("zanzibar", vec![]),
        ("plain question", vec![]),
    ] {
        let path = format!("/v1/admin/questions?keyword={}", encoded(keyword));
        let (ids, total) = search(&app, &token, &path).await;
        assert_eq!(
            ids,
            sorted(&expected),
            "keyword {keyword:?} after the update"
        );
        assert_eq!(total, expected.len() as i64);
    }
    // a deleted question is found no more
    app.exec(
        "DELETE FROM knowledge_cards WHERE question_id = $1",
        &[&quoted],
    )
    .await;
    app.exec("DELETE FROM questions WHERE id = $1", &[&quoted])
        .await;
    let (ids, total) = search(&app, &token, "/v1/admin/questions?keyword=%22hi%22").await;
    assert_eq!((ids, total), (vec![], 0));
}

async fn player_search_matches_ids_nicknames_and_phone_numbers(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let (master, _, _) = app.guest("dev-alpha-1").await;
    let (ming, _, _) = app.guest("dev-beta-2").await;
    let (phone, _, _) = app.guest("dev-gamma-3").await;
    // a device id that looks like a phone number: never searched
    let (hong, _, _) = app.guest("+8613999990000").await;
    for (id, nickname) in [
        (&master, "Quiz_Master 100%\\"),
        (&ming, "小明同学们"),
        (&phone, "Phoney"),
        (&hong, "小红同学们"),
    ] {
        app.exec(
            "UPDATE players SET nickname = $1 WHERE id = $2",
            &[nickname, id],
        )
        .await;
    }
    app.exec(
        "INSERT INTO player_identities (provider, subject, player_id, created_at)
         VALUES ('phone', '+8613912345678', $1, 0)",
        &[&phone],
    )
    .await;

    let ming_id_part = ming[..8].to_string();
    let ming_id_upper = ming[..13].to_uppercase();
    let cases: Vec<(&str, Vec<&String>)> = vec![
        // nicknames, any case, `%`, `_` and `\` literal
        ("quiz_master", vec![&master]),
        ("QUIZ_MASTER 100%", vec![&master]),
        ("z_m", vec![&master]),
        ("_", vec![&master]),
        ("%", vec![&master]),
        ("0%\\", vec![&master]),
        ("\\", vec![&master]),
        ("z%m", vec![]),
        // Chinese of 1, 2 and 3 characters
        ("明", vec![&ming]),
        ("小明", vec![&ming]),
        ("明同学", vec![&ming]),
        ("同学", vec![&ming, &hong]),
        ("同学们", vec![&ming, &hong]),
        // part of an id, in any case
        (ming_id_part.as_str(), vec![&ming]),
        (ming_id_upper.as_str(), vec![&ming]),
        // a phone number, whole or in part; a device id never
        ("+8613912345678", vec![&phone]),
        ("+86", vec![&phone]),
        ("PHONEY", vec![&phone]),
        ("+8613999990000", vec![]),
        ("dev-alpha-1", vec![]),
        ("dev-", vec![]),
        ("no-such-player-xyz", vec![]),
    ];
    for (text, expected) in &cases {
        let path = format!("/v1/admin/users?search={}&limit=50", encoded(text));
        let (ids, total) = search(&app, &token, &path).await;
        assert_eq!(ids, sorted(expected), "search {text:?}");
        assert_eq!(total, expected.len() as i64, "total of {text:?}");
    }
    // a page of a longer answer keeps the whole total, newest first
    for path in [
        format!("/v1/admin/users?search={}&limit=1", encoded("同学们")),
        format!("/v1/admin/users?search={}&limit=1", encoded("同学")),
    ] {
        let r = app.admin_get(&path, Some(&token)).await;
        assert_eq!(r.ok().as_array().unwrap().len(), 1);
        assert_eq!(r.ok()[0]["id"], hong.as_str());
        assert_eq!(r.body["pagination"]["total"], 2);
    }

    // a new nickname is found, the old one no more; an identity gone takes its number
    app.exec(
        "UPDATE players SET nickname = 'Renamed Hero' WHERE id = $1",
        &[&master],
    )
    .await;
    app.exec(
        "DELETE FROM player_identities WHERE player_id = $1 AND provider = 'phone'",
        &[&phone],
    )
    .await;
    for (text, expected) in [
        ("quiz_master", vec![]),
        ("HERO", vec![&master]),
        ("+8613912345678", vec![]),
        ("phoney", vec![&phone]),
    ] {
        let path = format!("/v1/admin/users?search={}", encoded(text));
        let (ids, total) = search(&app, &token, &path).await;
        assert_eq!(ids, sorted(&expected), "search {text:?} after the changes");
        assert_eq!(total, expected.len() as i64);
    }
}
