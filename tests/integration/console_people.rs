//! The HTML console's people screens through HTTP, as a browser without JavaScript:
//! players (search, ban, unban), admin accounts (roles, one-time passwords, my password),
//! sign-in provider switches, the feedback inbox and the audit log.

use reqwest::Method;
use serde_json::{Value, json};
use shared::ids::{AdminId, PlayerId};
use shared::services::moderation;
use tests::console::{Console, Page};
use tests::{Resp, Service, TestApp, both_engines};

both_engines!(
    players_are_searched_and_paged,
    a_ban_reaches_the_player_api_and_unban_restores,
    bad_ban_input_is_shown_on_the_page,
    a_plain_admin_reads_accounts_but_cannot_write,
    super_admin_creates_edits_resets_and_deletes_admins,
    change_password_keeps_this_session_and_ends_the_others,
    provider_switches_reach_the_player_api,
    feedback_and_audit_log_list_api_writes,
    posts_without_the_csrf_token_are_refused_and_write_nothing,
    a_stored_avatar_address_is_a_link_only_over_http,
);

async fn api(app: &TestApp, method: Method, path: &str, body: Option<Value>, token: &str) -> Resp {
    app.call(Service::Admin, method, path, body, Some(token))
        .await
}

async fn nickname(app: &TestApp, player: &str) -> String {
    app.text("SELECT nickname FROM players WHERE id = $1", &[player])
        .await
}

/// Audited writes (sign-ins, which are audited too, left out).
async fn audit_total(app: &TestApp) -> i64 {
    app.scalar(
        "SELECT count(*) FROM audit_log WHERE action NOT IN ('admin.login', 'admin.login_failed')",
        &[],
    )
    .await
}

/// The one-time password shown on a create or reset result page (HTML-unescaped:
/// generated passwords may hold `&`).
fn one_time_password(page: &Page) -> String {
    let marker = "<code id=\"one-time-password\">";
    let start = page.body.find(marker).expect("no one-time password") + marker.len();
    let end = page.body[start..].find("</code>").unwrap();
    unescape(&page.body[start..start + end])
}

/// Undoes askama's escaping (`&#NN;` and the named entities).
fn unescape(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let end = rest[at..].find(';').expect("unterminated entity") + at;
        let entity = &rest[at + 1..end];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => char::from_u32(entity.trim_start_matches('#').parse().unwrap()).unwrap(),
        };
        out.push(c);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn player_rows(page: &Page) -> usize {
    page.body.matches("class=\"player-link\"").count()
}

async fn players_are_searched_and_paged(app: TestApp) {
    let (first, _, _) = app.guest("people-first").await;
    for i in 0..21 {
        app.guest(&format!("people-{i}")).await;
    }
    let name = nickname(&app, &first).await;
    let mut console = app.console_signed_in().await;

    let list = console.get("/console/players").await;
    list.assert_status(200)
        .assert_contains("id=\"player-search\"")
        .assert_contains("aria-current=\"page\">Players")
        .assert_contains("22 in all")
        .assert_contains("id=\"next-page\"");
    assert_eq!(player_rows(&list), 20);
    let second = console.get("/console/players?page=2").await;
    second
        .assert_status(200)
        .assert_contains("id=\"prev-page\"");
    assert_eq!(player_rows(&second), 2);

    // by nickname and by part of the id; the rows link to the player's page
    let found = console
        .get(&format!("/console/players?search={name}"))
        .await;
    found
        .assert_status(200)
        .assert_contains(&format!("href=\"/console/players/{first}\""))
        .assert_contains(&format!("value=\"{name}\""));
    assert_eq!(player_rows(&found), 1);
    let by_id = console
        .get(&format!("/console/players?search={}", &first[..8]))
        .await;
    by_id.assert_contains(&format!("href=\"/console/players/{first}\""));
    let none = console
        .get("/console/players?search=nobody-like-this")
        .await;
    none.assert_status(200)
        .assert_contains("No player matches.");
    assert_eq!(player_rows(&none), 0);
    // htmx gets the table alone
    let fragment = console
        .htmx_get(&format!("/console/players?search={name}"))
        .await;
    fragment
        .assert_status(200)
        .assert_contains("id=\"players\"");
    assert!(!fragment.contains("<html"), "{}", fragment.body);

    // the player's page
    let page = console.get(&format!("/console/players/{first}")).await;
    page.assert_status(200)
        .assert_contains(&name)
        .assert_contains("id=\"player-xp\">0<")
        .assert_contains("id=\"player-level\">")
        .assert_contains("id=\"player-sign-in\">device<")
        .assert_contains("id=\"ban-status\"")
        .assert_contains("Not banned.")
        .assert_contains("id=\"ban-form\"")
        .assert_contains("id=\"ban-reason\"")
        .assert_contains("id=\"ban-player\"");
    assert!(!page.contains("id=\"unban-player\""));
    console
        .get("/console/players/nobody")
        .await
        .assert_status(404);
    console
        .get("/console/players?page=0")
        .await
        .assert_status(400);
    console
        .get("/console/players?page=x")
        .await
        .assert_status(400);
}

async fn a_ban_reaches_the_player_api_and_unban_restores(app: TestApp) {
    let (player, token, _) = app.guest("people-ban").await;
    let mut console = app.console_signed_in().await;
    let path = format!("/console/players/{player}");
    console.get(&path).await.assert_status(200);

    // no end: until unbanned
    let done = console
        .post(
            &format!("{path}/ban"),
            &[("reason", "cheating"), ("days", ""), ("until", "")],
        )
        .await;
    done.assert_status(303);
    assert_eq!(done.location(), Some(path.as_str()));
    let page = console.follow(&done).await;
    page.assert_status(200)
        .assert_contains("Banned until unbanned.")
        .assert_contains("data-banned=\"true\"")
        .assert_contains("reason: cheating")
        .assert_contains("id=\"unban-player\"");
    app.get("/v1/auth/me", Some(&token))
        .await
        .assert_error(403, "FORBIDDEN");
    let list = console.get("/console/players").await;
    list.assert_contains("badge banned");

    let done = console.post(&format!("{path}/unban"), &[]).await;
    done.assert_status(303);
    let page = console.follow(&done).await;
    page.assert_contains("Ban lifted.")
        .assert_contains("data-banned=\"false\"");
    assert!(!page.contains("id=\"unban-player\""));
    app.get("/v1/auth/me", Some(&token)).await.ok();

    // an end in days, from the service clock
    console
        .post(&format!("{path}/ban"), &[("reason", ""), ("days", "2")])
        .await
        .assert_status(303);
    let record = moderation::player(&app.ctx, &PlayerId::from_trusted(player.as_str()))
        .await
        .unwrap();
    assert!(record.is_banned);
    assert_eq!(record.ban_reason, None);
    let expected = app.clock.now() + chrono::Duration::days(2);
    let drift = record.banned_until.unwrap() - expected;
    assert!(drift.num_seconds().abs() < 5, "{drift}");
    // an end as a Beijing time (datetime-local), shown in Beijing time
    let end = app.clock.now() + chrono::Duration::hours(5);
    let beijing = end.with_timezone(&chrono_tz::Asia::Shanghai);
    let until = beijing.format("%Y-%m-%dT%H:%M").to_string();
    console
        .post(
            &format!("{path}/ban"),
            &[("reason", "spam"), ("until", until.as_str())],
        )
        .await
        .assert_status(303);
    let page = console.get(&path).await;
    page.assert_contains(&format!("until {}", beijing.format("%Y-%m-%d %H:%M")))
        .assert_contains("reason: spam");
    let record = moderation::player(&app.ctx, &PlayerId::from_trusted(player.as_str()))
        .await
        .unwrap();
    let drift = record.banned_until.unwrap() - end;
    assert!(
        drift.num_seconds().abs() < 60,
        "read as Beijing time: {drift}"
    );
    app.get("/v1/auth/me", Some(&token))
        .await
        .assert_error(403, "FORBIDDEN");

    // htmx: the ban panel comes back as a fragment
    let fragment = console.htmx_post(&format!("{path}/unban"), &[]).await;
    fragment
        .assert_status(200)
        .assert_contains("Ban lifted.")
        .assert_contains("data-banned=\"false\"");
    assert!(!fragment.contains("<html"));
    let fragment = console
        .htmx_post(&format!("{path}/ban"), &[("reason", "again")])
        .await;
    fragment
        .assert_status(200)
        .assert_contains("data-banned=\"true\"");
    app.get("/v1/auth/me", Some(&token))
        .await
        .assert_error(403, "FORBIDDEN");
}

async fn bad_ban_input_is_shown_on_the_page(app: TestApp) {
    let (player, token, _) = app.guest("people-bad-ban").await;
    let mut console = app.console_signed_in().await;
    let path = format!("/console/players/{player}");
    console.get(&path).await;
    let past = (app.clock.now() - chrono::Duration::hours(1))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("until", past.as_str())], "until must be in the future"),
        (
            &[("days", "2"), ("until", "2099-01-01T00:00")],
            "either in days or as a time",
        ),
        (&[("days", "0")], "days must be 1-36500"),
        (&[("days", "two")], "days must be a whole number"),
        (&[("until", "soon")], "until must be a date and time"),
    ];
    for (fields, message) in cases {
        let mut all = vec![("reason", "kept reason")];
        all.extend_from_slice(fields);
        let page = console.post(&format!("{path}/ban"), &all).await;
        page.assert_status(400)
            .assert_contains(message)
            .assert_contains("id=\"form-error\"")
            .assert_contains("value=\"kept reason\"")
            .assert_contains("Not banned.");
    }
    let long = "x".repeat(501);
    console
        .post(&format!("{path}/ban"), &[("reason", &long)])
        .await
        .assert_status(400)
        .assert_contains("reason must be at most 500 characters");
    // htmx: the message goes to the flash area
    let fragment = console
        .htmx_post(&format!("{path}/ban"), &[("days", "0")])
        .await;
    fragment
        .assert_status(400)
        .assert_contains("days must be 1-36500");
    assert_eq!(fragment.header("hx-retarget"), Some("#flash"));
    console
        .post("/console/players/nobody/ban", &[])
        .await
        .assert_status(404);
    console
        .post("/console/players/nobody/unban", &[])
        .await
        .assert_status(404);
    app.get("/v1/auth/me", Some(&token)).await.ok();
    assert!(
        !moderation::player(&app.ctx, &PlayerId::from_trusted(player.as_str()))
            .await
            .unwrap()
            .is_banned
    );
    assert_eq!(audit_total(&app).await, 0);
}

async fn a_plain_admin_reads_accounts_but_cannot_write(app: TestApp) {
    let (_, _, root_id) = app.admin_login().await;
    let mut plain = app.console_as_plain_admin().await;
    let before = audit_total(&app).await;

    let list = plain.get("/console/admins").await;
    list.assert_status(200)
        .assert_contains("aria-current=\"page\">Admins")
        .assert_contains(&app.admin_username)
        .assert_contains("id=\"read-only-note\"")
        .assert_contains("id=\"change-password-link\"");
    for form in ["id=\"new-admin\"", "/console/admins/new"] {
        assert!(!list.contains(form), "{form} shown to a plain admin");
    }
    let detail = plain.get(&format!("/console/admins/{root_id}")).await;
    detail
        .assert_status(200)
        .assert_contains(&app.admin_username)
        .assert_contains("super_admin")
        .assert_contains("id=\"read-only-note\"");
    for form in [
        "admin-edit-form",
        "reset-password-form",
        "delete-admin-form",
        "/reset-password\"",
        "/delete\"",
    ] {
        assert!(!detail.contains(form), "{form} shown to a plain admin");
    }
    plain.get("/console/admins/new").await.assert_status(403);

    // posts with a valid token still need super_admin
    let root = format!("/console/admins/{root_id}");
    let posts: [(String, Vec<(&str, &str)>); 4] = [
        (
            "/console/admins/new".into(),
            vec![
                ("username", "sneaky"),
                ("role", "super_admin"),
                ("password", ""),
            ],
        ),
        (
            root.clone(),
            vec![
                ("username", "renamed"),
                ("role", "admin"),
                ("isActive", "0"),
            ],
        ),
        (format!("{root}/delete"), vec![]),
        (format!("{root}/reset-password"), vec![]),
    ];
    for (path, fields) in &posts {
        let page = plain.post(path, fields).await;
        page.assert_status(403).assert_contains("super_admin");
        assert!(!page.contains("one-time-password"));
    }
    // htmx gets the refusal as a flash
    let fragment = plain.htmx_post(&format!("{root}/delete"), &[]).await;
    fragment.assert_status(403);
    assert_eq!(fragment.header("hx-retarget"), Some("#flash"));

    assert_eq!(audit_total(&app).await, before);
    assert_eq!(app.scalar("SELECT count(*) FROM admins", &[]).await, 2);
    let root_row = shared::services::admin_auth::get_account(
        &app.ctx,
        &AdminId::from_trusted(root_id.as_str()),
    )
    .await
    .unwrap();
    assert_eq!(root_row.username, app.admin_username);
    assert_eq!(root_row.is_active, 1);
    assert_eq!(root_row.role.as_str(), "super_admin");
    // the root's password still works
    app.admin_login().await;
    // and the plain admin may still use the console
    plain.get("/console").await.assert_status(200);
}

async fn super_admin_creates_edits_resets_and_deletes_admins(app: TestApp) {
    let (_, _, root_id) = app.admin_login().await;
    let mut console = app.console_signed_in().await;
    let list = console.get("/console/admins").await;
    list.assert_status(200).assert_contains("id=\"new-admin\"");
    assert!(!list.contains("id=\"read-only-note\""));
    console
        .get("/console/admins/new")
        .await
        .assert_status(200)
        .assert_contains("id=\"create-admin-form\"");

    // a generated password, shown once
    let created = console
        .post(
            "/console/admins/new",
            &[
                ("username", "helper-one"),
                ("role", "admin"),
                ("password", ""),
            ],
        )
        .await;
    created
        .assert_status(200)
        .assert_contains("Admin created")
        .assert_contains("helper-one");
    let password = one_time_password(&created);
    assert_eq!(password.chars().count(), 12);
    let list = console.get("/console/admins").await;
    list.assert_contains("helper-one");
    assert!(!list.contains(&password), "the password is shown once only");
    let helper_id = app
        .text("SELECT id FROM admins WHERE username = 'helper-one'", &[])
        .await;
    assert!(
        !console
            .get(&format!("/console/admins/{helper_id}"))
            .await
            .contains(&password)
    );
    let mut helper = app.console();
    helper.sign_in("helper-one", &password).await;

    // a chosen password is echoed once too; bad input is shown on the form
    let chosen = console
        .post(
            "/console/admins/new",
            &[
                ("username", "helper-two"),
                ("role", "super_admin"),
                ("password", "Chosen-pass-1"),
            ],
        )
        .await;
    assert_eq!(one_time_password(&chosen), "Chosen-pass-1");
    for (fields, message) in [
        (
            [
                ("username", "helper-one"),
                ("role", "admin"),
                ("password", ""),
            ],
            "username is already taken",
        ),
        (
            [("username", "ab"), ("role", "admin"), ("password", "")],
            "username must be 3-50 characters",
        ),
        (
            [
                ("username", "helper-three"),
                ("role", "boss"),
                ("password", ""),
            ],
            "role must be super_admin or admin",
        ),
        (
            [
                ("username", "helper-three"),
                ("role", "admin"),
                ("password", "short"),
            ],
            "password must be 8-128 characters",
        ),
    ] {
        let page = console.post("/console/admins/new", &fields).await;
        page.assert_status(400)
            .assert_contains(message)
            .assert_contains("id=\"create-admin-form\"");
        assert!(!page.contains("one-time-password"));
    }

    // edit: the detail page has the forms, a save redirects with a flash
    let detail = console.get(&format!("/console/admins/{helper_id}")).await;
    detail
        .assert_status(200)
        .assert_contains("id=\"admin-edit-form\"")
        .assert_contains("id=\"reset-password\"")
        .assert_contains("id=\"delete-admin\"");
    let saved = console
        .post(
            &format!("/console/admins/{helper_id}"),
            &[
                ("username", "helper-uno"),
                ("role", "super_admin"),
                ("isActive", "1"),
            ],
        )
        .await;
    saved.assert_status(303);
    console
        .follow(&saved)
        .await
        .assert_contains("Saved helper-uno.")
        .assert_contains("id=\"admin-role-value\">super_admin<");
    let account = shared::services::admin_auth::get_account(
        &app.ctx,
        &AdminId::from_trusted(helper_id.as_str()),
    )
    .await
    .unwrap();
    assert_eq!(
        (account.username.as_str(), account.role.as_str()),
        ("helper-uno", "super_admin")
    );
    // a refused edit is shown with the typed values
    let refused = console
        .post(
            &format!("/console/admins/{helper_id}"),
            &[
                ("username", "helper-two"),
                ("role", "admin"),
                ("isActive", "1"),
            ],
        )
        .await;
    refused
        .assert_status(400)
        .assert_contains("username is already taken")
        .assert_contains("value=\"helper-two\"");

    // reset: a new password once, the admin's sessions end
    let reset = console
        .post(&format!("/console/admins/{helper_id}/reset-password"), &[])
        .await;
    reset
        .assert_status(200)
        .assert_contains("Password reset")
        .assert_contains("helper-uno");
    let new_password = one_time_password(&reset);
    assert_ne!(new_password, password);
    let gone = helper.get("/console").await;
    gone.assert_status(303);
    assert_eq!(gone.location(), Some("/console/login"));
    let mut helper = app.console();
    helper.sign_in("helper-uno", &new_password).await;

    // delete: deactivated, signed out
    let deleted = console
        .post(&format!("/console/admins/{helper_id}/delete"), &[])
        .await;
    deleted.assert_status(303);
    assert_eq!(deleted.location(), Some("/console/admins"));
    console
        .follow(&deleted)
        .await
        .assert_contains("helper-uno is deactivated");
    let gone = helper.get("/console").await;
    gone.assert_status(303);
    assert_eq!(gone.location(), Some("/console/login"));
    let account = shared::services::admin_auth::get_account(
        &app.ctx,
        &AdminId::from_trusted(helper_id.as_str()),
    )
    .await
    .unwrap();
    assert_eq!(account.is_active, 0);

    // the last active super_admin rule, through the form
    let helper_two = app
        .text("SELECT id FROM admins WHERE username = 'helper-two'", &[])
        .await;
    console
        .post(&format!("/console/admins/{helper_two}/delete"), &[])
        .await
        .assert_status(303);
    let refused = console
        .post(
            &format!("/console/admins/{root_id}"),
            &[
                ("username", app.admin_username.as_str()),
                ("role", "admin"),
                ("isActive", "1"),
            ],
        )
        .await;
    refused
        .assert_status(400)
        .assert_contains("the last active super_admin");
    console
        .post("/console/admins/nobody/reset-password", &[])
        .await
        .assert_status(404);
    console
        .post("/console/admins/nobody/delete", &[])
        .await
        .assert_status(404);
    console
        .get("/console/admins/nobody")
        .await
        .assert_status(404);

    // every write is in the audit log
    let audit = console.get("/console/audit").await;
    for action in [
        "admin.create",
        "admin.update",
        "admin.reset_password",
        "admin.delete",
    ] {
        audit.assert_contains(action);
    }
}

async fn change_password_keeps_this_session_and_ends_the_others(app: TestApp) {
    let mut this = app.console_signed_in().await;
    let mut other = app.console_signed_in().await;
    let form = this.get("/console/admins/password").await;
    form.assert_status(200)
        .assert_contains("id=\"change-password-form\"")
        .assert_contains("id=\"current-password\"");

    let wrong = this
        .post(
            "/console/admins/password",
            &[
                ("currentPassword", "not-the-password"),
                ("newPassword", "Brand-new-pass-1"),
                ("confirmPassword", "Brand-new-pass-1"),
            ],
        )
        .await;
    wrong
        .assert_status(400)
        .assert_contains("current password is wrong")
        .assert_contains("id=\"change-password-form\"");
    let current = app.admin_password.clone();
    let differ = this
        .post(
            "/console/admins/password",
            &[
                ("currentPassword", current.as_str()),
                ("newPassword", "Brand-new-pass-1"),
                ("confirmPassword", "Brand-new-pass-2"),
            ],
        )
        .await;
    differ.assert_status(400).assert_contains("differ");
    let short = this
        .post(
            "/console/admins/password",
            &[
                ("currentPassword", current.as_str()),
                ("newPassword", "short"),
                ("confirmPassword", "short"),
            ],
        )
        .await;
    short
        .assert_status(400)
        .assert_contains("password must be 8-128 characters");
    // nothing changed so far: both browsers are signed in
    other.get("/console").await.assert_status(200);

    let changed = this
        .post(
            "/console/admins/password",
            &[
                ("currentPassword", current.as_str()),
                ("newPassword", "Brand-new-pass-1"),
                ("confirmPassword", "Brand-new-pass-1"),
            ],
        )
        .await;
    changed.assert_status(303);
    assert_eq!(changed.location(), Some("/console/admins"));
    this.follow(&changed)
        .await
        .assert_status(200)
        .assert_contains("Password changed.");
    // this browser carries on, forms included
    this.get("/console").await.assert_status(200);
    this.get("/console/providers").await;
    this.post(
        "/console/providers/toggle",
        &[("id", "wechat"), ("enabled", "false")],
    )
    .await
    .assert_status(303);
    // the other browser is signed out
    let gone = other.get("/console").await;
    gone.assert_status(303);
    assert_eq!(gone.location(), Some("/console/login"));
    // the new password signs in, the old one does not
    let mut again = app.console();
    again.sign_in(&app.admin_username, "Brand-new-pass-1").await;
    app.admin_post(
        "/v1/admin/login",
        json!({"username": app.admin_username, "password": current}),
        None,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
}

async fn provider_enabled(app: &TestApp, id: &str) -> Value {
    let list = app
        .get("/v1/auth/providers?platform=ios", None)
        .await
        .ok()
        .clone();
    list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap()["enabled"]
        .clone()
}

async fn provider_switches_reach_the_player_api(app: TestApp) {
    let mut console = app.console_signed_in().await;
    let page = console.get("/console/providers").await;
    page.assert_status(200)
        .assert_contains("aria-current=\"page\">Sign-in providers")
        .assert_contains("id=\"toggle-wechat\"")
        .assert_contains("built in");
    assert!(!page.contains("id=\"toggle-phone_sms\""));
    assert_eq!(provider_enabled(&app, "wechat").await, true);

    let done = console
        .post(
            "/console/providers/toggle",
            &[("id", "wechat"), ("enabled", "false")],
        )
        .await;
    done.assert_status(303);
    let page = console.follow(&done).await;
    page.assert_contains("is disabled")
        .assert_contains("id=\"provider-state-wechat\"><span class=\"badge inactive\">disabled");
    assert_eq!(provider_enabled(&app, "wechat").await, false);
    let stored = moderation::providers(&app.ctx).await.unwrap();
    assert!(
        !stored
            .providers
            .iter()
            .find(|p| p.id == "wechat")
            .unwrap()
            .enabled
    );

    console
        .post(
            "/console/providers/toggle",
            &[("id", "wechat"), ("enabled", "true")],
        )
        .await
        .assert_status(303);
    assert_eq!(provider_enabled(&app, "wechat").await, true);

    let before = audit_total(&app).await;
    for (id, enabled, message) in [
        ("phone_sms", "false", "not a third-party provider"),
        ("myspace", "true", "not a third-party provider"),
        ("wechat", "maybe", "enabled must be true or false"),
    ] {
        console
            .post(
                "/console/providers/toggle",
                &[("id", id), ("enabled", enabled)],
            )
            .await
            .assert_status(400)
            .assert_contains(message);
    }
    assert_eq!(audit_total(&app).await, before);
    // any admin may switch providers, as in the JSON API
    let mut plain = app.console_as_plain_admin().await;
    plain.get("/console/providers").await;
    plain
        .post(
            "/console/providers/toggle",
            &[("id", "wechat"), ("enabled", "false")],
        )
        .await
        .assert_status(303);
    assert_eq!(provider_enabled(&app, "wechat").await, false);
}

async fn feedback_and_audit_log_list_api_writes(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let (player, player_token, _) = app.guest("people-feedback").await;
    let mut console = app.console_signed_in().await;
    let empty = console.get("/console/feedback").await;
    empty
        .assert_status(200)
        .assert_contains("aria-current=\"page\">Feedback")
        .assert_contains("No feedback yet.");
    // Only the two sign-ins (the API's and the console's) so far.
    console
        .get("/console/audit")
        .await
        .assert_status(200)
        .assert_contains("admin.login")
        .assert_contains("2 in all");

    app.post(
        "/v1/feedback",
        json!({"content": "More <history> please", "contact": "me@example.com"}),
        Some(&player_token),
    )
    .await
    .ok();
    let inbox = console.get("/console/feedback").await;
    inbox
        .assert_status(200)
        .assert_contains("More &#60;history&#62; please")
        .assert_contains("me@example.com")
        .assert_contains(&format!("href=\"/console/players/{player}\""))
        .assert_contains("1 in all");

    api(
        &app,
        Method::PUT,
        &format!("/v1/admin/users/{player}/ban"),
        Some(json!({"reason": "spam"})),
        &token,
    )
    .await
    .ok();
    api(
        &app,
        Method::PUT,
        "/v1/admin/auth-providers",
        Some(json!({"providers": [{"id": "wechat", "enabled": false}]})),
        &token,
    )
    .await
    .ok();
    let log = console.get("/console/audit").await;
    log.assert_status(200)
        .assert_contains("aria-current=\"page\">Audit log")
        .assert_contains("player.ban")
        .assert_contains("auth_providers.update")
        .assert_contains(&format!("href=\"/console/players/{player}\""))
        .assert_contains(&app.admin_username)
        .assert_contains("isBanned")
        .assert_contains("spam")
        .assert_contains("4 in all");
    // newest first
    let ban_at = log.body.find("player.ban").unwrap();
    let providers_at = log.body.find("auth_providers.update").unwrap();
    assert!(providers_at < ban_at);

    // many entries page
    for i in 0..20 {
        let enabled = i % 2 == 0;
        api(
            &app,
            Method::PUT,
            "/v1/admin/auth-providers",
            Some(json!({"providers": [{"id": "wechat", "enabled": enabled}]})),
            &token,
        )
        .await
        .ok();
    }
    let first = console.get("/console/audit").await;
    first
        .assert_contains("24 in all")
        .assert_contains("href=\"/console/audit?page=2\"");
    assert!(!first.contains("player.ban"));
    console
        .get("/console/audit?page=2")
        .await
        .assert_status(200)
        .assert_contains("player.ban");
    console
        .get("/console/audit?page=0")
        .await
        .assert_status(400);
    console
        .get("/console/feedback?page=x")
        .await
        .assert_status(400);
}

async fn posts_without_the_csrf_token_are_refused_and_write_nothing(app: TestApp) {
    let (player, _, _) = app.guest("people-csrf").await;
    let (_, _, root_id) = app.admin_login().await;
    // signed out, the pages send the browser to the sign-in form
    let mut stranger = app.console();
    for path in [
        "/console/players",
        "/console/admins",
        "/console/providers",
        "/console/feedback",
        "/console/audit",
    ] {
        let page = stranger.get(path).await;
        page.assert_status(303);
        assert_eq!(page.location(), Some("/console/login"));
    }

    let mut console: Console = app.console_signed_in().await;
    console.get("/console/admins").await;
    let password = app.admin_password.clone();
    let posts: Vec<(String, Vec<(&str, &str)>)> = vec![
        (
            format!("/console/players/{player}/ban"),
            vec![("reason", "x")],
        ),
        (format!("/console/players/{player}/unban"), vec![]),
        (
            "/console/admins/new".into(),
            vec![
                ("username", "csrf-admin"),
                ("role", "admin"),
                ("password", ""),
            ],
        ),
        (
            format!("/console/admins/{root_id}"),
            vec![
                ("username", "renamed"),
                ("role", "super_admin"),
                ("isActive", "1"),
            ],
        ),
        (format!("/console/admins/{root_id}/reset-password"), vec![]),
        (
            "/console/admins/password".into(),
            vec![
                ("currentPassword", password.as_str()),
                ("newPassword", "Brand-new-pass-1"),
                ("confirmPassword", "Brand-new-pass-1"),
            ],
        ),
        (
            "/console/providers/toggle".into(),
            vec![("id", "wechat"), ("enabled", "false")],
        ),
        (format!("/console/admins/{root_id}/delete"), vec![]),
    ];
    for (path, fields) in &posts {
        let page = console.post_raw(path, fields).await;
        page.assert_status(403).assert_contains("security token");
        let mut wrong = fields.clone();
        wrong.push(("_csrf", "not-the-token"));
        console.post_raw(path, &wrong).await.assert_status(403);
    }

    assert_eq!(audit_total(&app).await, 0);
    assert!(
        !moderation::player(&app.ctx, &PlayerId::from_trusted(player.as_str()))
            .await
            .unwrap()
            .is_banned
    );
    assert_eq!(app.scalar("SELECT count(*) FROM admins", &[]).await, 1);
    let root = shared::services::admin_auth::get_account(
        &app.ctx,
        &AdminId::from_trusted(root_id.as_str()),
    )
    .await
    .unwrap();
    assert_eq!(
        (root.username.as_str(), root.is_active),
        (app.admin_username.as_str(), 1)
    );
    assert_eq!(provider_enabled(&app, "wechat").await, true);
    // the password did not change and the session lives on
    app.admin_login().await;
    console.get("/console").await.assert_status(200);
}

/// A player's stored avatar address is a link on their page only when it is an
/// `http(s)` URL: a `javascript:` or `data:` address would run in the console's origin
/// when an admin clicks it, so it is shown as text.
async fn a_stored_avatar_address_is_a_link_only_over_http(app: TestApp) {
    let (player, _, _) = app.guest("device-avatar").await;
    let mut browser = app.console_signed_in().await;
    let path = format!("/console/players/{player}");
    for (stored, link) in [
        (
            "https://cdn.example.com/a.png",
            Some("https://cdn.example.com/a.png"),
        ),
        (
            "http://cdn.example.com/b c.png",
            Some("http://cdn.example.com/b%20c.png"),
        ),
        ("javascript:alert(document.cookie)", None),
        (" JavaScript:alert(1)", None),
        ("java\tscript:alert(1)", None),
        (
            "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
            None,
        ),
        ("vbscript:msgbox(1)", None),
        ("//evil.example.com/x.png", None),
    ] {
        app.exec(
            "UPDATE players SET avatar_url = $1 WHERE id = $2",
            &[stored, &player],
        )
        .await;
        let page = browser.get(&path).await;
        page.assert_status(200);
        match link {
            Some(href) => {
                page.assert_contains(&format!(
                    "<a href=\"{href}\" rel=\"noreferrer\" id=\"player-avatar\">"
                ));
            }
            None => {
                page.assert_contains("<span id=\"player-avatar\">");
                assert!(!page.contains("<a href=\"java"), "{stored}");
                assert!(!page.contains("href=\"data:"), "{stored}");
                assert!(!page.contains("href=\" Java"), "{stored}");
                assert!(!page.contains("href=\"vbscript:"), "{stored}");
                assert!(!page.contains("href=\"//evil"), "{stored}");
            }
        }
    }
}
