//! HTTP/1.1 strictness and the documented limits, as raw bytes on
//! 127.0.0.1: 400 without Host, CONNECT refused, an HTTP/2 preface answered
//! with GOAWAY, 414 over the URI cap and 431 past the head buffer, 431 past
//! the header-field cap, 413 naming the 64 KB body limit.

mod support;

use bplab_live::server::{MAX_HEADER_FIELDS, MAX_URI_BYTES};
use bplab_live::{MAX_HEAD_BYTES, ServeSettings};
use support::{raw, start_settings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn quick() -> ServeSettings {
    ServeSettings { spin_ms: 0, wait_ms: 1, ..support::settings() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_heads_and_named_limits() {
    let srv = start_settings(quick()).await;
    let a = srv.addr;
    let no_host = raw(a, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n").await.expect("answer");
    assert!(no_host.starts_with("HTTP/1.1 400"), "{no_host}");
    assert!(no_host.contains("an HTTP/1.1 request without a Host header"), "{no_host}");
    let two = raw(a, b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n").await.expect("answer");
    assert!(two.starts_with("HTTP/1.1 400") && two.contains("more than one Host"), "{two}");
    let old = raw(a, b"GET /stats HTTP/1.0\r\n\r\n").await.expect("answer");
    assert!(old.starts_with("HTTP/1.0 200") || old.starts_with("HTTP/1.1 200"), "HTTP/1.0 needs no Host: {old}");

    let connect = raw(a, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n").await.expect("answer");
    assert!(connect.starts_with("HTTP/1.1 405") && connect.contains("not a proxy"), "{connect}");

    let uri = |n: usize| format!("GET /{} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", "u".repeat(n));
    let fits = raw(a, uri(MAX_URI_BYTES - 1).as_bytes()).await.expect("answer");
    assert!(fits.starts_with("HTTP/1.1 200"), "{}", &fits[..40.min(fits.len())]);
    let long = raw(a, uri(MAX_URI_BYTES + 1).as_bytes()).await.expect("answer");
    assert!(long.starts_with("HTTP/1.1 414"), "{long}");
    assert!(long.contains(&format!("URI too long: {} bytes; at most {MAX_URI_BYTES}", MAX_URI_BYTES + 2)), "{long}");
    let past_buffer = raw(a, uri(MAX_HEAD_BYTES + 100).as_bytes()).await.expect("answer");
    assert!(past_buffer.starts_with("HTTP/1.1 431"), "{past_buffer}");

    let fields = |n: usize| {
        let mut h = String::from("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n");
        for i in 0..n {
            h.push_str(&format!("X-{i}: 1\r\n"));
        }
        h + "\r\n"
    };
    let ok = raw(a, fields(MAX_HEADER_FIELDS - 2).as_bytes()).await.expect("answer");
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    let many = raw(a, fields(MAX_HEADER_FIELDS).as_bytes()).await.expect("answer");
    assert!(many.starts_with("HTTP/1.1 431"), "{many}");

    let body = vec![b'x'; 70_000];
    let mut big = format!("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
    big.extend_from_slice(&body);
    let too_big = raw(a, &big).await.expect("answer, not a reset");
    assert!(too_big.starts_with("HTTP/1.1 413"), "{too_big}");
    assert!(too_big.contains("request body over the 64 KB limit (65536 bytes)"), "{too_big}");
}

// An HTTP/2 prior-knowledge client gets SETTINGS and GOAWAY with
// HTTP_1_1_REQUIRED, not a silent close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_preface_gets_goaway_http_1_1_required() {
    let srv = start_settings(quick()).await;
    let mut s = TcpStream::connect(srv.addr).await.expect("connect");
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00").await.expect("preface");
    let mut got = Vec::new();
    tokio::time::timeout(support::EXCHANGE_TIMEOUT, s.read_to_end(&mut got)).await.expect("closed").expect("read");
    assert_eq!(got.len(), 26, "{got:?}");
    assert_eq!(got[3], 4, "SETTINGS first");
    assert_eq!((got[12], &got[22..26]), (7, &[0u8, 0, 0, 0x0d][..]), "GOAWAY HTTP_1_1_REQUIRED: {got:?}");
}

/// Read from `s` until `want` appears, it closes, or 30 s pass.
async fn read_until(s: &mut TcpStream, want: &str) -> String {
    let mut got = Vec::new();
    let io = async {
        let mut chunk = [0u8; 4096];
        while !String::from_utf8_lossy(&got).contains(want) {
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&chunk[..n]),
            }
        }
    };
    let _ = tokio::time::timeout(support::EXCHANGE_TIMEOUT, io).await;
    String::from_utf8_lossy(&got).into_owned()
}

// N6: a declared body over 64 KB is refused at once with 413 (not 408 after
// the header timeout, waiting for a body that never comes), and with
// `Expect: 100-continue` before any `100 Continue` invites the upload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_body_over_the_limit_is_refused_before_it_is_sent() {
    let srv = start_settings(ServeSettings { header_read_timeout_ms: 20_000, ..quick() }).await;
    for expect in ["", "Expect: 100-continue\r\n"] {
        let mut s = TcpStream::connect(srv.addr).await.expect("connect");
        let head = format!("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 52428800\r\n{expect}\r\n");
        s.write_all(head.as_bytes()).await.expect("head");
        let t0 = std::time::Instant::now();
        let got = read_until(&mut s, "Content-Length 52428800").await;
        assert!(got.starts_with("HTTP/1.1 413"), "{expect:?}: {got}");
        assert!(!got.contains("100 Continue"), "{expect:?}: {got}");
        assert!(
            got.contains("request body over the 64 KB limit (65536 bytes): Content-Length 52428800"),
            "{expect:?}: {got}"
        );
        // Well inside the 20 s header timeout the old answer (408) waited for.
        assert!(t0.elapsed() < std::time::Duration::from_secs(15), "{:?}", t0.elapsed());
    }
    // At the limit, 100 Continue and then the answer.
    let mut s = TcpStream::connect(srv.addr).await.expect("connect");
    let head =
        "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 65536\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n";
    s.write_all(head.as_bytes()).await.expect("head");
    let cont = read_until(&mut s, "\r\n\r\n").await;
    assert!(cont.starts_with("HTTP/1.1 100 Continue"), "{cont}");
    s.write_all(&vec![b'x'; 65536]).await.expect("body");
    let got = read_until(&mut s, "ok\n").await;
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
}

// N8: a Host value that is not one host[:port] is refused with 400 (RFC
// 9112 §3.2); an empty Host and host:port are accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_host_value_is_refused() {
    let srv = start_settings(quick()).await;
    for bad in ["a, b", "a b", "a,b", "u@h", "h:x", "[::1"] {
        let req = format!("GET /stats HTTP/1.1\r\nHost: {bad}\r\nConnection: close\r\n\r\n");
        let got = raw(srv.addr, req.as_bytes()).await.expect("answer");
        assert!(got.starts_with("HTTP/1.1 400"), "{bad:?}: {got}");
        assert!(got.contains(&format!("an invalid Host value '{bad}'")), "{bad:?}: {got}");
    }
    for good in ["", "t", "127.0.0.1:8081", "[::1]:80", "api.localhost"] {
        let req = format!("GET /stats HTTP/1.1\r\nHost: {good}\r\nConnection: close\r\n\r\n");
        let got = raw(srv.addr, req.as_bytes()).await.expect("answer");
        assert!(got.starts_with("HTTP/1.1 200"), "{good:?}: {got}");
    }
}
