use super::super::level::{Level, Tool};
use super::*;

fn err(file: &str, text: &str) -> String {
    read(file, text).unwrap_err().to_string()
}

#[test]
fn each_format_is_recognised_by_its_first_line() {
    let hey = "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n\
               0.0810,0.0005,0.0000,0.0001,0.0800,0.0003,200,0.0001\n0.0020,0,0,0,0.0019,0,503,0.0100\n";
    let l = read("h.csv", hey).unwrap();
    assert_eq!((l[0].tool, l[0].sent, l[0].ok, l[0].refused), (Tool::Hey, 2, 1, 1));
    let ab = "starttime\tseconds\tctime\tdtime\tttime\twait\nThu Dec 03 21:44:33 2026\t1796334273\t0\t81\t81\t81\n";
    assert_eq!(read("a.tsv", ab).unwrap()[0].tool, Tool::AbGnuplot);
    let plain = "# start latency status\n0 80 200\n100, 81\n\n200\t90\t503\n";
    let l = &read("p.txt", plain).unwrap()[0];
    assert_eq!((l.tool, l.sent, l.ok, l.refused, l.requests[1].status), (Tool::Plain, 3, 2, 1, None));
    let csv = "offered,sent,ok,refused,gaveup,error,ok_per_sec,p50_ms,p99_ms,done,lost,queued,partial\n\
               10,51,51,0,0,0,10.200,86.911,105.663,51,0,1,0\n80,393,242,151,0,0,48.400,234.879,305.919,242,0,8,0\n";
    let l = read("b.csv", csv).unwrap();
    assert_eq!((l.len(), l[1].peak_queue, l[1].offered_rps), (2, Some(8), Some(80.0)));
    assert!((l[1].duration_ms - 5000.0).abs() < 1e-9, "{}", l[1].duration_ms);
}

#[test]
fn the_printed_table_attaches_each_timeline_to_its_rate() {
    let text = " offered    sent     ok  refused  gaveup  error  ok_per_sec   p50_ms   p99_ms    done    lost  queued\n\
      10      51     51        0       0      0        10.2     86.9    105.7      51       0       1\n\
timeline 10 rps, door fixed, windows of 1000 ms by when each outcome happened\n\
 start_ms   sent     ok  refused  gaveup  error   p99_ms  limit\n\
        0     15     13        0       0      0     96.4     12\n\
     1000      3      5        0       0      0     91.8      -\n\
      80     393    242      151       0      0        48.4    234.9    305.9     242       0       8\n\
timeline 80 rps, door fixed, windows of 1000 ms by when each outcome happened\n\
 start_ms   sent     ok  refused  gaveup  error   p99_ms  limit\n\
        0     78     45       22       0      0    282.2     12\n";
    let l = read("t.txt", text).unwrap();
    assert_eq!(l.iter().map(|x| x.windows.len()).collect::<Vec<_>>(), vec![2, 1]);
    // `--compare` prints the measured service and the model's settings first.
    let compared = format!("service p50 84.0 ms mean 85.1 ms (30 samples) on workers 4\nmodel: core engine\n{text}");
    assert_eq!(
        read("c.txt", &compared).unwrap(),
        l.clone().into_iter().map(|x| Level { file: "c.txt".into(), ..x }).collect::<Vec<_>>()
    );
    assert_eq!((l[1].refused, l[1].windows[0].refused), (151, 22));
}

#[test]
fn the_printed_note_that_the_client_fell_behind_stays_with_its_rate() {
    let table = " offered    sent     ok  refused  gaveup  error  ok_per_sec   p50_ms   p99_ms    done    lost  queued\n\
       5      30     30        0       0      0         6.0    113.5    206.1      30       0       2\n\
      40     190     98       92       0      0        19.6    283.6    422.9      98       0       4\n";
    let behind = "note: the client fell behind its schedule at 40 rps: send lag p99 59.6 ms (above 50 ms); \
                  the load offered was not the one planned\n";
    let l = read("n.txt", &format!("{table}{behind}")).unwrap();
    assert_eq!(l.iter().map(|x| x.client_lag_p99_ms).collect::<Vec<_>>(), vec![None, Some(59.6)]);
    // Other notes are not it; a lag that is not a number is named.
    let other = "note: 3 retries at 40 rps were not sent: the send cap allows 3 times the offered rate\n";
    assert!(read("o.txt", &format!("{table}{other}")).unwrap().iter().all(|x| x.client_lag_p99_ms.is_none()));
    let bad = behind.replace("59.6", "x");
    assert!(
        err("b.txt", &format!("{table}{bad}"))
            .starts_with("b.txt, line 4: expected the note's `send lag p99 MS ms`, found `note: the client fell"),
        "{}",
        err("b.txt", &format!("{table}{bad}"))
    );
}

#[test]
fn a_malformed_line_is_named_with_what_was_expected() {
    let hey = "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n\
               0.08,0,0,0,0.08,0,200,0.0\n0.08,0,0,0,0.08,0,2x0,0.1\n";
    assert_eq!(
        err("run.csv", hey),
        "run.csv, line 3: expected status-code (field 7) as a whole number, found `0.08,0,0,0,0.08,0,2x0,0.1`"
    );
    let short = "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n0.1,200\n";
    assert!(
        err("s.csv", short).starts_with("s.csv, line 2: expected 8 comma-separated fields"),
        "{}",
        err("s.csv", short)
    );
    assert_eq!(
        err("p.txt", "0 80\n5 -3\n"),
        "p.txt, line 2: expected latency_ms (field 2) as a number >= 0, found `5 -3`"
    );
    assert!(err("p.txt", "0 80\n1 2 3 4\n").starts_with("p.txt, line 2: expected `start_ms latency_ms [status]`"));
    let csv = "offered,sent,ok\n1,2,3\n";
    assert!(
        err("b.csv", csv).starts_with("b.csv, line 1: expected a header with a `refused` column"),
        "{}",
        err("b.csv", csv)
    );
    let ab = "starttime\tseconds\tctime\tdtime\tttime\twait\nThu\t17\t0\t81\n";
    assert!(err("a.tsv", ab).starts_with("a.tsv, line 2: expected 6 tab-separated fields"));
}

#[test]
fn unknown_and_too_short_files_say_what_is_accepted_and_needed() {
    let e = err("notes.md", "# Results\nit was fast\n");
    assert!(e.starts_with("notes.md, line 2: expected `start_ms latency_ms [status]`"), "{e}");
    let e = err("x.json", "{\"a\": 1}");
    assert!(e.starts_with("x.json: not a format the fit reads (first line `{\"a\": 1}`); accepted: hey -o csv"), "{e}");
    let e = err("pct.csv", "Percentage served,Time in ms\n0,1\n50,2\n100,3\n");
    assert_eq!(e, "pct.csv: 2 percentile rows, the fit needs at least 10");
    let e = err("empty.csv", "offered,sent,ok,refused,gaveup,error,ok_per_sec,p50_ms,p99_ms\n");
    assert_eq!(e, "empty.csv: 0 load levels (rows), the fit needs at least 1");
}

#[test]
fn locust_answered_quantiles_skip_the_refused_share() {
    let table = [(0.5, 10.0), (0.75, 200.0), (0.99, 260.0), (1.0, 270.0)];
    // Half refused: the answered median is the mixed table's 75th percentile.
    assert_eq!(locust::answered_quantile(&table, 0.5, 0.5), Some(200.0));
    assert_eq!(locust::answered_quantile(&table, 0.0, 0.5), Some(10.0));
    let mid = locust::answered_quantile(&table, 0.5, 0.9).unwrap();
    assert!(mid > 200.0 && mid < 260.0, "{mid}");
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    const HEADS: [&str; 8] = [
        "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n",
        "starttime\tseconds\tctime\tdtime\tttime\twait\n",
        "Percentage served,Time in ms\n",
        "Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%\n",
        "Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%,Total Request Count,Total Failure Count,Total Median Response Time,Total Average Response Time,Total Min Response Time,Total Max Response Time,Total Average Content Size\n",
        "offered,sent,ok,refused,gaveup,error,ok_per_sec,p50_ms,p99_ms,done,lost,queued,partial\n",
        " offered    sent     ok  refused  gaveup  error  ok_per_sec   p50_ms   p99_ms    done    lost  queued\n",
        "",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Any text after any known header is read or refused, and whatever
        /// is read is fitted or refused: never a panic (the page runs this in wasm).
        #[test]
        fn read_and_fit_any_text(head in 0usize..8, rows in proptest::collection::vec("([0-9]{1,4}(\\.[0-9])?[,\t ]){1,22}[0-9]{1,3}|[0-9 ,.\t\\-eNA/a-z]{0,60}", 0..60)) {
            let text = format!("{}{}", HEADS[head], rows.join("\n"));
            if let Ok(levels) = read("f", &text) {
                let _ = super::super::super::fit(levels, 1);
            }
        }
    }
}
