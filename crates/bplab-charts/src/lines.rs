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

fn near(p: P, poly: &[P]) -> bool {
    match poly {
        [] => false,
        [q] => dist(p, *q, *q) <= TOL,
        _ => poly.windows(2).any(|w| dist(p, w[0], w[1]) <= TOL),
    }
}

/// Per segment of `a`: on `b`'s line (both ends and the middle).
fn on(a: &[P], b: &[P]) -> Vec<bool> {
    if a.len().saturating_mul(b.len()) > BUDGET || b.is_empty() {
        return vec![false; a.len().saturating_sub(1)];
    }
    let ends: Vec<bool> = a.iter().map(|p| near(*p, b)).collect();
    a.windows(2)
        .zip(ends.windows(2))
        .map(|(s, e)| e[0] && e[1] && near(((s[0].0 + s[1].0) / 2.0, (s[0].1 + s[1].1) / 2.0), b))
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
            let single = polys[i].len() == 1 && polys[j].len() == 1 && near(polys[i][0], &polys[j]);
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
