//! The last runs, kept: a run is a pure function of what [`Setup`] reads of
//! the parameters, the client and the trigger, so the same run asked again
//! (a phase-diagram cell equal to a lane, a sizing step equal to a lane, the
//! whole diagram again when only the chosen trigger's size moved) is answered from
//! here instead of being run again. Results are the same bytes either way
//! (tested cold against warm); only the time changes. Bounded in entries
//! and in timeline windows held.
//!
//! [`Setup`]: super::Setup

use std::collections::VecDeque;
use std::sync::Mutex;

use super::sim::Client;
use super::{MetastableParams, Totals, Verdict, Window};

/// Most runs kept.
pub const MAX_RUNS: usize = 1024;
/// Most timeline windows kept over all runs (a run with more keeps only its
/// totals and verdict).
pub const MAX_WINDOWS: usize = 1 << 18;

/// Everything one run depends on. The derived `==` compares fields in
/// order: the trigger and the client, which tell most kept runs apart,
/// before the whole parameter set.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Key {
    size: f64,
    len_ms: u32,
    client: Client,
    /// The parameters as the setup reads them (see [`Key::new`]).
    params: MetastableParams,
}

impl Key {
    /// The run of `client` with a trigger of `size` × `len_ms` at `p`. A run
    /// reads the chosen trigger and the diagram's grid only through the
    /// longest length (the run's length; the spike's layers do not depend
    /// on the other sizes, `policy::Traffic`), so that stands in for them.
    pub(super) fn new(p: &MetastableParams, client: Client, size: f64, len_ms: u32) -> Key {
        let params = MetastableParams {
            trigger_size: 1.0,
            trigger_ms: super::max_len(p),
            trigger_sizes: Vec::new(),
            trigger_lengths_ms: Vec::new(),
            ..p.clone()
        };
        Key { size, len_ms, client, params }
    }
}

struct Entry {
    key: Key,
    ticks: Option<Vec<Window>>,
    totals: Totals,
    verdict: Verdict,
}

#[derive(Default)]
struct Memo {
    runs: VecDeque<Entry>,
    windows: usize,
}

static MEMO: Mutex<Memo> = Mutex::new(Memo { runs: VecDeque::new(), windows: 0 });

/// What the run of `key` gave, if kept; with its timeline when `ticks`
/// (a kept run without one is not an answer then).
pub(super) fn get(key: &Key, ticks: bool) -> Option<(Vec<Window>, Totals, Verdict)> {
    let memo = MEMO.lock().ok()?;
    let e = memo.runs.iter().rev().find(|e| e.key == *key)?;
    let t = match (&e.ticks, ticks) {
        (Some(t), true) => t.clone(),
        (None, true) => return None,
        (_, false) => Vec::new(),
    };
    Some((t, e.totals.clone(), e.verdict))
}

/// Keeps the run of `key`, dropping the oldest runs past the bounds.
pub(super) fn put(key: Key, ticks: &[Window], totals: &Totals, verdict: Verdict) {
    let Ok(mut memo) = MEMO.lock() else { return };
    let ticks = (ticks.len() <= MAX_WINDOWS / 16).then(|| ticks.to_vec());
    memo.windows += ticks.as_ref().map_or(0, Vec::len);
    if let Some(old) = memo.runs.iter().position(|e| e.key == key).and_then(|i| memo.runs.remove(i)) {
        memo.windows -= old.ticks.as_ref().map_or(0, Vec::len);
    }
    memo.runs.push_back(Entry { key, ticks, totals: totals.clone(), verdict });
    while memo.runs.len() > MAX_RUNS || memo.windows > MAX_WINDOWS {
        let Some(old) = memo.runs.pop_front() else { break };
        memo.windows -= old.ticks.as_ref().map_or(0, Vec::len);
    }
}

/// Forgets every kept run, and the last report's setup (tests compare cold
/// runs with warm ones).
pub fn clear() {
    if let Ok(mut memo) = MEMO.lock() {
        *memo = Memo::default();
    }
    super::forget_setup();
}

/// How many runs are kept now.
pub fn kept() -> usize {
    MEMO.lock().map_or(0, |m| m.runs.len())
}
