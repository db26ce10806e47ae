//! Pixel geometry: boxes, segments, clipping and dash patterns.

/// An axis-aligned box in CSS pixels (x right, y down).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// The box at `(x, y)` of size `w × h`.
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Self {
        Rect { x, y, w, h }
    }
    /// Right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    /// Bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    /// Whether the interiors of both boxes meet.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }
    /// Whether `o` lies within this box (edges included, 0.5 px slack).
    pub fn contains(&self, o: &Rect) -> bool {
        o.x >= self.x - 0.5
            && o.y >= self.y - 0.5
            && o.right() <= self.right() + 0.5
            && o.bottom() <= self.bottom() + 0.5
    }
    /// The box grown by `d` on every side.
    pub fn grow(&self, d: f64) -> Rect {
        Rect { x: self.x - d, y: self.y - d, w: self.w + 2.0 * d, h: self.h + 2.0 * d }
    }
}

/// A point in pixels.
pub(crate) type P = (f64, f64);

/// The part of segment `a`–`b` inside `r` (Liang–Barsky), if any.
pub(crate) fn clip(a: P, b: P, r: &Rect) -> Option<(P, P)> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 - r.x), (dx, r.right() - a.0), (-dy, a.1 - r.y), (dy, r.bottom() - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return None;
            }
        }
    }
    Some(((a.0 + t0 * dx, a.1 + t0 * dy), (a.0 + t1 * dx, a.1 + t1 * dy)))
}

/// Whether segment `a`–`b` passes through box `r`.
pub(crate) fn hits(a: P, b: P, r: &Rect) -> bool {
    clip(a, b, r).is_some()
}

/// Distance from `p` to segment `a`–`b`.
pub(crate) fn dist(p: P, a: P, b: P) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 { (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let (qx, qy) = (a.0 + t * dx - p.0, a.1 + t * dy - p.1);
    (qx * qx + qy * qy).sqrt()
}

/// The "on" pieces of segment `a`–`b` under a dash pattern: `on` pixels
/// drawn from `phase` within every `period`, `start` = the arc length at `a`.
pub(crate) fn dashes(a: P, b: P, start: f64, period: f64, phase: f64, on: f64) -> Vec<(P, P)> {
    let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    if !(len > 0.0 && period > 0.0 && on > 0.0 && len.is_finite()) {
        return Vec::new();
    }
    let at = |s: f64| {
        let t = ((s - start) / len).clamp(0.0, 1.0);
        (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
    };
    let mut out = Vec::new();
    // First period whose "on" part may reach into [start, start + len].
    let mut k = ((start - phase - on) / period).floor();
    for _ in 0..10_000 {
        let s0 = k * period + phase;
        if s0 > start + len {
            break;
        }
        let (lo, hi) = (s0.max(start), (s0 + on).min(start + len));
        if hi > lo {
            out.push((at(lo), at(hi)));
        }
        k += 1.0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_and_hits() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        assert_eq!(clip((-5.0, 5.0), (15.0, 5.0), &r), Some(((0.0, 5.0), (10.0, 5.0))));
        assert!(clip((-5.0, -1.0), (15.0, -1.0), &r).is_none());
        assert!(hits((5.0, -5.0), (5.0, 15.0), &r) && !hits((11.0, 0.0), (11.0, 9.0), &r));
        assert!((dist((0.0, 1.0), (-1.0, 0.0), (1.0, 0.0)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn dash_pattern_interleaves() {
        // Period 20, on 10: phase 0 and phase 10 cover the segment between them.
        let a = dashes((0.0, 0.0), (40.0, 0.0), 0.0, 20.0, 0.0, 10.0);
        let b = dashes((0.0, 0.0), (40.0, 0.0), 0.0, 20.0, 10.0, 10.0);
        let total: f64 = a.iter().chain(&b).map(|(p, q)| q.0 - p.0).sum();
        assert_eq!(a.len(), 2);
        assert!((total - 40.0).abs() < 1e-9);
        assert!(dashes((0.0, 0.0), (0.0, 0.0), 0.0, 20.0, 0.0, 10.0).is_empty());
    }
}
