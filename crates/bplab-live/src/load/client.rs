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
    /// HTTP-level failure (handshake, send, reading the body, reset).
    Http(hyper::Error),
    /// The request could not be built (bad path or header).
    Build(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Connect(e) => write!(f, "connect: {e}"),
            FetchError::Http(e) => write!(f, "http: {e}"),
            FetchError::Build(e) => write!(f, "request: {e}"),
        }
    }
}

/// `GET path` on a new connection to `addr`; returns status and full body.
pub(crate) async fn get(addr: SocketAddr, host_header: &str, path: &str) -> Result<(StatusCode, Bytes), FetchError> {
    request(addr, Method::GET, host_header, path).await
}

/// `method path` with an empty body on a new connection to `addr`.
async fn request(
    addr: SocketAddr,
    method: Method,
    host_header: &str,
    path: &str,
) -> Result<(StatusCode, Bytes), FetchError> {
    let stream = TcpStream::connect(addr).await.map_err(FetchError::Connect)?;
    let _ = stream.set_nodelay(true);
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(FetchError::Http)?;
    let _driver = AbortOnDrop(tokio::spawn(async move {
        let _ = conn.await;
    }));
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header(HOST, host_header)
        .body(Empty::<Bytes>::new())
        .map_err(|e| FetchError::Build(e.to_string()))?;
    let resp = sender.send_request(req).await.map_err(FetchError::Http)?;
    let status = resp.status();
    let body = resp.into_body().collect().await.map_err(FetchError::Http)?.to_bytes();
    Ok((status, body))
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
    let (status, body) = tokio::time::timeout(STATS_TIMEOUT, request(addr, method, host_header, path))
        .await
        .map_err(|_| fail(format!("no answer within {} s", STATS_TIMEOUT.as_secs())))?
        .map_err(|e| fail(e.to_string()))?;
    if status != StatusCode::OK {
        return Err(fail(format!("status {status}")));
    }
    serde_json::from_slice(&body).map_err(|e| fail(format!("not bplab-live stats JSON: {e}")))
}
