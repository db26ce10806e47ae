//! Listening socket, accept loop, connection cap and clean shutdown.
//!
//! Hardening against hostile clients (each limit is a constant below):
//!
//! * The listen backlog is [`LISTEN_BACKLOG`] (the kernel caps it at
//!   `net.core.somaxconn`), so a burst of thousands of connects waits in the
//!   kernel's queue instead of losing SYNs to 1 s, 3 s, ... retransmits.
//! * When `max_connections` are open, each new connection sheds the one
//!   that has waited longest for a request head (see [`super::conns`]); the
//!   header timeout is the backstop, not the only way a slot frees up.
//! * hyper's read buffer is capped at [`MAX_HEAD_BYTES`]; a request head that
//!   does not fit gets hyper's automatic `431 Request Header Fields Too
//!   Large` (400 for a malformed head, 414 for a long URI). hyper then ends
//!   the connection, so the server half-closes and drains what the client
//!   still sends for up to [`LINGER`] ([`LINGER_BYTES`] at most) before
//!   closing: closing with unread bytes would make the kernel send a reset,
//!   which can destroy the 431 before the client reads it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::error::LiveError;
use crate::server::ServeConfig;
use crate::server::conns::Conns;
use crate::server::door::Door;
use crate::server::handler::handle;
use crate::stats::StatsSnapshot;

/// How long open connections get to finish after shutdown is requested.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(1500);
/// Requested accept backlog (Linux caps it at `net.core.somaxconn`, 4096 by
/// default since 5.4).
pub const LISTEN_BACKLOG: u32 = 4096;
/// hyper's read buffer cap per connection, bytes: the largest request head
/// accepted (hyper's default is about 400 KB). Larger heads get 431.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// How long a connection that got a 400/414/431 may keep sending before it
/// is closed.
pub const LINGER: Duration = Duration::from_millis(1000);
/// Most bytes drained from such a connection.
pub const LINGER_BYTES: usize = 1024 * 1024;
/// With the cap full and nothing to shed, look again this often.
const SHED_RETRY: Duration = Duration::from_millis(100);

/// A server whose socket is bound but which is not accepting yet.
///
/// Obtain it with [`bind`], read [`BoundServer::local_addr`] (useful with
/// port 0), then [`BoundServer::run`] it.
#[derive(Debug)]
pub struct BoundServer {
    listener: TcpListener,
    local_addr: SocketAddr,
    door: Arc<Door>,
}

/// A listener on `addr` with a [`LISTEN_BACKLOG`] backlog (`TcpListener::bind`
/// would use 1024 on tokio; many servers use 128).
fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    // As std and tokio's own bind do on Unix: rebind while old connections
    // of a previous run sit in TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Bind the listening socket for `cfg`.
pub async fn bind(cfg: ServeConfig) -> Result<BoundServer, LiveError> {
    let addr = cfg.addr();
    let listener = listen(addr).map_err(|source| LiveError::Bind { addr, source })?;
    let local_addr = listener.local_addr().map_err(|source| LiveError::Bind { addr, source })?;
    Ok(BoundServer { listener, local_addr, door: Arc::new(Door::new(cfg)) })
}

/// Bind and run until `shutdown` completes.
pub async fn serve(cfg: ServeConfig, shutdown: impl Future<Output = ()>) -> Result<(), LiveError> {
    bind(cfg).await?.run(shutdown).await
}

impl BoundServer {
    /// The address actually bound (the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The server's counters right now (the same data `/stats` returns).
    pub fn stats(&self) -> StatsSnapshot {
        self.door.snapshot()
    }

    /// Accept and serve connections until `shutdown` completes. Then stop
    /// accepting, ask open connections to finish (up to 1.5 s), cancel
    /// queued work and return.
    ///
    /// At most `max_connections` connections are open at once. When they
    /// are, a newly accepted connection sheds the one that has waited
    /// longest for a request head; if every open connection is serving a
    /// request, the new one waits for one to close. Accept errors (such as
    /// running out of file descriptors) are reported on stderr and retried
    /// after a short pause; they never end the server.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), LiveError> {
        let cfg = self.door.config().clone();
        let conn_slots = Arc::new(Semaphore::new(cfg.max_connections()));
        let registry = Arc::new(Conns::default());
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut conns = JoinSet::new();
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(Duration::from_millis(cfg.header_read_timeout_ms()))
            .max_buf_size(MAX_HEAD_BYTES);
        tokio::pin!(shutdown);

        'accept: loop {
            // Reap finished connection tasks so the set does not grow.
            while conns.try_join_next().is_some() {}
            let accepted = tokio::select! {
                () = &mut shutdown => break,
                a = self.listener.accept() => a,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    eprintln!("bplab-live: accept failed: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let permit = loop {
                if let Ok(p) = conn_slots.clone().try_acquire_owned() {
                    break p;
                }
                if registry.shed_oldest() {
                    self.door.count_shed();
                }
                tokio::select! {
                    () = &mut shutdown => break 'accept,
                    p = conn_slots.clone().acquire_owned() => match p {
                        Ok(p) => break p,
                        Err(_) => break 'accept,
                    },
                    () = tokio::time::sleep(SHED_RETRY) => {}
                }
            };
            let _ = stream.set_nodelay(true);
            let member = registry.open();
            let service = {
                let (door, stop, registry, id) = (self.door.clone(), stop_rx.clone(), registry.clone(), member.id());
                service_fn(move |req| {
                    let busy = registry.busy(id);
                    let answer = handle(door.clone(), stop.clone(), peer, req);
                    async move {
                        let _busy = busy;
                        answer.await
                    }
                })
            };
            let mut stop_conn = stop_rx.clone();
            let builder = builder.clone();
            conns.spawn(async move {
                let _permit = permit;
                let mut stream = stream;
                let mut conn = Box::pin(builder.serve_connection(TokioIo::new(&mut stream), service));
                let ended = tokio::select! {
                    r = conn.as_mut() => Some(r),
                    () = member.shed() => None,
                    () = async { let _ = stop_conn.wait_for(|s| *s).await; } => {
                        conn.as_mut().graceful_shutdown();
                        Some(conn.as_mut().await)
                    }
                };
                drop(conn);
                if let Some(Err(e)) = ended
                    && e.is_parse()
                {
                    tokio::select! {
                        () = linger(&mut stream) => {}
                        () = member.shed() => {}
                    }
                }
            });
        }

        drop(self.listener);
        let _ = stop_tx.send(true);
        let drain = async { while conns.join_next().await.is_some() {} };
        if tokio::time::timeout(SHUTDOWN_GRACE, drain).await.is_err() {
            conns.abort_all();
        }
        Ok(())
    }
}

/// After hyper answered a bad head (400/414/431) and gave up on the
/// connection: send FIN behind the answer, then read and discard what the
/// client still sends, for up to [`LINGER`] or [`LINGER_BYTES`], so the
/// close is not a reset that could destroy the answer.
async fn linger(stream: &mut TcpStream) {
    let _ = stream.shutdown().await;
    let drain = async {
        let mut buf = [0u8; 4096];
        let mut left = LINGER_BYTES;
        while left > 0 {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}
