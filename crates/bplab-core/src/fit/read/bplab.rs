//! `bplab load`: its `--csv` table and its printed output (the table and,
//! with `--timeline`, each rate's windows).

use super::super::error::FitError;
use super::super::level::{Level, TimelineWindow, Tool};
use super::{Line, body, column};

/// The columns both forms need, in the load tool's names.
const NEEDED: [&str; 9] = ["offered", "sent", "ok", "refused", "gaveup", "error", "ok_per_sec", "p50_ms", "p99_ms"];

fn row(line: &Line<'_>, at: &[usize], queued: Option<usize>, tool: Tool, index: usize) -> Result<Level, FitError> {
    let mut level = Level::new(line.file, index, tool);
    let offered = line.num(at[0], "offered")?;
    level.offered_rps = Some(offered);
    level.sent = line.int(at[1], "sent")?;
    level.ok = line.int(at[2], "ok")?;
    level.refused = line.int(at[3], "refused")?;
    level.other = line.int(at[4], "gaveup")? + line.int(at[5], "error")?;
    let ok_per_sec = line.num(at[6], "ok_per_sec")?;
    level.p50_ms = line.opt(at[7], "p50_ms")?;
    level.p99_ms = line.opt(at[8], "p99_ms")?;
    level.peak_queue = match queued {
        Some(i) => line.opt(i, "queued")?.map(|q| q as u64),
        None => None,
    };
    level.duration_ms = if level.ok > 0 && ok_per_sec > 0.0 {
        level.ok as f64 / ok_per_sec * 1000.0
    } else if offered > 0.0 {
        level.sent as f64 / offered * 1000.0
    } else {
        return Err(line.bad("an offered rate above 0"));
    };
    Ok(level)
}

/// `bplab load --csv FILE`: one level per row.
pub(crate) fn csv(file: &str, text: &str) -> Result<Vec<Level>, FitError> {
    let head: Vec<&str> = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").split(',').collect();
    let at: Vec<usize> = NEEDED.iter().map(|n| column(file, &head, n)).collect::<Result<_, _>>()?;
    let queued = head.iter().position(|h| h.trim() == "queued");
    let mut out = Vec::new();
    for (n, l) in body(text) {
        let line = Line::new(file, n, l, l.split(',').collect());
        if line.fields.len() != head.len() {
            return Err(line.bad(format!("{} comma-separated fields, as the header", head.len())));
        }
        out.push(row(&line, &at, queued, Tool::BplabCsv, out.len() + 1)?);
    }
    Ok(out)
}

/// What the printed output's line is.
enum Block {
    Table,
    Timeline,
}

/// The start of `bplab load`'s note under a rate whose client fell behind
/// its schedule; the note goes on `… send lag p99 {ms} ms …`.
const BEHIND_NOTE: &str = "note: the client fell behind its schedule at ";

/// The send lag p99 of a [`BEHIND_NOTE`] line, ms.
fn lag_p99_ms(line: &Line<'_>) -> Result<f64, FitError> {
    line.text
        .split_once("send lag p99 ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| line.bad("the note's `send lag p99 MS ms`"))
}

/// `bplab load` printed output: the rows of its table, each followed by
/// its timeline when `--timeline` was given, and the note that the client
/// fell behind its schedule at a rate (kept on that rate). Other lines
/// (other notes, the model's columns' headings) are skipped.
pub(crate) fn printed(file: &str, text: &str) -> Result<Vec<Level>, FitError> {
    let mut out: Vec<Level> = Vec::new();
    let mut block = Block::Table;
    let mut head: Vec<&str> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let fields: Vec<&str> = l.split_whitespace().collect();
        let line = Line::new(file, i + 1, l, fields.clone());
        match fields.first().copied() {
            Some("offered") => {
                head = fields;
                block = Block::Table;
            }
            Some("timeline") => block = Block::Timeline,
            Some("start_ms") => {}
            Some("note:") if l.trim_start().starts_with(BEHIND_NOTE) => match out.last_mut() {
                Some(level) => level.client_lag_p99_ms = Some(lag_p99_ms(&line)?),
                None => return Err(line.bad("a table row before its note")),
            },
            Some(f) if f.parse::<f64>().is_ok() => match block {
                // A table row after a timeline has the table's width.
                _ if fields.len() >= head.len() && !head.is_empty() => {
                    let at: Vec<usize> = NEEDED.iter().map(|n| column(file, &head, n)).collect::<Result<_, _>>()?;
                    let queued = head.iter().position(|h| *h == "queued");
                    out.push(row(&line, &at, queued, Tool::BplabTimeline, out.len() + 1)?);
                }
                Block::Table => return Err(line.bad(format!("{} columns, as the table's header", head.len()))),
                Block::Timeline => {
                    if fields.len() < 5 {
                        return Err(line.bad("a timeline window: start_ms sent ok refused gaveup …"));
                    }
                    let w = TimelineWindow {
                        start_ms: line.num(0, "start_ms")?,
                        sent: line.int(1, "sent")?,
                        ok: line.int(2, "ok")?,
                        refused: line.int(3, "refused")?,
                    };
                    match out.last_mut() {
                        Some(level) => level.windows.push(w),
                        None => return Err(line.bad("a table row before the first timeline")),
                    }
                }
            },
            _ => {}
        }
    }
    Ok(out)
}
