//! A minimal HTTP/1.1 client: one fresh TCP connection per request, raw
//! hyper `client::conn::http1` over a tokio `TcpStream`.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::header::HOST;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use crate::error::LiveError;
use crate::stats::StatsSnapshot;

/// How long a `/stats` read may take.
pub(crate) const STATS_TIMEOUT: Duration = Duration::from_secs(5);

/// Aborts the connection driver when the request is done or abandoned, so
/// an abandoned request closes its socket at once (the caller "hangs up").
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Why a request produced no status.
#[derive(Debug)]
pub(crate) enum FetchError {
    /// TCP connect failed.
    Connect(std::io::Error),
    /// The peer answered bytes that are not an HTTP/1.1 response.
    NotHttp(hyper::Error),
    /// The peer closed (or reset) the connection without a whole answer.
    Closed(hyper::Error),
    /// Another HTTP-level failure.
    Http(hyper::Error),
    /// The request could not be built (bad path or header).
    Build(String),
    /// A body to keep was larger than [`MAX_KEPT_BODY_BYTES`].
    TooLarge(String),
}

impl FetchError {
    /// Classify hyper's error (the connection's own error when the request
    /// was only cancelled because the connection failed).
    fn from_hyper(e: hyper::Error) -> Self {
        if e.is_parse() || e.is_parse_status() || e.is_parse_too_large() {
            FetchError::NotHttp(e)
        } else if e.is_incomplete_message() || e.is_closed() || e.is_canceled() {
            FetchError::Closed(e)
        } else {
            FetchError::Http(e)
        }
    }
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Connect(e) => write!(f, "connect: {e}"),
            FetchError::NotHttp(e) => write!(f, "the answer is not HTTP/1.1 ({e})"),
            FetchError::Closed(e) => write!(f, "closed without an answer ({e})"),
            FetchError::Http(e) => write!(f, "http: {e}"),
            FetchError::Build(e) => write!(f, "request: {e}"),
            FetchError::TooLarge(e) => write!(f, "the answer's body is over {MAX_KEPT_BODY_BYTES} bytes ({e})"),
        }
    }
}

/// An answer: its status, its body (kept only where asked: `/stats`; a
/// work request's body is read to its end and dropped as it arrives), and
/// its `Retry-After` in ms (see [`retry_after_ms`]).
pub(crate) type Answer = (StatusCode, Option<Bytes>, Option<f64>);

/// The largest body kept (a `/stats` answer; a server holding the largest
/// accepted line lists about 8 MB of held requests); a larger one is an
/// error, not an allocation.
pub(crate) const MAX_KEPT_BODY_BYTES: usize = 32 * 1024 * 1024;

/// The longest `Retry-After` read, seconds: one day, the server's own
/// `--retry-after-s` maximum. A larger delay, in either form, reads as
/// this; a retry is sent only inside its rate's window (at most 600 s), so
/// any delay from here up means no retry.
pub const MAX_RETRY_AFTER_S: u64 = crate::server::MAX_RETRY_AFTER_S;

/// `GET path` on a new connection to `addr`; returns the status and the
/// `Retry-After`, its body read to the end and dropped.
pub(crate) async fn get(addr: SocketAddr, host_header: &str, path: &str) -> Result<Answer, FetchError> {
    request(addr, Method::GET, host_header, path, false).await
}

/// A `Retry-After` header (RFC 9110 §10.2.3) as a delay in ms, `date` the
/// answer's `Date` header and `now` the client's clock:
///
/// * delta-seconds (digits only): that many seconds, at most
///   [`MAX_RETRY_AFTER_S`] (a larger value, however many digits, reads as
///   the cap, never as absent);
/// * an HTTP-date (any of the three forms `httpdate` parses): its time
///   minus the answer's `Date` (or `now` without one), 0 for a past date,
///   at most the cap;
/// * anything else (a sign, a fraction, garbage) or no header: `None`,
///   as if the answer carried none.
pub fn retry_after_ms(
    v: Option<&hyper::header::HeaderValue>,
    date: Option<&hyper::header::HeaderValue>,
    now: std::time::SystemTime,
) -> Option<f64> {
    let text = v?.to_str().ok()?.trim();
    let cap = MAX_RETRY_AFTER_S as f64 * 1000.0;
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        // Digits beyond u64 are still a (very long) delay.
        let secs = text.parse::<u64>().unwrap_or(u64::MAX).min(MAX_RETRY_AFTER_S);
        return Some(secs as f64 * 1000.0);
    }
    let at = httpdate::parse_http_date(text).ok()?;
    let from = date.and_then(|d| httpdate::parse_http_date(d.to_str().ok()?.trim()).ok()).unwrap_or(now);
    let ms = at.duration_since(from).map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    Some(ms.min(cap))
}

/// `method path` with an empty body on a new connection to `addr`; the
/// answer's body kept (up to [`MAX_KEPT_BODY_BYTES`]) if `keep`, else read
/// to its end and dropped frame by frame.
async fn request(
    addr: SocketAddr,
    method: Method,
    host_header: &str,
    path: &str,
    keep: bool,
) -> Result<Answer, FetchError> {
    let stream = TcpStream::connect(addr).await.map_err(FetchError::Connect)?;
    let _ = stream.set_nodelay(true);
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(FetchError::from_hyper)?;
    let (failed_tx, failed_rx) = tokio::sync::oneshot::channel();
    let _driver = AbortOnDrop(tokio::spawn(async move {
        if let Err(e) = conn.await {
            let _ = failed_tx.send(e);
        }
    }));
    // A request cancelled because its connection failed: report why.
    let why = |e: hyper::Error, failed: tokio::sync::oneshot::Receiver<hyper::Error>| async move {
        if e.is_canceled()
            && let Ok(Ok(conn_error)) = tokio::time::timeout(Duration::from_millis(100), failed).await
        {
            return FetchError::from_hyper(conn_error);
        }
        FetchError::from_hyper(e)
    };
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header(HOST, host_header)
        .body(Empty::<Bytes>::new())
        .map_err(|e| FetchError::Build(e.to_string()))?;
    let resp = match sender.send_request(req).await {
        Ok(resp) => resp,
        Err(e) => return Err(why(e, failed_rx).await),
    };
    let status = resp.status();
    let h = resp.headers();
    let retry_after =
        retry_after_ms(h.get(hyper::header::RETRY_AFTER), h.get(hyper::header::DATE), std::time::SystemTime::now());
    let mut body = resp.into_body();
    if keep {
        let kept =
            http_body_util::Limited::new(body, MAX_KEPT_BODY_BYTES).collect().await.map_err(|e| match e
                .downcast::<hyper::Error>()
            {
                Ok(e) => FetchError::from_hyper(*e),
                Err(e) => FetchError::TooLarge(e.to_string()),
            })?;
        return Ok((status, Some(kept.to_bytes()), retry_after));
    }
    // The last byte still ends the request (latency is to the whole answer).
    while let Some(frame) = body.frame().await {
        drop(frame.map_err(FetchError::from_hyper)?);
    }
    Ok((status, None, retry_after))
}

/// Read and parse `GET /stats` from the server at `addr`.
pub(crate) async fn get_stats(addr: SocketAddr, host_header: &str) -> Result<StatsSnapshot, LiveError> {
    stats_call(addr, Method::GET, host_header, "/stats").await
}

/// `POST /stats/reset-peak`: restart the waiting line's high-water mark and
/// return the snapshot taken right after.
pub(crate) async fn reset_peak(addr: SocketAddr, host_header: &str) -> Result<StatsSnapshot, LiveError> {
    stats_call(addr, Method::POST, host_header, "/stats/reset-peak").await
}

async fn stats_call(
    addr: SocketAddr,
    method: Method,
    host_header: &str,
    path: &str,
) -> Result<StatsSnapshot, LiveError> {
    let fail = |reason: String| LiveError::Stats { addr, reason };
    let (status, body, _) = tokio::time::timeout(STATS_TIMEOUT, request(addr, method, host_header, path, true))
        .await
        .map_err(|_| fail(format!("no answer within {} s", STATS_TIMEOUT.as_secs())))?
        .map_err(|e| fail(e.to_string()))?;
    if status != StatusCode::OK {
        return Err(fail(format!("status {status}")));
    }
    serde_json::from_slice(body.as_deref().unwrap_or_default())
        .map_err(|e| fail(format!("not bplab-live stats JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn retry_after_reads_delta_seconds_and_http_dates_up_to_the_cap() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").expect("date");
        let ra = |v: &'static str| retry_after_ms(Some(&HeaderValue::from_static(v)), None, now);
        let cap = MAX_RETRY_AFTER_S as f64 * 1000.0;
        assert_eq!(ra("1"), Some(1000.0));
        assert_eq!(ra(" 120 "), Some(120_000.0));
        assert_eq!(ra("0"), Some(0.0));
        assert_eq!(ra("86400"), Some(cap));
        // The audit's values past u32 (read as absent before: a retry at once).
        for long in ["86401", "4294967295", "4294967296", "99999999999999999999"] {
            assert_eq!(ra(long), Some(cap), "{long}");
        }
        // HTTP-dates: future (from the client's clock), past, the obsolete forms.
        assert_eq!(ra("Wed, 21 Oct 2015 07:28:30 GMT"), Some(30_000.0));
        assert_eq!(ra("Wed, 21 Oct 2015 07:27:00 GMT"), Some(0.0));
        assert_eq!(ra("Wednesday, 21-Oct-15 07:28:05 GMT"), Some(5_000.0));
        assert_eq!(ra("Wed Oct 21 07:28:02 2015"), Some(2_000.0));
        assert_eq!(ra("Fri, 21 Oct 2016 07:28:00 GMT"), Some(cap));
        // From the answer's own Date when it has one (no clock skew).
        let date = HeaderValue::from_static("Wed, 21 Oct 2015 08:00:00 GMT");
        let v = HeaderValue::from_static("Wed, 21 Oct 2015 08:00:10 GMT");
        assert_eq!(retry_after_ms(Some(&v), Some(&date), now), Some(10_000.0));
        // Anything else is ignored.
        for bad in ["-1", "+5", "1.5", "soon", "", "1 2", "Wed, 32 Oct 2015 07:28:00 GMT"] {
            assert_eq!(ra(bad), None, "{bad:?}");
        }
        assert_eq!(retry_after_ms(None, None, now), None);
    }
}
