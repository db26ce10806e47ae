//! The nine reference CSVs, byte for byte, from the article defaults.

use std::path::PathBuf;

use bplab_core::{EXPERIMENTS, Scenario};

fn golden(dir: &str, file: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../golden").join(dir).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[test]
fn every_table_matches_its_golden_file_byte_for_byte() {
    let mut checked = 0;
    for exp in EXPERIMENTS {
        let report = Scenario::defaults(exp.id).run();
        for table in report.tables().into_iter().filter(|t| t.spec.golden_sha256.is_some()) {
            let want = golden(exp.dir, table.spec.file);
            let got = table.csv();
            if got.as_bytes() != want.as_slice() {
                let want = String::from_utf8_lossy(&want);
                for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
                    if g != w {
                        panic!("{} line {}:\n  got  {g}\n  want {w}", table.spec.file, i + 1);
                    }
                }
                panic!("{}: {} lines vs {} golden lines", table.spec.file, got.lines().count(), want.lines().count());
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 9);
}
