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
        }
    }
}

/// An answer: its status, its whole body, and its `Retry-After` in ms
/// when it carries one in delta-seconds (an HTTP-date is not read).
pub(crate) type Answer = (StatusCode, Bytes, Option<f64>);

/// `GET path` on a new connection to `addr`; returns status, full body and
/// the `Retry-After`.
pub(crate) async fn get(addr: SocketAddr, host_header: &str, path: &str) -> Result<Answer, FetchError> {
    request(addr, Method::GET, host_header, path).await
}

/// A `Retry-After` header's delta-seconds, in ms (`None` for none, an
/// HTTP-date or anything else).
fn retry_after_ms(v: Option<&hyper::header::HeaderValue>) -> Option<f64> {
    let secs: u32 = v?.to_str().ok()?.trim().parse().ok()?;
    Some(f64::from(secs) * 1000.0)
}

/// `method path` with an empty body on a new connection to `addr`.
async fn request(addr: SocketAddr, method: Method, host_header: &str, path: &str) -> Result<Answer, FetchError> {
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
    let retry_after = retry_after_ms(resp.headers().get(hyper::header::RETRY_AFTER));
    let body = resp.into_body().collect().await.map_err(FetchError::from_hyper)?.to_bytes();
    Ok((status, body, retry_after))
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
    let (status, body, _) = tokio::time::timeout(STATS_TIMEOUT, request(addr, method, host_header, path))
        .await
        .map_err(|_| fail(format!("no answer within {} s", STATS_TIMEOUT.as_secs())))?
        .map_err(|e| fail(e.to_string()))?;
    if status != StatusCode::OK {
        return Err(fail(format!("status {status}")));
    }
    serde_json::from_slice(&body).map_err(|e| fail(format!("not bplab-live stats JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn retry_after_reads_delta_seconds_only() {
        assert_eq!(retry_after_ms(Some(&HeaderValue::from_static("1"))), Some(1000.0));
        assert_eq!(retry_after_ms(Some(&HeaderValue::from_static(" 120 "))), Some(120_000.0));
        assert_eq!(retry_after_ms(Some(&HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"))), None);
        assert_eq!(retry_after_ms(Some(&HeaderValue::from_static("-1"))), None);
        assert_eq!(retry_after_ms(None), None);
    }
}
