//! Error messages in the client's language: `Accept-Language` picks zh-CN or en (zh-CN
//! when absent or naming neither), `error.code` never changes, an import's item errors
//! follow, and the answer says it varies by the header.

use serde_json::{Value, json};
use tests::{Service, TestApp, both_engines};

both_engines!(error_messages_follow_accept_language);

/// `(status, code, message, details, vary)` of one call with `accept` as the header.
async fn call(
    app: &TestApp,
    accept: &str,
    service: Service,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
    token: Option<&str>,
) -> (u16, String, String, Value, String) {
    let client = TestApp::client_in(accept);
    let mut req = client.request(method, app.url(service, path));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(body) = body {
        req = req.json(&body);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let vary = r
        .headers()
        .get_all("vary")
        .iter()
        .map(|v| v.to_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join(",");
    let body: Value = r.json().await.unwrap();
    (
        status,
        body["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        body["error"]["details"].clone(),
        vary,
    )
}

/// A request and the refusal it gets: service, method, path, body, token, then the
/// status, code and Chinese message ("" for any text without an English word).
type Case<'a> = (
    Service,
    reqwest::Method,
    &'a str,
    Option<Value>,
    Option<&'a str>,
    u16,
    &'a str,
    &'a str,
);

async fn error_messages_follow_accept_language(app: TestApp) {
    let (_, token, _) = app.guest("i18n-player").await;
    let get = reqwest::Method::GET;
    // absent, Chinese, English, weighted, unknown
    for (accept, expected) in [
        ("", "未找到该学习路线"),
        ("zh-CN,zh;q=0.9", "未找到该学习路线"),
        ("en-US,en;q=0.9", "track not found"),
        ("fr;q=1, en;q=0.8, zh;q=0.5", "track not found"),
        ("de", "未找到该学习路线"),
    ] {
        let (status, code, message, _, vary) = call(
            &app,
            accept,
            Service::Player,
            get.clone(),
            "/v1/challenges/next?trackId=no-such-track",
            None,
            Some(&token),
        )
        .await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "{accept}");
        assert_eq!(message, expected, "{accept}");
        assert!(vary.to_lowercase().contains("accept-language"), "{vary}");
    }
    // one answer per kind of refusal, Chinese by default, the code as in English
    let (admin, _, _) = app.admin_login().await;
    let cases: Vec<Case> = vec![
        (
            Service::Player,
            get.clone(),
            "/v1/tracks",
            None,
            None,
            401,
            "UNAUTHORIZED",
            "缺少 Authorization 请求头",
        ),
        (
            Service::Player,
            get.clone(),
            "/v1/leaderboards?limit=101",
            None,
            Some(&token),
            400,
            "VALIDATION_ERROR",
            "limit 须为 1 至 100",
        ),
        (
            Service::Player,
            get.clone(),
            "/v1/leaderboards?page=0",
            None,
            Some(&token),
            400,
            "VALIDATION_ERROR",
            "页码至少为 1",
        ),
        (
            Service::Player,
            get.clone(),
            "/v1/no/such/route",
            None,
            None,
            404,
            "NOT_FOUND",
            "没有 GET /v1/no/such/route 这个接口",
        ),
        (
            Service::Player,
            reqwest::Method::DELETE,
            "/v1/tracks",
            None,
            Some(&token),
            405,
            "METHOD_NOT_ALLOWED",
            "此处不允许使用 DELETE 方法",
        ),
        (
            Service::Player,
            reqwest::Method::POST,
            "/v1/shop/purchase",
            Some(json!({"productId": "heart-supply", "clientRequestId": "i18n-purchase-1"})),
            Some(&token),
            400,
            "NOT_AVAILABLE_IN_MVP",
            "",
        ),
        (
            Service::Admin,
            get.clone(),
            "/v1/admin/questions?difficulty=9",
            None,
            Some(&admin),
            400,
            "VALIDATION_ERROR",
            "难度须为 1 至 5",
        ),
        (
            Service::Admin,
            reqwest::Method::PATCH,
            "/v1/admin/questions/nope/status",
            Some(json!({"status": "published"})),
            Some(&admin),
            404,
            "NOT_FOUND",
            "未找到该题目",
        ),
    ];
    for (service, method, path, body, auth, status, code, message) in cases {
        let (s, c, m, _, _) =
            call(&app, "", service, method.clone(), path, body.clone(), auth).await;
        assert_eq!((s, c.as_str()), (status, code), "{path}: {m}");
        if message.is_empty() {
            // no English word in it
            assert!(!m.chars().any(|ch| ch.is_ascii_lowercase()), "{path}: {m}");
        } else {
            assert_eq!(m, message, "{path}");
        }
        let (_, c_en, m_en, _, _) = call(&app, "en", service, method, path, body, auth).await;
        assert_eq!(c_en, code);
        assert!(m_en.is_ascii(), "{path}: {m_en}");
    }
    // an import's item errors follow the language too
    let items = json!({"questions": [
        {"categoryId": "world-geography", "stem": {"text": ""}, "contentType": "text",
         "correctAnswer": "A", "distractors": ["B", "C"], "difficulty": 1}
    ]});
    let (status, code, message, details, _) = call(
        &app,
        "",
        Service::Admin,
        reqwest::Method::POST,
        "/v1/admin/questions/import",
        Some(items.clone()),
        Some(&admin),
    )
    .await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert_eq!(message, "有 1 项未通过校验");
    assert_eq!(details[0]["errors"][0], "题干不能为空");
    let (_, _, message, details, _) = call(
        &app,
        "en",
        Service::Admin,
        reqwest::Method::POST,
        "/v1/admin/questions/import",
        Some(items),
        Some(&admin),
    )
    .await;
    assert_eq!(message, "1 item(s) failed validation");
    assert_eq!(details[0]["errors"][0], "stem.text must not be empty");
}
