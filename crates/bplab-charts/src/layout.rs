//! The layout record a rendering returns: every text's box and font size,
//! the plot and legend boxes, and what the text would touch. Tests (native
//! and in the browser) check it: no two texts overlap, no text leaves the
//! canvas, no text under the minimum size, no label on the data.

use std::fmt::Write as _;

use crate::geom::Rect;

/// What a text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    /// The figure title.
    Title,
    /// An axis description.
    Axis,
    /// A tick label.
    Tick,
    /// A legend entry or note.
    Legend,
    /// A reference marker's label.
    Marker,
}

impl TextKind {
    fn name(self) -> &'static str {
        match self {
            TextKind::Title => "title",
            TextKind::Axis => "axis",
            TextKind::Tick => "tick",
            TextKind::Legend => "legend",
            TextKind::Marker => "marker",
        }
    }
}

/// One drawn text.
#[derive(Clone, Debug, PartialEq)]
pub struct TextBox {
    /// The text.
    pub text: String,
    /// What it is.
    pub kind: TextKind,
    /// Its box, CSS pixels.
    pub rect: Rect,
    /// Font size, CSS pixels.
    pub font_px: f64,
}

/// Where everything went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Canvas size, CSS pixels.
    pub width: f64,
    /// Canvas height, CSS pixels.
    pub height: f64,
    /// The plotting area.
    pub plot: Rect,
    /// The legend box, if any.
    pub legend: Option<Rect>,
    /// Whether the legend sits inside the plotting area.
    pub legend_inside: bool,
    /// Every text drawn.
    pub texts: Vec<TextBox>,
    /// Texts inside the plotting area (and the legend) that meet a line,
    /// band, dot or marker: empty unless placement failed.
    pub data_hits: Vec<String>,
    /// Notes saying which series are one line (also in the legend).
    pub notes: Vec<String>,
}

impl Layout {
    /// Every rule the layout breaks: overlapping texts, a text over the
    /// legend or outside the canvas, a font under `min_font_px`, a label on
    /// the data. Empty when the figure is clean.
    pub fn problems(&self, min_font_px: f64) -> Vec<String> {
        let canvas = Rect::new(0.0, 0.0, self.width, self.height);
        let mut out: Vec<String> = self.data_hits.iter().map(|t| format!("on the data: {t:?}")).collect();
        for (i, a) in self.texts.iter().enumerate() {
            if a.font_px < min_font_px {
                out.push(format!("{:?} is {} px (< {min_font_px})", a.text, a.font_px));
            }
            if !canvas.contains(&a.rect) {
                out.push(format!("{:?} leaves the canvas ({:?})", a.text, a.rect));
            }
            if let Some(l) = self.legend
                && a.kind != TextKind::Legend
                && a.rect.overlaps(&l)
            {
                out.push(format!("{:?} is under the legend", a.text));
            }
            for b in &self.texts[i + 1..] {
                if a.rect.overlaps(&b.rect) {
                    out.push(format!("{:?} overlaps {:?}", a.text, b.text));
                }
            }
        }
        out
    }

    /// The smallest font size used, CSS pixels.
    pub fn min_font_px(&self) -> f64 {
        self.texts.iter().map(|t| t.font_px).fold(f64::INFINITY, f64::min)
    }

    /// The record as JSON (for the page's `data-layout` attribute).
    pub fn to_json(&self) -> String {
        fn rect(r: &Rect) -> String {
            format!("[{:.1},{:.1},{:.1},{:.1}]", r.x, r.y, r.w, r.h)
        }
        fn string(s: &str) -> String {
            let mut o = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => o.push_str("\\\""),
                    '\\' => o.push_str("\\\\"),
                    c if (c as u32) < 0x20 => {
                        let _ = write!(o, "\\u{:04x}", c as u32);
                    }
                    c => o.push(c),
                }
            }
            o.push('"');
            o
        }
        let texts: Vec<String> = self
            .texts
            .iter()
            .map(|t| {
                format!(
                    "{{\"text\":{},\"kind\":\"{}\",\"box\":{},\"font\":{}}}",
                    string(&t.text),
                    t.kind.name(),
                    rect(&t.rect),
                    t.font_px
                )
            })
            .collect();
        let list = |v: &[String]| v.iter().map(|s| string(s)).collect::<Vec<_>>().join(",");
        format!(
            "{{\"width\":{},\"height\":{},\"plot\":{},\"legend\":{},\"legendInside\":{},\"texts\":[{}],\"dataHits\":[{}],\"notes\":[{}]}}",
            self.width,
            self.height,
            rect(&self.plot),
            self.legend.as_ref().map_or("null".to_owned(), rect),
            self.legend_inside,
            texts.join(","),
            list(&self.data_hits),
            list(&self.notes),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_found_and_json_escapes() {
        let t = |s: &str, x: f64| TextBox {
            text: s.into(),
            kind: TextKind::Tick,
            rect: Rect::new(x, 0.0, 10.0, 10.0),
            font_px: 11.0,
        };
        let mut l = Layout { width: 100.0, height: 50.0, texts: vec![t("a", 0.0), t("b\"", 5.0)], ..Layout::default() };
        assert_eq!(l.problems(11.0).len(), 1);
        l.texts.push(t("c", 95.0));
        assert_eq!(l.problems(12.0).len(), 5);
        assert!(l.to_json().contains("\"b\\\"\""));
    }
}
