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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

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
/// every heap push stall on a store-to-load forward).
type Entry = (u64, u64);

/// Low bits of a packed key holding `seq`.
const SEQ_BITS: u32 = 62;

#[inline(always)]
fn entry(time_ms: f64, seq: u32, id: u32) -> Entry {
    ((time_ms + 0.0).to_bits(), (u64::from(seq) << 32) | u64::from(id))
}

/// The packed key of a lane entry of `kind`, and its id.
#[inline(always)]
fn keyed(e: Entry, kind: Kind) -> (u128, u32) {
    (pack(e.0, kind, e.1 >> 32), e.1 as u32)
}

/// [`Key`] as one integer with the same order: time bits, then kind, then seq.
#[inline(always)]
fn pack(time: u64, kind: Kind, seq: u64) -> u128 {
    (u128::from(time) << 64) | (u128::from(kind as u8) << SEQ_BITS) | u128::from(seq & ((1 << SEQ_BITS) - 1))
}

#[inline(always)]
fn unpack(k: u128) -> (Key, Kind) {
    let kind = match (k >> SEQ_BITS) & 3 {
        0 => Kind::GiveUp,
        1 => Kind::Completion,
        2 => Kind::Arrival,
        _ => Kind::Retry,
    };
    (Key { time: (k >> 64) as u64, kind, seq: (k as u64) & ((1 << SEQ_BITS) - 1) }, kind)
}

/// A lane whose entries mostly come in order: a deque while every push is
/// at or after the last, a binary heap from the first push before it on
/// (either way the smallest entry leaves first; entries are distinct, so
/// the order is the same).
#[derive(Clone, Debug)]
enum Lane {
    InOrder(VecDeque<Entry>),
    Heap(BinaryHeap<Reverse<Entry>>),
}

impl Lane {
    #[inline]
    fn push(&mut self, e: Entry) {
        match self {
            Lane::InOrder(d) if d.back().is_none_or(|b| *b <= e) => d.push_back(e),
            Lane::InOrder(d) => {
                let mut h: BinaryHeap<Reverse<Entry>> = d.drain(..).map(Reverse).collect();
                h.push(Reverse(e));
                *self = Lane::Heap(h);
            }
            Lane::Heap(h) => h.push(Reverse(e)),
        }
    }

    #[inline]
    fn peek(&self) -> Option<Entry> {
        match self {
            Lane::InOrder(d) => d.front().copied(),
            Lane::Heap(h) => h.peek().map(|r| r.0),
        }
    }

    #[inline]
    fn pop(&mut self) {
        match self {
            Lane::InOrder(d) => {
                d.pop_front();
            }
            Lane::Heap(h) => {
                h.pop();
            }
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
    completions: BinaryHeap<Reverse<Entry>>,
    retries: Lane,
    /// Pushes so far per lane: give-ups, completions, retries.
    pushed: [u32; 3],
    /// Each lane's head as a packed key (`u128::MAX`: empty) and its id, by
    /// kind: kept up to date on every push and pop, so a pop compares four
    /// integers instead of peeking four lanes.
    heads: [(u128, u32); 4],
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
            completions: BinaryHeap::with_capacity(completion_capacity),
            retries: Lane::InOrder(VecDeque::new()),
            pushed: [0; 3],
            heads: [(u128::MAX, 0); 4],
        };
        q.refresh(Kind::Arrival);
        q
    }

    /// Recomputes the head of `kind`'s lane.
    #[inline(always)]
    fn refresh(&mut self, kind: Kind) {
        let head = match kind {
            Kind::GiveUp => self.give_ups.front().map(|&e| keyed(e, kind)),
            Kind::Completion => self.completions.peek().map(|&Reverse(e)| keyed(e, kind)),
            Kind::Arrival => self.first_ms.get(self.next_first).map(|&t| {
                let i = self.next_first as u64;
                (pack((t + 0.0).to_bits(), kind, i), i as u32)
            }),
            Kind::Retry => self.retries.peek().map(|e| keyed(e, kind)),
        };
        self.heads[kind as usize] = head.unwrap_or((u128::MAX, 0));
    }

    /// Schedules an event of `kind` at `time_ms` (finite, `>= 0`) carrying
    /// `id`. First tries come only from the schedule given to [`Self::new`],
    /// so a pushed [`Kind::Arrival`] is queued (and popped) as a
    /// [`Kind::Retry`].
    #[inline]
    pub fn push(&mut self, time_ms: f64, kind: Kind, id: u32) {
        let kind = if kind == Kind::Arrival { Kind::Retry } else { kind };
        let lane = match kind {
            Kind::GiveUp => 0,
            Kind::Completion => 1,
            Kind::Arrival | Kind::Retry => 2,
        };
        let seq = self.pushed[lane];
        self.pushed[lane] = seq.saturating_add(1);
        let e = entry(time_ms, seq, id);
        match kind {
            Kind::GiveUp => {
                if self.give_ups.back().is_none_or(|b| *b <= e) {
                    self.give_ups.push_back(e);
                } else {
                    let at = self.give_ups.partition_point(|x| *x <= e);
                    self.give_ups.insert(at, e);
                }
            }
            Kind::Completion => self.completions.push(Reverse(e)),
            Kind::Arrival | Kind::Retry => self.retries.push(e),
        }
        let k = keyed(e, kind);
        let h = &mut self.heads[kind as usize];
        if k.0 < h.0 {
            *h = k;
        }
    }

    /// The key of the next event, if any.
    pub fn peek(&self) -> Option<Key> {
        self.head().map(|(k, _)| unpack(k).0)
    }

    /// The smallest head, and its id.
    #[inline(always)]
    fn head(&self) -> Option<(u128, u32)> {
        let [a, b, c, d] = self.heads;
        let ab = if b.0 < a.0 { b } else { a };
        let cd = if d.0 < c.0 { d } else { c };
        let best = if cd.0 < ab.0 { cd } else { ab };
        (best.0 != u128::MAX).then_some(best)
    }

    /// Removes and returns the next event in `(time, kind, seq)` order.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Event> {
        let (packed, id) = self.head()?;
        let (key, kind) = unpack(packed);
        match kind {
            Kind::GiveUp => {
                self.give_ups.pop_front();
            }
            Kind::Completion => {
                self.completions.pop();
            }
            Kind::Arrival => self.next_first += 1,
            Kind::Retry => {
                self.retries.pop();
            }
        }
        self.refresh(kind);
        Some(Event { time_ms: key.time_ms(), kind, seq: key.seq, id })
    }

    /// Events still queued.
    pub fn len(&self) -> usize {
        self.first_ms.len() - self.next_first + self.give_ups.len() + self.completions.len() + self.retries.len()
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
        /// The packed key orders like the key and unpacks to it.
        #[test]
        fn packing_keeps_the_order(a in (0.0f64..1e15, 0u8..4, 0u64..1 << 62), b in (0.0f64..1e15, 0u8..4, 0u64..1 << 62)) {
            let kinds = [Kind::GiveUp, Kind::Completion, Kind::Arrival, Kind::Retry];
            let (ka, kb) = (Key::new(a.0, kinds[usize::from(a.1)], a.2), Key::new(b.0, kinds[usize::from(b.1)], b.2));
            let (pa, pb) = (pack(ka.time, ka.kind, ka.seq), pack(kb.time, kb.kind, kb.seq));
            prop_assert_eq!(ka.cmp(&kb), pa.cmp(&pb));
            prop_assert_eq!(unpack(pa).0, ka);
        }

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
