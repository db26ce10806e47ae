//! `manifest.json`: what was run, with which parameters, and each file's hash.

use serde::Serialize;
use sha2::{Digest, Sha256};

use bplab_core::{Params, Scenario};

/// SHA-256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// One written file.
#[derive(Serialize, Clone, Debug)]
pub struct FileEntry {
    /// File name inside the experiment folder.
    pub file: String,
    /// `csv`, `png` or `html`.
    pub kind: &'static str,
    /// Size in bytes.
    pub bytes: usize,
    /// SHA-256, hex.
    pub sha256: String,
    /// For CSVs at the article defaults: equal to the published golden hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub golden_match: Option<bool>,
    /// Data rows (CSVs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<usize>,
}

/// The manifest of one experiment run.
#[derive(Serialize, Debug)]
pub struct Manifest<'a> {
    /// The command line as given.
    pub command_line: String,
    /// `bplab` crate version.
    pub crate_version: &'static str,
    /// Experiment name.
    pub experiment: &'static str,
    /// The article it reproduces.
    pub post: &'static str,
    /// Whether every parameter equals the article default.
    pub at_defaults: bool,
    /// B = round(capacity × deadline), for the experiments with a service
    /// time and a deadline (`null` for the stochastic ones).
    pub budget_b: Option<u32>,
    /// All parameters (defaults filled in).
    pub parameters: &'a Params,
    /// Files written, CSVs first.
    pub files: Vec<FileEntry>,
}

impl<'a> Manifest<'a> {
    /// A manifest for `scenario` with `files`.
    pub fn new(scenario: &'a Scenario, files: Vec<FileEntry>) -> Self {
        let exp = scenario.experiment();
        Manifest {
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
            crate_version: env!("CARGO_PKG_VERSION"),
            experiment: exp.name,
            post: exp.post,
            at_defaults: *scenario.params() == exp.defaults(),
            budget_b: scenario.params().budget(),
            parameters: scenario.params(),
            files,
        }
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
        s.push('\n');
        s
    }
}
