//! Counts the database round trips of each request, as Django's `assertNumQueries` does:
//! a `tracing` layer that files every statement event (sqlx's own, target
//! `sqlx::query`, and the service's marks of the round trips sqlx does not log,
//! [`shared::db::ROUND_TRIP_TARGET`]) under the request span it happened in, keyed by
//! that request's `x-request-id`.
//!
//! The statement-budget tests (`tests/budgets`) install it as the global subscriber of
//! their own test binary, send a request with an id of their own and read back what it
//! cost with [`statements_of`]. Statements a request leaves to a task it spawns without
//! its span (work off the request path) are not counted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The statements of finished requests, by request id.
static FINISHED: Mutex<Option<HashMap<String, Vec<String>>>> = Mutex::new(None);

/// The statements of a request still in flight, kept in its span.
struct Tally {
    request_id: String,
    statements: Mutex<Vec<String>>,
}

/// The layer (see the module's documentation).
pub struct StatementCounter;

/// Installs [`StatementCounter`] as this process's global subscriber (once).
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        tracing_subscriber::registry().with(StatementCounter).init();
    });
}

/// The statements the request sent with `x-request-id: request_id` made, once its span
/// has closed (the response is complete): waits up to 5 s for that.
pub async fn statements_of(request_id: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(found) = FINISHED
            .lock()
            .unwrap()
            .as_mut()
            .and_then(|done| done.remove(request_id))
        {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "no finished request span with request id {request_id}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Reads one field of an event or span as text.
struct FieldText<'a> {
    names: &'a [&'a str],
    found: Option<String>,
}

impl Visit for FieldText<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if self.found.is_none() && self.names.contains(&field.name()) {
            self.found = Some(value.to_string());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.found.is_none() && self.names.contains(&field.name()) {
            self.found = Some(format!("{value:?}"));
        }
    }
}

impl<S> Layer<S> for StatementCounter
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != "request" {
            return;
        }
        let mut request_id = FieldText {
            names: &["request_id"],
            found: None,
        };
        attrs.record(&mut request_id);
        if let (Some(request_id), Some(span)) = (request_id.found, ctx.span(id)) {
            span.extensions_mut().insert(Tally {
                request_id,
                statements: Mutex::new(Vec::new()),
            });
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let target = event.metadata().target();
        if target != "sqlx::query" && target != shared::db::ROUND_TRIP_TARGET {
            return;
        }
        let mut text = FieldText {
            names: &["summary", "statement"],
            found: None,
        };
        event.record(&mut text);
        // A new SQLite connection's set-up, when the pool opens one under a request, is
        // not a statement of that request.
        if text
            .found
            .as_deref()
            .is_some_and(|t| t.starts_with("PRAGMA"))
        {
            return;
        }
        let Some(scope) = ctx.event_scope(event) else {
            return;
        };
        for span in scope {
            if let Some(tally) = span.extensions().get::<Tally>() {
                tally
                    .statements
                    .lock()
                    .unwrap()
                    .push(text.found.unwrap_or_default());
                return;
            }
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(tally) = span.extensions_mut().remove::<Tally>() else {
            return;
        };
        FINISHED
            .lock()
            .unwrap()
            .get_or_insert_with(HashMap::new)
            .insert(tally.request_id, tally.statements.into_inner().unwrap());
    }
}
