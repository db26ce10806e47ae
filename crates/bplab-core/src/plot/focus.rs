//! Highlights chosen by a caller (the page's current setting), applied to
//! every plot whose x axis measures the same thing: nothing here names an
//! experiment.

use serde::{Deserialize, Serialize};

use super::{Marker, Plot, Role, XAxis};

/// What a highlight draws.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum HighlightKind {
    /// A vertical focus line at x, with this label.
    Line(String),
    /// A ring around the first series' point at x.
    Ring,
}

/// One highlight: at x = `at` on every plot whose [`Plot::x_key`] is `x_key`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Highlight {
    /// The x quantity it refers to, e.g. `offered_rps`.
    pub x_key: String,
    /// Where, in that quantity's unit (matched to a category's value on a
    /// categorical axis).
    pub at: f64,
    /// What to draw.
    pub kind: HighlightKind,
}

/// Optional highlights; `Focus::default()` highlights nothing. A report's
/// own chosen values (B, the plateau limit, the timeline's burst) are in its
/// plots already.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Focus {
    /// Applied in order.
    pub highlights: Vec<Highlight>,
}

impl Focus {
    /// A vertical line labelled `label` at `at` on plots whose x is `x_key`.
    pub fn line(x_key: &str, at: f64, label: impl Into<String>) -> Self {
        Focus { highlights: vec![Highlight { x_key: x_key.to_owned(), at, kind: HighlightKind::Line(label.into()) }] }
    }

    /// A ring at x = `at` on plots whose x is `x_key`.
    pub fn ring(x_key: &str, at: f64) -> Self {
        Focus { highlights: vec![Highlight { x_key: x_key.to_owned(), at, kind: HighlightKind::Ring }] }
    }

    /// Both sets of highlights.
    pub fn and(mut self, other: Focus) -> Self {
        self.highlights.extend(other.highlights);
        self
    }
}

impl Plot {
    /// Where x = `at` falls on this plot's x axis: itself on a linear axis,
    /// the index of the category whose value is `at` on a categorical one.
    pub fn x_position(&self, at: f64) -> Option<f64> {
        match &self.x {
            XAxis::Linear => at.is_finite().then_some(at),
            XAxis::Categories(c) => c.iter().position(|c| c.value == Some(at)).map(|i| i as f64),
        }
    }

    /// Adds the highlights of `focus` whose key is this plot's.
    pub fn apply(&mut self, focus: &Focus) {
        for h in focus.highlights.iter().filter(|h| h.x_key == self.x_key) {
            let Some(x) = self.x_position(h.at) else { continue };
            match &h.kind {
                HighlightKind::Line(label) => self.vlines.push(Marker::new(x, label.clone(), Role::Focus)),
                HighlightKind::Ring => {
                    let y = self.series.first().and_then(|s| s.points.iter().find(|p| p.0 == x)).map(|p| p.1);
                    if let Some(y) = y {
                        self.rings.push((x, y));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::{Category, Series};

    #[test]
    fn highlights_follow_the_x_key() {
        let mut p = Plot::new("t", "limit", "x", "y");
        p.x = XAxis::Categories(vec![
            Category { label: "10".into(), value: Some(10.0) },
            Category { label: "20".into(), value: Some(20.0) },
        ]);
        p.series.push(Series::new("s", Role::Series(0), vec![(0.0, 5.0), (1.0, 7.0)]));
        p.apply(&Focus::ring("limit", 20.0).and(Focus::line("offered_rps", 3.0, "offered 3")));
        assert_eq!(p.rings, vec![(1.0, 7.0)]);
        assert!(p.vlines.is_empty(), "another key's highlight is not applied");
        p.apply(&Focus::ring("limit", 30.0));
        assert_eq!(p.rings.len(), 1, "a value off the axis is skipped");
    }
}
