//! One request: read it fully, then either report `/stats` (`POST
//! /stats/reset-peak` also restarts the waiting line's high-water mark) or
//! do the work (any other path).
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
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONNECTION, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use tokio::sync::watch;

use crate::server::door::Door;

/// Largest request body the server reads; larger ones get 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// What happened to a piece of work.
enum Outcome {
    Done,
    Refused,
    Cancelled,
}

/// Serve one request.
pub(crate) async fn handle(
    door: Arc<Door>,
    shutdown: watch::Receiver<bool>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    let body_timeout = Duration::from_millis(door.config().header_read_timeout_ms());
    let read = tokio::time::timeout(body_timeout, Limited::new(body, MAX_BODY_BYTES).collect());
    match read.await {
        Err(_) => return Ok(plain(StatusCode::REQUEST_TIMEOUT, "body read timeout\n", true)),
        Ok(Err(e)) => {
            let status = if e.is::<http_body_util::LengthLimitError>() {
                StatusCode::PAYLOAD_TOO_LARGE
            } else {
                StatusCode::BAD_REQUEST
            };
            return Ok(plain(status, "bad request body\n", true));
        }
        Ok(Ok(_)) => {}
    }

    match (parts.method == hyper::Method::POST, parts.uri.path()) {
        (_, "/stats") => return Ok(stats(&door)),
        (true, "/stats/reset-peak") => {
            door.reset_peak();
            return Ok(stats(&door));
        }
        _ => {}
    }

    let task = tokio::spawn(work(door, shutdown));
    let outcome = task.await.unwrap_or(Outcome::Cancelled);
    Ok(match outcome {
        Outcome::Done => plain(StatusCode::OK, "ok\n", false),
        Outcome::Refused => refusal("busy: admission limit reached\n"),
        Outcome::Cancelled => refusal("shutting down\n"),
    })
}

/// Wait at the door, then spin and sleep while holding a slot.
async fn work(door: Arc<Door>, mut shutdown: watch::Receiver<bool>) -> Outcome {
    let job = async {
        let Some(slot) = door.enter().await else {
            return Outcome::Refused;
        };
        let spin_ms = door.config().spin_ms();
        if spin_ms > 0 {
            // Off the async workers so the runtime keeps accepting and
            // answering /stats while the slot burns CPU.
            let _ = tokio::task::spawn_blocking(move || busy_spin(spin_ms)).await;
        }
        let wait_ms = door.config().wait_ms();
        if wait_ms > 0 {
            tokio::time::sleep(Duration::from_millis(wait_ms)).await;
        }
        slot.finish();
        Outcome::Done
    };
    tokio::select! {
        () = async { let _ = shutdown.wait_for(|stop| *stop).await; } => Outcome::Cancelled,
        outcome = job => outcome,
    }
}

/// Burn CPU for `spin_ms` milliseconds of wall time.
fn busy_spin(spin_ms: u64) {
    let end = Instant::now() + Duration::from_millis(spin_ms);
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
        busy_spin(3);
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
