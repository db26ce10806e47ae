//! What the integration tests of bplab-live share: a server started on
//! 127.0.0.1 port 0 (on the test's runtime or on its own thread), raw
//! HTTP/1.1 over a socket, one answer read off a socket, `/stats`, and the
//! process's open-file limit.
//!
//! Every wait is bounded by a generous timeout (a loaded 2-core machine);
//! none of them is a claim about speed.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use bplab_live::server::parse_door;
use bplab_live::{ServeConfig, ServeSettings, StatsSnapshot, bind};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Mutex, oneshot};

/// Held by a test that must not share the cores or descriptors with
/// another test of the same binary.
pub static HEAVY: Mutex<()> = Mutex::const_new(());

/// How long any one raw exchange may take before it counts as no answer.
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// The lesson's service on 127.0.0.1, port 0.
pub fn settings() -> ServeSettings {
    ServeSettings { addr: SocketAddr::from(([127, 0, 0, 1], 0)), ..ServeSettings::DEFAULT }
}

/// `settings` with the door `limit` (a number, `off` or a controller's
/// name) and its controller settings.
pub fn with_door(s: ServeSettings, limit: &str, given: &[(&str, &str)]) -> ServeConfig {
    let given: BTreeMap<String, String> = given.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let door = parse_door(limit, &given).expect("valid door");
    ServeConfig::new(ServeSettings { limit: door.queue_limit(), ..s }).expect("valid config").with_door(door, given)
}

/// A server running on the test's runtime; stops when dropped.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its counters, read without a connection.
    pub counters: bplab_live::server::StatsHandle,
    _stop: oneshot::Sender<()>,
}

impl Running {
    /// Wait (up to `EXCHANGE_TIMEOUT`) until `ready` holds for the counters.
    pub async fn until(&self, what: &str, ready: impl Fn(&StatsSnapshot) -> bool) {
        let t0 = std::time::Instant::now();
        while !ready(&self.counters.snapshot()) {
            assert!(t0.elapsed() < EXCHANGE_TIMEOUT, "{what}: not within {EXCHANGE_TIMEOUT:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Start a server for `cfg` on the current runtime.
pub async fn start(cfg: ServeConfig) -> Running {
    let bound = bind(cfg).await.expect("bind");
    let (addr, counters) = (bound.local_addr(), bound.stats_handle());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(bound.run(async move {
        let _ = stopped.await;
    }));
    Running { addr, counters, _stop: stop }
}

/// Start a server from plain settings (the door from `settings.limit`).
pub async fn start_settings(s: ServeSettings) -> Running {
    start(ServeConfig::new(s).expect("valid config")).await
}

/// A server on its own thread and runtime, for tests that block (the
/// `run_*` entry points build their own runtime). Stops and joins on drop.
pub struct OnThread {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Start a server for `cfg` on a new thread with a one-worker runtime.
pub fn start_on_thread(cfg: ServeConfig) -> OnThread {
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("rt");
        rt.block_on(async move {
            let bound = bind(cfg).await.expect("bind");
            addr_tx.send(bound.local_addr()).expect("send addr");
            bound
                .run(async move {
                    let _ = stopped.await;
                })
                .await
                .expect("run");
        });
    });
    let addr = addr_rx.recv().expect("addr");
    OnThread { addr, stop: Some(stop), thread: Some(thread) }
}

impl Drop for OnThread {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Send raw bytes, read until the server closes (or `EXCHANGE_TIMEOUT`),
/// return the text.
pub async fn raw(addr: SocketAddr, bytes: &[u8]) -> std::io::Result<String> {
    let io = async {
        let mut s = TcpStream::connect(addr).await?;
        s.write_all(bytes).await?;
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    };
    tokio::time::timeout(EXCHANGE_TIMEOUT, io)
        .await
        .map_err(|_| std::io::Error::other(format!("no close within {EXCHANGE_TIMEOUT:?}")))?
}

/// `GET path` with `Connection: close`; the whole answer as text.
pub async fn get(addr: SocketAddr, path: &str) -> std::io::Result<String> {
    raw(addr, format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").as_bytes()).await
}

/// The server's `/stats`.
pub async fn stats(addr: SocketAddr) -> StatsSnapshot {
    let text = get(addr, "/stats").await.expect("stats");
    serde_json::from_str(text.split("\r\n\r\n").nth(1).expect("body")).expect("stats json")
}

/// One HTTP/1.1 answer read off a socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The head, lower-cased.
    pub head: String,
    /// The body as text.
    pub body: String,
}

impl Answer {
    /// A 503 that says when to retry.
    pub fn is_refusal(&self) -> bool {
        self.status == 503 && self.head.contains("\r\nretry-after: ")
    }
}

/// Read one answer (head, then `Content-Length` bytes of body) from `r`,
/// keeping what was read past it in `buf`. `Err` if the stream ends or
/// fails before a whole answer arrived.
pub async fn read_answer<R: AsyncRead + Unpin>(r: &mut R, buf: &mut Vec<u8>) -> std::io::Result<Answer> {
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = r.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed before an answer"));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let len: usize =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    while buf.len() < head_end + len {
        let n = r.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed inside an answer"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..head_end + len]).into_owned();
    buf.drain(..head_end + len);
    Ok(Answer { status, head, body })
}

/// The process's soft open-file limit, raised towards `want` if the hard
/// limit allows (`rlimit`); what it is afterwards.
pub fn open_files(want: u64) -> u64 {
    let now = bplab_live::server::open_file_limit().unwrap_or(1024);
    if now >= want {
        return now;
    }
    match rlimit::increase_nofile_limit(want) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("cannot raise the open-file limit from {now} towards {want}: {e}");
            now
        }
    }
}
