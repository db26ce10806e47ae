//! The engine's one ordered event queue: every event leaves in
//! `(time, kind, seq)` order, a total order written once, in [`Key`].
//!
//! * **time**: the event's time in ms (finite, `>= 0`), compared as a
//!   number (`-0.0` equals `0.0`);
//! * **kind**: at one instant, [`Kind::GiveUp`] < [`Kind::Completion`] <
//!   [`Kind::Arrival`] < [`Kind::Retry`];
//! * **seq**: within one kind at one instant, first in, first out: first
//!   tries by their index in the schedule, every other event by the order
//!   it was pushed (one counter per kind, at most `u32::MAX` pushes each;
//!   [`super::Model::validate`] keeps runs under that).
//!
//! The queue keeps one lane per kind, because each kind has a cheap shape:
//! first tries are a sorted slice read by a cursor, give-ups arrive in time
//! order (deadline = arrival + one timeout) and go in a deque (an
//! out-of-order push is still placed correctly, by binary search),
//! completions are a binary heap, and retries a deque while they come in
//! order (a fixed backoff from the event's time) that turns into a binary
//! heap at the first one out of order (jitter). [`EventQueue::pop`] returns the
//! smallest [`Key`] over the four lane heads, so the lanes are invisible in
//! the order.

use std::collections::VecDeque;

/// What happens at an event. The declaration order is the tie order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A caller's deadline (arrival + client timeout): first at an instant,
    /// so a waiting caller whose deadline is now is gone before a worker
    /// freed at the same instant looks at the line.
    GiveUp,
    /// A worker finishes: before arrivals, so an arrival at that instant
    /// finds the worker free.
    Completion,
    /// A first try from the schedule.
    Arrival,
    /// A retry (after a refusal, a shed or a give-up): last at an instant.
    Retry,
}

/// The sort key: `(time bits, kind, seq)`. The bits of a finite,
/// non-negative f64 order like its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    time: u64,
    kind: Kind,
    seq: u64,
}

impl Key {
    /// The key of an event of `kind` at `time_ms` (finite, `>= 0`), pushed
    /// `seq`-th.
    pub fn new(time_ms: f64, kind: Kind, seq: u64) -> Self {
        Self { time: (time_ms + 0.0).to_bits(), kind, seq }
    }

    /// The event time, ms.
    pub fn time_ms(&self) -> f64 {
        f64::from_bits(self.time)
    }
}

/// One event: when, what, and the id it was pushed with (a request index
/// for the engine; the schedule index for a first try).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Event time, ms.
    pub time_ms: f64,
    /// What happens.
    pub kind: Kind,
    /// Position among events of the same kind and time.
    pub seq: u64,
    /// The payload given to the push.
    pub id: u32,
}

/// A lane entry: (time bits, seq << 32 | id); the kind is the lane's. Two
/// full words: small heap moves, and no padding (a padded 4-byte id made
/// every heap push stall on a store-to-load forward). Within a lane the
/// tuple order is the `(time, seq)` order (seqs are distinct in a lane).
type Entry = (u64, u64);

/// An empty lane's head: after every real entry (a finite time's bits are
/// below `u64::MAX`, a NaN's).
const EMPTY: Entry = (u64::MAX, u64::MAX);

#[inline(always)]
fn entry(time_ms: f64, seq: u32, id: u32) -> Entry {
    ((time_ms + 0.0).to_bits(), (u64::from(seq) << 32) | u64::from(id))
}

/// A binary min-heap of distinct entries. Its pop hands back the new
/// smallest entry from registers: reading it back from the slot the pop
/// just stored to (as `BinaryHeap::peek` after `pop` does) stalled every
/// completion on a store-to-load forward.
#[derive(Clone, Debug, Default)]
struct MinHeap(Vec<Entry>);

impl MinHeap {
    fn with_capacity(n: usize) -> Self {
        MinHeap(Vec::with_capacity(n))
    }

    /// Adds `e`: up from the bottom while its parent is larger. Slots are
    /// read with `get` (inlined, where an index is an out-of-line call at the
    /// page's opt-level "z"); every index is in bounds.
    #[inline(always)]
    fn push(&mut self, e: Entry) {
        let v = &mut self.0;
        let mut hole = v.len();
        v.push(e);
        while hole > 0 {
            let parent = (hole - 1) / 2;
            let Some(&p) = v.get(parent) else { break };
            if p <= e {
                break;
            }
            if let Some(h) = v.get_mut(hole) {
                *h = p;
            }
            hole = parent;
        }
        if let Some(h) = v.get_mut(hole) {
            *h = e;
        }
    }

    /// Removes the smallest entry and returns the next one ([`EMPTY`]: none):
    /// the last entry goes down from the root while a child is smaller.
    #[inline(always)]
    fn pop(&mut self) -> Entry {
        let v = &mut self.0;
        let Some(last) = v.pop() else { return EMPTY };
        if v.is_empty() {
            return EMPTY;
        }
        let (mut hole, mut top) = (0, last);
        loop {
            let l = 2 * hole + 1;
            let Some(&le) = v.get(l) else { break };
            let (c, ce) = match v.get(l + 1) {
                Some(&re) if re < le => (l + 1, re),
                _ => (l, le),
            };
            if last <= ce {
                break;
            }
            if hole == 0 {
                top = ce;
            }
            if let Some(h) = v.get_mut(hole) {
                *h = ce;
            }
            hole = c;
        }
        if let Some(h) = v.get_mut(hole) {
            *h = last;
        }
        top
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

/// A lane whose entries mostly come in order: a deque while every push is
/// at or after the last, a binary heap from the first push before it on
/// (either way the smallest entry leaves first; entries are distinct, so
/// the order is the same).
#[derive(Clone, Debug)]
enum Lane {
    InOrder(VecDeque<Entry>),
    Heap(MinHeap),
}

impl Lane {
    #[inline(always)]
    fn push(&mut self, e: Entry) {
        match self {
            Lane::InOrder(d) if d.back().is_none_or(|b| *b <= e) => d.push_back(e),
            Lane::InOrder(d) => {
                let mut h = MinHeap::with_capacity(d.len() + 1);
                for x in d.drain(..) {
                    h.push(x);
                }
                h.push(e);
                *self = Lane::Heap(h);
            }
            Lane::Heap(h) => h.push(e),
        }
    }

    /// Removes the smallest entry and returns the next one's.
    #[inline(always)]
    fn pop(&mut self) -> Entry {
        match self {
            Lane::InOrder(d) => {
                d.pop_front();
                d.front().copied().unwrap_or(EMPTY)
            }
            Lane::Heap(h) => h.pop(),
        }
    }

    fn len(&self) -> usize {
        match self {
            Lane::InOrder(d) => d.len(),
            Lane::Heap(h) => h.len(),
        }
    }
}

/// Events in `(time, kind, seq)` order. See the module docs.
#[derive(Clone, Debug)]
pub struct EventQueue<'a> {
    first_ms: &'a [f64],
    next_first: usize,
    give_ups: VecDeque<Entry>,
    completions: MinHeap,
    retries: Lane,
    /// Pushes so far per lane: give-ups, completions, retries.
    pushed: [u32; 3],
    /// Each lane's smallest entry ([`EMPTY`]: none), by kind: kept up to
    /// date on every push and pop, so a pop compares four times instead of
    /// peeking four lanes. Two lanes' heads at one time leave in kind
    /// order, and a lane's entries in seq order, so comparing times, with
    /// ties to the lower kind, gives the [`Key`] order.
    heads: [Entry; 4],
}

impl<'a> EventQueue<'a> {
    /// A queue holding the first tries `first_ms` (ascending, finite,
    /// `>= 0`; the caller checks), as [`Kind::Arrival`] events with
    /// `id = seq = index`. At most `u32::MAX` of them are read.
    pub fn new(first_ms: &'a [f64], completion_capacity: usize) -> Self {
        let mut q = Self {
            first_ms: first_ms.get(..first_ms.len().min(u32::MAX as usize)).unwrap_or_default(),
            next_first: 0,
            give_ups: VecDeque::new(),
            completions: MinHeap::with_capacity(completion_capacity),
            retries: Lane::InOrder(VecDeque::new()),
            pushed: [0; 3],
            heads: [EMPTY; 4],
        };
        q.heads[Kind::Arrival as usize] = q.first(0);
        q
    }

    /// The entry of first try `i`, if any.
    #[inline(always)]
    fn first(&self, i: usize) -> Entry {
        // `i` < u32::MAX: the slice is cut to that length.
        self.first_ms.get(i).map_or(EMPTY, |&t| entry(t, i as u32, i as u32))
    }

    /// Schedules an event of `kind` at `time_ms` (finite, `>= 0`) carrying
    /// `id`. First tries come only from the schedule given to [`Self::new`],
    /// so a pushed [`Kind::Arrival`] is queued (and popped) as a
    /// [`Kind::Retry`].
    #[inline]
    pub fn push(&mut self, time_ms: f64, kind: Kind, id: u32) {
        match kind {
            Kind::GiveUp => self.push_give_up(time_ms, id),
            Kind::Completion => self.push_completion(time_ms, id),
            Kind::Arrival | Kind::Retry => self.push_retry(time_ms, id),
        }
    }

    /// The next entry of the lane with push counter `lane`, at `time_ms`.
    #[inline(always)]
    fn next_entry(&mut self, lane: usize, time_ms: f64, id: u32) -> Entry {
        let seq = self.pushed[lane];
        self.pushed[lane] = seq.saturating_add(1);
        entry(time_ms, seq, id)
    }

    /// Keeps `kind`'s head the smaller of it and a pushed `e`.
    #[inline(always)]
    fn lower_head(&mut self, kind: Kind, e: Entry) {
        let h = &mut self.heads[kind as usize];
        if e < *h {
            *h = e;
        }
    }

    /// [`Self::push`] of a [`Kind::GiveUp`].
    #[inline(always)]
    pub fn push_give_up(&mut self, time_ms: f64, id: u32) {
        let e = self.next_entry(0, time_ms, id);
        if self.give_ups.back().is_none_or(|b| *b <= e) {
            self.give_ups.push_back(e);
        } else {
            let at = self.give_ups.partition_point(|x| *x <= e);
            self.give_ups.insert(at, e);
        }
        self.lower_head(Kind::GiveUp, e);
    }

    /// [`Self::push`] of a [`Kind::Completion`].
    #[inline(always)]
    pub fn push_completion(&mut self, time_ms: f64, id: u32) {
        let e = self.next_entry(1, time_ms, id);
        self.completions.push(e);
        self.lower_head(Kind::Completion, e);
    }

    /// [`Self::push`] of a [`Kind::Retry`].
    #[inline(always)]
    pub fn push_retry(&mut self, time_ms: f64, id: u32) {
        let e = self.next_entry(2, time_ms, id);
        self.retries.push(e);
        self.lower_head(Kind::Retry, e);
    }

    /// Makes `(time_ms, id)` the give-up lane's one event (`None`: none),
    /// for a caller that keeps its deadlines in time order itself and shows
    /// the queue only the earliest (the engine's line, when only waiting
    /// callers' deadlines matter); not counted by [`Self::len`]. A queue uses
    /// either this or [`Self::push_give_up`].
    #[inline(always)]
    pub fn set_give_up(&mut self, next: Option<(f64, u32)>) {
        self.heads[Kind::GiveUp as usize] = next.map_or(EMPTY, |(t, id)| entry(t, 0, id));
    }

    /// Makes a first try at `time_ms` with index `index` the arrival lane's
    /// head, for a queue made with no first tries whose caller draws them
    /// one at a time (in index order, ascending times: the next is shown
    /// once the last is taken); not counted by [`Self::len`].
    #[inline(always)]
    pub(crate) fn show_arrival(&mut self, time_ms: f64, index: u32) {
        self.heads[Kind::Arrival as usize] = entry(time_ms, index, index);
    }

    /// The key of the next event, if any.
    pub fn peek(&self) -> Option<Key> {
        self.next_kind().map(|kind| {
            let e = self.heads[kind as usize];
            Key { time: e.0, kind, seq: e.1 >> 32 }
        })
    }

    /// The kind of the next event, if any: the lane whose head has the
    /// earliest time, ties to the lower kind. Written as branches (no
    /// table), the usual race of a completion against a first try first,
    /// so a caller's `match` on it compiles to those same branches.
    #[inline(always)]
    pub fn next_kind(&self) -> Option<Kind> {
        // Read in place: `[T; N]::map` is an out-of-line call at the page's
        // opt-level "z" (what it cost: `docs/performance.md`).
        let h = &self.heads;
        let (g, c, a, r) = (h[0].0, h[1].0, h[2].0, h[3].0);
        if c <= a {
            if c < g && c <= r {
                return Some(Kind::Completion);
            }
        } else if a < g && a <= r {
            return Some(Kind::Arrival);
        }
        // The earliest is a give-up or a retry (or nothing): either is at
        // or before the completion and first-try heads, a retry strictly.
        if g <= r { (g != EMPTY.0).then_some(Kind::GiveUp) } else { Some(Kind::Retry) }
    }

    /// Removes the head of `kind`'s lane (non-empty) and returns it.
    #[inline(always)]
    pub fn take(&mut self, kind: Kind) -> Event {
        let e = self.heads[kind as usize];
        self.heads[kind as usize] = match kind {
            Kind::GiveUp => {
                self.give_ups.pop_front();
                self.give_ups.front().copied().unwrap_or(EMPTY)
            }
            Kind::Completion => self.completions.pop(),
            Kind::Arrival => {
                self.next_first += 1;
                self.first(self.next_first)
            }
            Kind::Retry => self.retries.pop(),
        };
        Event { time_ms: f64::from_bits(e.0), kind, seq: e.1 >> 32, id: e.1 as u32 }
    }

    /// Removes and returns the next event in `(time, kind, seq)` order.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Event> {
        self.next_kind().map(|k| self.take(k))
    }

    /// Events still queued.
    pub fn len(&self) -> usize {
        self.first_ms.len().saturating_sub(self.next_first)
            + self.give_ups.len()
            + self.completions.len()
            + self.retries.len()
    }

    /// No events left.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn drain(q: &mut EventQueue<'_>) -> Vec<(f64, Kind, u32)> {
        std::iter::from_fn(|| q.pop()).map(|e| (e.time_ms, e.kind, e.id)).collect()
    }

    #[test]
    fn simultaneous_events_leave_give_up_completion_arrival_retry() {
        let first = [5.0, 5.0];
        let mut q = EventQueue::new(&first, 4);
        q.push(5.0, Kind::Retry, 70);
        q.push(5.0, Kind::Completion, 30);
        q.push(5.0, Kind::GiveUp, 10);
        q.push(5.0, Kind::Retry, 71);
        q.push(5.0, Kind::Completion, 31);
        q.push(-0.0, Kind::Completion, 32); // -0 is time 0
        q.push(5.0, Kind::GiveUp, 11);
        assert_eq!(q.len(), 9);
        let got = drain(&mut q);
        assert_eq!(
            got,
            [
                (0.0, Kind::Completion, 32),
                (5.0, Kind::GiveUp, 10),
                (5.0, Kind::GiveUp, 11),
                (5.0, Kind::Completion, 30),
                (5.0, Kind::Completion, 31),
                (5.0, Kind::Arrival, 0),
                (5.0, Kind::Arrival, 1),
                (5.0, Kind::Retry, 70),
                (5.0, Kind::Retry, 71),
            ]
        );
        assert!(q.is_empty() && q.peek().is_none());
    }

    #[test]
    fn an_out_of_order_give_up_is_still_placed_by_time() {
        let mut q = EventQueue::new(&[], 0);
        q.push(3.0, Kind::GiveUp, 0);
        q.push(1.0, Kind::GiveUp, 1);
        q.push(3.0, Kind::GiveUp, 2);
        q.push(2.0, Kind::GiveUp, 3);
        let ids: Vec<u32> = drain(&mut q).into_iter().map(|e| e.2).collect();
        assert_eq!(ids, [1, 3, 0, 2]);
    }

    proptest! {
        /// Any mix of pushes and pops gives the events in the order of a
        /// plain sort by (time, kind, seq).
        #[test]
        fn pops_follow_the_sorted_order(
            first in proptest::collection::vec(0u8..20, 0..20),
            ops in proptest::collection::vec((0u8..20, 0u8..4, any::<bool>()), 0..80),
        ) {
            let mut first: Vec<f64> = first.into_iter().map(f64::from).collect();
            first.sort_by(f64::total_cmp);
            let mut q = EventQueue::new(&first, 0);
            let mut model: Vec<(Key, u32)> =
                first.iter().enumerate().map(|(i, &t)| (Key::new(t, Kind::Arrival, i as u64), i as u32)).collect();
            let mut seq = [0u64; 4];
            let mut out = Vec::new();
            let mut expect = Vec::new();
            for (n, (t, k, pop)) in ops.into_iter().enumerate() {
                if pop {
                    model.sort();
                    if !model.is_empty() { expect.push(model.remove(0).1) }
                    if let Some(e) = q.pop() { out.push(e.id) }
                } else {
                    let kind = [Kind::GiveUp, Kind::Completion, Kind::Retry, Kind::Retry][usize::from(k)];
                    q.push(f64::from(t), kind, 1000 + n as u32);
                    model.push((Key::new(f64::from(t), kind, seq[kind as usize]), 1000 + n as u32));
                    seq[kind as usize] += 1;
                }
            }
            model.sort();
            expect.extend(model.iter().map(|m| m.1));
            out.extend(std::iter::from_fn(|| q.pop()).map(|e| e.id));
            prop_assert_eq!(out, expect);
        }
    }
}
