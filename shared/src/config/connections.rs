//! How long either binary waits for a slow client (slowloris: a client that sends its
//! request a byte at a time, opens connections and sends nothing, or asks and never reads,
//! to hold them open), and for requests under way when it is told to stop.

use std::time::Duration;

use super::reader::Reader;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// `HTTP_HEADER_TIMEOUT_SECONDS`: a request's line and headers must all have arrived
    /// this long after its first byte (on a new connection: after the connection opened),
    /// or the connection is closed.
    pub header_timeout: Duration,
    /// `HTTP_IDLE_TIMEOUT_SECONDS`: a kept-alive connection with no request under way is
    /// closed after this long. Longer than the idle timeout of the load balancer in
    /// front (often 60 s), so the balancer, not the service, closes idle connections and
    /// never sends a request on one the service is closing.
    pub idle_timeout: Duration,
    /// `HTTP_BODY_TIMEOUT_SECONDS`: a request's body must have arrived whole this long
    /// after its headers, or the connection is closed without an answer.
    pub body_timeout: Duration,
    /// `HTTP_WRITE_TIMEOUT_SECONDS`: a response the client takes no byte of for this
    /// long closes the connection (a client that asks and never reads holds it open).
    pub write_timeout: Duration,
    /// `SHUTDOWN_GRACE_SECONDS`: after SIGTERM, how long requests under way may take to
    /// finish; the connections still busy then are closed and the process exits. Below
    /// the orchestrator's own wait before SIGKILL (Kubernetes: 30 s, systemd: 90 s).
    pub shutdown_grace: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(75),
            body_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(25),
        }
    }
}

impl ConnectionLimits {
    pub(super) fn from_reader(r: &mut Reader<'_>) -> Self {
        let d = Self::default();
        let mut seconds = |name: &str, default: Duration| {
            let v: u64 = r.parsed(name, default.as_secs());
            if (1..=3600).contains(&v) {
                Duration::from_secs(v)
            } else {
                r.errors.push(format!("{name}={v}: must be 1-3600"));
                default
            }
        };
        Self {
            header_timeout: seconds("HTTP_HEADER_TIMEOUT_SECONDS", d.header_timeout),
            idle_timeout: seconds("HTTP_IDLE_TIMEOUT_SECONDS", d.idle_timeout),
            body_timeout: seconds("HTTP_BODY_TIMEOUT_SECONDS", d.body_timeout),
            write_timeout: seconds("HTTP_WRITE_TIMEOUT_SECONDS", d.write_timeout),
            shutdown_grace: seconds("SHUTDOWN_GRACE_SECONDS", d.shutdown_grace),
        }
    }
}
