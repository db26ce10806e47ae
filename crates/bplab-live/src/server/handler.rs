//! One request: check its head, read it fully, then either report `/stats`
//! (`POST /stats/reset-peak` also restarts the waiting line's high-water
//! mark), apply `POST /config` (from a loopback peer only: 403 otherwise; 400
//! with the reason for a body it does not accept; 405 for another method),
//! or do the work (any other path).
//!
//! Refused before the body is read: an HTTP/1.1 request without exactly one
//! `Host`, or with a `Host` value that is not one `HOST[:PORT]` (400, RFC
//! 9112 §3.2), `CONNECT` (405: this is not a proxy), a URI over
//! [`MAX_URI_BYTES`] (414; a request line too long for the 16 KB head
//! buffer gets hyper's 431 before it reaches the handler), a
//! `Content-Length` over [`MAX_BODY_BYTES`] (413 at once: with `Expect:
//! 100-continue` no `100 Continue` is sent, since hyper sends it only when
//! the body is first read).
//!
//! The request body is always read to the end (up to [`MAX_BODY_BYTES`];
//! more gets 413 naming the limit) before anything is answered, so a refusal
//! never closes a socket with unread bytes in it — which the kernel would
//! turn into a reset, taking the refusal away with it.
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
use hyper::header::{ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode, Version};
use tokio::sync::watch;

use crate::server::change::parse_change;
use crate::server::door::{Door, Refusal};

/// Largest request body the server reads; larger ones get 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Longest request URI the handler accepts, bytes; longer ones get 414.
/// (A request line that does not fit the 16 KB head buffer gets 431.)
pub const MAX_URI_BYTES: usize = 8 * 1024;

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
    if let Some(refused) = check_head(&parts) {
        return Ok(refused);
    }
    let body_timeout = Duration::from_millis(door.config().header_read_timeout_ms());
    let body = match read_body(body, body_timeout).await {
        Ok(body) => body,
        Err(refused) => return Ok(refused),
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

    let retry_after = door.config().retry_after_s();
    let task = tokio::spawn(work(door, shutdown));
    let outcome = task.await.unwrap_or(Outcome::Cancelled);
    Ok(match outcome {
        Outcome::Done => plain(StatusCode::OK, "ok\n", false),
        Outcome::Refused(Refusal::Limit) => refusal("busy: admission limit reached\n", retry_after),
        Outcome::Refused(Refusal::Shed) => refusal("busy: shed by CoDel (queue delay over target)\n", retry_after),
        Outcome::Cancelled => refusal("shutting down\n", retry_after),
    })
}

/// A head the server refuses before reading the body: HTTP/1.1 without
/// exactly one `Host`, `CONNECT`, a URI over [`MAX_URI_BYTES`].
fn check_head(parts: &hyper::http::request::Parts) -> Option<Response<Full<Bytes>>> {
    let hosts = parts.headers.get_all(HOST).iter().count();
    if parts.version == Version::HTTP_11 && hosts != 1 {
        let why = if hosts == 0 { "without a Host header" } else { "with more than one Host header" };
        return Some(text(StatusCode::BAD_REQUEST, format!("bad request: an HTTP/1.1 request {why}\n"), true));
    }
    if let Some(host) = parts.headers.get(HOST).filter(|h| !host_ok(h.as_bytes())) {
        let why = format!(
            "bad request: an invalid Host value '{}'; expected HOST[:PORT], HOST a name (letters, digits, -._~), \
             an IPv4 address or a bracketed IPv6 address\n",
            String::from_utf8_lossy(host.as_bytes())
        );
        return Some(text(StatusCode::BAD_REQUEST, why, true));
    }
    // A declared body over the limit is refused before it is read, so no
    // `100 Continue` invites it and no header timeout waits for it.
    let declared = parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if let Some(n) = declared.filter(|&n| n > MAX_BODY_BYTES as u64) {
        let why = format!("request body over the 64 KB limit ({MAX_BODY_BYTES} bytes): Content-Length {n}\n");
        return Some(text(StatusCode::PAYLOAD_TOO_LARGE, why, true));
    }
    if parts.method == Method::CONNECT {
        let mut r =
            plain(StatusCode::METHOD_NOT_ALLOWED, "CONNECT is not accepted: this server is not a proxy\n", true);
        r.headers_mut().insert(ALLOW, hyper::header::HeaderValue::from_static("GET, POST"));
        return Some(r);
    }
    let uri_len = parts.uri.to_string().len();
    if uri_len > MAX_URI_BYTES {
        let why = format!("URI too long: {uri_len} bytes; at most {MAX_URI_BYTES}\n");
        return Some(text(StatusCode::URI_TOO_LONG, why, true));
    }
    None
}

/// A `Host` value the server accepts (RFC 9112 §3.2, RFC 3986 §3.2.2, a
/// little stricter): empty, or `HOST[:PORT]` with `HOST` a name of
/// letters, digits and `-._~%`, or a bracketed IPv6 address, and `PORT`
/// 1 to 5 digits. A list (`a, b`), spaces, user info and the other
/// sub-delimiters are refused.
fn host_ok(v: &[u8]) -> bool {
    let port_ok = |p: &[u8]| (1..=5).contains(&p.len()) && p.iter().all(u8::is_ascii_digit);
    let (host, port) = if let Some(rest) = v.strip_prefix(b"[") {
        let Some(end) = rest.iter().position(|&c| c == b']') else { return false };
        let inside = std::str::from_utf8(&rest[..end]).ok().and_then(|t| t.parse::<std::net::Ipv6Addr>().ok());
        if inside.is_none() {
            return false;
        }
        (&[][..], &rest[end + 1..])
    } else {
        match v.iter().position(|&c| c == b':') {
            Some(i) => (&v[..i], &v[i..]),
            None => (v, &[][..]),
        }
    };
    let name_ok = host.iter().all(|&c| c.is_ascii_alphanumeric() || b"-._~%".contains(&c));
    let port_ok = port.is_empty() || port.strip_prefix(b":").is_some_and(port_ok);
    name_ok && port_ok && !(host.is_empty() && !v.is_empty() && !v.starts_with(b"["))
}

/// Read the whole body (at most [`MAX_BODY_BYTES`], within `timeout`), or
/// the answer that refuses it (413 naming the limit, 408, 400).
async fn read_body(body: Incoming, timeout: Duration) -> Result<Bytes, Response<Full<Bytes>>> {
    match tokio::time::timeout(timeout, Limited::new(body, MAX_BODY_BYTES).collect()).await {
        Err(_) => Err(text(
            StatusCode::REQUEST_TIMEOUT,
            format!("request body not complete within {} ms\n", timeout.as_millis()),
            true,
        )),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(text(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body over the 64 KB limit ({MAX_BODY_BYTES} bytes)\n"),
            true,
        )),
        Ok(Err(e)) => Err(text(StatusCode::BAD_REQUEST, format!("bad request body: {e}\n"), true)),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// Answer a request on a connection accepted over the connection cap: the
/// same head checks, the body read, then 503 with `Retry-After: 1` (the
/// connection cap's, not the door's `--retry-after-s`).
pub(crate) async fn refuse_over_cap(
    req: Request<Incoming>,
    cap: usize,
    timeout: Duration,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    if let Some(refused) = check_head(&parts) {
        return Ok(refused);
    }
    if let Err(refused) = read_body(body, timeout).await {
        return Ok(refused);
    }
    let mut r = text(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("busy: {cap} connections open (--max-connections); retry\n"),
        false,
    );
    r.headers_mut().insert(RETRY_AFTER, hyper::header::HeaderValue::from_static("1"));
    Ok(r)
}

/// A whole HTTP/1.1 answer as bytes, written by the listener itself on a
/// connection hyper no longer owns (a shed, a late request): `status` with
/// `text`, `Connection: close`, and `Retry-After: 1` on a 503.
pub(crate) fn raw_answer(status: u16, text: &str) -> Bytes {
    let reason = StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
    let retry = if status == 503 { "Retry-After: 1\r\n" } else { "" };
    Bytes::from(format!(
        "HTTP/1.1 {status} {reason}\r\n{retry}Content-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    ))
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
        Err(why) => text(StatusCode::BAD_REQUEST, format!("{why}\n"), false),
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

/// 503 with `Retry-After: retry_after_s` (`--retry-after-s`, default 1).
/// The connection stays open, so requests pipelined behind a refused one
/// are answered too.
fn refusal(text: &'static str, retry_after_s: u64) -> Response<Full<Bytes>> {
    let mut r = plain(StatusCode::SERVICE_UNAVAILABLE, text, false);
    r.headers_mut().insert(RETRY_AFTER, hyper::header::HeaderValue::from(retry_after_s));
    r
}

fn text(status: StatusCode, body: String, close: bool) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain"));
    if close {
        h.insert(CONNECTION, hyper::header::HeaderValue::from_static("close"));
    }
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
    fn refusal_has_retry_after_and_stays_open() {
        let r = refusal("x", 1);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers().get(RETRY_AFTER).map(|v| v.as_bytes()), Some(&b"1"[..]));
        let r = refusal("x", 120);
        assert_eq!(r.headers().get(RETRY_AFTER).map(|v| v.as_bytes()), Some(&b"120"[..]));
        assert_eq!(r.headers().get(CONNECTION), None, "kept open for pipelined requests");
        for good in ["", "t", "a.b-c_d~e", "127.0.0.1:8081", "[::1]", "[::1]:80", "h:65535"] {
            assert!(host_ok(good.as_bytes()), "{good:?}");
        }
        for bad in ["a, b", "a,b", "a b", "u@h", "h:x", "h:", ":80", "[::1", "[zz]", "h:123456", "[::1]x", "a;b"] {
            assert!(!host_ok(bad.as_bytes()), "{bad:?}");
        }
        let raw = raw_answer(503, "busy\n");
        assert_eq!(
            &raw[..],
            &b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\
               Connection: close\r\n\r\nbusy\n"[..]
        );
    }
}
