//! The lesson's memory does not grow with the run's length (issue 37,
//! item 7): the process's peak resident memory while the experiment runs,
//! read from Linux's `/proc/self/status` (`VmHWM`, reset through
//! `/proc/self/clear_refs`), is about the same at 20 000 and 200 000
//! callers per run. Counts bytes, never time; one test in the binary, so
//! nothing else runs beside it. (The workspace forbids `unsafe`, so no
//! counting allocator; the engine's own structural test is
//! `stochastic::summarise_tests`.)

use bplab_core::{Caps, ExperimentId, Params, Scenario};

/// `VmHWM` or `VmRSS` of this process, bytes (`None` off Linux).
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb = line.trim_start_matches(field).trim().trim_end_matches("kB").trim();
    kb.parse::<u64>().ok().map(|k| k * 1024)
}

/// Resets `VmHWM` to the current resident size; false if it cannot.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The lesson at one rate (M/M/2 at 80 % of capacity, no line limit, the
/// histogram at the same rate), `seconds` long, one replica: how far its
/// peak resident memory rose above the resident memory before it, bytes,
/// and the callers of its chosen-rate run.
fn growth(seconds: u32) -> Option<(u64, u64)> {
    let mut p = Params::defaults(ExperimentId::Lesson);
    let seconds = seconds.to_string();
    let edits = [
        ("rate", "80"),
        ("at-rate", "80"),
        ("seconds", seconds.as_str()),
        ("workers", "2"),
        ("service", "exp:20"),
        ("limit", "off"),
        ("replicas", "1"),
    ];
    p.apply(&edits).ok()?;
    let scenario = Scenario::new(p, Caps::CLI).ok()?;
    if !reset_peak() {
        return None;
    }
    let before = status_kb("VmRSS:")?;
    let report = scenario.run();
    let peak = status_kb("VmHWM:")?;
    let callers = report.tallies().last().map_or(0, |t| t.arrivals);
    Some((peak.saturating_sub(before), callers))
}

#[test]
fn the_lessons_peak_memory_does_not_grow_with_the_runs_length() {
    let Some((short, n_short)) = growth(250) else {
        println!("no /proc/self/status or clear_refs here: not measured");
        return;
    };
    let (long, n_long) = growth(2500).expect("measured once, so measurable");
    println!("peak resident growth: {short} B at {n_short} callers, {long} B at {n_long} callers");
    assert!(n_short > 18_000 && n_long > 180_000, "{n_short}, {n_long}");
    // One record per caller (tens of bytes each, plus the deterministic
    // model's arrival list) would add megabytes at 200 000 callers.
    assert!(long < short + 2 * 1024 * 1024, "{short} B at {n_short} callers, {long} B at {n_long}");
}
