//! Colours: a theme maps every style role of a plot to a colour. Light for
//! PNG files and light pages, dark for pages in a dark colour scheme.

use bplab_core::plot::Role;
use plotters::style::RGBColor;

/// The colours one rendering uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    /// Canvas background.
    pub background: RGBColor,
    /// Titles, tick labels, legend text.
    pub text: RGBColor,
    /// Notes and axis descriptions.
    pub muted: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// Axis lines and the legend's frame.
    pub axis: RGBColor,
    /// Legend background (drawn opaque).
    pub legend: RGBColor,
    /// Data colours, [`Role::Series`] indexes them (wrapping).
    pub palette: [RGBColor; 8],
    /// [`Role::Reference`].
    pub reference: RGBColor,
    /// [`Role::Budget`].
    pub budget: RGBColor,
    /// [`Role::Event`].
    pub event: RGBColor,
    /// [`Role::Focus`].
    pub focus: RGBColor,
}

impl Theme {
    /// Dark text on white; the Okabe–Ito palette (distinguishable with the
    /// common colour-vision deficiencies).
    pub const LIGHT: Theme = Theme {
        background: RGBColor(255, 255, 255),
        text: RGBColor(27, 31, 36),
        muted: RGBColor(87, 96, 106),
        grid: RGBColor(230, 232, 235),
        axis: RGBColor(140, 146, 153),
        legend: RGBColor(255, 255, 255),
        palette: [
            RGBColor(0, 114, 178),
            RGBColor(230, 159, 0),
            RGBColor(0, 158, 115),
            RGBColor(213, 94, 0),
            RGBColor(204, 121, 167),
            RGBColor(86, 180, 233),
            RGBColor(60, 60, 60),
            RGBColor(180, 160, 0),
        ],
        reference: RGBColor(110, 110, 110),
        budget: RGBColor(164, 14, 38),
        event: RGBColor(90, 90, 90),
        focus: RGBColor(20, 20, 20),
    };

    /// Light text on the page's dark panel colour; the same hues, lighter.
    pub const DARK: Theme = Theme {
        background: RGBColor(22, 27, 34),
        text: RGBColor(230, 237, 243),
        muted: RGBColor(157, 167, 179),
        grid: RGBColor(44, 50, 58),
        axis: RGBColor(110, 118, 129),
        legend: RGBColor(22, 27, 34),
        palette: [
            RGBColor(88, 166, 255),
            RGBColor(240, 180, 50),
            RGBColor(60, 200, 150),
            RGBColor(255, 123, 80),
            RGBColor(224, 150, 195),
            RGBColor(140, 210, 250),
            RGBColor(200, 200, 200),
            RGBColor(230, 215, 90),
        ],
        reference: RGBColor(160, 166, 173),
        budget: RGBColor(255, 129, 130),
        event: RGBColor(180, 186, 193),
        focus: RGBColor(240, 240, 240),
    };

    /// The theme for a dark or light colour scheme.
    pub fn for_scheme(dark: bool) -> Theme {
        if dark { Theme::DARK } else { Theme::LIGHT }
    }

    /// The colour of `role`.
    pub fn color(&self, role: Role) -> RGBColor {
        match role {
            Role::Series(i) => self.palette[usize::from(i) % self.palette.len()],
            Role::Reference => self.reference,
            Role::Budget => self.budget,
            Role::Event => self.event,
            Role::Focus => self.focus,
        }
    }
}
