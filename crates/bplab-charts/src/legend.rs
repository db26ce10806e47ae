//! The legend box, drawn by hand so that label sizes are measured through the
//! backend (`DrawingArea::estimate_text_size`). plotters' own series labels
//! measure text with the font layer, which in the browser inserts a DOM
//! element and forces a page layout for every entry: several milliseconds per
//! redraw. A canvas backend measures with `measureText` instead.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::ChartError;

/// One legend row: the series' line style and name.
pub(crate) struct Entry {
    pub name: String,
    pub style: ShapeStyle,
    pub dashed: bool,
}

/// Where the box sits inside the plotting area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Corner {
    UpperLeft,
    UpperRight,
    MiddleLeft,
    MiddleRight,
    LowerLeft,
    LowerRight,
}

const SAMPLE_PX: i32 = 20;
const GAP_PX: i32 = 6;
const PAD_PX: i32 = 6;
const MARGIN_PX: i32 = 8;

/// Draws `entries` in a bordered box at `corner` of `area` (pixel coordinates
/// of the plotting area).
pub(crate) fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    corner: Corner,
    font_px: u32,
) -> Result<(), ChartError> {
    if entries.is_empty() {
        return Ok(());
    }
    let font = ("sans-serif", font_px).into_font();
    let text_style = font.color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    let mut text_w = 0i32;
    let mut text_h = font_px as i32;
    for e in entries {
        let (w, h) = area.estimate_text_size(&e.name, &text_style)?;
        text_w = text_w.max(w as i32);
        text_h = text_h.max(h as i32);
    }
    let row_h = text_h + 4;
    let box_w = PAD_PX * 2 + SAMPLE_PX + GAP_PX + text_w;
    let box_h = PAD_PX * 2 + row_h * entries.len() as i32;
    let (aw, ah) = area.dim_in_pixel();
    let (aw, ah) = (aw as i32, ah as i32);
    let x = match corner {
        Corner::UpperLeft | Corner::MiddleLeft | Corner::LowerLeft => MARGIN_PX,
        _ => aw - MARGIN_PX - box_w,
    };
    let y = match corner {
        Corner::UpperLeft | Corner::UpperRight => MARGIN_PX,
        Corner::MiddleLeft | Corner::MiddleRight => (ah - box_h) / 2,
        Corner::LowerLeft | Corner::LowerRight => ah - MARGIN_PX - box_h,
    };
    area.draw(&Rectangle::new([(x, y), (x + box_w, y + box_h)], WHITE.mix(0.85).filled()))?;
    area.draw(&Rectangle::new([(x, y), (x + box_w, y + box_h)], BLACK.mix(0.3)))?;
    for (i, e) in entries.iter().enumerate() {
        let cy = y + PAD_PX + row_h * i as i32 + row_h / 2;
        let x0 = x + PAD_PX;
        if e.dashed {
            area.draw(&PathElement::new(vec![(x0, cy), (x0 + 7, cy)], e.style))?;
            area.draw(&PathElement::new(vec![(x0 + 12, cy), (x0 + SAMPLE_PX, cy)], e.style))?;
        } else {
            area.draw(&PathElement::new(vec![(x0, cy), (x0 + SAMPLE_PX, cy)], e.style))?;
        }
        area.draw(&Text::new(e.name.clone(), (x0 + SAMPLE_PX + GAP_PX, cy), text_style.clone()))?;
    }
    Ok(())
}
