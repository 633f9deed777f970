//! The console's language through HTTP: the browser's `Accept-Language` (zh-CN when
//! absent or naming neither), the admin's own choice from the header's menu (stored on
//! the account, so a new session keeps it; cleared to follow the browser again),
//! `<html lang>`, refusals in the page's language, times in Beijing time, and stored
//! names (audit actions) shown by name.

use shared::i18n::Lang;
use tests::console::Console;
use tests::{TestApp, both_engines};

both_engines!(
    the_sign_in_page_follows_the_browser,
    an_admin_chooses_a_language_for_every_session,
    pages_show_refusals_and_times_in_the_language,
);

async fn the_sign_in_page_follows_the_browser(app: TestApp) {
    for (accept, lang) in [
        ("", Lang::ZhCn),
        ("zh-CN,zh;q=0.9", Lang::ZhCn),
        ("en-US,en;q=0.9", Lang::En),
        ("fr, en;q=0.5, zh;q=0.4", Lang::En),
        ("de", Lang::ZhCn),
    ] {
        let mut browser = Console::new_in(&app.admin_url, accept);
        let page = browser.get("/console/login").await;
        page.assert_status(200)
            .assert_contains(&format!("<html lang=\"{}\">", lang.tag()))
            .assert_contains(&lang.t("sign-in-submit"))
            .assert_contains(&lang.t("sign-in-username"));
        assert!(
            page.header("vary")
                .is_some_and(|v| v.contains("accept-language")),
            "{accept}: {:?}",
            page.headers
        );
    }
    // the two languages really differ
    assert_ne!(Lang::ZhCn.t("sign-in-submit"), Lang::En.t("sign-in-submit"));
}

async fn an_admin_chooses_a_language_for_every_session(app: TestApp) {
    let mut english = Console::new_in(&app.admin_url, "en");
    english
        .sign_in(&app.admin_username, &app.admin_password)
        .await;
    let page = english.get("/console/questions?page=1").await;
    page.assert_contains("<html lang=\"en\">")
        .assert_contains(&Lang::En.t("nav-questions"))
        .assert_contains("id=\"language-form\"")
        // the menu returns to this page
        .assert_contains("name=\"back\" value=\"/console/questions?page=1\"");

    // the header's menu: Chinese, back to the page it was chosen on
    let chosen = english
        .post(
            "/console/language",
            &[("language", "zh-CN"), ("back", "/console/questions?page=1")],
        )
        .await;
    assert_eq!(chosen.status, 303, "{}", chosen.body);
    assert_eq!(chosen.location(), Some("/console/questions?page=1"));
    let page = english.follow(&chosen).await;
    page.assert_contains("<html lang=\"zh-CN\">")
        .assert_contains(&Lang::ZhCn.t("nav-questions"))
        .assert_contains(&Lang::ZhCn.t("sign-out"));
    assert!(!page.contains(&format!(">{}<", Lang::En.t("sign-out"))));
    assert_eq!(
        app.text(
            "SELECT language FROM admins WHERE username = $1",
            &[app.admin_username.as_str()]
        )
        .await,
        "zh-CN"
    );

    // stored on the account: a new session in an English browser reads Chinese
    let mut elsewhere = Console::new_in(&app.admin_url, "en-GB,en;q=0.9");
    elsewhere
        .sign_in(&app.admin_username, &app.admin_password)
        .await;
    elsewhere
        .get("/console")
        .await
        .assert_contains("<html lang=\"zh-CN\">");

    // refused: an unknown language (the page in the chosen language), a foreign back
    // address (the dashboard instead), a form without its token
    let refused = elsewhere
        .post(
            "/console/language",
            &[("language", "fr"), ("back", "/console")],
        )
        .await;
    refused
        .assert_status(400)
        .assert_contains("<html lang=\"zh-CN\">")
        .assert_contains("未知的语言：fr");
    let foreign = elsewhere
        .post(
            "/console/language",
            &[("language", "en"), ("back", "//evil.example/console")],
        )
        .await;
    assert_eq!(foreign.status, 303);
    assert_eq!(foreign.location(), Some("/console"));
    elsewhere
        .get("/console")
        .await
        .assert_contains("<html lang=\"en\">");
    let no_token = elsewhere
        .post_raw("/console/language", &[("language", "zh-CN")])
        .await;
    no_token.assert_status(403);

    // cleared: each browser's own language again
    let cleared = elsewhere
        .post(
            "/console/language",
            &[("language", ""), ("back", "/console")],
        )
        .await;
    assert_eq!(cleared.status, 303);
    elsewhere
        .get("/console")
        .await
        .assert_contains("<html lang=\"en\">");
    let mut chinese_browser = Console::new_in(&app.admin_url, "zh-CN");
    chinese_browser
        .sign_in(&app.admin_username, &app.admin_password)
        .await;
    chinese_browser
        .get("/console")
        .await
        .assert_contains("<html lang=\"zh-CN\">");
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM admins WHERE username = $1 AND language IS NULL",
            &[app.admin_username.as_str()]
        )
        .await,
        1
    );
}

async fn pages_show_refusals_and_times_in_the_language(app: TestApp) {
    let mut chinese = Console::new_in(&app.admin_url, "zh-CN");
    chinese
        .sign_in(&app.admin_username, &app.admin_password)
        .await;
    // a refusal: the error page in Chinese, the code unchanged
    let missing = chinese.get("/console/questions/no-such-question").await;
    missing
        .assert_status(404)
        .assert_contains("<html lang=\"zh-CN\">")
        .assert_contains(&Lang::ZhCn.t("page-refused"))
        .assert_contains("NOT_FOUND");
    assert!(!missing.contains("not found"), "{}", missing.body);

    // times: the clock starts at 2026-11-18T04:00:00Z, which is 12:00 in Beijing
    let (player_id, _, _) = app.guest("language-player").await;
    let page = chinese.get(&format!("/console/players/{player_id}")).await;
    page.assert_status(200).assert_contains("2026-11-18 12:00");
    assert!(!page.contains("2026-11-18 04:00"), "{}", page.body);

    // the audit log names its actions in the page's language (the stored name kept)
    chinese
        .post(
            &format!("/console/players/{player_id}/ban"),
            &[("reason", "测试"), ("days", "1")],
        )
        .await
        .assert_status(303);
    chinese
        .get("/console/audit")
        .await
        .assert_contains(&Lang::ZhCn.t("audit-action-player-ban"))
        .assert_contains("title=\"player.ban\"");
    assert_eq!(Lang::En.t("audit-action-player-ban"), "player.ban");
}
