//! The live client policies against a real `bplab serve` on 127.0.0.1
//! (issue 19, item 3): the short version of `scripts/metastable-demo.sh`.
//!
//! Every assertion holds at any speed of the machine: the server is one
//! worker holding each request 200 ms behind a line of 0, so at 20 first
//! tries per second most tries are refused however slow the machine is,
//! and the checks are the accounting identities and the policies' own
//! bounds (a budget of 2 tokens and no refill sends at most 2 retries; a
//! Retry-After longer than the window lets no retry go), never a rate or a
//! latency.

mod support;

use std::net::SocketAddr;

use bplab_core::stochastic::{Backoff, Retry, RetryBudget, Throttle};
use bplab_live::load::{ClientCounts, ClientPolicy, LoadConfig, LoadSettings, RateRow, Target, schedule, sweep};
use bplab_live::{LiveError, LoadArgs, ServeArgs, ServeSettings, run_load, run_serve};
use clap::Parser;
use support::{HEAVY, start_settings};

const RATE: f64 = 20.0;
const SECONDS: f64 = 1.5;

fn naive() -> ClientPolicy {
    ClientPolicy { retry: Retry { max_retries: 3, backoff: Backoff::Fixed { ms: 20.0 } }, ..ClientPolicy::NONE }
}

fn cfg(addr: SocketAddr, policy: ClientPolicy, timeline: bool) -> LoadConfig {
    LoadConfig::new(LoadSettings {
        rates_rps: vec![RATE],
        seconds: SECONDS,
        client_timeout_ms: 5000,
        timeline_ms: timeline.then_some(500),
        policy,
        ..LoadSettings::lesson(Target::parse(&format!("http://{addr}/")).expect("target"))
    })
    .expect("load config")
}

/// One rate's row against a fresh saturated server (one worker, 200 ms a
/// request, a line of 0), its 503s carrying `Retry-After: retry_after_s`.
async fn run(policy: ClientPolicy, retry_after_s: u64) -> RateRow {
    let srv = start_settings(ServeSettings {
        workers: 1,
        spin_ms: 0,
        wait_ms: 200,
        limit: Some(0),
        retry_after_s,
        ..support::settings()
    })
    .await;
    let rows = sweep(&cfg(srv.addr, policy, true), None, |_| {}).await.expect("sweep");
    assert_eq!(rows.len(), 1);
    rows.into_iter().next().expect("row")
}

/// Every try is counted once, first tries and retries apart, in the row
/// and in the windows.
fn consistent(r: &RateRow) -> ClientCounts {
    let c = r.client.expect("a policy counts its tries");
    let planned = schedule(RATE, SECONDS, 1, 10_000).len() as u64;
    assert_eq!(c.first_tries, planned, "{r:?}");
    assert_eq!(c.first_tries + c.retries, r.sent + c.rejected, "{r:?}");
    assert_eq!(r.sent, r.ok + r.refused + r.gaveup + r.error, "{r:?}");
    let t = r.timeline.as_ref().expect("timeline");
    assert!(t.client);
    let sum = |f: fn(&bplab_live::load::Window) -> u64| t.windows.iter().map(f).sum::<u64>();
    assert_eq!(sum(|w| w.first_tries), c.first_tries);
    assert_eq!(sum(|w| w.retries), c.retries);
    assert_eq!(sum(|w| w.rejected), c.rejected);
    assert_eq!(sum(|w| w.sent), r.sent);
    assert_eq!(sum(|w| w.denied), c.denied);
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn naive_retries_budget_throttle_and_retry_after_on_the_real_server() {
    let _heavy = HEAVY.lock().await;

    // Naive: refused callers retry; nothing limits them but the count.
    let n = run(naive(), 1).await;
    let nc = consistent(&n);
    assert!(n.refused > 0, "one worker at 200 ms refuses most of 20 rps: {n:?}");
    assert!(nc.retries > 2, "{n:?}");
    assert!(nc.retries <= 3 * nc.first_tries);
    assert_eq!((nc.rejected, nc.denied), (0, 0));

    // A budget of 2 tokens that nothing refills: at most 2 retries, the
    // rest denied (the core's rule: retries <= max_tokens + ratio x ok + floor x s).
    let budget = RetryBudget { ratio: 0.0, floor_rps: 0.0, max_tokens: 2.0 };
    let b = run(ClientPolicy { budget: Some(budget), ..naive() }, 1).await;
    let bc = consistent(&b);
    assert!(bc.retries <= 2, "{b:?}");
    assert!(bc.retries < nc.retries, "the budget lane sends fewer retries than naive: {bc:?} vs {nc:?}");
    assert!(bc.denied > 0, "{b:?}");

    // Throttling with K = 1: requests outnumber the few accepts, so tries
    // are rejected locally (never sent, never retried).
    let th = run(ClientPolicy { throttle: Some(Throttle { k: 1.0, window_ms: 2000.0 }), ..naive() }, 1).await;
    let tc = consistent(&th);
    assert!(tc.rejected > 0, "{th:?}");

    // Retry-After honoured, and longer than the window: no retry is sent.
    let ra = run(ClientPolicy { honour_retry_after: true, ..naive() }, 2).await;
    let rc = consistent(&ra);
    assert!(ra.refused > 0, "{ra:?}");
    assert_eq!(rc.retries, 0, "every retry would leave after the window: {ra:?}");
    // Ignored, the same 503s are retried.
    assert!(nc.retries > rc.retries);
}

/// Without a policy the row is the lesson's: no client columns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_policy_no_client_columns() {
    let _heavy = HEAVY.lock().await;
    let srv = start_settings(ServeSettings { spin_ms: 0, wait_ms: 1, ..support::settings() }).await;
    let rows = sweep(&cfg(srv.addr, ClientPolicy::NONE, false), None, |_| {}).await.expect("sweep");
    assert_eq!(rows[0].client, None);
    assert_eq!(rows[0].sent, schedule(RATE, SECONDS, 1, 10_000).len() as u64);
}

#[derive(Parser)]
struct LoadCli {
    #[command(flatten)]
    args: LoadArgs,
}

#[derive(Parser)]
struct ServeCli {
    #[command(flatten)]
    args: ServeArgs,
}

fn usage(e: LiveError, want: &str) {
    assert!(e.is_usage(), "{e}");
    assert_eq!(e.to_string(), want);
}

/// Every client and trigger flag: one message naming the value and the
/// range, before anything is sent.
#[test]
fn bad_policy_and_trigger_flags_are_usage_errors() {
    let load = |argv: &[&str]| {
        let mut full = vec!["load", "--rate", "1", "--seconds", "0.1"];
        full.extend_from_slice(argv);
        run_load(LoadCli::try_parse_from(full).expect("clap parse").args).unwrap_err()
    };
    usage(load(&["--retries", "101"]), "--retries: '101' is not accepted; expected a whole number from 0 to 100");
    usage(load(&["--retries", "-1"]), "--retries: '-1' is not accepted; expected a whole number from 0 to 100");
    usage(load(&["--backoff", "linear"]), "--backoff: 'linear' is not accepted; expected fixed or exponential");
    usage(load(&["--jitter", "half"]), "--jitter: 'half' is not accepted; expected none, full, equal or decorrelated");
    usage(
        load(&["--backoff", "exponential", "--backoff-ms", "100", "--backoff-cap-ms", "10"]),
        "--backoff-cap-ms: '10' is not accepted; expected a number from 100 (--backoff-ms) to 1000000000 (ms)",
    );
    let e = load(&["--retry-budget", "0.1,x"]);
    assert!(e.to_string().starts_with("--retry-budget: '0.1,x' is not accepted; expected RATIO[,FLOOR_RPS"), "{e}");
    usage(load(&["--throttle-k", "0"]), "--throttle-k: '0' is not accepted; expected a number from 1 to 1000");
    let e = load(&["--throttle-window-ms", "100"]);
    assert!(e.to_string().contains("only together with --throttle-k"), "{e}");

    let serve = |argv: &[&str]| {
        let mut full = vec!["serve"];
        full.extend_from_slice(argv);
        run_serve(ServeCli::try_parse_from(full).expect("clap parse").args).unwrap_err()
    };
    usage(
        serve(&["--retry-after-s", "86401"]),
        "--retry-after-s: '86401' is not accepted; expected a whole number from 0 to 86400 (s)",
    );
    let e = serve(&["--slowdown-for", "3s"]);
    assert!(e.to_string().starts_with("--slowdown-for: '3s' is not accepted; expected a length only together"), "{e}");
    let e = serve(&["--slowdown-at", "1s", "--slowdown-for", "0s"]);
    assert!(e.to_string().starts_with("--slowdown-for: '0s' is not accepted; expected a duration like 3s"), "{e}");
}
