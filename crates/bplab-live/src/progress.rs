//! The live progress line of `bplab load` on a terminal: one line per rate,
//! redrawn in place while the rate runs (elapsed of total, sent, ok,
//! refused, current p99), replaced by the rate's table row when it finishes.
//! The line is cut to the terminal width rather than wrapped.
//!
//! Drawn with `indicatif` (without default features it adds only `console`,
//! `portable-atomic` and `unit-prefix`) on stdout, and only when stdout is a
//! terminal and `-q/--quiet` is off; otherwise only the rows are printed, as
//! each rate finishes.

use std::io::{IsTerminal as _, Write as _};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::load::{RateRow, Tick, format_rate, format_row, header_for};

/// The table and, when shown, the progress line above its next row.
#[derive(Debug)]
pub(crate) struct Progress {
    show: bool,
    compare: bool,
    header_done: bool,
    bar: Option<(usize, ProgressBar)>,
}

impl Progress {
    /// A progress display for a table with or without the model columns;
    /// the live line is drawn only if `quiet` is off and stdout is a terminal.
    pub(crate) fn new(quiet: bool, compare: bool) -> Self {
        Progress { show: !quiet && std::io::stdout().is_terminal(), compare, header_done: false, bar: None }
    }

    /// Redraw the line for `t`.
    pub(crate) fn tick(&mut self, t: &Tick) {
        if !self.show {
            return;
        }
        if self.bar.as_ref().is_none_or(|(index, _)| *index != t.index) {
            self.clear();
            let window_ms = (t.seconds * 1000.0).round() as u64;
            let bar = ProgressBar::with_draw_target(Some(window_ms), ProgressDrawTarget::stdout());
            if let Ok(style) = ProgressStyle::with_template("[{bar:10}] {wide_msg}") {
                bar.set_style(style.progress_chars("=> "));
            }
            self.bar = Some((t.index, bar));
        }
        if let Some((_, bar)) = &self.bar {
            bar.set_position((t.elapsed_s * 1000.0) as u64);
            bar.set_message(line(t));
        }
    }

    /// Print `row` (after the header, the first time), replacing the line.
    pub(crate) fn row(&mut self, row: &RateRow) {
        self.clear();
        if !std::mem::replace(&mut self.header_done, true) {
            println!("{}", header_for(row, self.compare));
        }
        println!("{}", format_row(row, self.compare));
        let _ = std::io::stdout().flush();
    }

    /// Remove the line, if drawn.
    pub(crate) fn clear(&mut self) {
        if let Some((_, bar)) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// The text of the line, e.g. `rate 2/4 48 rps  12.4/20.0 s  sent 590  ok
/// 585  refused 3  p99 61.2 ms`; while the last answers drain, the elapsed
/// part reads `draining 12 in flight`.
pub(crate) fn line(t: &Tick) -> String {
    let when = if t.elapsed_s < t.seconds {
        format!("{:.1}/{:.1} s", t.elapsed_s, t.seconds)
    } else {
        format!("draining {} in flight", t.in_flight)
    };
    let p99 = t.p99_ms.map_or_else(|| "-".to_string(), |p| format!("{p:.1} ms"));
    format!(
        "rate {}/{} {} rps  {when}  sent {}  ok {}  refused {}  p99 {p99}",
        t.index + 1,
        t.rates,
        format_rate(t.rate_rps),
        t.sent,
        t.ok,
        t.refused
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_reads_elapsed_counts_and_p99() {
        let mut t = Tick {
            index: 1,
            rates: 4,
            rate_rps: 48.0,
            elapsed_s: 12.43,
            seconds: 20.0,
            sent: 590,
            planned: 960,
            ok: 585,
            refused: 3,
            in_flight: 2,
            p99_ms: Some(61.25),
        };
        assert_eq!(line(&t), "rate 2/4 48 rps  12.4/20.0 s  sent 590  ok 585  refused 3  p99 61.2 ms");
        (t.elapsed_s, t.p99_ms) = (20.3, None);
        assert_eq!(line(&t), "rate 2/4 48 rps  draining 2 in flight  sent 590  ok 585  refused 3  p99 -");
    }

    #[test]
    fn quiet_or_not_a_terminal_draws_nothing() {
        let mut p = Progress::new(true, false);
        assert!(!p.show);
        p.tick(&Tick {
            index: 0,
            rates: 1,
            rate_rps: 1.0,
            elapsed_s: 0.0,
            seconds: 1.0,
            sent: 0,
            planned: 1,
            ok: 0,
            refused: 0,
            in_flight: 0,
            p99_ms: None,
        });
        assert!(p.bar.is_none());
    }
}
