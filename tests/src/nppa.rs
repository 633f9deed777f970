//! The NPPA anti-addiction real-name system for tests: a local fake that speaks its
//! interface (specification V1.8) as the real one does: it refuses a request whose
//! `timestamps` is more than 5 s off (1007) or whose `sign` is wrong (1011), opens the
//! AES-128-GCM body with the secret key (1012 when it cannot), answers a check from the
//! people it was told of, refuses a reused `ai` (2004), and takes login/logout reports
//! whose times are within the 180 s before the call (3001 with the refused items
//! otherwise).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use shared::domain::anti_addiction::check_character;
use shared::providers::nppa::{aes_key, decrypt, sign};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub const APP_ID: &str = "test-appId";
pub const BIZ_ID: &str = "1101999999";
pub const SECRET: &str = "2836e95fcd10e04b0069bb1ee659955b";

/// How the fake answers a check of a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Verified,
    /// In progress until [`NppaFake::finish_pending`].
    Pending,
}

#[derive(Default)]
struct State {
    people: HashMap<String, (String, Answer)>,
    /// ai → (status, pi)
    checks: HashMap<String, (i64, String)>,
    reports: Vec<Value>,
    /// Login/logout calls to refuse (1001) before one is taken.
    refuse_reports: u32,
    /// Every plaintext body the fake opened.
    bodies: Vec<String>,
}

/// The fake, on a local port.
pub struct NppaFake {
    server: MockServer,
    state: Arc<Mutex<State>>,
}

/// The `pi` NPPA gives a person: the birth date in base 26, then 32 characters.
pub fn pi_of(id_number: &str) -> String {
    let mut n: u32 = id_number[6..14].parse().unwrap();
    let mut head = Vec::new();
    while n > 0 {
        head.push(char::from_digit(n % 26, 26).unwrap());
        n /= 26;
    }
    head.reverse();
    let head: String = head.into_iter().collect();
    let tail: String = Sha256::digest(id_number.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{head:0>6}{}", &tail[..32])
}

/// An 18-character ID number born on `birth`, with its check digit.
pub fn id_number(birth: NaiveDate, sequence: u32) -> String {
    let body = format!("110105{}{:03}", birth.format("%Y%m%d"), sequence % 1000);
    format!("{body}{}", check_character(&body).unwrap())
}

fn errcode(code: i64, msg: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"errcode": code, "errmsg": msg}))
}

struct Handler {
    state: Arc<Mutex<State>>,
    call: Call,
}

#[derive(Clone, Copy)]
enum Call {
    Check,
    Query,
    Loginout,
}

fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.headers.get(name).and_then(|v| v.to_str().ok())
}

impl Respond for Handler {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let (Some(app_id), Some(biz_id), Some(timestamps), Some(signed)) = (
            header(request, "appId"),
            header(request, "bizId"),
            header(request, "timestamps"),
            header(request, "sign"),
        ) else {
            return errcode(1004, "SYS REQ HEADER MISS ERROR");
        };
        if app_id != APP_ID {
            return errcode(1008, "SYS REQ PARTNER ERROR");
        }
        let now = chrono::Utc::now().timestamp_millis();
        let Ok(at) = timestamps.parse::<i64>() else {
            return errcode(1004, "SYS REQ HEADER MISS ERROR");
        };
        if (now - at).abs() > 5_000 {
            return errcode(1007, "SYS REQ EXPIRE ERROR");
        }
        let body = String::from_utf8(request.body.clone()).unwrap_or_default();
        let url_params: Vec<(String, String)> = request.url.query_pairs().into_owned().collect();
        let url_params: Vec<(&str, &str)> = url_params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let expected = sign(
            SECRET,
            &[
                ("appId", app_id),
                ("bizId", biz_id),
                ("timestamps", timestamps),
            ],
            &url_params,
            &body,
        );
        if signed != expected {
            return errcode(1011, "SYS REQ PARTNER AUTH ERROR");
        }
        let mut state = self.state.lock().unwrap();
        if let Call::Query = self.call {
            let ai = url_params
                .iter()
                .find(|(k, _)| *k == "ai")
                .map(|(_, v)| (*v).to_string())
                .unwrap_or_default();
            return match state.checks.get(&ai) {
                Some((status, pi)) => ResponseTemplate::new(200).set_body_json(
                    json!({"errcode": 0, "errmsg": "ok", "data": {"result": {"status": status, "pi": pi}}}),
                ),
                None => errcode(2003, "BUS AUTH CODE NO AUTH RECODE"),
            };
        }
        let data: Option<String> = serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v["data"].as_str().map(str::to_string));
        let plain = data
            .and_then(|d| decrypt(&aes_key(SECRET).unwrap(), &d))
            .and_then(|p| String::from_utf8(p).ok())
            .and_then(|p| serde_json::from_str::<Value>(&p).ok().map(|v| (p, v)));
        let Some((text, plain)) = plain else {
            return errcode(1012, "SYS REQ PARAM CHECK ERROR");
        };
        state.bodies.push(text);
        match self.call {
            Call::Check => {
                let ai = plain["ai"].as_str().unwrap_or_default().to_string();
                let name = plain["name"].as_str().unwrap_or_default();
                let id = plain["idNum"].as_str().unwrap_or_default().to_string();
                if ai.len() != 32 {
                    return errcode(1012, "SYS REQ PARAM CHECK ERROR");
                }
                if state.checks.contains_key(&ai) {
                    return errcode(2004, "BUS AUTH CODE ALREADY IN USE");
                }
                if id.len() != 18 {
                    return errcode(2001, "BUS AUTH IDNUM ILLEGAL");
                }
                let (status, pi) = match state.people.get(&id) {
                    Some((known, Answer::Verified)) if known == name => (0, pi_of(&id)),
                    Some((known, Answer::Pending)) if known == name => (1, String::new()),
                    _ => (2, String::new()),
                };
                state.checks.insert(ai, (status, pi.clone()));
                ResponseTemplate::new(200).set_body_json(
                    json!({"errcode": 0, "errmsg": "ok", "data": {"result": {"status": status, "pi": pi}}}),
                )
            }
            Call::Loginout => {
                if state.refuse_reports > 0 {
                    state.refuse_reports -= 1;
                    return errcode(1001, "SYS ERROR");
                }
                let items = plain["collections"].as_array().cloned().unwrap_or_default();
                if items.is_empty() || items.len() > 128 {
                    return errcode(3003, "BUS COLL OVER LIMIT COUNT");
                }
                let mut refused = Vec::new();
                for item in items {
                    let ot = item["ot"].as_i64().unwrap_or_default();
                    let fits = ot * 1000 < at && at / 1000 - ot < 180;
                    let valid = matches!(item["bt"].as_i64(), Some(0 | 1))
                        && item["ct"] == 0
                        && item["pi"].as_str().is_some_and(|p| p.len() == 38)
                        && item["si"]
                            .as_str()
                            .is_some_and(|s| !s.is_empty() && s.len() <= 32);
                    if fits && valid {
                        state.reports.push(item);
                    } else {
                        refused.push(json!({"no": item["no"], "errcode": 3005, "errmsg": "BUS COLL BEHAVIOR TIME ERROR"}));
                    }
                }
                if refused.is_empty() {
                    ResponseTemplate::new(200)
                        .set_body_json(json!({"errcode": 0, "errmsg": "ok", "data": ""}))
                } else {
                    ResponseTemplate::new(200).set_body_json(json!({"errcode": 3001, "errmsg": "BUS COLL PARTIAL ERROR", "data": {"results": refused}}))
                }
            }
            Call::Query => unreachable!(),
        }
    }
}

impl NppaFake {
    pub async fn start() -> Self {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State::default()));
        for (verb, route, call) in [
            ("POST", "/idcard/authentication/check", Call::Check),
            ("GET", "/idcard/authentication/query", Call::Query),
            ("POST", "/behavior/collection/loginout", Call::Loginout),
        ] {
            Mock::given(method(verb))
                .and(path(route))
                .respond_with(Handler {
                    state: Arc::clone(&state),
                    call,
                })
                .mount(&server)
                .await;
        }
        Self { server, state }
    }

    /// The service's configuration for this fake.
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        let uri = self.server.uri();
        vec![
            ("COMPLIANCE_PROFILE", "licensed_game".into()),
            ("NPPA_APP_ID", APP_ID.into()),
            ("NPPA_BIZ_ID", BIZ_ID.into()),
            ("NPPA_SECRET_KEY", SECRET.into()),
            (
                "NPPA_CHECK_URL",
                format!("{uri}/idcard/authentication/check"),
            ),
            (
                "NPPA_QUERY_URL",
                format!("{uri}/idcard/authentication/query"),
            ),
            (
                "NPPA_LOGINOUT_URL",
                format!("{uri}/behavior/collection/loginout"),
            ),
        ]
    }

    /// A person the system knows, and how it answers a check of them.
    pub fn person(&self, name: &str, id_number: &str, answer: Answer) {
        self.state
            .lock()
            .unwrap()
            .people
            .insert(id_number.into(), (name.into(), answer));
    }

    /// Every pending check is verified now, as `id_number`'s.
    pub fn finish_pending(&self, id_number: &str) {
        let mut state = self.state.lock().unwrap();
        let pi = pi_of(id_number);
        for (status, stored) in state.checks.values_mut() {
            if *status == 1 {
                *status = 0;
                *stored = pi.clone();
            }
        }
        if let Some(person) = state.people.get_mut(id_number) {
            person.1 = Answer::Verified;
        }
    }

    /// Refuses the next `n` login/logout calls (1001).
    pub fn refuse_reports(&self, n: u32) {
        self.state.lock().unwrap().refuse_reports = n;
    }

    /// The login/logout items taken so far.
    pub fn reports(&self) -> Vec<Value> {
        self.state.lock().unwrap().reports.clone()
    }

    /// Every plaintext body the fake opened (what the service sent).
    pub fn bodies(&self) -> Vec<String> {
        self.state.lock().unwrap().bodies.clone()
    }
}
