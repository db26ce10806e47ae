//! The swap of slots between a shed connection and the newcomer it was
//! shed for, so the shed one can always linger.
//!
//! A connection accepted while every served slot is taken holds a slot of
//! the second pool (over-cap and closing connections) while it sheds a
//! waiting connection (see `listen::make_room`). The shed connection needs
//! a slot to linger in (to answer a request that arrives while it closes;
//! see `listen::close`), and under a flood the second pool is full of
//! newcomers. So the two swap: the shed connection leaves its served slot
//! here instead of freeing it, where only a newcomer making room can take
//! it, and that newcomer leaves its second-pool slot in exchange. Nothing
//! else (such as the accept loop) can take the served slot in between.
//!
//! If no newcomer takes the served slot within the shed connection's wait,
//! the shed connection takes it back and lingers in it: it was not needed.
//! Either way every connection that left a slot gets one back, because a
//! newcomer takes a served slot and leaves a second-pool slot in one step:
//! the slots held here always number the connections waiting for one. The
//! descriptors held stay within the two pools.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit};

/// Slots left by shed connections and given in exchange by newcomers.
#[derive(Debug, Default)]
pub(crate) struct Swaps {
    slots: Mutex<Slots>,
    /// A served slot was left.
    served_left: Notify,
    /// A second-pool slot was given for one.
    extra_given: Notify,
}

#[derive(Debug, Default)]
struct Slots {
    /// Served slots left by shed connections, for newcomers making room.
    served: Vec<OwnedSemaphorePermit>,
    /// Second-pool slots given for them, for the shed connections.
    extra: Vec<OwnedSemaphorePermit>,
}

impl Swaps {
    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until a served slot may have been left (create it, `enable`
    /// it, then call [`Swaps::swap`], so none is missed).
    pub(crate) fn served_left(&self) -> tokio::sync::futures::Notified<'_> {
        self.served_left.notified()
    }

    /// A newcomer making room: a served slot left by a shed connection, in
    /// exchange for `extra` (its second-pool slot); `Err(extra)` if none
    /// was left.
    pub(crate) fn swap(&self, extra: OwnedSemaphorePermit) -> Result<OwnedSemaphorePermit, OwnedSemaphorePermit> {
        let mut slots = self.lock();
        let Some(served) = slots.served.pop() else {
            return Err(extra);
        };
        slots.extra.push(extra);
        drop(slots);
        self.extra_given.notify_one();
        Ok(served)
    }

    /// A shed connection: leave its `served` slot for a newcomer and get a
    /// second-pool slot in exchange within `wait`; after that, a served
    /// slot back if none was given. `None` only if neither is there, which
    /// the exchange in one step rules out.
    pub(crate) async fn linger_slot(
        &self,
        served: OwnedSemaphorePermit,
        wait: Duration,
    ) -> Option<OwnedSemaphorePermit> {
        self.lock().served.push(served);
        self.served_left.notify_one();
        let _ = tokio::time::timeout(wait, async {
            loop {
                let given = self.extra_given.notified();
                tokio::pin!(given);
                given.as_mut().enable();
                if !self.lock().extra.is_empty() {
                    return;
                }
                given.await;
            }
        })
        .await;
        let mut slots = self.lock();
        slots.extra.pop().or_else(|| slots.served.pop())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::sync::Semaphore;

    #[tokio::test]
    async fn a_shed_connection_always_gets_a_slot_to_linger_in() {
        let (served, extra) = (Arc::new(Semaphore::new(1)), Arc::new(Semaphore::new(1)));
        let s = Arc::new(Swaps::default());
        let newcomer = extra.clone().try_acquire_owned().expect("second-pool slot");
        let newcomer = s.swap(newcomer).expect_err("nothing left yet");

        // The newcomer takes the served slot and gives its second-pool slot.
        let shed = {
            let s = s.clone();
            let p = served.clone().try_acquire_owned().expect("served slot");
            tokio::spawn(async move { s.linger_slot(p, Duration::from_secs(30)).await })
        };
        let mut left = std::pin::pin!(s.served_left());
        left.as_mut().enable();
        let newcomer = match s.swap(newcomer) {
            Ok(p) => p,
            Err(e) => {
                left.await;
                s.swap(e).expect("the served slot was left")
            }
        };
        let lingering = shed.await.expect("join").expect("a slot to linger in");
        assert_eq!((served.available_permits(), extra.available_permits()), (0, 0));
        drop(lingering);
        assert_eq!(extra.available_permits(), 1, "it lingered in the second pool");
        drop(newcomer);

        // No newcomer: the shed connection lingers in its own served slot.
        let p = served.clone().try_acquire_owned().expect("served slot");
        let back = s.linger_slot(p, Duration::ZERO).await.expect("its slot back");
        assert_eq!(served.available_permits(), 0);
        drop(back);
        assert_eq!(served.available_permits(), 1);
    }
}
