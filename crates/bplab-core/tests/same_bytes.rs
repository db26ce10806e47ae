//! Same seed, same bytes: the stochastic experiment's CSVs at non-default
//! parameters hash to a pinned SHA-256. The browser test
//! (`crates/bplab-web/tests/web.rs`, `stochastic_csv_hash_matches_native`)
//! pins the same constant, so wasm32 and x86-64 must produce identical bytes.

use bplab_core::{Caps, Experiment, ExperimentId, ParamKey, Scenario};
use sha2::{Digest, Sha256};

/// SHA-256 of the three lesson CSVs, concatenated, at [`EDITS`].
pub const LESSON_SHA256: &str = "3aad9cc7c8aae607bbcf3757cb327b67d6bb5bb703994dce5f2c01b0bba9f941";

/// Non-default parameters: two workers, a lognormal service time, seed 7.
pub const EDITS: [(ParamKey, &str); 6] = [
    (ParamKey::Workers, "2"),
    (ParamKey::Service, "lognormal:p50=20,p99=60"),
    (ParamKey::Seed, "7"),
    (ParamKey::Rates, "50,90,140"),
    (ParamKey::DoorLimit, "12"),
    (ParamKey::Seconds, "5"),
];

#[test]
fn lesson_csv_bytes_are_pinned() {
    let mut p = Experiment::get(ExperimentId::Lesson).defaults();
    for (k, v) in EDITS {
        p.set(k, v).unwrap();
    }
    let report = Scenario::new(ExperimentId::Lesson, p, Caps::PAGE).unwrap().run();
    let mut h = Sha256::new();
    for t in report.tables() {
        h.update(t.csv().as_bytes());
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, LESSON_SHA256);
}
