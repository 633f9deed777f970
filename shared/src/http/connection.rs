//! How both binaries serve a listener: HTTP/1.1 connections through hyper, each with the
//! slow-client limits of [`ConnectionLimits`], the peer's address as `ConnectInfo`, and
//! graceful shutdown (no new connections, in-flight requests finish, idle ones close).
//!
//! - **Headers**: a request's line and headers must arrive within `header_timeout` of
//!   its first byte (a new connection's first request: of the accept).
//! - **Idle**: a kept-alive connection waiting for its next request closes after
//!   `idle_timeout`.
//! - **Body**: a request's body must have arrived `body_timeout` after its headers; a
//!   body still incomplete then closes the connection without an answer.
//! - **Response**: a response the client takes no byte of for `write_timeout` closes the
//!   connection (a client that asks for a large answer and never reads it, or fills its
//!   receive window with pipelined requests, would otherwise hold it for ever).
//!
//! hyper has one timer for the wait for a request head (`header_read_timeout`), which
//! starts when the connection starts waiting, so its idle time counts against the header
//! limit. The two limits differ (a load balancer keeps idle connections for a minute; a
//! client that has begun a request has no reason to pause), so the timer given to hyper
//! here, `HeadTimer`, ends each wait at the earlier of `idle_timeout` after it began
//! and `header_timeout` after the head's first byte, which `Watched` reads record.
//!
//! Cost against `axum::serve` (which sets no timer): per request, one timer (a boxed
//! sleep, as hyper's own timer would be) and a clock read plus a reference count for a
//! request with a body; per read, one relaxed atomic load; per wake of the connection's
//! task, a lock-free waker registration beside the shutdown watch `axum::serve` polls
//! too; per write, a check that no stall timer is armed (one is made only when the socket is
//! full). No lock and no allocation per read or write.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use futures::task::AtomicWaker;
use hyper::body::{Body as _, Frame, Incoming, SizeHint};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt as _;

use crate::config::ConnectionLimits;

/// Serves `router` on `listener` until `shutdown` resolves, then stops accepting, lets
/// in-flight requests finish and returns once every connection has closed (an idle one,
/// or one on which nothing has arrived yet, closes at once), or when
/// `limits.shutdown_grace` has passed with some still busy: their tasks end with the
/// process.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // Each connection's task holds a receiver until it ends: `closed` waits for the last.
    let (stop, _) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            // Shutdown first: its first poll installs the signal handlers, which must
            // be in place before any request (a health check) is answered.
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                serve_connection(stream, peer, router.clone(), limits, stop.subscribe());
            }
            Err(e) => accept_failed(e).await,
        }
    }
    drop(listener);
    // With no connection open there is no receiver, which is no error.
    let _ = stop.send(());
    if tokio::time::timeout(limits.shutdown_grace, stop.closed())
        .await
        .is_err()
    {
        tracing::warn!(
            busy_connections = stop.receiver_count(),
            grace_seconds = limits.shutdown_grace.as_secs(),
            "shutdown grace over; the connections still busy are closed"
        );
    }
    Ok(())
}

/// A failed `accept`: a connection the peer gave up on is skipped; anything else (out
/// of file descriptors) is logged and the loop pauses a second, rather than spinning on
/// an error that persists.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "cannot accept a connection");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// The most a connection buffers either way (see `serve_connection`).
const CONNECTION_BUFFER: usize = 64 * 1024;

fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: ConnectionLimits,
    mut stop: watch::Receiver<()>,
) {
    let state = Arc::new(ConnectionState::new(limits.header_timeout));
    let service = {
        let state = Arc::clone(&state);
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            state.head_arrived();
            request.extensions_mut().insert(ConnectInfo(peer));
            let request = request.map(|body| {
                if body.is_end_stream() {
                    // nothing to wait for (GET): no deadline to keep
                    Body::new(body)
                } else {
                    Body::new(DeadlineBody {
                        inner: body,
                        deadline: tokio::time::Instant::now() + limits.body_timeout,
                        timer: None,
                        connection: Arc::clone(&state),
                    })
                }
            });
            router.clone().oneshot(request)
        })
    };
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        // What a connection holds of a request head or of an answer not yet sent: hyper's
        // default (about 400 KiB) let 64 slow media downloads queue 25 MiB of file chunks;
        // 64 KiB still takes any head a client sends (a token, cookies) in one buffer.
        .max_buf_size(CONNECTION_BUFFER)
        .timer(HeadTimer(Arc::clone(&state)))
        // Every wait for a head ends by then at the latest; `HeadTimer` ends it earlier
        // once the head has begun.
        .header_read_timeout(limits.idle_timeout);
    let io = TokioIo::new(Watched {
        io: stream,
        state: Arc::clone(&state),
        write_timeout: limits.write_timeout,
        write_stall: None,
    });
    tokio::spawn(async move {
        let mut connection = pin!(http1.serve_connection(io, service));
        let mut body_overdue = pin!(std::future::poll_fn(|cx| state.poll_body_overdue(cx)));
        let mut stopping = false;
        loop {
            tokio::select! {
                biased;
                () = &mut body_overdue => {
                    tracing::debug!("request body incomplete at its deadline; connection closed");
                    break;
                }
                served = connection.as_mut() => {
                    if let Err(e) = served {
                        tracing::debug!(error = %e, "connection closed");
                    }
                    break;
                }
                // an error: the server is gone, which is a shutdown too
                _ = stop.changed(), if !stopping => {
                    stopping = true;
                    // hyper closes an idle connection (or one nothing has arrived on)
                    // at once; one with a request under way after answering it
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
        // `stop` is dropped here: `serve` waits for that.
    });
}

/// Where a connection's request head stands: [`AWAITING_HEAD`], [`IN_REQUEST`], or the
/// nanoseconds after the accept at which the awaited head's first byte arrived.
const AWAITING_HEAD: u64 = u64::MAX;
/// The head arrived: bytes read now are the body's (or the next pipelined request's).
const IN_REQUEST: u64 = u64::MAX - 1;

/// What the socket, hyper's timer, the request body and the connection's task share.
/// Only the connection's task touches it (hyper polls the service inline), so relaxed
/// atomics suffice: they are there for `Sync`, not for ordering.
struct ConnectionState {
    opened: Instant,
    header_timeout: Duration,
    head: AtomicU64,
    /// hyper has begun waiting for a head before: the first wait is timed from the
    /// accept.
    waited: AtomicBool,
    body_overdue: AtomicBool,
    /// The connection's task, woken when a body misses its deadline.
    task: AtomicWaker,
}

impl ConnectionState {
    fn new(header_timeout: Duration) -> Self {
        Self {
            opened: Instant::now(),
            header_timeout,
            head: AtomicU64::new(AWAITING_HEAD),
            waited: AtomicBool::new(false),
            body_overdue: AtomicBool::new(false),
            task: AtomicWaker::new(),
        }
    }

    /// Bytes arrived: the first of an awaited head starts its clock. On every read, so
    /// one load unless it is that first byte.
    fn bytes_arrived(&self) {
        if self.head.load(Relaxed) == AWAITING_HEAD {
            let since_accept = u64::try_from(self.opened.elapsed().as_nanos()).unwrap_or(0);
            self.head.store(since_accept.min(IN_REQUEST - 1), Relaxed);
        }
    }

    /// hyper parsed a head and calls the service.
    fn head_arrived(&self) {
        self.head.store(IN_REQUEST, Relaxed);
    }

    /// hyper begins waiting for a head, at the latest until `idle_deadline`; returns the
    /// latest end of this wait. (The next head's bytes read with the previous body are
    /// not seen here: such a head is held to the idle limit only.)
    fn wait_begins(&self, idle_deadline: Instant) -> Instant {
        if self.waited.swap(true, Relaxed) {
            let _ = self
                .head
                .compare_exchange(IN_REQUEST, AWAITING_HEAD, Relaxed, Relaxed);
            idle_deadline
        } else {
            idle_deadline.min(self.opened + self.header_timeout)
        }
    }

    /// The end of a wait for a head whose latest end is `cap`: earlier once the head
    /// has begun.
    fn head_deadline(&self, cap: Instant) -> Instant {
        match self.head.load(Relaxed) {
            AWAITING_HEAD | IN_REQUEST => cap,
            began => cap.min(self.opened + Duration::from_nanos(began) + self.header_timeout),
        }
    }

    fn body_too_slow(&self) {
        self.body_overdue.store(true, Relaxed);
        self.task.wake();
    }

    fn poll_body_overdue(&self, cx: &mut Context<'_>) -> Poll<()> {
        // no clone: the task's waker is the same on every poll
        self.task.register(cx.waker());
        if self.body_overdue.load(Relaxed) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// hyper's timer for one connection. hyper sets it only for the wait for a request
/// head (`header_read_timeout`), with the idle limit as the deadline.
#[derive(Clone)]
struct HeadTimer(Arc<ConnectionState>);

impl hyper::rt::Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        // not a head's: a plain sleep
        let deadline = Instant::now() + duration;
        Box::pin(HeadDeadline {
            cap: deadline,
            connection: None,
            sleep: tokio::time::sleep_until(deadline.into()),
        })
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        let cap = self.0.wait_begins(deadline);
        Box::pin(HeadDeadline {
            cap,
            sleep: tokio::time::sleep_until(self.0.head_deadline(cap).into()),
            connection: Some(Arc::clone(&self.0)),
        })
    }
}

pin_project_lite::pin_project! {
    /// The end of one wait for a request head; moves earlier once the head has begun.
    struct HeadDeadline {
        cap: Instant,
        connection: Option<Arc<ConnectionState>>,
        #[pin]
        sleep: tokio::time::Sleep,
    }
}

impl Future for HeadDeadline {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut this = self.project();
        // hyper polls this after each read that left the head incomplete, so a deadline
        // moved by that read is in force before the connection waits again.
        if let Some(connection) = this.connection {
            let deadline = tokio::time::Instant::from_std(connection.head_deadline(*this.cap));
            if this.sleep.deadline() != deadline {
                this.sleep.as_mut().reset(deadline);
            }
        }
        this.sleep.poll(cx)
    }
}

impl hyper::rt::Sleep for HeadDeadline {}

/// The connection's socket, telling its [`ConnectionState`] when bytes arrive, and
/// failing a write the client has taken nothing of for `write_timeout`.
struct Watched {
    io: TcpStream,
    state: Arc<ConnectionState>,
    write_timeout: Duration,
    /// Armed when a write first finds the socket full, disarmed by any progress: a timer
    /// only for a client that is not reading.
    write_stall: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Watched {
    /// A write's outcome, with the stall timer kept: progress disarms it; a full socket
    /// arms it, and past its deadline the write fails (hyper then closes the connection).
    fn watch_write<T>(
        &mut self,
        cx: &mut Context<'_>,
        written: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        if written.is_ready() {
            self.write_stall = None;
            return written;
        }
        let timeout = self.write_timeout;
        let stall = self
            .write_stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stall.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took no byte of the response in time",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.state.bytes_arrived();
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write(cx, buf);
        self.watch_write(cx, written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.watch_write(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// A request body that must have arrived by `deadline`. Past it, while the body is still
/// incomplete, it never yields again and its connection is closed without an answer:
/// the client is still sending, so it would not read one yet, and the connection it
/// holds is what the limit is there to free. (Failing the read instead would let the
/// handler answer 400, as if the body were malformed.) The deadline is checked only
/// while the handler waits for bytes hyper has not read yet: a body that arrived whole
/// with its headers (most do) is never refused, however late the handler reads it.
struct DeadlineBody {
    inner: Incoming,
    deadline: tokio::time::Instant,
    /// Made on the first wait only.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    connection: Arc<ConnectionState>,
}

impl hyper::body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        let deadline = this.deadline;
        let timer = this
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.as_mut().poll(cx).is_ready() {
            // The connection's task drops the connection, and this body with it.
            this.connection.body_too_slow();
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADERS: Duration = Duration::from_secs(30);
    const IDLE: Duration = Duration::from_secs(75);

    #[test]
    fn a_new_connection_s_first_head_is_timed_from_the_accept() {
        let state = ConnectionState::new(HEADERS);
        let cap = state.wait_begins(Instant::now() + IDLE);
        assert!(cap <= state.opened + HEADERS, "{cap:?}");
        // its first byte moves nothing: the clock started at the accept
        state.bytes_arrived();
        assert_eq!(state.head_deadline(cap), cap);
    }

    #[test]
    fn an_idle_wait_ends_at_the_idle_limit_until_a_byte_arrives() {
        let state = ConnectionState::new(HEADERS);
        state.wait_begins(Instant::now() + IDLE);
        state.bytes_arrived();
        state.head_arrived();
        // the body's bytes start no head clock
        state.bytes_arrived();
        assert_eq!(state.head.load(Relaxed), IN_REQUEST);

        // kept alive, waiting for the next request
        let idle_end = Instant::now() + IDLE;
        let cap = state.wait_begins(idle_end);
        assert_eq!(cap, idle_end);
        assert_eq!(state.head.load(Relaxed), AWAITING_HEAD);
        assert_eq!(state.head_deadline(cap), idle_end);
        let before_byte = Instant::now();
        state.bytes_arrived();
        let end = state.head_deadline(cap);
        assert!(end >= before_byte + HEADERS, "{end:?}");
        assert!(end <= Instant::now() + HEADERS, "{end:?}");
        assert!(end < idle_end);
        // later bytes of the same head do not move it
        state.bytes_arrived();
        assert_eq!(state.head_deadline(cap), end);
        // the next wait starts afresh
        state.head_arrived();
        let next_end = Instant::now() + IDLE;
        assert_eq!(state.head_deadline(state.wait_begins(next_end)), next_end);
    }

    #[test]
    fn the_idle_limit_still_caps_a_head_begun_late() {
        let state = ConnectionState::new(HEADERS);
        state.wait_begins(Instant::now() + IDLE);
        state.head_arrived();
        let cap = state.wait_begins(Instant::now() + Duration::from_secs(5));
        state.bytes_arrived();
        assert_eq!(state.head_deadline(cap), cap);
    }
}
