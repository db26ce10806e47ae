//! The metastable experiment keeps its last runs (`metastable::memo`): a
//! run asked again is answered from there. Every parameter moved one at a
//! time, after the others were run (the memo full of neighbours), must give
//! the same bytes as the same run with the memo empty. Its own process, so
//! no other test fills the memo between the warm and the cold runs.

use bplab_core::metastable::memo;
use bplab_core::{Caps, Experiment, ExperimentId, Scenario};

/// A small scene: a 2 × 2 phase diagram, 8 s after the trigger.
const BASE: [(&str, &str); 4] =
    [("trigger-sizes", "2,3"), ("trigger-lengths-ms", "1000,2000"), ("seconds", "8"), ("trigger-at-ms", "4000")];

/// Every parameter moved once (the chosen trigger inside and outside the
/// grid, which moves the spike pool and the run's length).
const MOVES: [(&str, &str); 24] = [
    ("trigger-size", "2"),
    ("trigger-size", "3.5"),
    ("trigger-size", "2"),
    ("trigger-ms", "2000"),
    ("trigger-ms", "2500"),
    ("load", "0.6"),
    ("trigger", "slowdown"),
    ("trigger-at-ms", "3000"),
    ("seconds", "9"),
    ("seed", "7"),
    ("workers", "2"),
    ("service", "exp:21"),
    ("limit", "off"),
    ("limit", "10"),
    ("client-timeout-ms", "400"),
    ("retries", "2"),
    ("retry-backoff-ms", "20"),
    ("budget-ratio", "0.3"),
    ("throttle-k", "1.5"),
    ("retry-after-ms", "200"),
    ("window-ms", "500"),
    ("trigger-sizes", "2,4"),
    ("trigger-lengths-ms", "1000,1500"),
    ("trigger-sizes", "2,3"),
];

fn scenario(edits: &[(&str, &str)]) -> Scenario {
    let mut p = Experiment::get(ExperimentId::Metastable).defaults();
    for (k, v) in BASE.iter().chain(edits) {
        p.set(k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
    }
    Scenario::new(p, Caps::PAGE).unwrap()
}

fn bytes(edits: &[(&str, &str)]) -> String {
    let r = scenario(edits).run();
    let mut out: String = r.tables().iter().map(|t| t.csv()).collect();
    for e in r.explanations() {
        out.push_str(&e.to_text());
    }
    out
}

#[test]
fn a_kept_run_gives_the_bytes_of_a_fresh_one() {
    memo::clear();
    // Warm: each edit alone, then each on top of the previous (the memo
    // holds every run before it).
    let cases: Vec<Vec<(&str, &str)>> =
        MOVES.iter().map(|m| vec![*m]).chain((1..MOVES.len()).map(|i| vec![MOVES[i - 1], MOVES[i]])).collect();
    let warm: Vec<String> = cases.iter().map(|c| bytes(c)).collect();
    assert!(memo::kept() > 0, "runs are kept");
    // The same case again is answered from the memo, and is the same.
    assert_eq!(bytes(&cases[0]), warm[0]);
    for (c, w) in cases.iter().zip(&warm) {
        memo::clear();
        assert!(bytes(c) == *w, "{c:?}: a kept run differs from a fresh one");
    }
    // The page's order: the preview, then the full run, which takes the
    // preview's lanes from the memo and its setup (draws, merged spikes).
    for c in &cases {
        memo::clear();
        let cold = bytes(c);
        memo::clear();
        assert!(scenario(c).preview().is_some());
        assert!(bytes(c) == cold, "{c:?}: the full run after its preview differs from a cold one");
    }
}

/// Prints the time of a default run cold, then of the page's slider moves
/// (the preview, then the full run) with the memo warm:
/// `cargo test --release -p bplab-core --test metastable_memo -- --ignored --nocapture`.
#[test]
#[ignore]
fn time_slider_moves() {
    let run = |edits: &[(&str, &str)]| {
        let mut p = Experiment::get(ExperimentId::Metastable).defaults();
        for (k, v) in edits {
            p.set(k, v).unwrap();
        }
        let t = std::time::Instant::now();
        let sc = Scenario::new(p, Caps::PAGE).unwrap();
        let preview = sc.preview();
        let t1 = t.elapsed();
        let _ = sc.run();
        (t1, t.elapsed() - t1, preview.is_some())
    };
    memo::clear();
    println!("cold defaults: (preview, full run) {:?}", run(&[]));
    for s in ["3.25", "3.5", "4", "4.5", "6", "3.5"] {
        println!("trigger-size {s}: preview, full {:?}", run(&[("trigger-size", s)]));
    }
}
