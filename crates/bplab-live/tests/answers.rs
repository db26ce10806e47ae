//! Every complete request is answered: raw sockets against the server on
//! 127.0.0.1, counting the complete requests that got no answer (a close
//! or reset before a whole HTTP answer). The target is 0 in every case:
//! half-closed clients, bursts over the connection cap (1,000 and 2,000
//! simultaneous connections against caps of 256 and 1,024), pipelined
//! requests (served, refused and over the cap) and slow heads.
//!
//! An answer is a 200, a 503 with `Retry-After`, or a 4xx naming its
//! reason. Counts are deterministic; timeouts are generous (30 s per
//! exchange) and no assertion is about speed, so a loaded 2-core machine
//! changes how long the suite takes, not what it finds. Both ends live in
//! this process, so the soft open-file limit is raised first; if the hard
//! limit is too low the burst is scaled down and says so.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use support::{Answer, EXCHANGE_TIMEOUT, HEAVY, read_answer, settings, start_settings, stats};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::task::JoinSet;

/// How a client behaves after writing its request.
#[derive(Clone, Copy, Debug)]
enum Then {
    /// Keep the socket open and read.
    Read,
    /// Shut down its write side (half-close), then read.
    HalfClose,
}

/// One complete request on a new connection: its answer, or why none came.
async fn exchange(addr: SocketAddr, request: &'static [u8], then: Then) -> Result<Answer, String> {
    let io = async {
        let mut s = TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        s.write_all(request).await.map_err(|e| format!("write: {e}"))?;
        if let Then::HalfClose = then {
            s.shutdown().await.map_err(|e| format!("shutdown: {e}"))?;
        }
        let mut buf = Vec::new();
        read_answer(&mut s, &mut buf).await.map_err(|e| format!("no answer: {e}"))
    };
    tokio::time::timeout(EXCHANGE_TIMEOUT, io).await.map_err(|_| "no answer within 30 s".to_string())?
}

/// `n` clients at once, `then` alternating per client as given; the answers
/// by status and every failure.
async fn burst(addr: SocketAddr, n: usize, request: &'static [u8], thens: &[Then]) -> (Vec<Answer>, Vec<String>) {
    let mut set = JoinSet::new();
    for i in 0..n {
        let then = thens[i % thens.len()];
        set.spawn(exchange(addr, request, then));
    }
    let (mut answers, mut failures) = (Vec::new(), Vec::new());
    while let Some(r) = set.join_next().await {
        match r.expect("join") {
            Ok(a) => answers.push(a),
            Err(e) => failures.push(e),
        }
    }
    (answers, failures)
}

/// Every answer is a 200 or a refusal with `Retry-After`.
fn assert_answered(what: &str, answers: &[Answer], failures: &[String]) -> (usize, usize) {
    let ok = answers.iter().filter(|a| a.status == 200).count();
    let refused = answers.iter().filter(|a| a.is_refusal()).count();
    eprintln!("{what}: {ok} answered 200, {refused} answered 503 + Retry-After, {} unanswered", failures.len());
    assert!(failures.is_empty(), "{what}: {} complete requests unanswered, e.g. {:?}", failures.len(), &failures[..1]);
    assert_eq!(ok + refused, answers.len(), "{what}: other answers: {:?}", answers.iter().find(|a| a.status != 200));
    (ok, refused)
}

const STATS: &[u8] = b"GET /stats HTTP/1.1\r\nHost: t\r\n\r\n";
const WORK: &[u8] = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";

// A client that sends its request and shuts down its write side still
// reads its answer: /stats and real work (the audit saw 7,904 of 10,000
// get nothing), in waves of 250 at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_closed_clients_are_answered() {
    let _heavy = HEAVY.lock().await;
    let srv = start_settings(bplab_live::ServeSettings { workers: 4, spin_ms: 0, wait_ms: 2, ..settings() }).await;
    for (what, request) in [("GET /stats + SHUT_WR", STATS), ("GET / + SHUT_WR", WORK)] {
        for _ in 0..8 {
            let (answers, failures) = burst(srv.addr, 250, request, &[Then::HalfClose]).await;
            let (ok, _) = assert_answered(what, &answers, &failures);
            assert_eq!(ok, 250, "{what}: nothing refuses here");
        }
    }
    let s = stats(srv.addr).await;
    assert_eq!((s.arrived, s.done), (2000, 2000), "{s:?}");
}

/// The burst sizes: `want` connections against `cap`, fewer if the hard
/// open-file limit does not allow them (with a message).
fn burst_size(want: usize, cap: usize) -> usize {
    // Client sockets, the server's two pools, and a margin.
    let need = (want + 2 * cap + 200) as u64;
    let have = support::open_files(need);
    let n = if have >= need { want } else { (have as usize).saturating_sub(2 * cap + 200) };
    if n < want {
        eprintln!("open-file limit {have} (hard limit too low to raise to {need}): a burst of {n}, not {want}");
    }
    n
}

// A burst larger than the connection cap: every connection's complete
// request is answered, 200 within the cap and 503 + Retry-After over it
// (the audit saw 744 of 1,000 closed unanswered at a cap of 256). Half of
// the clients half-close. Then a second burst of real work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bursts_over_the_cap_are_answered_200_or_503() {
    let _heavy = HEAVY.lock().await;
    for (cap, want) in [(256, 1000), (1024, 2000)] {
        let n = burst_size(want, cap);
        assert!(n > cap, "open-file limit too low for a burst over a cap of {cap}");
        let srv = start_settings(bplab_live::ServeSettings {
            workers: 2,
            spin_ms: 0,
            wait_ms: 1,
            max_connections: cap,
            ..settings()
        })
        .await;
        for (what, request) in [("GET /stats", STATS), ("GET /", WORK)] {
            let label = format!("{n} at once against --max-connections {cap}, {what}");
            let (answers, failures) = burst(srv.addr, n, request, &[Then::Read, Then::HalfClose]).await;
            let (ok, refused) = assert_answered(&label, &answers, &failures);
            assert_eq!(ok + refused, n, "{label}");
        }
        let s = stats(srv.addr).await;
        assert_eq!(s.arrived, s.done + s.refused + s.in_service + s.queued, "{s:?}");
        eprintln!("cap {cap}: connections shed {}, over-cap answers {}", s.connections_shed, s.over_cap);
    }
}

/// Write `requests` on one connection in one go, then read `expect` answers.
async fn pipelined(addr: SocketAddr, requests: &[u8], expect: usize) -> Result<Vec<Answer>, String> {
    let io = async {
        let mut s = TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        s.write_all(requests).await.map_err(|e| format!("write: {e}"))?;
        let (mut buf, mut out) = (Vec::new(), Vec::new());
        for i in 0..expect {
            out.push(read_answer(&mut s, &mut buf).await.map_err(|e| format!("answer {i} of {expect}: {e}"))?);
        }
        Ok(out)
    };
    tokio::time::timeout(EXCHANGE_TIMEOUT, io).await.map_err(|_| "no answers within 30 s".to_string())?
}

fn pipeline(stats: usize, work: usize) -> Vec<u8> {
    let mut all = Vec::new();
    for _ in 0..stats {
        all.extend_from_slice(STATS);
    }
    for _ in 0..work {
        all.extend_from_slice(WORK);
    }
    all.extend_from_slice(b"GET /stats HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    all
}

// Pipelined requests are all answered in order: on a served connection,
// behind refusals (a limit of 0 refuses while the slot is busy; a refusal
// keeps the connection open), and on a connection over the cap (every one
// answered 503 + Retry-After, then the connection closes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_are_all_answered() {
    let _heavy = HEAVY.lock().await;
    let srv = start_settings(bplab_live::ServeSettings { spin_ms: 0, wait_ms: 1, ..settings() }).await;
    let answers = pipelined(srv.addr, &pipeline(50, 50), 101).await.expect("served pipeline");
    assert!(answers.iter().all(|a| a.status == 200), "{:?}", answers.iter().find(|a| a.status != 200));

    // One slot held by a slow request, no waiting allowed: the pipelined
    // work is refused, each refusal answered, the /stats served.
    let srv = start_settings(bplab_live::ServeSettings {
        spin_ms: 0,
        wait_ms: 3000,
        limit: Some(0),
        max_connections: 8,
        ..settings()
    })
    .await;
    let holder = tokio::spawn(exchange(srv.addr, WORK, Then::Read));
    srv.until("the slow request holds the slot", |s| s.in_service == 1).await;
    let answers = pipelined(srv.addr, &pipeline(5, 20), 26).await.expect("pipeline behind refusals");
    let refused = answers.iter().filter(|a| a.is_refusal()).count();
    assert_eq!((refused, answers.len() - refused), (20, 6), "{answers:?}");

    // Over the cap: a cap of 1 held by the slow request, so the pipelined
    // connection is over the cap and no connection can be shed.
    let srv =
        start_settings(bplab_live::ServeSettings { spin_ms: 0, wait_ms: 3000, max_connections: 1, ..settings() }).await;
    let held = tokio::spawn(exchange(srv.addr, WORK, Then::Read));
    srv.until("the slow request holds the only connection", |s| s.in_service == 1).await;
    let answers = pipelined(srv.addr, &pipeline(3, 10), 14).await.expect("pipeline over the cap");
    assert!(answers.iter().all(Answer::is_refusal), "{answers:?}");
    assert!(answers[0].body.contains("1 connections open (--max-connections)"), "{:?}", answers[0]);
    assert_eq!(held.await.expect("join").expect("the slow request").status, 200);
    assert_eq!(holder.await.expect("join").expect("the slow request").status, 200);
}

/// Send `request` in `pieces` pieces `gap` apart, then read the answer.
async fn slow_head(addr: SocketAddr, request: &'static [u8], pieces: usize, gap: Duration) -> Result<Answer, String> {
    let io = async {
        let mut s = TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        let step = request.len().div_ceil(pieces);
        for part in request.chunks(step) {
            tokio::time::sleep(gap).await;
            if let Err(e) = s.write_all(part).await {
                // Shed or timed out mid-head: the answer must already be there.
                eprintln!("write failed mid-head: {e}");
                break;
            }
        }
        let mut buf = Vec::new();
        read_answer(&mut s, &mut buf).await.map_err(|e| format!("no answer: {e}"))
    };
    tokio::time::timeout(EXCHANGE_TIMEOUT, io).await.map_err(|_| "no answer within 30 s".to_string())?
}

// Slow heads: a head dripped over 1 s is served; one that stalls past the
// header timeout is answered 408 naming it; and 120 dripping heads beside
// 120 normal clients against a cap of 32 are all answered (a dripping head
// is the one shed to make room, with a 503 + Retry-After).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_heads_are_answered() {
    let _heavy = HEAVY.lock().await;
    let srv = start_settings(bplab_live::ServeSettings {
        spin_ms: 0,
        wait_ms: 1,
        header_read_timeout_ms: 10_000,
        ..settings()
    })
    .await;
    let a = slow_head(srv.addr, WORK, 10, Duration::from_millis(100)).await.expect("dripped head");
    assert_eq!(a.status, 200, "{a:?}");

    let srv =
        start_settings(bplab_live::ServeSettings { spin_ms: 0, wait_ms: 1, header_read_timeout_ms: 300, ..settings() })
            .await;
    let mut s = TcpStream::connect(srv.addr).await.expect("connect");
    s.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n").await.expect("half a head");
    let mut buf = Vec::new();
    let a = tokio::time::timeout(EXCHANGE_TIMEOUT, read_answer(&mut s, &mut buf)).await.expect("in time").expect("408");
    assert_eq!(a.status, 408, "{a:?}");
    assert!(a.body.contains("request head not complete within the 300 ms header timeout"), "{a:?}");

    let srv = start_settings(bplab_live::ServeSettings {
        workers: 2,
        spin_ms: 0,
        wait_ms: 1,
        max_connections: 32,
        header_read_timeout_ms: 20_000,
        ..settings()
    })
    .await;
    let mut set = JoinSet::new();
    for i in 0..240 {
        let addr = srv.addr;
        if i % 2 == 0 {
            set.spawn(slow_head(addr, WORK, 8, Duration::from_millis(150)));
        } else {
            set.spawn(exchange(addr, WORK, Then::Read));
        }
    }
    let (mut answers, mut failures) = (Vec::new(), Vec::new());
    while let Some(r) = set.join_next().await {
        match r.expect("join") {
            Ok(a) => answers.push(a),
            Err(e) => failures.push(e),
        }
    }
    assert_answered("120 slow heads beside 120 normal clients, cap 32", &answers, &failures);
}

/// Whatever `s` sends within `quiet` (or before it closes): an idle
/// connection that the server closes reads as empty.
async fn unsolicited(mut s: TcpStream, quiet: Duration) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let _ = tokio::time::timeout(quiet, s.read_to_end(&mut got)).await;
    got
}

/// A keep-alive client: connect, send `request`, read one answer; the
/// socket kept open for the next request, as a pool keeps it.
async fn pooled(addr: SocketAddr, request: &'static [u8]) -> Result<(Answer, TcpStream), String> {
    let io = async {
        let mut s = TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
        s.write_all(request).await.map_err(|e| format!("write: {e}"))?;
        let mut buf = Vec::new();
        let a = read_answer(&mut s, &mut buf).await.map_err(|e| format!("no answer: {e}"))?;
        if !buf.is_empty() {
            return Err(format!("bytes after the answer: {:?}", String::from_utf8_lossy(&buf)));
        }
        Ok((a, s))
    };
    tokio::time::timeout(EXCHANGE_TIMEOUT, io).await.map_err(|_| "no answer within 30 s".to_string())?
}

// N1: an idle keep-alive connection that already got its answer is closed
// with a plain FIN when it is shed to make room, never sent a status of its
// own (a pooled client would read it as the answer to its next request,
// which the server never saw). Cap 4: A and three more connections get
// their answers and idle; a fifth sheds the one idle longest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_is_shed_with_a_fin_not_a_status() {
    let _heavy = HEAVY.lock().await;
    let srv =
        start_settings(bplab_live::ServeSettings { spin_ms: 0, wait_ms: 1, max_connections: 4, ..settings() }).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        let (a, s) = pooled(srv.addr, STATS).await.expect("a keep-alive answer");
        assert_eq!(a.status, 200, "{a:?}");
        idle.push(s);
    }
    let (a, fifth) = pooled(srv.addr, STATS).await.expect("the fifth connection is served");
    assert_eq!(a.status, 200, "{a:?}");
    srv.until("one idle connection was shed", |s| s.connections_shed == 1).await;
    drop(fifth);
    let mut set = JoinSet::new();
    for s in idle {
        set.spawn(unsolicited(s, Duration::from_secs(2)));
    }
    while let Some(got) = set.join_next().await {
        let got = got.expect("join");
        assert!(got.is_empty(), "an idle connection was sent {:?}", String::from_utf8_lossy(&got));
    }
}

// N1 in a burst: 500 keep-alive clients at once against a cap of 64 (the
// audit saw 196 of 500 read a 200 and then an unsolicited 503 on the same
// connection). Each gets exactly one answer; after it, nothing but a close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_keep_alive_clients_gets_one_answer_each() {
    let _heavy = HEAVY.lock().await;
    let n = burst_size(500, 64);
    let srv = start_settings(bplab_live::ServeSettings {
        workers: 1,
        spin_ms: 0,
        wait_ms: 1,
        max_connections: 64,
        ..settings()
    })
    .await;
    for (what, request) in [("GET /stats", STATS), ("GET /", WORK)] {
        let mut set = JoinSet::new();
        for _ in 0..n {
            set.spawn(pooled(srv.addr, request));
        }
        let (mut open, mut failures, mut statuses) = (Vec::new(), Vec::new(), Vec::new());
        while let Some(r) = set.join_next().await {
            match r.expect("join") {
                Ok((a, s)) => {
                    statuses.push(a.status);
                    open.push(s);
                }
                Err(e) => failures.push(e),
            }
        }
        assert!(failures.is_empty(), "{what}: {} unanswered, e.g. {:?}", failures.len(), &failures[..1]);
        assert!(statuses.iter().all(|&s| s == 200 || s == 503), "{what}: {statuses:?}");
        // Every first answer is in; whatever the sheds wrote is on the sockets.
        let mut set = JoinSet::new();
        for s in open {
            set.spawn(unsolicited(s, Duration::from_millis(1500)));
        }
        let mut second = 0;
        while let Some(got) = set.join_next().await {
            second += usize::from(!got.expect("join").is_empty());
        }
        let s = stats(srv.addr).await;
        eprintln!("{what}: {n} keep-alive clients, cap 64: shed {}, second answers {second}", s.connections_shed);
        assert_eq!(second, 0, "{what}: {second} of {n} connections were sent a second, unsolicited answer");
    }
}

// A connection shed before its request arrived still answers that request
// with a 503 + Retry-After when it arrives while the server lingers, even
// when the second pool (over-cap and closing connections) is full. Cap 1:
// X is served and has sent nothing; N arrives, holds the only second-pool
// slot and sheds X. The served slot X leaves goes to N, and X lingers in
// N's second-pool slot; before, the accept loop (already waiting for a
// served slot) could take it, leaving X no slot to linger in: it closed
// with a plain FIN and X's request, sent just after, met a reset. The
// runtime has one thread, so the order of those steps is fixed, not luck.
#[tokio::test(flavor = "current_thread")]
async fn a_connection_shed_before_its_request_still_answers_it() {
    let _heavy = HEAVY.lock().await;
    let srv =
        start_settings(bplab_live::ServeSettings { spin_ms: 0, wait_ms: 1, max_connections: 1, ..settings() }).await;
    let mut x = TcpStream::connect(srv.addr).await.expect("connect X");
    let mut n = TcpStream::connect(srv.addr).await.expect("connect N");
    srv.until("X was shed to make room for N", |s| s.connections_shed == 1).await;
    // X's request, and more behind it: the server reads and discards it
    // while it lingers, so the 503 it writes is not lost to a reset.
    let mut more = WORK.to_vec();
    more.extend_from_slice(&pipeline(4, 4));
    let _ = x.write_all(&more).await;
    let mut buf = Vec::new();
    let a = tokio::time::timeout(EXCHANGE_TIMEOUT, read_answer(&mut x, &mut buf)).await.expect("in time");
    let a = a.expect("X's request is answered");
    assert!(a.is_refusal(), "{a:?}");
    assert!(a.body.contains("connection shed to make room"), "{a:?}");
    // N got the slot X was shed for.
    n.write_all(WORK).await.expect("N's request");
    let mut buf = Vec::new();
    let a = tokio::time::timeout(EXCHANGE_TIMEOUT, read_answer(&mut n, &mut buf)).await.expect("in time");
    assert_eq!(a.expect("N's answer").status, 200);
}
