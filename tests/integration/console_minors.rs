//! The console's side of minors, in English and Chinese: the statutory holiday calendar
//! (added, renamed, removed, audited), the compliance profile on the dashboard, and a
//! player's minor mode and verification state on their record.

use serde_json::json;
use tests::console::Console;
use tests::{TestApp, both_engines};

both_engines!(
    staff_keep_the_holiday_calendar_in_both_languages,
    a_player_s_record_shows_minor_mode_without_identifiers,
);

async fn staff_keep_the_holiday_calendar_in_both_languages(app: TestApp) {
    let mut console = app.console_signed_in().await;
    let dashboard = console.get("/console").await;
    dashboard
        .assert_contains("id=\"compliance-profile\"")
        .assert_contains("Education (minor mode by declaration)");
    let page = console.get("/console/holidays").await;
    page.assert_status(200)
        .assert_contains("aria-current=\"page\">Holidays")
        .assert_contains("No holidays in the calendar.");
    let done = console
        .post(
            "/console/holidays/put",
            &[("day", "2026-10-01"), ("name", "National Day")],
        )
        .await;
    done.assert_status(303);
    let page = console.follow(&done).await;
    page.assert_contains("2026-10-01 is a statutory holiday.")
        .assert_contains("National Day");
    // renamed in place, then a bad day is shown on the page and writes nothing
    console
        .post(
            "/console/holidays/put",
            &[("day", "2026-10-01"), ("name", "国庆节")],
        )
        .await
        .assert_status(303);
    let bad = console
        .post(
            "/console/holidays/put",
            &[("day", "2026-02-30"), ("name", "x")],
        )
        .await;
    assert_eq!(bad.status, 400);
    let stored = app
        .scalar("SELECT count(*) FROM statutory_holidays", &[])
        .await;
    assert_eq!(stored, 1);
    // the same page in Chinese
    let mut chinese = Console::new_in(&app.admin_url, "zh-CN");
    chinese
        .sign_in(&app.admin_username, &app.admin_password)
        .await;
    chinese
        .get("/console/holidays")
        .await
        .assert_contains("法定节假日")
        .assert_contains("国庆节");
    chinese
        .get("/console")
        .await
        .assert_contains("教育应用（自主申报未成年人模式）");
    let removed = console
        .post("/console/holidays/remove", &[("day", "2026-10-01")])
        .await;
    removed.assert_status(303);
    console
        .follow(&removed)
        .await
        .assert_contains("2026-10-01 is an ordinary day again.");
    let audited = app
        .scalar(
            "SELECT count(*) FROM audit_log WHERE target_type = 'holiday' AND target_id = $1",
            &["2026-10-01"],
        )
        .await;
    assert_eq!(audited, 3, "added, renamed, removed");
}

async fn a_player_s_record_shows_minor_mode_without_identifiers(app: TestApp) {
    let (player, token, _) = app.guest("console-minor").await;
    app.call(
        tests::Service::Player,
        reqwest::Method::PUT,
        "/v1/users/me/minor-mode",
        Some(json!({"ageBand": "8to12", "pin": "2580"})),
        Some(&token),
    )
    .await
    .ok();
    let mut console = app.console_signed_in().await;
    let page = console.get(&format!("/console/players/{player}")).await;
    page.assert_contains("id=\"player-minor-mode\">8 to 12 · declared: 8 to 12")
        .assert_contains("id=\"player-real-name\">Not verified");
    let mut chinese = Console::new_in(&app.admin_url, "zh-CN");
    chinese
        .sign_in(&app.admin_username, &app.admin_password)
        .await;
    chinese
        .get(&format!("/console/players/{player}"))
        .await
        .assert_contains("id=\"player-minor-mode\">8 至 12 岁 · 申报：8 至 12 岁")
        .assert_contains("id=\"player-real-name\">未认证");
    assert!(!page.contains("$argon2"), "no PIN hash on the page");
    // the guardian forgot the PIN: staff reset it from the record, the new one shown once
    page.assert_contains("id=\"guardian-pin-reset\"");
    let shown = console
        .post(
            &format!("/console/players/{player}/guardian-pin/reset"),
            &[],
        )
        .await;
    // answered at once, never kept in the session for a redirect
    shown.assert_status(200);
    shown.assert_contains("The new guardian PIN is ");
    let new_pin: String =
        shown.body.split("The new guardian PIN is ").nth(1).unwrap()[..4].to_string();
    assert!(new_pin.bytes().all(|b| b.is_ascii_digit()), "{new_pin}");
    let again = console.get(&format!("/console/players/{player}")).await;
    assert!(!again.contains("The new guardian PIN is "), "shown once");
    // and the player's old PIN no longer proves the guardian (unless drawn again)
    if new_pin == "2580" {
        return;
    }
    app.call(
        tests::Service::Player,
        reqwest::Method::PUT,
        "/v1/users/me/minor-mode",
        Some(json!({"ageBand": "adult", "pin": "2580"})),
        Some(&token),
    )
    .await
    .assert_error(403, "FORBIDDEN");
}
