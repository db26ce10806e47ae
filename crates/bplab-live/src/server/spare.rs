//! Handing a second-pool slot from the connection that made room to the
//! one it shed, so the shed one can linger.
//!
//! A connection accepted while every served slot is taken holds a slot of
//! the second pool (over-cap and closing connections) while it sheds a
//! waiting connection and takes its served slot. The shed connection needs
//! a second-pool slot to linger in (to answer a request that arrives while
//! it closes; see `listen::close`), and under a flood that pool is full of
//! newcomers. So the newcomer, once served, gives its second-pool slot to a
//! connection that asked for one instead of freeing it: the descriptors
//! held stay within the two pools.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit};

/// Second-pool slots given by newcomers to shed connections that asked.
#[derive(Debug, Default)]
pub(crate) struct Spares {
    wanted: AtomicUsize,
    given: Mutex<Vec<OwnedSemaphorePermit>>,
    ready: Notify,
}

impl Spares {
    /// Ask for a slot (before the served slot is freed, so the newcomer
    /// that takes it sees the ask); end the ask with [`Spares::take`].
    pub(crate) fn ask(&self) {
        self.wanted.fetch_add(1, Ordering::SeqCst);
    }

    /// A newcomer is served: give its second-pool slot to a connection
    /// that asked, or free it if none did.
    pub(crate) fn give(&self, permit: OwnedSemaphorePermit) {
        let mut given = self.given.lock().unwrap_or_else(PoisonError::into_inner);
        if given.len() < self.wanted.load(Ordering::SeqCst) {
            given.push(permit);
            drop(given);
            self.ready.notify_one();
        }
    }

    /// End an ask: a slot given within `wait`, or `None`.
    pub(crate) async fn take(&self, wait: Duration) -> Option<OwnedSemaphorePermit> {
        let got = tokio::time::timeout(wait, async {
            loop {
                let notified = self.ready.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(p) = self.given.lock().unwrap_or_else(PoisonError::into_inner).pop() {
                    return p;
                }
                notified.await;
            }
        })
        .await
        .ok();
        let mut given = self.given.lock().unwrap_or_else(PoisonError::into_inner);
        let wanted = self.wanted.fetch_sub(1, Ordering::SeqCst) - 1;
        // A slot given after the asker left is freed, not kept.
        given.truncate(wanted);
        got
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::sync::Semaphore;

    #[tokio::test]
    async fn a_slot_goes_to_an_asker_and_is_freed_without_one() {
        let pool = Arc::new(Semaphore::new(2));
        let s = Spares::default();
        s.give(pool.clone().try_acquire_owned().expect("slot"));
        assert_eq!(pool.available_permits(), 2, "nobody asked: freed");
        s.ask();
        s.give(pool.clone().try_acquire_owned().expect("slot"));
        assert_eq!(pool.available_permits(), 1);
        let got = s.take(Duration::from_millis(10)).await;
        assert!(got.is_some());
        drop(got);
        assert_eq!(pool.available_permits(), 2);
        s.ask();
        assert!(s.take(Duration::from_millis(10)).await.is_none(), "nothing given");
        s.give(pool.clone().try_acquire_owned().expect("slot"));
        assert_eq!(pool.available_permits(), 2, "the asker left: freed");
    }
}
