//! Injectable random draws (Vegas probe jitter, Gradient probe countdown
//! offsets): a given list, used in order with its last value repeating, or,
//! when the list is empty, a seeded `rand_chacha` stream.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// Where a limiter's random draws come from. Part of its config: every
/// limiter built from the same config makes the same draws.
#[derive(Clone, Debug, PartialEq)]
pub struct Draws<T> {
    given: Vec<T>,
    seed: u64,
}

impl<T> Draws<T> {
    /// Draws from `ChaCha8Rng::seed_from_u64(seed)`.
    pub fn seeded(seed: u64) -> Self {
        Self { given: Vec::new(), seed }
    }

    /// The `given` values in order, the last one repeating; an empty list
    /// falls back to draws seeded with `seed`.
    pub fn list(given: Vec<T>, seed: u64) -> Self {
        Self { given, seed }
    }

    /// The given values (empty when seeded).
    pub fn given(&self) -> &[T] {
        &self.given
    }

    /// The seed used when no values are given.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl<T> Default for Draws<T> {
    /// Seeded with 0.
    fn default() -> Self {
        Self::seeded(0)
    }
}

/// The running state of a [`Draws`]: O(1) per draw.
#[derive(Clone, Debug)]
pub(crate) struct DrawStream<T> {
    given: Vec<T>,
    next: usize,
    rng: Option<Box<ChaCha8Rng>>,
    /// Draws made so far (a resumed limiter's stream skips as many).
    drawn: u64,
}

impl<T: Copy> DrawStream<T> {
    pub(crate) fn new(d: &Draws<T>) -> Self {
        let rng = if d.given.is_empty() { Some(Box::new(ChaCha8Rng::seed_from_u64(d.seed))) } else { None };
        Self { given: d.given.clone(), next: 0, rng, drawn: 0 }
    }

    /// `d`'s stream after `n` draws: the same values from the next draw on
    /// as a stream that has made them (`O(n)`).
    pub(crate) fn after(d: &Draws<T>, n: u64) -> Self {
        let mut s = Self::new(d);
        for _ in 0..n {
            if s.next_given().is_none() {
                s.next_u64();
            }
        }
        s.drawn = n;
        s
    }

    /// Draws made so far.
    pub(crate) fn drawn(&self) -> u64 {
        self.drawn
    }

    /// The next given value, or `None` when drawing from the generator.
    fn next_given(&mut self) -> Option<T> {
        self.drawn += 1;
        let v = self.given.get(self.next).or(self.given.last()).copied();
        self.next = (self.next + 1).min(self.given.len());
        v
    }

    fn next_u64(&mut self) -> u64 {
        self.rng.as_mut().map_or(0, |r| r.next_u64())
    }
}

impl DrawStream<f64> {
    /// A jitter uniform in `[0.5, 1)`: `0.5 + 0.5 × u`, `u` the top 53 bits as a fraction.
    pub(crate) fn jitter(&mut self) -> f64 {
        match self.next_given() {
            Some(v) => v,
            None => 0.5 + 0.5 * ((self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)),
        }
    }
}

impl DrawStream<i32> {
    /// An offset uniform in `[0, bound)` (multiply-shift; `bound >= 1`).
    pub(crate) fn offset(&mut self, bound: i32) -> i32 {
        match self.next_given() {
            Some(v) => v,
            None => ((u128::from(self.next_u64()) * u128::from(bound.max(1).unsigned_abs())) >> 64) as i32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_in_order_then_last_repeats() {
        let mut s = DrawStream::new(&Draws::list(vec![0.5, 0.75], 9));
        assert_eq!([s.jitter(), s.jitter(), s.jitter(), s.jitter()], [0.5, 0.75, 0.75, 0.75]);
    }

    #[test]
    fn seeded_draws_are_in_range_and_reproducible() {
        let mut a = DrawStream::<f64>::new(&Draws::seeded(7));
        let mut b = DrawStream::<f64>::new(&Draws::seeded(7));
        for _ in 0..1000 {
            let j = a.jitter();
            assert!((0.5..1.0).contains(&j));
            assert_eq!(j.to_bits(), b.jitter().to_bits());
        }
        let mut o = DrawStream::<i32>::new(&Draws::seeded(7));
        assert!((0..1000).all(|_| (0..3).contains(&o.offset(3))));
    }
}
