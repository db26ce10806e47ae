//! Listening socket, accept loop, connection cap and clean shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::error::LiveError;
use crate::server::ServeConfig;
use crate::server::door::Door;
use crate::server::handler::handle;
use crate::stats::StatsSnapshot;

/// How long open connections get to finish after shutdown is requested.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(1500);

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

/// Bind the listening socket for `cfg`.
pub async fn bind(cfg: ServeConfig) -> Result<BoundServer, LiveError> {
    let addr = cfg.addr();
    let listener = TcpListener::bind(addr).await.map_err(|source| LiveError::Bind { addr, source })?;
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
    /// At most `max_connections` connections are open at once; further
    /// ones wait in the kernel's accept backlog until one closes. Accept
    /// errors (such as running out of file descriptors) are reported on
    /// stderr and retried after a short pause; they never end the server.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), LiveError> {
        let cfg = *self.door.config();
        let conn_slots = Arc::new(Semaphore::new(cfg.max_connections()));
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut conns = JoinSet::new();
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(Duration::from_millis(cfg.header_read_timeout_ms()));
        tokio::pin!(shutdown);

        loop {
            // Reap finished connection tasks so the set does not grow.
            while conns.try_join_next().is_some() {}
            let permit = tokio::select! {
                () = &mut shutdown => break,
                p = conn_slots.clone().acquire_owned() => match p {
                    Ok(p) => p,
                    Err(_) => break,
                },
            };
            let accepted = tokio::select! {
                () = &mut shutdown => break,
                a = self.listener.accept() => a,
            };
            let stream = match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    eprintln!("bplab-live: accept failed: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let door = self.door.clone();
            let stop = stop_rx.clone();
            let mut stop_conn = stop_rx.clone();
            let conn = builder
                .serve_connection(TokioIo::new(stream), service_fn(move |req| handle(door.clone(), stop.clone(), req)));
            conns.spawn(async move {
                let _permit = permit;
                tokio::pin!(conn);
                tokio::select! {
                    _ = conn.as_mut() => {}
                    () = async { let _ = stop_conn.wait_for(|s| *s).await; } => {
                        conn.as_mut().graceful_shutdown();
                        let _ = conn.await;
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
