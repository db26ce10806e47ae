//! The plot description types.

use serde::{Deserialize, Serialize};

/// How a renderer colours an element (the theme maps each role to a colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// The i-th colour of the theme's data palette (wraps around), so one
    /// name (a controller, a policy) keeps its colour in every plot.
    Series(u8),
    /// A reference the data is read against: an ideal curve, y = x,
    /// capacity, the deterministic model.
    Reference,
    /// A limit the reader must stay within: a latency budget, a deadline,
    /// an SLO, a client timeout.
    Budget,
    /// A point on the x axis where something happens or is chosen: a
    /// deploy, the priority ceiling, B.
    Event,
    /// The highlight: the chosen point, the current setting.
    Focus,
}

/// Line pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stroke {
    /// A solid line.
    #[default]
    Solid,
    /// A dashed line.
    Dashed,
}

/// Which y axis a series is read against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    /// The left axis (the plot's `y_desc`).
    #[default]
    Left,
    /// The right axis ([`Plot::right`]); drawn against the left one when the
    /// plot has no right axis.
    Right,
}

/// One line of a figure, points in data coordinates (x, y).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Colour role.
    pub role: Role,
    /// Line pattern.
    pub stroke: Stroke,
    /// Axis it is read against.
    pub side: Side,
    /// Drawn wider than the others (the main line of a figure).
    pub bold: bool,
    /// Points in order; non-finite values are skipped by renderers.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A solid, normal-width series on the left axis.
    pub fn new(name: impl Into<String>, role: Role, points: Vec<(f64, f64)>) -> Self {
        Self { name: name.into(), role, stroke: Stroke::Solid, side: Side::Left, bold: false, points }
    }

    /// The same series, dashed.
    pub fn dashed(mut self) -> Self {
        self.stroke = Stroke::Dashed;
        self
    }

    /// The same series, read against the right axis.
    pub fn right(mut self) -> Self {
        self.side = Side::Right;
        self
    }

    /// The same series, drawn wider.
    pub fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
}

/// A shaded range between two curves on the left axis (an interval over
/// replicas): `(x, low, high)` per point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Legend text.
    pub name: String,
    /// Colour role (drawn translucent).
    pub role: Role,
    /// `(x, low, high)` in order of x.
    pub points: Vec<(f64, f64, f64)>,
}

/// A labelled reference line at `at`: x for a vertical marker, y (left
/// axis) for a horizontal one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// Position in data coordinates.
    pub at: f64,
    /// Label text.
    pub label: String,
    /// Colour role.
    pub role: Role,
}

impl Marker {
    /// A marker with `role`.
    pub fn new(at: f64, label: impl Into<String>, role: Role) -> Self {
        Self { at, label: label.into(), role }
    }
}

/// One category of a categorical x axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Category {
    /// Tick label.
    pub label: String,
    /// The value it stands for, if numeric (a [`Highlight`](super::Highlight) matches it).
    pub value: Option<f64>,
}

/// The x axis: numbers, or categories at x = 0, 1, 2, … labelled in order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum XAxis {
    /// A linear axis over the data (and the vertical markers).
    #[default]
    Linear,
    /// Categories; series points use the category index as x.
    Categories(Vec<Category>),
}

/// The right-hand axis of a plot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RightAxis {
    /// Axis description.
    pub desc: String,
    /// Fixed range instead of the data's.
    pub range: Option<(f64, f64)>,
}

/// Everything one figure shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plot {
    /// Title (the registry's chart title).
    pub title: String,
    /// x axis description, with unit.
    pub x_desc: String,
    /// Left axis description, with unit.
    pub y_desc: String,
    /// What the x axis measures, as a short key (`offered_rps`, `limit`,
    /// `burst`, `time_ms`, `rate_rps`, `latency_ms`, `budget_ms`): a
    /// [`Highlight`](super::Highlight) applies to plots with its key.
    pub x_key: String,
    /// Linear or categorical.
    pub x: XAxis,
    /// Lines, drawn in order.
    pub series: Vec<Series>,
    /// Shaded ranges, drawn under the lines.
    pub bands: Vec<Band>,
    /// Vertical markers (x positions).
    pub vlines: Vec<Marker>,
    /// Horizontal markers (left-axis y positions); inside the y range.
    pub hlines: Vec<Marker>,
    /// Circled points, left-axis coordinates.
    pub rings: Vec<(f64, f64)>,
    /// Fixed left-axis range instead of the data's.
    pub y_range: Option<(f64, f64)>,
    /// Right-hand axis, when some series are read against it.
    pub right: Option<RightAxis>,
    /// Its data is not computed yet (a preview: the full run brings it); a
    /// page keeps the figure it already shows until then.
    pub pending: bool,
}

impl Plot {
    /// An empty plot with its texts.
    pub fn new(title: impl Into<String>, x_key: &str, x_desc: impl Into<String>, y_desc: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            x_key: x_key.to_owned(),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            ..Self::default()
        }
    }

    /// Adds a right-hand axis described by `desc`, ranged over its series
    /// or fixed to `range`.
    pub fn with_right(mut self, desc: impl Into<String>, range: Option<(f64, f64)>) -> Self {
        self.right = Some(RightAxis { desc: desc.into(), range });
        self
    }
}
