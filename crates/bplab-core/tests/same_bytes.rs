//! Same seed, same bytes: the stochastic experiment's CSVs at non-default
//! parameters hash to a pinned SHA-256. The browser test
//! (`crates/bplab-web/tests/web.rs`, `stochastic_csv_hash_matches_native`)
//! checks the same constant, so wasm32 and x86-64 must produce identical bytes.

use bplab_core::fuzz::{PINNED_SHA256, pinned_csv};
use sha2::{Digest, Sha256};

#[test]
fn lesson_csv_bytes_are_pinned() {
    let hex: String = Sha256::digest(pinned_csv().unwrap().as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, PINNED_SHA256);
}
