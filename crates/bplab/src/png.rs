//! PNG charts: the shared chart functions drawn on plotters' bitmap backend,
//! with an embedded font so output does not depend on system fonts.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use bplab_core::ChartSpec;
use bplab_core::plot::Plot;

use crate::Failure;

/// Pixel size of every PNG chart.
pub const SIZE: (u32, u32) = (960, 540);

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_fonts() {
    REGISTER.call_once(|| {
        for family in ["sans-serif", "serif", "monospace"] {
            for style in [FontStyle::Normal, FontStyle::Bold, FontStyle::Italic, FontStyle::Oblique] {
                // A bad font would only lose text; the charts still draw.
                let _ = register_font(family, style, FONT);
            }
        }
    });
}

/// Draws `plot` (the figure `chart` names) into a PNG file at `path`, in light colours.
pub fn write_chart(path: &Path, chart: &ChartSpec, plot: &Plot) -> Result<(), Failure> {
    register_fonts();
    let fail = |e: String| Failure::Runtime(format!("chart {}: {e}", chart.file));
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    bplab_charts::render(&root, plot, &bplab_charts::Theme::LIGHT).map_err(|e| fail(e.to_string()))?;
    root.present().map_err(|e| fail(e.to_string()))?;
    Ok(())
}
