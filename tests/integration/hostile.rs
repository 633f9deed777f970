//! Hostile input, as property tests with a fixed seed (a small SplitMix64 generator, so a
//! failure names its case and replays exactly):
//! - the CSV import: generated and byte-mutated files never answer 5xx or outside the
//!   envelope, are all-or-nothing, and agree with the console's preview of the same text;
//! - every JSON body of every player and admin POST/PUT/PATCH operation, taken from the
//!   two OpenAPI documents at test time: schema-shaped, mutated and random bodies under
//!   random content types never answer 5xx or outside the envelope;
//! - oversized and deeply nested bodies are refused on every operation that takes a body
//!   (`envelope.rs` checks the exact answers on one route of each binary).

use std::collections::BTreeSet;

use reqwest::Method;
use rsa::pkcs1::EncodeRsaPrivateKey;
use serde_json::{Map, Value, json};
use shared::providers::oidc::testing::{TestKey, jwks};
use shared::services::questions::CSV_HEADER;
use tests::nppa::NppaFake;
use tests::{Engine, Resp, Service, TestApp, both_engines_raw};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

both_engines_raw!(
    csv_import_property,
    json_bodies_property,
    oversized_and_deep_bodies_are_refused_everywhere,
);

/// Generated files for the CSV property.
const CSV_CASES: usize = 128;
/// Generated bodies per operation for the JSON property.
const JSON_CASES_PER_OPERATION: usize = 24;
const SEED: u64 = 0x5eed_2026_1118;

/// SplitMix64: tiny, fast, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Strings that tend to break parsers, validators and SQL.
const NASTY: &[&str] = &[
    "",
    " ",
    "a",
    "0",
    "-1",
    "null",
    "true",
    "北京市",
    "😀🎉",
    "\u{0}",
    "\u{202e}reversed",
    "\u{feff}bom",
    "' OR '1'='1",
    "'; DROP TABLE players; --",
    "\"quoted\"",
    "a,b,c",
    "line\nbreak",
    "cr\rlf\r\n",
    "<script>alert(1)</script>",
    "%s%n%x",
    "../../etc/passwd",
    "${jndi:ldap://x}",
    "2026-11-18T04:00:00Z",
    "not-a-date",
    "1e309",
    "world-geography",
    "110000",
    "ios",
    "mock",
    "hearts",
    "published",
    "super_admin",
    "server_account_first",
    "ios_vendor",
    "13800138000",
    "+8613800138000",
];

fn random_string(rng: &mut Rng) -> String {
    match rng.below(6) {
        0..=2 => rng.pick(NASTY).to_string(),
        3 => {
            let len = rng.below(40);
            (0..len)
                .map(|_| char::from_u32(32 + rng.below(95) as u32).unwrap_or('x'))
                .collect()
        }
        4 => {
            // any Unicode scalar value
            let len = rng.below(12);
            (0..len)
                .filter_map(|_| char::from_u32(rng.below(0x11_0000) as u32))
                .collect()
        }
        _ => "x".repeat(*rng.pick(&[127usize, 128, 129, 255, 256, 2000, 2001, 5000])),
    }
}

fn random_number(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(1),
        3 => json!(i64::MAX),
        4 => json!(i64::MIN),
        5 => json!(u64::MAX),
        6 => json!(1e300),
        7 => json!(-0.5),
        8 => json!(3.25),
        9 => json!(rng.below(10)),
        10 => json!(rng.below(1000) as i64 - 500),
        _ => json!(201),
    }
}

fn random_json(rng: &mut Rng, depth: usize) -> Value {
    let scalar_only = depth == 0;
    match rng.below(if scalar_only { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => random_number(rng),
        3 => json!(random_string(rng)),
        4 => {
            let n = rng.below(4);
            Value::Array((0..n).map(|_| random_json(rng, depth - 1)).collect())
        }
        _ => {
            let n = rng.below(4);
            let mut map = Map::new();
            for _ in 0..n {
                map.insert(random_string(rng), random_json(rng, depth - 1));
            }
            Value::Object(map)
        }
    }
}

/// The OpenAPI documents' schemas, for `$ref` resolution.
struct Schemas<'a> {
    components: &'a Value,
}

impl Schemas<'_> {
    fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.rsplit('/').next().unwrap_or_default();
                let target = &self.components["schemas"][name];
                if target.is_null() { schema } else { target }
            }
            None => schema,
        }
    }

    /// A value shaped by `schema`, now and then of the wrong shape.
    fn instance(&self, rng: &mut Rng, schema: &Value, depth: usize) -> Value {
        if depth == 0 || rng.chance(8) {
            return random_json(rng, depth.min(2));
        }
        let schema = self.resolve(schema);
        for key in ["oneOf", "anyOf"] {
            if let Some(options) = schema.get(key).and_then(Value::as_array)
                && !options.is_empty()
            {
                let option = rng.pick(options);
                return self.instance(rng, option, depth - 1);
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            for part in parts {
                if let Value::Object(m) = self.instance(rng, part, depth - 1) {
                    merged.extend(m);
                }
            }
            return Value::Object(merged);
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array)
            && !values.is_empty()
        {
            return rng.pick(values).clone();
        }
        let kind = match &schema["type"] {
            Value::String(t) => t.clone(),
            Value::Array(types) if !types.is_empty() => {
                rng.pick(types).as_str().unwrap_or("null").to_string()
            }
            _ if schema.get("properties").is_some() => "object".into(),
            _ => return random_json(rng, 2),
        };
        match kind.as_str() {
            "object" => {
                let required: BTreeSet<&str> = schema["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut map = Map::new();
                if let Some(props) = schema["properties"].as_object() {
                    for (name, prop) in props {
                        let keep = if required.contains(name.as_str()) {
                            90
                        } else {
                            50
                        };
                        if rng.chance(keep) {
                            map.insert(name.clone(), self.instance(rng, prop, depth - 1));
                        }
                    }
                }
                if rng.chance(10) {
                    map.insert(random_string(rng), random_json(rng, 1));
                }
                Value::Object(map)
            }
            "array" => {
                let n = rng.below(5);
                Value::Array(
                    (0..n)
                        .map(|_| self.instance(rng, &schema["items"], depth - 1))
                        .collect(),
                )
            }
            "string" => match schema["format"].as_str() {
                Some("date-time") if rng.chance(70) => json!(
                    rng.pick(&[
                        "2026-11-18T04:00:00Z",
                        "2026-11-19T00:00:00+08:00",
                        "1970-01-01T00:00:00Z",
                        "9999-12-31T23:59:59Z",
                    ])
                    .to_string()
                ),
                _ => json!(random_string(rng)),
            },
            "integer" | "number" => random_number(rng),
            "boolean" => json!(rng.chance(50)),
            "null" => Value::Null,
            _ => random_json(rng, 2),
        }
    }
}

/// Turns a JSON text into a broken one now and then.
fn mutate_bytes(rng: &mut Rng, mut bytes: Vec<u8>) -> Vec<u8> {
    let edits = 1 + rng.below(3);
    for _ in 0..edits {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 => bytes.truncate(at),
            1 => bytes.insert(at, *rng.pick(b"{}[]\",:\\\x00\xff0a ")),
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ if at < bytes.len() => bytes[at] ^= 1 << rng.below(8),
            _ => bytes.push(b'}'),
        }
    }
    bytes
}

/// Asserts the answer is the envelope and not a server error.
#[track_caller]
fn assert_envelope(r: &Resp, case: &str) {
    assert!(r.status < 500, "{case}: {} {}", r.status, r.body);
    let b = &r.body;
    assert!(
        b.is_object() && b.get("success").is_some() && b.get("data").is_some(),
        "{case}: not the envelope ({}): {b}",
        r.status
    );
    if b["success"] == true {
        assert!((200..300).contains(&r.status), "{case}: {} {b}", r.status);
        assert!(b["error"].is_null(), "{case}: {b}");
    } else {
        assert_eq!(b["success"], false, "{case}: {b}");
        assert!(r.status >= 400, "{case}: {} {b}", r.status);
        assert!(b["data"].is_null(), "{case}: {b}");
        assert!(
            b["error"]["code"].as_str().is_some_and(|c| !c.is_empty()),
            "{case}: {b}"
        );
        assert!(
            b["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{case}: {b}"
        );
    }
}

async fn send(
    app: &TestApp,
    service: Service,
    method: Method,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
    token: Option<&str>,
) -> Resp {
    let mut req = app
        .client
        .request(method, app.url(service, path))
        .body(body);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    TestApp::read(req.send().await.unwrap()).await
}

async fn admin_token(app: &TestApp) -> String {
    app.admin_login().await.0
}

async fn questions(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM questions", &[]).await
}

/// A field that tends to break the column's rule or the CSV syntax.
fn hostile_field(rng: &mut Rng, column: usize) -> String {
    match (column, rng.below(3)) {
        (0, 0) => "no-such-category".into(),
        (1, 0) => rng.pick(&["TEXT", " text ", "pdf", ""]).to_string(),
        (2, 0) => rng
            .pick(&["0", "6", "-1", "2.5", "abc", "99999999999999999999"])
            .to_string(),
        _ => random_string(rng),
    }
}

/// A row that passes every check (until `hostile_field` replaces one of its fields).
fn good_row(rng: &mut Rng) -> Vec<String> {
    let mut row = vec![
        rng.pick(&["world-geography", "science-basics", "history-culture"])
            .to_string(),
        rng.pick(&["text", "image", "video", "audio"]).to_string(),
        rng.pick(&["", "1", "3", "5"]).to_string(),
        format!("Stem {}, \"quoted\"\nand a new line 北京", rng.below(1000)),
        format!("Answer {}", rng.below(1000)),
    ];
    let distractors = 2 + rng.below(4);
    for i in 0..5 {
        row.push(if i < distractors {
            format!("Distractor {i}")
        } else {
            String::new()
        });
    }
    if rng.chance(50) {
        row.extend([
            "A summary, with a comma".into(),
            "Deep".into(),
            "src".into(),
        ]);
    } else {
        row.extend([String::new(), String::new(), String::new()]);
    }
    row
}

fn csv_field(rng: &mut Rng, text: String) -> Vec<u8> {
    let mut bytes = text.into_bytes();
    if rng.chance(2) {
        bytes.push(0xff); // not UTF-8
    }
    let needs_quotes = bytes
        .iter()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
    if needs_quotes || rng.chance(20) {
        let mut quoted = vec![b'"'];
        for b in bytes {
            if b == b'"' {
                quoted.push(b'"');
            }
            quoted.push(b);
        }
        if !rng.chance(2) {
            quoted.push(b'"'); // else: an unterminated quote
        }
        quoted
    } else {
        bytes
    }
}

fn random_csv(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    if rng.chance(10) {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let mut header: Vec<String> = CSV_HEADER.iter().map(|h| h.to_string()).collect();
    match rng.below(24) {
        0 => {
            header.remove(rng.below(header.len()));
        }
        1 => header.swap(0, 1 + rng.below(12)),
        2 => {
            let at = rng.below(13);
            header[at] = random_string(rng);
        }
        3 => header.clear(),
        4 | 5 => header = header.iter().map(|h| format!(" {h} ")).collect(),
        _ => {}
    }
    out.extend_from_slice(header.join(",").as_bytes());
    let newline: &[u8] = if rng.chance(50) { b"\n" } else { b"\r\n" };
    let rows = match rng.below(24) {
        0 => 0,
        1 => 201,
        2 => 200,
        _ => 1 + rng.below(5),
    };
    for _ in 0..rows {
        out.extend_from_slice(newline);
        let mut row = good_row(rng);
        if rng.chance(12) {
            let at = rng.below(row.len());
            row[at] = hostile_field(rng, at);
        }
        match rng.below(40) {
            0 => {
                row.pop();
            }
            1 => row.push("extra".into()),
            _ => {}
        }
        for (column, text) in row.into_iter().enumerate() {
            if column > 0 {
                out.push(b',');
            }
            out.extend(csv_field(rng, text));
        }
    }
    if rng.chance(50) {
        out.extend_from_slice(newline);
    }
    if rng.chance(10) {
        out = mutate_bytes(rng, out);
    }
    out
}

async fn csv_import_property(engine: Engine) {
    let app = TestApp::spawn_with(engine, &[("DEMO_CONTENT", "true".into())]).await;
    let token = admin_token(&app).await;
    let mut rng = Rng::new(SEED);
    let (mut imported, mut refused, mut rows_imported) = (0, 0, 0);
    for case in 0..CSV_CASES {
        let body = random_csv(&mut rng);
        let content_type = match rng.below(20) {
            0 => Some("application/json"),
            1 => None,
            2 | 3 => Some("text/plain; charset=utf-8"),
            4 | 5 => Some("text/plain"),
            _ => Some("text/csv"),
        };
        let label = format!(
            "case {case} ({content_type:?}): {:?}",
            String::from_utf8_lossy(&body[..body.len().min(2000)])
        );
        let preview = shared::services::questions::preview_csv(&app.ctx, &body).await;
        let before = questions(&app).await;
        let r = send(
            &app,
            Service::Admin,
            Method::POST,
            "/v1/admin/questions/import-csv",
            content_type,
            body,
            Some(&token),
        )
        .await;
        assert_envelope(&r, &label);
        let after = questions(&app).await;
        let csv_type = matches!(content_type, Some(ct) if ct.starts_with("text/"));
        if !csv_type {
            r.assert_error(400, "VALIDATION_ERROR");
        } else {
            match &preview {
                Err(e) => {
                    assert_eq!(r.status, 400, "{label}: {}", r.body);
                    assert_eq!(r.body["error"]["code"], e.code(), "{label}: {}", r.body);
                }
                Ok(p) if p.failed() == 0 => {
                    let data = r.ok();
                    assert_eq!(data["succeeded"], p.rows.len(), "{label}");
                    assert_eq!(data["total"], p.rows.len(), "{label}");
                    assert_eq!(data["ids"].as_array().unwrap().len(), p.rows.len());
                }
                Ok(p) => {
                    r.assert_error(400, "VALIDATION_FAILED");
                    let details = r.body["error"]["details"].as_array();
                    assert_eq!(
                        details.map(Vec::len),
                        Some(p.failed()),
                        "{label}: {}",
                        r.body
                    );
                }
            }
        }
        // all or nothing, and only drafts
        if r.status == 200 {
            imported += 1;
            let n = r.body["data"]["succeeded"].as_i64().unwrap();
            assert_eq!(after - before, n, "{label}");
            rows_imported += n;
        } else {
            refused += 1;
            assert_eq!(after, before, "{label}: a refused import wrote");
        }
    }
    assert_eq!(
        app.scalar("SELECT count(*) FROM questions WHERE status = 'draft'", &[])
            .await,
        rows_imported
    );
    // the generator reaches both outcomes
    assert!(
        imported > 0 && refused > 0,
        "{imported} imported, {refused} refused"
    );
}

/// An operation of an OpenAPI document.
struct Operation {
    service: Service,
    method: Method,
    /// As in the document: the full path (`/v1/...`), `{param}`s unfilled.
    path: String,
    /// The JSON request body schema, when the operation takes one.
    body: Option<Value>,
    /// The operation takes a body at all (JSON or not).
    takes_body: bool,
}

async fn operations(app: &TestApp) -> (Vec<Operation>, Value, Value) {
    let mut ops = Vec::new();
    let mut docs = Vec::new();
    for (service, doc_path) in [
        (Service::Player, "/v1/openapi.json"),
        (Service::Admin, "/v1/admin/openapi.json"),
    ] {
        let doc = app
            .call(service, Method::GET, doc_path, None, None)
            .await
            .body;
        let paths = doc["paths"].as_object().unwrap();
        for (path, item) in paths {
            for (name, method) in [
                ("post", Method::POST),
                ("put", Method::PUT),
                ("patch", Method::PATCH),
            ] {
                let Some(op) = item.get(name) else { continue };
                let content = &op["requestBody"]["content"];
                ops.push(Operation {
                    service,
                    method,
                    path: path.clone(),
                    body: content.get("application/json").map(|c| c["schema"].clone()),
                    takes_body: content.is_object(),
                });
            }
        }
        docs.push(doc);
    }
    let admin = docs.pop().unwrap();
    let player = docs.pop().unwrap();
    (ops, player, admin)
}

/// Replaces every `{param}` with one of `ids`.
fn fill(rng: &mut Rng, path: &str, ids: &[String]) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find('}')
            .map_or(rest.len(), |e| start + e + 1);
        out.push_str(rng.pick(ids).as_str());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A test app with the sign-in providers configured against a local fake that refuses
/// every code and knows one key, so no route answers 503 for want of configuration.
async fn spawn_configured(engine: Engine) -> (TestApp, (MockServer, NppaFake)) {
    let server = MockServer::start().await;
    let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).unwrap();
    let key = TestKey::from_pkcs1_der("fuzz", private.to_pkcs1_der().unwrap().as_bytes()).unwrap();
    for route in ["/auth/keys", "/oauth2/v3/certs"] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(jwks(&[&key])))
            .mount(&server)
            .await;
    }
    Mock::given(method("POST"))
        .and(path("/oauth2/v3/token"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": "invalid_grant"})))
        .mount(&server)
        .await;
    let uri = server.uri();
    // the NPPA interface too (its real-name route), in the education profile
    let nppa = NppaFake::start().await;
    let nppa_vars = nppa
        .vars()
        .into_iter()
        .filter(|(name, _)| name.starts_with("NPPA_"));
    let app = TestApp::spawn_with(
        engine,
        &nppa_vars
            .chain([
                ("DEMO_CONTENT", "true".into()),
                ("SMS_PROVIDER", "console".into()),
                ("HUAWEI_CLIENT_ID", "fuzz-client".into()),
                ("HUAWEI_CLIENT_SECRET", "fuzz-secret".into()),
                ("HUAWEI_TOKEN_URL", format!("{uri}/oauth2/v3/token")),
                ("HUAWEI_JWKS_URL", format!("{uri}/oauth2/v3/certs")),
                ("APPLE_CLIENT_ID", "com.example.fuzz".into()),
                ("APPLE_JWKS_URL", format!("{uri}/auth/keys")),
            ])
            .collect::<Vec<_>>(),
    )
    .await;
    (app, (server, nppa))
}

async fn json_bodies_property(engine: Engine) {
    let (app, _fakes) = spawn_configured(engine).await;
    let (ops, player_doc, admin_doc) = operations(&app).await;
    assert!(
        ops.len() >= 40,
        "{} write operations in the documents",
        ops.len()
    );
    // the fuzzing player and admin, and ids for path parameters: real ones of other
    // subjects (so a valid ban or password reset hits no caller), and hostile ones
    let (_, player_token, player_refresh) = app.guest("fuzz-player").await;
    let (victim, _, _) = app.guest("fuzz-victim").await;
    let root = admin_token(&app).await;
    let r = app
        .admin_post(
            "/v1/admin/admins",
            json!({"username": "fuzz-target", "role": "admin"}),
            Some(&root),
        )
        .await;
    let target_admin = r.ok()["id"].as_str().unwrap().to_string();
    let question = app
        .text("SELECT id FROM questions ORDER BY id LIMIT 1", &[])
        .await;
    let card = app
        .text("SELECT id FROM knowledge_cards ORDER BY id LIMIT 1", &[])
        .await;
    let node = app
        .text("SELECT id FROM skill_nodes ORDER BY id LIMIT 1", &[])
        .await;
    let ids: Vec<String> = [
        victim.as_str(),
        target_admin.as_str(),
        question.as_str(),
        card.as_str(),
        node.as_str(),
        "world-geography",
        "no-such-id",
        "00000000-0000-0000-0000-000000000000",
        "fallback-no-such-question",
        "..",
        "%00",
        "%E2%80%AE",
        "a%2Fb",
        "' OR 1=1",
    ]
    .iter()
    .map(|s| {
        if s.contains('%') {
            s.to_string()
        } else {
            percent_encode(s)
        }
    })
    .chain(std::iter::once("x".repeat(300)))
    .collect();
    let player_schemas = Schemas {
        components: &player_doc["components"],
    };
    let admin_schemas = Schemas {
        components: &admin_doc["components"],
    };
    let mut rng = Rng::new(SEED ^ 0xb0d1e5);
    let mut statuses = BTreeSet::new();
    for op in &ops {
        let (schemas, good_token) = match op.service {
            Service::Player => (&player_schemas, player_token.clone()),
            Service::Admin => (&admin_schemas, root.clone()),
        };
        for case in 0..JSON_CASES_PER_OPERATION {
            let path = fill(&mut rng, &op.path, &ids);
            let value = match (&op.body, rng.below(10)) {
                (Some(schema), 0..=5) => schemas.instance(&mut rng, schema, 6),
                (_, 6) if op.path.contains("refresh") || op.path.contains("logout") => {
                    json!({"refreshToken": player_refresh})
                }
                _ => random_json(&mut rng, 4),
            };
            let mut bytes = serde_json::to_vec(&value).unwrap();
            if rng.chance(15) {
                bytes = mutate_bytes(&mut rng, bytes);
            }
            let content_type = *rng.pick(&[
                Some("application/json"),
                Some("application/json"),
                Some("application/json"),
                Some("application/json; charset=utf-8"),
                Some("application/vnd.api+json"),
                Some("text/plain"),
                Some("application/x-www-form-urlencoded"),
                None,
            ]);
            let token = match rng.below(10) {
                0 => None,
                1 => Some("garbage".to_string()),
                _ => Some(good_token.clone()),
            };
            let label = format!(
                "{} {path} case {case} ({content_type:?}, token: {}): {}",
                op.method,
                token.is_some(),
                String::from_utf8_lossy(&bytes[..bytes.len().min(800)])
            );
            let r = send(
                &app,
                op.service,
                op.method.clone(),
                &path,
                content_type,
                bytes,
                token.as_deref(),
            )
            .await;
            assert_envelope(&r, &label);
            statuses.insert(r.status);
        }
    }
    // the bodies got past the front door as well as being refused there
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(statuses.contains(&400), "{statuses:?}");
    // and the service still works for the fuzzing player and admin
    app.get("/v1/auth/me", Some(&player_token)).await.ok();
    app.admin_get("/v1/admin/stats", Some(&root)).await.ok();
}

async fn oversized_and_deep_bodies_are_refused_everywhere(engine: Engine) {
    let (app, _fakes) = spawn_configured(engine).await;
    let (ops, _, _) = operations(&app).await;
    let (_, player_token, _) = app.guest("big-player").await;
    let root = admin_token(&app).await;
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000)).into_bytes();
    let deep_object = format!("{}1{}", "{\"a\":".repeat(3000), "}".repeat(3000)).into_bytes();
    let mut checked = 0;
    for op in ops.iter().filter(|op| op.takes_body) {
        let token = match op.service {
            Service::Player => player_token.as_str(),
            Service::Admin => root.as_str(),
        };
        let path = op.path.replace('{', "x").replace('}', "");
        let imports = path.ends_with("/questions/import") || path.ends_with("/import-csv");
        let media = path.ends_with("/admin/media");
        let bundle = path.ends_with("/import-zip");
        // JSON bodies are limited to 64 KiB, the import routes to 2 MiB, media uploads
        // to their kind's limit (20 MB for a video)
        let size = if imports { 3 * 1024 * 1024 } else { 200 * 1024 };
        let content_type = if op.body.is_some() {
            "application/json"
        } else if media {
            "application/octet-stream"
        } else if bundle {
            "application/zip"
        } else {
            "text/csv"
        };
        let big = if bundle {
            // a zip's own bound (1 GiB) is beyond a test: its questions.json unpacks to
            // 70 MiB from about 70 KB, past its 64 MiB limit, and is stopped there
            zip_of_zeros("questions.json", 70 * 1024 * 1024)
        } else if media {
            let mut video = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41".to_vec();
            video.resize(21_000_000, 0);
            video
        } else {
            format!("{{\"x\": \"{}\"}}", "x".repeat(size)).into_bytes()
        };
        let label = format!("{} {path}: oversized", op.method);
        let r = tests::raw_http::send_unread(
            &app.url(op.service, &path),
            &op.method,
            content_type,
            &big,
            token,
        )
        .await;
        assert_envelope(&r, &label);
        r.assert_error(413, "PAYLOAD_TOO_LARGE");
        if op.body.is_some() {
            for body in [&deep, &deep_object] {
                let label = format!("{} {path}: deeply nested", op.method);
                let r = send(
                    &app,
                    op.service,
                    op.method.clone(),
                    &path,
                    Some("application/json"),
                    body.clone(),
                    Some(token),
                )
                .await;
                assert_envelope(&r, &label);
                r.assert_error(400, "VALIDATION_ERROR");
            }
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked} operations with a body");
}

/// A zip holding `name`: `len` zero bytes, deflated to about a thousandth of that.
fn zip_of_zeros(name: &str, len: usize) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(
        name,
        zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(false),
    )
    .unwrap();
    let chunk = vec![0u8; 1024 * 1024];
    for _ in 0..len / chunk.len() {
        zip.write_all(&chunk).unwrap();
    }
    zip.finish().unwrap().into_inner()
}
