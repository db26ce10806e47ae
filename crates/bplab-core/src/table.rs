//! CSV tables: a header from the registry and rows of formatted cells.

use crate::numerics::write_fixed;

/// A CSV file's name and header (from the registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableSpec {
    /// File name, e.g. `bp-post2-plateau.csv`.
    pub file: &'static str,
    /// SHA-256 (hex) of the reference lab's CSV at the article defaults,
    /// as the articles print it; `None` for a table no article published.
    pub golden_sha256: Option<&'static str>,
    /// Header line without the newline.
    pub header: &'static str,
    /// What the table shows, one line.
    pub title: &'static str,
}

impl TableSpec {
    /// Column names.
    pub fn columns(&self) -> impl Iterator<Item = &'static str> {
        self.header.split(',')
    }
}

/// A rendered table: header plus rows of already formatted cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Which table.
    pub spec: &'static TableSpec,
    /// Rows of cells, in CSV order.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table for `spec`.
    pub fn new(spec: &'static TableSpec) -> Self {
        Self { spec, rows: Vec::new() }
    }

    /// The CSV text: header and rows, each line ending in `\n`, no spaces.
    pub fn csv(&self) -> String {
        let mut out = String::with_capacity(64 + self.rows.len() * 48);
        out.push_str(self.spec.header);
        out.push('\n');
        for row in &self.rows {
            // The cells joined by commas, straight into `out`.
            for (k, cell) in row.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(cell);
            }
            out.push('\n');
        }
        out
    }
}

/// Builds one row cell by cell with Java-style number formatting.
#[derive(Default)]
pub struct Row(Vec<String>);

impl Row {
    /// A new, empty row.
    pub fn new() -> Self {
        Self(Vec::with_capacity(10))
    }
    /// `%s`.
    pub fn text(mut self, s: impl Into<String>) -> Self {
        self.0.push(s.into());
        self
    }
    /// `%d`.
    pub fn int(mut self, v: impl std::fmt::Display) -> Self {
        self.0.push(v.to_string());
        self
    }
    /// `%.1f`.
    pub fn f1(self, v: f64) -> Self {
        self.fixed(v, 1)
    }
    /// `%.1f` of a whole-ms percentile.
    pub fn ms(self, v: u64) -> Self {
        self.fixed(v as f64, 1)
    }
    /// `%.Nf`.
    pub fn fixed(mut self, v: f64, places: usize) -> Self {
        let mut s = String::with_capacity(12);
        write_fixed(&mut s, v, places);
        self.0.push(s);
        self
    }
    /// The cells.
    pub fn done(self) -> Vec<String> {
        self.0
    }
}
