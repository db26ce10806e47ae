//! Fixed text renderings of a run, identical on every target: the per-
//! request CSV (what the browser-equals-native test hashes) and the
//! summary CSV in the load tool's column order.

use std::fmt::Write as _;

use super::run::Run;
use super::summary::Summary;
use crate::numerics::write_fixed;

/// Header of [`csv`].
pub const REQUESTS_HEADER: &str = "arrival_ms,service_ms,start_ms,end_ms,outcome";

/// Header of [`summary_csv`]: the load tool's CSV header
/// (`offered,…,queued`) followed by the model-only columns.
pub const SUMMARY_HEADER: &str =
    "offered,sent,ok,refused,gaveup,error,ok_per_sec,p50_ms,p99_ms,done,lost,queued,mean_ms,wasted,queued_end";

/// One line per request after [`REQUESTS_HEADER`], `\n` endings, times in
/// Rust's shortest round-trip form (so equal text means equal bits), empty
/// fields for a request never started. Hash this to compare two targets.
pub fn csv(run: &Run) -> String {
    let mut out = String::with_capacity(32 + run.requests.len() * 48);
    out.push_str(REQUESTS_HEADER);
    out.push('\n');
    for r in &run.requests {
        let _ = write!(out, "{},{},", r.arrival_ms, r.service_ms);
        if let Some(s) = r.start_ms {
            let _ = write!(out, "{s}");
        }
        out.push(',');
        if let Some(e) = r.end_ms {
            let _ = write!(out, "{e}");
        }
        out.push(',');
        out.push_str(r.outcome.name());
        out.push('\n');
    }
    out
}

/// A rate as the load tool prints it: `40`, `47.5`.
fn rate(out: &mut String, x: f64) {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        let _ = write!(out, "{x:.0}");
    } else {
        let _ = write!(out, "{x}");
    }
}

fn opt3(out: &mut String, v: Option<f64>) {
    if let Some(x) = v {
        write_fixed(out, x, 3);
    }
}

/// [`SUMMARY_HEADER`] and one line per summary; decimals with three places
/// (Java half-up), missing values as empty fields, `\n` endings.
pub fn summary_csv(rows: &[Summary]) -> String {
    let mut out = String::from(SUMMARY_HEADER);
    out.push('\n');
    for s in rows {
        rate(&mut out, s.offered_rps);
        let _ = write!(out, ",{},{},{},{},{},", s.sent, s.ok, s.refused, s.gaveup, s.error);
        write_fixed(&mut out, s.ok_per_sec, 3);
        out.push(',');
        opt3(&mut out, s.p50_ms);
        out.push(',');
        opt3(&mut out, s.p99_ms);
        let _ = write!(out, ",{},{},{},", s.done, s.lost, s.queued);
        opt3(&mut out, s.mean_ms);
        let _ = writeln!(out, ",{},{}", s.wasted, s.queued_end);
    }
    out
}
