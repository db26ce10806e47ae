//! Open connections, what each one's socket is doing, and which of them may
//! be shed to make room.
//!
//! Every connection's socket is read through [`Watched`], which keeps its
//! [`Watch`] up to date from what the socket itself shows:
//!
//! * **busy**: a request head was parsed and the request is being served
//!   (its answer is not written yet). Never shed.
//! * **waiting**: hyper asked for bytes and the socket had none. Hyper reads
//!   only when its buffer holds no complete request head (with half-close
//!   on, it does not read while a request is in progress), so a waiting
//!   connection has sent no request bytes yet, or only part of a head, or
//!   is idle between keep-alive requests. Only waiting connections are shed,
//!   longest-waiting first ([`Conns::shed_one`]).
//! * neither: bytes just arrived and hyper is parsing them, or the
//!   connection was accepted and its task has not read yet (a complete
//!   request may sit unread in the kernel). Not shed.
//!
//! Shedding is decided on the socket at the last moment: the connection's
//! own task peeks at the socket, and if bytes have arrived meanwhile the
//! shed is declined (the connection is about to be busy). Otherwise hyper is
//! handed an end of stream (it closes an idle connection cleanly, or drops a
//! partial head), and the listener closes the connection (see
//! `listen::closing`): a status is sent only to a connection whose request
//! has begun. A partial head is answered `503` with `Retry-After`; an idle
//! keep-alive connection gets a plain FIN (a pooled client would read an
//! unsolicited status as the answer to its next request); a connection that
//! has sent nothing yet gets a `503` only if its request arrives while the
//! server lingers, so a request still in flight gets an answer, not a reset.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The HTTP/2 connection preface a prior-knowledge client starts with.
pub(crate) const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Where a shed stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Shed {
    /// Not asked.
    #[default]
    No,
    /// Asked by the listener; the connection's task decides on its next read.
    Asked,
    /// Decided: hyper was given an end of stream.
    Done,
}

/// What one connection's socket is doing.
#[derive(Debug, Default)]
struct State {
    busy: bool,
    /// hyper's last read found no bytes (and it is not serving a request).
    waiting: bool,
    /// Since when the connection has had no complete request head (set at
    /// the first empty read after accept or after an answer; bytes of a
    /// partial head do not restart it).
    head_since: Option<Instant>,
    shed: Shed,
    /// Close as soon as the client has nothing more in flight after an
    /// answer (an over-cap connection).
    close_when_idle: bool,
    /// Closed that way.
    idle_closed: bool,
    answers: u64,
    /// The client sent its end of stream.
    eof: bool,
    /// Bytes read since the last request head was parsed.
    bytes_since_head: u64,
    /// The first bytes of the connection, to recognise an HTTP/2 preface.
    first: Vec<u8>,
    waker: Option<Waker>,
}

/// One connection's state, shared by its task, its service and the listener.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    s: Mutex<State>,
}

impl Watch {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.s.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// An over-cap connection: answered, then closed once idle.
    pub(crate) fn close_when_idle(&self) {
        self.lock().close_when_idle = true;
    }

    /// A request head was parsed: busy until the returned guard drops (the
    /// service's answer is ready; hyper writes it before it reads again).
    pub(crate) fn busy(self: &Arc<Self>) -> Busy {
        let mut s = self.lock();
        s.busy = true;
        s.waiting = false;
        s.head_since = None;
        s.bytes_since_head = 0;
        if s.shed == Shed::Asked {
            s.shed = Shed::No;
        }
        Busy(self.clone())
    }

    /// hyper was ended by a shed.
    pub(crate) fn was_shed(&self) -> bool {
        self.lock().shed == Shed::Done
    }

    /// An over-cap connection was closed once idle after its answers.
    pub(crate) fn idle_closed(&self) -> bool {
        self.lock().idle_closed
    }

    /// The client ended its side.
    pub(crate) fn saw_eof(&self) -> bool {
        self.lock().eof
    }

    /// Bytes of an unfinished head arrived since the last head.
    pub(crate) fn partial_head(&self) -> bool {
        self.lock().bytes_since_head > 0
    }

    /// At least one request on this connection was answered.
    pub(crate) fn answered(&self) -> bool {
        self.lock().answers > 0
    }

    /// The connection opened with the HTTP/2 prior-knowledge preface.
    pub(crate) fn sent_h2_preface(&self) -> bool {
        self.lock().first.as_slice() == H2_PREFACE
    }

    /// Ask the connection's task to shed it (if still waiting); true if asked.
    fn ask_shed(&self) -> bool {
        let mut s = self.lock();
        if !(s.waiting && !s.busy && s.shed == Shed::No) {
            return false;
        }
        s.shed = Shed::Asked;
        if let Some(w) = s.waker.take() {
            w.wake();
        }
        true
    }

    fn candidate_since(&self) -> Option<Instant> {
        let s = self.lock();
        (s.waiting && !s.busy && s.shed == Shed::No).then_some(s.head_since).flatten()
    }
}

/// Marks a connection busy while its request is served.
#[derive(Debug)]
pub(crate) struct Busy(Arc<Watch>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.busy = false;
        s.answers += 1;
    }
}

/// A socket read through its [`Watch`] (see the module docs).
#[derive(Debug)]
pub(crate) struct Watched<'a> {
    stream: &'a mut TcpStream,
    watch: Arc<Watch>,
}

impl<'a> Watched<'a> {
    pub(crate) fn new(stream: &'a mut TcpStream, watch: Arc<Watch>) -> Self {
        Watched { stream, watch }
    }
}

impl AsyncRead for Watched<'_> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        {
            let mut s = this.watch.lock();
            let closing = s.close_when_idle && s.answers > 0 && !s.busy;
            if s.shed == Shed::Asked || (closing && s.shed == Shed::No) {
                // Judge the socket itself: has anything arrived?
                let mut one = [0u8; 1];
                let mut peek = ReadBuf::new(&mut one);
                match this.stream.poll_peek(cx, &mut peek) {
                    Poll::Ready(Ok(n)) if n > 0 => s.shed = Shed::No,
                    Poll::Ready(Ok(_)) => {}
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {
                        if s.shed == Shed::Asked {
                            s.shed = Shed::Done;
                        } else {
                            s.idle_closed = true;
                        }
                        s.waiting = false;
                        // End of stream for hyper.
                        return Poll::Ready(Ok(()));
                    }
                }
            }
            if s.shed == Shed::Done || s.idle_closed {
                return Poll::Ready(Ok(()));
            }
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut *this.stream).poll_read(cx, buf);
        let mut s = this.watch.lock();
        match &polled {
            Poll::Pending => {
                if !s.busy {
                    s.waiting = true;
                    s.head_since.get_or_insert_with(Instant::now);
                }
                s.waker = Some(cx.waker().clone());
            }
            Poll::Ready(Ok(())) => {
                s.waiting = false;
                let got = &buf.filled()[before..];
                if got.is_empty() {
                    s.eof = true;
                } else {
                    s.bytes_since_head += got.len() as u64;
                    let room = H2_PREFACE.len().saturating_sub(s.first.len());
                    let take = room.min(got.len());
                    s.first.extend_from_slice(&got[..take]);
                }
            }
            Poll::Ready(Err(_)) => s.waiting = false,
        }
        polled
    }
}

impl AsyncWrite for Watched<'_> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.get_mut().stream).poll_flush(cx)
    }

    /// Only flushes: the connection's task shuts the socket down itself
    /// once it has written any answer of its own (a shed's 503).
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.get_mut().stream).poll_flush(cx)
    }
}

/// The registry of connections served (under the cap).
#[derive(Debug, Default)]
pub(crate) struct Conns {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    next: u64,
    open: HashMap<u64, Arc<Watch>>,
}

/// One connection's membership; removes it when dropped.
#[derive(Debug)]
pub(crate) struct Member {
    conns: Arc<Conns>,
    id: u64,
}

impl Conns {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Register a served connection's watch.
    pub(crate) fn open(self: &Arc<Self>, watch: Arc<Watch>) -> Member {
        let mut g = self.lock();
        g.next += 1;
        let id = g.next;
        g.open.insert(id, watch);
        Member { conns: self.clone(), id }
    }

    /// Ask the connection that has waited longest without a complete request
    /// head to close (its own task confirms on the socket, see the module
    /// docs). False if no connection is waiting.
    pub(crate) fn shed_one(&self) -> bool {
        let g = self.lock();
        let mut order: Vec<(Instant, &Arc<Watch>)> =
            g.open.values().filter_map(|w| w.candidate_since().map(|t| (t, w))).collect();
        order.sort_by_key(|(t, _)| *t);
        order.into_iter().any(|(_, w)| w.ask_shed())
    }

    /// Connections registered right now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().open.len()
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.conns.lock().open.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(w: &Watch, since: Instant) {
        let mut s = w.lock();
        s.waiting = true;
        s.head_since = Some(since);
    }

    #[test]
    fn sheds_the_longest_waiting_never_a_busy_or_unread_one() {
        let c = Arc::new(Conns::default());
        let (a, b, fresh) = (Arc::new(Watch::default()), Arc::new(Watch::default()), Arc::new(Watch::default()));
        let _members = (c.open(a.clone()), c.open(b.clone()), c.open(fresh.clone()));
        let t0 = Instant::now();
        waiting(&a, t0);
        waiting(&b, t0 + std::time::Duration::from_millis(5));
        let busy_a = a.busy();
        assert!(c.shed_one(), "b is waiting");
        assert_eq!(b.lock().shed, Shed::Asked);
        assert!(!c.shed_one(), "a is busy, b already asked, fresh has not read yet");
        drop(busy_a);
        assert_eq!(a.lock().answers, 1);
        assert!(!c.shed_one(), "a is not waiting until hyper reads again");
        waiting(&a, t0);
        assert!(c.shed_one());
        assert_eq!(a.lock().shed, Shed::Asked);
        // A head parsed meanwhile declines the shed.
        let _busy = a.busy();
        assert_eq!(a.lock().shed, Shed::No);
        assert_eq!(c.len(), 3);
    }
}
