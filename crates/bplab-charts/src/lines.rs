//! Coinciding lines: which segments of a series lie on another series'
//! line (within 1.5 px), so that the renderer interleaves their dashes
//! there, and which series are the same line throughout (named in a note).

use crate::geom::{P, dist};

/// Distance under which two lines are drawn on top of each other, px.
const TOL: f64 = 1.5;
/// Point-segment checks allowed per pair of series (keeps huge runs cheap).
const BUDGET: usize = 400_000;

/// How one series is drawn where it meets others.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Slot {
    /// Per segment: `(rank, size)` of this series among the series whose
    /// lines it lies on there (itself included), `None` where it is alone.
    pub shared: Vec<Option<(usize, usize)>>,
}

/// Width of one column of a [`Segments`] index, px.
const CELL: f64 = 4.0;
/// A segment is looked up in every column its x range (grown by `REACH`)
/// meets; a point is within `TOL` of a segment only if its x is within
/// `TOL` of the segment's x range, so the columns give every candidate
/// (`REACH` > `TOL` absorbs rounding).
const REACH: f64 = TOL + 1.0;
/// Columns a segment may span before it is checked against every point instead.
const WIDE: usize = 64;

/// The segments of a polyline by pixel column: [`Segments::near`] checks
/// only those whose x range comes within reach of the point, so a pair of
/// long series costs about a point-column lookup per point instead of a
/// scan of every segment (the answer is the same as the scan's).
struct Segments<'a> {
    poly: &'a [P],
    x0: f64,
    columns: Vec<Vec<usize>>,
    /// Segments spanning many columns (or every one, for huge coordinates).
    wide: Vec<usize>,
}

impl<'a> Segments<'a> {
    fn new(poly: &'a [P]) -> Self {
        let (lo, hi) = poly.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p.0), h.max(p.0)));
        let x0 = lo - REACH;
        let span = (hi + REACH - x0) / CELL;
        let n_seg = poly.len().saturating_sub(1);
        // Huge or unknown extents: one list, scanned whole (the plain check).
        if !(span.is_finite() && span < 100_000.0) {
            return Segments { poly, x0, columns: Vec::new(), wide: (0..n_seg).collect() };
        }
        let mut columns = vec![Vec::new(); span as usize + 1];
        let mut wide = Vec::new();
        for (k, w) in poly.windows(2).enumerate() {
            let (a, b) = (w[0].0.min(w[1].0), w[0].0.max(w[1].0));
            let (c0, c1) = (((a - REACH - x0) / CELL).floor().max(0.0) as usize, ((b + REACH - x0) / CELL) as usize);
            if c1.saturating_sub(c0) > WIDE {
                wide.push(k);
            } else {
                for c in columns.iter_mut().take(c1 + 1).skip(c0) {
                    c.push(k);
                }
            }
        }
        Segments { poly, x0, columns, wide }
    }

    /// Whether `p` is within `TOL` of the polyline.
    fn near(&self, p: P) -> bool {
        let seg = |k: &usize| self.poly.get(*k..*k + 2).is_some_and(|s| dist(p, s[0], s[1]) <= TOL);
        match self.poly {
            [] => false,
            [q] => dist(p, *q, *q) <= TOL,
            _ => {
                let c = (p.0 - self.x0) / CELL;
                let column = if c >= 0.0 { self.columns.get(c as usize) } else { None };
                column.is_some_and(|c| c.iter().any(seg)) || self.wide.iter().any(seg)
            }
        }
    }
}

/// Per segment of `a`: on `b`'s line (both ends and the middle).
fn on(a: &[P], b: &[P]) -> Vec<bool> {
    if a.len().saturating_mul(b.len()) > BUDGET || b.is_empty() {
        return vec![false; a.len().saturating_sub(1)];
    }
    let b = Segments::new(b);
    let ends: Vec<bool> = a.iter().map(|p| b.near(*p)).collect();
    a.windows(2)
        .zip(ends.windows(2))
        .map(|(s, e)| e[0] && e[1] && b.near(((s[0].0 + s[1].0) / 2.0, (s[0].1 + s[1].1) / 2.0)))
        .collect()
}

/// The slots of `polys` (pixel polylines, in drawing order) and the groups
/// of series that are one line throughout (each group in order, two or more).
pub(crate) fn coincide(polys: &[Vec<P>]) -> (Vec<Slot>, Vec<Vec<usize>>) {
    let n = polys.len();
    // with[j][k]: the other series segment k of series j lies on.
    let mut with: Vec<Vec<Vec<usize>>> = polys.iter().map(|p| vec![Vec::new(); p.len().saturating_sub(1)]).collect();
    let mut same = vec![vec![false; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            let (ij, ji) = (on(&polys[i], &polys[j]), on(&polys[j], &polys[i]));
            let whole = |v: &[bool]| !v.is_empty() && v.iter().all(|s| *s);
            let single =
                polys[i].len() == 1 && polys[j].len() == 1 && dist(polys[i][0], polys[j][0], polys[j][0]) <= TOL;
            same[i][j] = (whole(&ij) && whole(&ji)) || single;
            for (k, _) in ij.iter().enumerate().filter(|(_, s)| **s) {
                with[i][k].push(j);
            }
            for (k, _) in ji.iter().enumerate().filter(|(_, s)| **s) {
                with[j][k].push(i);
            }
        }
    }
    let slots = with
        .into_iter()
        .enumerate()
        .map(|(j, segs)| Slot {
            shared: segs
                .into_iter()
                .map(|others| {
                    (!others.is_empty()).then(|| (others.iter().filter(|i| **i < j).count(), others.len() + 1))
                })
                .collect(),
        })
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut taken = vec![false; n];
    for i in 0..n {
        if taken[i] {
            continue;
        }
        let g: Vec<usize> = std::iter::once(i).chain((i + 1..n).filter(|j| same[i][*j])).collect();
        if g.len() > 1 {
            g.iter().for_each(|k| taken[*k] = true);
            groups.push(g);
        }
    }
    (slots, groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan every segment [`Segments::near`] stands for.
    fn near_scan(p: P, poly: &[P]) -> bool {
        match poly {
            [] => false,
            [q] => dist(p, *q, *q) <= TOL,
            _ => poly.windows(2).any(|w| dist(p, w[0], w[1]) <= TOL),
        }
    }

    #[test]
    fn the_column_index_finds_what_a_scan_of_every_segment_finds() {
        // A zigzag, a steep jump, a long flat run, a backtrack and huge coordinates.
        let mut poly: Vec<P> = (0..200).map(|i| (f64::from(i) * 1.7, if i % 2 == 0 { 10.0 } else { 11.2 })).collect();
        poly.extend([(340.0, 300.0), (900.0, 300.0), (120.0, 40.0), (121.0, 41.0)]);
        let huge = [(-1e300, 0.0), (0.0, 0.0), (1e300, 5.0)];
        for b in [&poly[..], &poly[..1], &huge[..], &[][..]] {
            let idx = Segments::new(b);
            let mut s = 12345u64;
            for _ in 0..20_000 {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let x = (s >> 33) as f64 / f64::from(1u32 << 31) * 1000.0 - 50.0;
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let y = (s >> 33) as f64 / f64::from(1u32 << 31) * 320.0 - 10.0;
                assert_eq!(idx.near((x, y)), near_scan((x, y), b), "at ({x}, {y})");
            }
            for p in b {
                assert_eq!(idx.near(*p), near_scan(*p, b));
            }
        }
    }

    #[test]
    fn equal_lines_form_a_group_and_partial_overlaps_share_segments() {
        let a = vec![(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)];
        let b = vec![(0.0, 0.5), (10.0, 0.5), (20.0, 0.5)];
        let c = vec![(0.0, 0.0), (10.0, 0.0), (20.0, 30.0)];
        let d = vec![(0.0, 50.0), (20.0, 50.0)];
        let (slots, groups) = coincide(&[a, b, c, d]);
        assert_eq!(groups, vec![vec![0, 1]]);
        assert_eq!(slots[2].shared, vec![Some((2, 3)), None]);
        assert_eq!(slots[0].shared, vec![Some((0, 3)), Some((0, 2))]);
        assert_eq!(slots[3], Slot { shared: vec![None] });
        assert_eq!(coincide(&[]).1, Vec::<Vec<usize>>::new());
    }
}
