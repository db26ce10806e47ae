//! Open connections, and which of them are waiting for a request head.
//!
//! A connection is *waiting* from the moment it is accepted until hyper has
//! parsed a request head (the service is called), and again after each
//! answer until the next head (an idle keep-alive connection). While a
//! request is being served it is *busy*. When `max_connections` are open and
//! another client connects, the listener sheds the connection that has been
//! waiting longest ([`Conns::shed_oldest`]): a slowloris or idle socket, never
//! a request in service. A normal client therefore gets in at once instead of
//! waiting for the header timeout to free a slot.
//!
//! A head that completes at the very moment its connection is chosen is lost
//! with it (the client sees a close, as on a header timeout); the window is a
//! few instructions wide.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// The registry of open connections.
#[derive(Debug, Default)]
pub(crate) struct Conns {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Next id / stamp (one counter: stamps only grow).
    next: u64,
    /// Waiting connections by the stamp of when they started waiting
    /// (oldest first) -> connection id.
    waiting: BTreeMap<u64, u64>,
    /// Every open connection by id.
    open: HashMap<u64, Entry>,
}

#[derive(Debug)]
struct Entry {
    /// Its key in `waiting`, or `None` while busy (or once shed).
    since: Option<u64>,
    /// Chosen by [`Conns::shed_oldest`]; closing.
    shed: bool,
    /// Woken to close the connection.
    kill: Arc<Notify>,
}

impl Inner {
    fn stamp(&mut self) -> u64 {
        self.next += 1;
        self.next
    }
}

/// One open connection's membership; removes it when dropped.
#[derive(Debug)]
pub(crate) struct ConnHandle {
    conns: Arc<Conns>,
    id: u64,
    kill: Arc<Notify>,
}

/// Marks a connection busy while a request is served; waiting again on drop.
#[derive(Debug)]
pub(crate) struct Busy {
    conns: Arc<Conns>,
    id: u64,
}

impl Conns {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Register a just-accepted connection, waiting for its first head.
    pub(crate) fn open(self: &Arc<Self>) -> ConnHandle {
        let mut g = self.lock();
        let id = g.stamp();
        let since = g.stamp();
        let kill = Arc::new(Notify::new());
        g.waiting.insert(since, id);
        g.open.insert(id, Entry { since: Some(since), shed: false, kill: kill.clone() });
        ConnHandle { conns: self.clone(), id, kill }
    }

    /// Connection `id` has a request head and is being served.
    pub(crate) fn busy(self: &Arc<Self>, id: u64) -> Busy {
        let mut g = self.lock();
        if let Some(since) = g.open.get_mut(&id).and_then(|e| e.since.take()) {
            g.waiting.remove(&since);
        }
        Busy { conns: self.clone(), id }
    }

    /// Close the connection that has waited longest for a request head.
    /// Returns false if every open connection is busy.
    pub(crate) fn shed_oldest(&self) -> bool {
        let mut g = self.lock();
        let Some((_, id)) = g.waiting.pop_first() else {
            return false;
        };
        match g.open.get_mut(&id) {
            Some(e) => {
                e.since = None;
                e.shed = true;
                // notify_one keeps the wake-up if the task is not listening yet.
                e.kill.notify_one();
                true
            }
            None => false,
        }
    }

    /// Connections waiting for a head right now.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }
}

impl ConnHandle {
    /// This connection's id, for [`Conns::busy`].
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Completes when the listener sheds this connection.
    pub(crate) async fn shed(&self) {
        self.kill.notified().await;
    }
}

impl Drop for ConnHandle {
    fn drop(&mut self) {
        let mut g = self.conns.lock();
        if let Some(since) = g.open.remove(&self.id).and_then(|e| e.since) {
            g.waiting.remove(&since);
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut g = self.conns.lock();
        let since = g.stamp();
        // Only if still open and not shed meanwhile (a shed one has no stamp
        // but is about to close; it must not become sheddable again).
        if let Some(e) = g.open.get_mut(&self.id)
            && e.since.is_none()
            && !e.shed
        {
            e.since = Some(since);
            g.waiting.insert(since, self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheds_the_oldest_waiting_never_a_busy_one() {
        let c = Arc::new(Conns::default());
        let a = c.open();
        let b = c.open();
        let busy_a = c.busy(a.id());
        assert_eq!(c.waiting(), 1);
        assert!(c.shed_oldest(), "b is waiting");
        assert!(!c.shed_oldest(), "a is busy, b already shed");
        drop(busy_a);
        assert_eq!(c.waiting(), 1, "a waits again after its answer");
        let d = c.open();
        assert!(c.shed_oldest(), "a has waited longer than d");
        assert_eq!(c.waiting(), 1);
        drop((a, b, d));
        assert_eq!(c.waiting(), 0);
        assert!(c.lock().open.is_empty());
    }
}
