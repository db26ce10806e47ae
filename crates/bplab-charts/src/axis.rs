//! A linear f64 axis whose tick positions are chosen by the caller and whose
//! pixel mapping saturates instead of overflowing on out-of-range values.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};

use crate::common::fmt_tick;

/// `[lo, hi]` with explicit ticks (bold mesh lines and labels).
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Axis {
    pub fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Self {
        Self { lo, hi, ticks }
    }
}

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let width = self.hi - self.lo;
        let pixels = f64::from(limit.1) - f64::from(limit.0);
        if !(width.is_finite() && width > 0.0 && v.is_finite()) {
            return limit.0 + (limit.1 - limit.0) / 2;
        }
        let off = ((v - self.lo) / width * pixels).clamp(-1e7, 1e7).round();
        // Within ±1e7 of an i32 pixel: cannot overflow for any real canvas.
        (f64::from(limit.0) + off) as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Axis {
    fn format(v: &f64) -> String {
        fmt_tick(*v)
    }
}
