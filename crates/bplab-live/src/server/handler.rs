//! One request: read it fully, then either report `/stats` (`POST
//! /stats/reset-peak` also restarts the waiting line's high-water mark),
//! apply `POST /config` (from a loopback peer only: 403 otherwise; 400 with
//! the reason for a body it does not accept; 405 for another method), or do
//! the work (any other path).
//!
//! The request body is always read to the end (up to [`MAX_BODY_BYTES`])
//! before anything is answered, so a refusal never closes a socket with
//! unread bytes in it — which the kernel would turn into a reset, taking the
//! refusal away with it.
//!
//! The work runs in its own task, detached from the connection: if the
//! client gives up and closes, the request still waits its turn and still
//! burns its slot, exactly like a server that cannot see its callers leave.
//! That is the wasted work the lesson's `done` versus `ok` columns show.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{ALLOW, CONNECTION, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use tokio::sync::watch;

use crate::server::change::parse_change;
use crate::server::door::{Door, Refusal};

/// Largest request body the server reads; larger ones get 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// What happened to a piece of work.
enum Outcome {
    Done,
    Refused(Refusal),
    Cancelled,
}

/// Serve one request from `peer`.
pub(crate) async fn handle(
    door: Arc<Door>,
    shutdown: watch::Receiver<bool>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    let body_timeout = Duration::from_millis(door.config().header_read_timeout_ms());
    let read = tokio::time::timeout(body_timeout, Limited::new(body, MAX_BODY_BYTES).collect());
    let body = match read.await {
        Err(_) => return Ok(plain(StatusCode::REQUEST_TIMEOUT, "body read timeout\n", true)),
        Ok(Err(e)) => {
            let status = if e.is::<http_body_util::LengthLimitError>() {
                StatusCode::PAYLOAD_TOO_LARGE
            } else {
                StatusCode::BAD_REQUEST
            };
            return Ok(plain(status, "bad request body\n", true));
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };

    match (parts.method == Method::POST, parts.uri.path()) {
        (_, "/stats") => return Ok(stats(&door)),
        (true, "/stats/reset-peak") => {
            door.reset_peak();
            return Ok(stats(&door));
        }
        (true, "/config") => return Ok(config(&door, peer, &body)),
        (false, "/config") => {
            let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "/config accepts POST only\n", false);
            r.headers_mut().insert(ALLOW, hyper::header::HeaderValue::from_static("POST"));
            return Ok(r);
        }
        _ => {}
    }

    let task = tokio::spawn(work(door, shutdown));
    let outcome = task.await.unwrap_or(Outcome::Cancelled);
    Ok(match outcome {
        Outcome::Done => plain(StatusCode::OK, "ok\n", false),
        Outcome::Refused(Refusal::Limit) => refusal("busy: admission limit reached\n"),
        Outcome::Refused(Refusal::Shed) => refusal("busy: shed by CoDel (queue delay over target)\n"),
        Outcome::Cancelled => refusal("shutting down\n"),
    })
}

/// `POST /config` from `peer`: loopback only; the body as
/// [`parse_change`] accepts it; answers the new `/stats`.
fn config(door: &Door, peer: SocketAddr, body: &[u8]) -> Response<Full<Bytes>> {
    if !crate::load::is_loopback(peer.ip()) {
        return plain(StatusCode::FORBIDDEN, "POST /config is accepted from loopback peers only\n", true);
    }
    match parse_change(body) {
        Ok(change) => {
            door.change(change);
            stats(door)
        }
        Err(why) => text(StatusCode::BAD_REQUEST, format!("{why}\n")),
    }
}

/// Wait at the door, then spin and sleep while holding a slot.
async fn work(door: Arc<Door>, mut shutdown: watch::Receiver<bool>) -> Outcome {
    let job = async {
        let slot = match door.enter().await {
            Ok(slot) => slot,
            Err(why) => return Outcome::Refused(why),
        };
        let spin = slot.spin();
        if !spin.is_zero() {
            // Off the async workers so the runtime keeps accepting and
            // answering /stats while the slot burns CPU.
            let _ = tokio::task::spawn_blocking(move || busy_spin(spin)).await;
        }
        let wait = slot.wait();
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        slot.finish();
        Outcome::Done
    };
    tokio::select! {
        () = async { let _ = shutdown.wait_for(|stop| *stop).await; } => Outcome::Cancelled,
        outcome = job => outcome,
    }
}

/// Burn CPU for `spin` of wall time.
fn busy_spin(spin: Duration) {
    let end = Instant::now() + spin;
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

fn stats(door: &Door) -> Response<Full<Bytes>> {
    match serde_json::to_vec(&door.snapshot()) {
        Ok(json) => {
            let mut r = Response::new(Full::new(Bytes::from(json)));
            r.headers_mut().insert(CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
            r
        }
        Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "stats unavailable\n", false),
    }
}

/// 503 with `Retry-After: 1`, closing the connection after the answer.
fn refusal(text: &'static str) -> Response<Full<Bytes>> {
    let mut r = plain(StatusCode::SERVICE_UNAVAILABLE, text, true);
    r.headers_mut().insert(RETRY_AFTER, hyper::header::HeaderValue::from_static("1"));
    r
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain"));
    r
}

fn plain(status: StatusCode, text: &'static str, close: bool) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain"));
    if close {
        h.insert(CONNECTION, hyper::header::HeaderValue::from_static("close"));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spin_takes_at_least_its_time() {
        let t = Instant::now();
        busy_spin(Duration::from_millis(3));
        assert!(t.elapsed() >= Duration::from_millis(3));
    }

    #[test]
    fn refusal_has_retry_after_and_close() {
        let r = refusal("x");
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers().get(RETRY_AFTER).map(|v| v.as_bytes()), Some(&b"1"[..]));
        assert_eq!(r.headers().get(CONNECTION).map(|v| v.as_bytes()), Some(&b"close"[..]));
    }
}
