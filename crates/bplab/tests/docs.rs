//! The documents stay true to the code:
//!
//! * `docs/architecture.md` names only paths that exist, and names every
//!   crate under `crates/`; links between `README.md` and `docs/` resolve;
//! * every `$ bplab …` example in `README.md`'s ```` ```console ```` blocks
//!   prints what the README shows (rules at [`readme_examples_print_what_the_readme_shows`]);
//! * no code comment under `crates/` carries a measured figure (the rule is
//!   [`measured_figure`]): figures go stale in comments and belong in
//!   `docs/performance.md`, with their command and date.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---------------------------------------------------------------------------
// docs/architecture.md

/// The lines of a Markdown text outside fenced blocks, each with its line
/// number (1-based).
fn unfenced(md: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    md.lines().enumerate().filter_map(move |(i, line)| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then_some((i + 1, line))
    })
}

/// The inline code spans of a Markdown text outside fenced blocks, each with
/// its line number (1-based).
fn code_spans(md: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    for (i, line) in unfenced(md) {
        let parts: Vec<&str> = line.split('`').collect();
        // Odd parts are inside backticks; a last odd part has no closing one.
        for (k, inside) in parts.iter().enumerate() {
            if k % 2 == 1 && k + 1 < parts.len() {
                spans.push((i, inside.to_string()));
            }
        }
    }
    spans
}

/// Top-level folders of the repository that a code span may name as a path.
const PATH_ROOTS: [&str; 6] = ["crates/", "docs/", "scripts/", "web/", "golden/", "tests/"];

/// Spans that read as repository paths: starting with one of [`PATH_ROOTS`],
/// no whitespace.
fn named_paths(md: &str) -> Vec<(usize, String)> {
    code_spans(md)
        .into_iter()
        .filter(|(_, s)| PATH_ROOTS.iter().any(|r| s.starts_with(r)) && !s.contains(char::is_whitespace))
        .collect()
}

/// Named paths that do not exist under `root` (a name ending in `/` must be a
/// folder), as `line N: path` messages.
fn missing_paths(md: &str, root: &Path) -> Vec<String> {
    named_paths(md)
        .into_iter()
        .filter(|(_, p)| {
            let at = root.join(p);
            if p.ends_with('/') { !at.is_dir() } else { !at.exists() }
        })
        .map(|(n, p)| format!("line {n}: `{p}`"))
        .collect()
}

/// The crates of the workspace: folders of `crates/` with a `Cargo.toml`.
fn crates() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Crates of `names` that no path span of `md` names (`crates/<name>/…`).
fn unnamed_crates(md: &str, names: &[String]) -> Vec<String> {
    let paths = named_paths(md);
    names.iter().filter(|c| !paths.iter().any(|(_, p)| p.starts_with(&format!("crates/{c}/")))).cloned().collect()
}

#[test]
fn architecture_names_only_paths_that_exist() {
    let missing = missing_paths(&read("docs/architecture.md"), &root());
    assert!(missing.is_empty(), "docs/architecture.md names paths that do not exist: {missing:#?}");
}

#[test]
fn architecture_names_every_crate() {
    let unnamed = unnamed_crates(&read("docs/architecture.md"), &crates());
    assert!(unnamed.is_empty(), "docs/architecture.md does not name these crates (as `crates/<name>/`): {unnamed:?}");
}

#[test]
fn the_architecture_checks_catch_what_they_are_for() {
    let md = "See `crates/bplab-core/src/stochastic/` and `crates/bplab-core/src/nowhere.rs`,\n\
              `crates/bplab-core/src/lib.rs/` (not a folder), `a phrase with crates/x`.\n\
              ```\n`crates/in-a-fence/`\n```\n";
    assert_eq!(
        missing_paths(md, &root()),
        ["line 1: `crates/bplab-core/src/nowhere.rs`", "line 2: `crates/bplab-core/src/lib.rs/`"]
    );
    let names = ["bplab-core".to_string(), "bplab-live".to_string()];
    assert_eq!(unnamed_crates(md, &names), ["bplab-live"]);
}

// ---------------------------------------------------------------------------
// Links between the documents

/// Documents a link may name before they are written (none now).
const PENDING: [&str; 0] = [];

/// GitHub's anchor for a heading: lower case, letters, digits, `-` and `_`
/// kept, spaces to `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Relative links `[text](target)` of a Markdown file, outside fences, with
/// their line numbers.
fn links(md: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in unfenced(md) {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            if let Some(end) = rest.find(')') {
                let target = &rest[..end];
                if !target.contains("://") && !target.starts_with("mailto:") {
                    out.push((i, target.to_string()));
                }
            }
        }
    }
    out
}

/// Dangling links of the Markdown file `rel` (relative to the repository):
/// a file that does not exist, or an anchor no heading of its file makes.
fn dangling(rel: &str, md: &str, root: &Path) -> Vec<String> {
    let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
    let mut bad = Vec::new();
    for (n, target) in links(md) {
        let (file, anchor) = target.split_once('#').map_or((target.as_str(), None), |(f, a)| (f, Some(a)));
        let path = if file.is_empty() { PathBuf::from(rel) } else { dir.join(file) };
        let shown = path.to_string_lossy().replace('\\', "/");
        let Ok(text) = std::fs::read(root.join(&path)) else {
            if !PENDING.contains(&shown.as_str()) {
                bad.push(format!("{rel}:{n}: ({target}): no such file"));
            }
            continue;
        };
        if let Some(a) = anchor {
            let text = String::from_utf8_lossy(&text);
            let found = text.lines().filter_map(|l| l.strip_prefix('#')).any(|h| slug(h.trim_start_matches('#')) == a);
            if !found {
                bad.push(format!("{rel}:{n}: ({target}): no heading makes #{a}"));
            }
        }
    }
    bad
}

#[test]
fn links_between_the_documents_resolve() {
    let mut files = vec!["README.md".to_string()];
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            files.push(format!("docs/{name}"));
        }
    }
    files.sort();
    let bad: Vec<String> = files.iter().flat_map(|f| dangling(f, &read(f), &root())).collect();
    assert!(bad.is_empty(), "dangling links:\n{}", bad.join("\n"));
}

#[test]
fn the_link_check_catches_what_it_is_for() {
    assert_eq!(slug(" The test suite (2026-12-02)"), "the-test-suite-2026-12-02");
    assert_eq!(slug(" `bplab run adaptive` at its defaults"), "bplab-run-adaptive-at-its-defaults");
    let md = "[a](architecture.md) [b](nowhere.md) [c](performance.md#reproduce) [d](performance.md#nothing)\n\
              [e](https://example.com/x.md) [f](fit.md)\n```\n[g](in-a-fence.md)\n```\n";
    assert_eq!(
        dangling("docs/x.md", md, &root()),
        ["docs/x.md:1: (nowhere.md): no such file", "docs/x.md:1: (performance.md#nothing): no heading makes #nothing"]
    );
}

// ---------------------------------------------------------------------------
// README.md examples

/// One `$ bplab …` line of a console block and the output shown under it.
#[derive(Debug)]
struct Example {
    line: usize,
    args: Vec<String>,
    background: bool,
    shown: Vec<String>,
}

/// Splits a command line into words: whitespace separates, single or double
/// quotes group. Pipes and redirections are refused: an example is one
/// `bplab` process.
fn words(cmd: &str, line: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut any = false;
    for c in cmd.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, '|' | '<' | '>' | ';') => {
                panic!("README line {line}: `{cmd}`: console examples run one `bplab` process (no `{c}`)")
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The console blocks of a README: per block, its examples in order. Fenced
/// blocks of any other kind hold no examples.
fn console_blocks(md: &str) -> Vec<Vec<Example>> {
    let mut blocks = Vec::new();
    // `None` outside a fence, `Some(None)` in another kind of block,
    // `Some(Some(examples))` in a console block.
    let mut fence: Option<Option<Vec<Example>>> = None;
    for (i, line) in md.lines().enumerate() {
        let n = i + 1;
        let t = line.trim_end();
        if let Some(info) = t.trim_start().strip_prefix("```") {
            match fence.take() {
                Some(Some(b)) => blocks.push(b),
                Some(None) => {}
                None => fence = Some((info == "console").then(Vec::new)),
            }
            continue;
        }
        let Some(Some(b)) = fence.as_mut() else { continue };
        if let Some(cmd) = t.strip_prefix("$ ") {
            let mut w = words(cmd, n);
            let background = w.last().is_some_and(|l| l == "&");
            if background {
                w.pop();
            }
            assert_eq!(
                w.first().map(String::as_str),
                Some("bplab"),
                "README line {n}: console blocks run only `bplab …` (use ```sh for other commands)"
            );
            b.push(Example { line: n, args: w[1..].to_vec(), background, shown: Vec::new() });
        } else {
            let e = b.last_mut().unwrap_or_else(|| panic!("README line {n}: output before any `$ bplab` line"));
            e.shown.push(t.to_string());
        }
    }
    assert!(fence.is_none(), "README: a fenced block is not closed");
    blocks
}

/// The subcommands whose output is a measurement of a live server.
const MEASURING: [&str; 2] = ["load", "measure"];

/// Every run of digits (and the decimal points between them) as `#`.
fn mask_numbers(s: &str) -> String {
    let mut out = String::new();
    let mut in_num = false;
    let mut prev = ' ';
    for c in s.chars() {
        let starts = c.is_ascii_digit() && !prev.is_alphanumeric();
        prev = c;
        if starts || (in_num && (c.is_ascii_digit() || c == '.')) {
            if !in_num {
                out.push('#');
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(c);
        }
    }
    out
}

/// What `e` must print, and how it compares: every shown line up to a line
/// `…` (the rest left out), or for a measuring command its first line with
/// the numbers masked.
fn expect(e: &Example, actual: &str) -> Result<(), String> {
    let actual: Vec<&str> = actual.lines().map(str::trim_end).collect();
    let shown: Vec<&str> = e.shown.iter().map(String::as_str).take_while(|l| *l != "…").collect();
    if shown.is_empty() {
        return Err(format!("README line {}: `bplab {}` shows no output", e.line, e.args.join(" ")));
    }
    let measuring = e.args.first().is_some_and(|s| MEASURING.contains(&s.as_str()));
    let (want, got): (Vec<String>, Vec<String>) = if measuring {
        (vec![mask_numbers(shown[0])], actual.iter().take(1).map(|l| mask_numbers(l)).collect())
    } else {
        (
            shown.iter().map(|s| s.to_string()).collect(),
            actual.iter().take(shown.len()).map(|s| s.to_string()).collect(),
        )
    };
    if want == got {
        Ok(())
    } else {
        Err(format!(
            "README line {}: `bplab {}` printed\n{}\nbut the README shows\n{}",
            e.line,
            e.args.join(" "),
            actual.join("\n"),
            want.join("\n")
        ))
    }
}

/// Background servers of one block, stopped when the block ends (or fails).
struct Servers(Vec<Child>);

impl Drop for Servers {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Runs every console example of `README.md` with the built binary, in a
/// fresh folder per block (so `--output-dir out` writes there).
///
/// Rules: a console block holds `$ bplab …` lines, each followed by its
/// output as the README shows it. Each command runs; every shown line must
/// equal the output's line at the same place (trailing spaces aside), until
/// a line that is just `…`, which leaves the rest out. A command that exits
/// non-zero is compared on its standard error. For `bplab load` and
/// `bplab measure`, which measure a live server, only the first line is
/// compared, with every number masked. A line ending in `&` starts a server
/// in the background: its first line of output is compared once it is
/// printed (the server prints it when it listens), and the server is stopped
/// at the end of the block.
#[test]
fn readme_examples_print_what_the_readme_shows() {
    let blocks = console_blocks(&read("README.md"));
    let n: usize = blocks.iter().map(Vec::len).sum();
    assert!(n >= 5, "README.md has only {n} console examples");
    let mut failures = Vec::new();
    for block in &blocks {
        let dir = tempfile::tempdir().unwrap();
        let mut servers = Servers(Vec::new());
        for e in block {
            // An example may read the repository's committed fixtures
            // (`bplab fit tests/fixtures/fit/…`): give it a copy at the
            // same relative path, so it reads as it would from a checkout.
            for a in e.args.iter().filter(|a| a.starts_with("tests/fixtures/")) {
                let to = dir.path().join(a);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(root().join(a), &to).unwrap_or_else(|err| panic!("README names {a}: {err}"));
            }
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_bplab"));
            cmd.args(&e.args).current_dir(dir.path()).stdin(Stdio::null());
            if e.background {
                let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
                let mut first = String::new();
                BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
                servers.0.push(child);
                if let Err(m) = expect(e, &first) {
                    failures.push(m);
                }
                continue;
            }
            let o = cmd.output().unwrap();
            let text = if o.status.success() { o.stdout } else { o.stderr };
            if let Err(m) = expect(e, &String::from_utf8_lossy(&text)) {
                failures.push(m);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_readme_example_rules_catch_what_they_are_for() {
    let md = "```console\n$ bplab littles --arrivals-rps 48 --latency-ms 230\narrivals   λ = 48 /s\n…\n\
              $ bplab serve --addr '127.0.0.1:1' &\nlistening\n```\n```sh\n$ not run\n```\n";
    let blocks = console_blocks(md);
    assert_eq!(blocks.len(), 1);
    let [a, b] = &blocks[0][..] else { panic!("{blocks:?}") };
    assert_eq!(a.args, ["littles", "--arrivals-rps", "48", "--latency-ms", "230"]);
    assert!(!a.background && b.background);
    assert_eq!(b.args, ["serve", "--addr", "127.0.0.1:1"]);
    assert!(expect(a, "arrivals   λ = 48 /s\nlatency    W = 230 ms\n").is_ok());
    assert!(expect(a, "arrivals   λ = 49 /s\n").is_err());
    let load = Example { line: 1, args: vec!["load".into()], background: false, shown: vec!["p50 21.3 ms".into()] };
    assert!(expect(&load, "p50 22.04 ms\nanything").is_ok());
    assert!(expect(&load, "p99 22.04 ms").is_err());
    assert!(std::panic::catch_unwind(|| words("bplab limiter aimd < samples.txt", 1)).is_err());
}

// ---------------------------------------------------------------------------
// Measured figures in code comments

/// Units a figure may carry: time, size, share.
const UNITS: [&str; 12] = ["ns", "µs", "us", "ms", "s", "KiB", "MiB", "KB", "MB", "GB", "B", "%"];

/// Words that mark a figure as a measurement of this code's speed or
/// weight, rather than a model value, a setting or an example.
const MARKERS: [&str; 10] = [
    "gzip",
    "of wasm",
    "measured",
    "natively",
    "callgrind",
    "criterion",
    "cpu throttling",
    "unthrottled",
    " perf",
    "% of a",
];

/// Whether one comment's text carries a *measured figure*: a number
/// (digits, with `.` or `,` inside, or a range such as `17–29`) followed by
/// one of [`UNITS`] (an optional space between, no letter after), on a
/// comment line that also shows a sign of measurement: one of [`MARKERS`],
/// or a CPU throttling rate (`at 4×`, `at 1x`, `4× CPU`). So a page's
/// weight in KB gzip, a time at a throttling rate or a share of a profiled
/// run is found; a debounce in ms, a head buffer in KB, a model's service
/// time or a 3× slowdown is left (both lists in the test below).
fn measured_figure(comment: &str) -> bool {
    let lower = comment.to_lowercase();
    let throttled = throttle_rate(&lower);
    let marked = throttled || MARKERS.iter().any(|m| lower.contains(m));
    marked && has_figure(comment)
}

/// `at N×` / `at Nx` / `N× CPU` in a lower-cased comment.
fn throttle_rate(lower: &str) -> bool {
    let b = lower.as_bytes();
    let chars: Vec<(usize, char)> = lower.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if !c.is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_digit()) {
            continue;
        }
        let mut j = k;
        while j < chars.len() && (chars[j].1.is_ascii_digit() || chars[j].1 == '.') {
            j += 1;
        }
        let times = chars.get(j).is_some_and(|&(_, c)| c == '×' || c == 'x');
        let after = chars.get(j + 1).map_or(' ', |&(_, c)| c);
        if !times || after.is_alphanumeric() {
            continue;
        }
        let rest = &lower[chars.get(j + 1).map_or(lower.len(), |&(p, _)| p)..];
        if lower[..i].ends_with("at ") || rest.trim_start().starts_with("cpu") {
            return true;
        }
    }
    false
}

fn has_figure(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let starts = chars[k].is_ascii_digit() && (k == 0 || !chars[k - 1].is_alphanumeric());
        if !starts {
            k += 1;
            continue;
        }
        let mut j = k;
        while j < chars.len()
            && (chars[j].is_ascii_digit()
                || (matches!(chars[j], '.' | ',' | '–' | '-') && chars.get(j + 1).is_some_and(char::is_ascii_digit)))
        {
            j += 1;
        }
        let mut u = j;
        if chars.get(u) == Some(&' ') {
            u += 1;
        }
        let rest: String = chars[u..].iter().collect();
        for unit in UNITS {
            if let Some(after) = rest.strip_prefix(unit)
                && !after.chars().next().is_some_and(char::is_alphanumeric)
            {
                return true;
            }
        }
        k = j.max(k + 1);
    }
    false
}

/// The comment text of one source line: after a leading `//`, or after a
/// trailing `//` outside a string literal.
fn comment_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if let Some(c) = t.strip_prefix("//") {
        return Some(c);
    }
    let mut quotes = 0;
    let b = line.as_bytes();
    for i in 0..b.len().saturating_sub(1) {
        match b[i] {
            b'"' if i == 0 || b[i - 1] != b'\\' => quotes += 1,
            b'/' if b[i + 1] == b'/' && quotes % 2 == 0 && (i == 0 || b[i - 1] == b' ') => return Some(&line[i + 2..]),
            _ => {}
        }
    }
    None
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Generated text whose comments are a program's output, not prose about
/// this code: the tower export as the CLI prints it.
const GENERATED: [&str; 1] = ["crates/bplab-export-check/src/generated.rs"];

#[test]
fn no_measured_figures_in_code_comments() {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    files.sort();
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
        if GENERATED.contains(&rel.as_str()) {
            continue;
        }
        for (i, line) in std::fs::read_to_string(f).unwrap().lines().enumerate() {
            if comment_of(line).is_some_and(measured_figure) {
                found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "measured figures in comments (move them to docs/performance.md with their command and date, \
         and point there):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_measured_figure_rule_finds_figures_and_leaves_settings() {
    for c in [
        " (about 45 KB gzip of wasm); these few generic types",
        "     /// text never crosses into the wasm and back (17–29 ms at 4× CPU).",
        " opt-level \"z\" (12 % of a metastable run's time, natively at z).",
        " takes about 9 ms at 4× CPU throttling, half",
        " fourth copy of it (about 7 KB of wasm).",
        " Drawing costs main-thread time (plotters, measured at 2–12 ms a chart",
        " last about 130 ms of compute after the first at 1×, four times that on",
    ] {
        assert!(measured_figure(c), "{c}");
    }
    for c in [
        " Schedules a URL update: debounced by 150 ms, then written when the main",
        " (A request line that does not fit the 16 KB head buffer gets 431.)",
        " The adaptive defaults: 40 rps on one 21 ms worker for 30 s, a 2× deploy at 10 s.",
        " limit 10 waiting + 1 in service = 11 x 42 ms after the 2x deploy.",
        " the measured service time, 3 attempts",
        " first tries at 75 % of one 21 ms worker's capacity (35.7 rps),",
        " throttle window of 2 s (`THROTTLE_WINDOW_MS`), a backoff cap of 2 s",
    ] {
        assert!(!measured_figure(c), "{c}");
    }
    assert_eq!(comment_of("    let x = 1; // 5 ms at 4×"), Some(" 5 ms at 4×"));
    assert_eq!(comment_of("    let url = \"http://x\";"), None);
}

// ---------------------------------------------------------------------------
// Boundaries

/// The live crate shares the core's engine, controllers and parameters, and
/// no experiment's module (`docs/architecture.md`, "bplab-live").
#[test]
fn live_imports_nothing_from_an_experiment() {
    let mut files = Vec::new();
    rust_files(&root().join("crates/bplab-live/src"), &mut files);
    files.sort();
    let mut found = Vec::new();
    for f in &files {
        for (i, line) in std::fs::read_to_string(f).unwrap().lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            let named = bplab_core::EXPERIMENTS.iter().any(|e| {
                line.contains(&format!("bplab_core::{}", e.name))
                    || line
                        .match_indices(&format!("{}::", e.name))
                        .any(|(at, _)| !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
            }) || line.contains("experiments::");
            if named {
                found.push(format!("{}:{}: {}", f.strip_prefix(root()).unwrap().display(), i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "bplab-live uses an experiment's module:\n{}", found.join("\n"));
}
