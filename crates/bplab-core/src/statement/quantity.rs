//! The vocabulary: one definition per quantity an explanation names. A
//! quantity is a rule over per-request records (which requests it counts,
//! what it divides by, its unit); its name is generated from that rule, so a
//! share can only be called "of admitted requests" when its denominator is
//! the admitted requests.

use serde::Serialize;

/// A set of requests of one run, counted from its records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Count {
    /// Every arrival (every attempt, where the model retries).
    Arrivals,
    /// Arrivals the door let in.
    Admitted,
    /// Arrivals the door turned away.
    Refused,
    /// Requests whose service finished.
    Answered,
    /// Answered within the caller's deadline.
    OnTime,
    /// Answered after the caller's deadline.
    Late,
    /// Admitted but never answered (shed from the queue, or left when the run ended).
    Dropped,
    /// Arrivals that are first tries (attempt 0), not retries.
    FirstTries,
    /// Arrivals never answered: refused at the door or dropped after admission.
    Shed,
    /// Critical arrivals with a full deadline inside the window.
    ScoredCritical,
    /// Of those, the ones served.
    CriticalServed,
    /// Background arrivals with a full deadline inside the window.
    ScoredBackground,
    /// Of those, the ones served.
    BackgroundServed,
    /// Tries the caller's adaptive throttling rejected locally (never sent,
    /// so in no other set).
    Throttled,
}

impl Count {
    /// The noun for the set ("admitted requests").
    pub fn noun(self) -> &'static str {
        match self {
            Count::Arrivals => "arrivals",
            Count::Admitted => "admitted requests",
            Count::Refused => "refused arrivals",
            Count::Answered => "answered requests",
            Count::OnTime => "requests answered within the deadline",
            Count::Late => "requests answered after the deadline",
            Count::Dropped => "admitted requests never answered",
            Count::FirstTries => "first tries",
            Count::Shed => "arrivals refused or shed",
            Count::ScoredCritical => "scored critical arrivals",
            Count::CriticalServed => "scored critical arrivals served",
            Count::ScoredBackground => "scored background arrivals",
            Count::BackgroundServed => "scored background arrivals served",
            Count::Throttled => "tries rejected locally by the caller",
        }
    }

    /// What a member of the set had happen to it ("served late").
    pub fn predicate(self) -> &'static str {
        match self {
            Count::Arrivals => "arrived",
            Count::Admitted => "admitted",
            Count::Refused => "refused",
            Count::Answered => "answered",
            Count::OnTime => "answered within the deadline",
            Count::Late => "served late",
            Count::Dropped => "dropped after admission",
            Count::FirstTries => "sent as a first try",
            Count::Shed => "shed",
            Count::CriticalServed | Count::BackgroundServed => "served",
            Count::ScoredCritical | Count::ScoredBackground => "scored",
            Count::Throttled => "rejected locally",
        }
    }
}

/// A per-request time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Time {
    /// From arrival to the end of service, as the model judges it against the deadline.
    InSystem,
    /// From arrival to the start of service.
    QueueWait,
    /// From arrival to the gate's release to the server.
    GateDelay,
    /// From the gate's release to the start of service.
    ServerWait,
}

impl Time {
    /// Its noun.
    pub fn noun(self) -> &'static str {
        match self {
            Time::InSystem => "time in the system",
            Time::QueueWait => "queue wait",
            Time::GateDelay => "delay at the gate",
            Time::ServerWait => "wait at the server",
        }
    }
}

/// How a quantity is computed from a run's records.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Rule {
    /// How many requests are in the set.
    Count(Count),
    /// The set's size per second of the run's window.
    PerSecond(Count),
    /// `100 × |num| / |den|` (0 when the denominator is empty).
    Share(Count, Count),
    /// The largest time over the set.
    Max(Time, Count),
    /// The `p`-th percentile of the time over the set (the lab's histogram:
    /// 3 significant digits).
    Percentile(Time, Count, u8),
    /// The `p`-th percentile of the time over the set with each time first
    /// rounded to whole ms (half away from zero), as the engine's timeline
    /// keeps answers: exact, with no slack.
    WholeMs(Time, Count, u8),
    /// `min(100, 100 × Σ service time of answered requests / window)`.
    Busy,
    /// `|num| / |den|` (0 when the denominator is empty).
    Ratio(Count, Count),
    /// Admitted requests released to the server in the busiest 100 ms
    /// window (by `floor(release / 100 ms)`), × 10: per second.
    PeakRate,
}

/// A unit a quantity is shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Unit {
    /// Requests (a count).
    Requests,
    /// Requests per second.
    Rps,
    /// Percent.
    Pct,
    /// Milliseconds.
    Ms,
    /// A ratio ("×").
    Times,
}

impl Unit {
    /// The text after a number ("" for a count).
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Requests => "",
            Unit::Rps => " rps",
            Unit::Pct => " %",
            Unit::Ms => " ms",
            Unit::Times => "×",
        }
    }
}

/// One quantity of the vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Quantity {
    /// A short name used instead of the generated one ("goodput"), or `None`.
    pub short: Option<&'static str>,
    /// Its rule.
    pub rule: Rule,
    /// Its unit.
    pub unit: Unit,
}

impl Quantity {
    /// The noun phrase a sentence names it by, generated from its rule
    /// (or its short name, whose definition says the rule).
    pub fn name(&self) -> String {
        if let Some(s) = self.short {
            return s.to_owned();
        }
        match self.rule {
            Rule::Count(c) => format!("number of {}", c.noun()),
            Rule::PerSecond(c) => format!("{} per second of the window", c.noun()),
            Rule::Share(num, den) => format!("share of {} {}", den.noun(), num.predicate()),
            Rule::Max(t, c) => format!("longest {} of {}", t.noun(), c.noun()),
            Rule::Percentile(t, c, p) => format!("p{p} {} of {}", t.noun(), c.noun()),
            Rule::WholeMs(t, c, p) => format!("p{p} {} of {} (whole ms)", t.noun(), c.noun()),
            Rule::Busy => "server utilisation".to_owned(),
            Rule::Ratio(num, den) => format!("ratio of {} to {}", num.noun(), den.noun()),
            Rule::PeakRate => "downstream peak".to_owned(),
        }
    }

    /// Its definition: the name, then the rule in words.
    pub fn definition(&self) -> String {
        let rule = match self.rule {
            Rule::Count(c) => format!("how many {} there are", c.noun()),
            Rule::PerSecond(c) => format!("{} divided by the run's window in seconds", c.noun()),
            Rule::Share(num, den) => format!("100 × {} / {}", num.noun(), den.noun()),
            Rule::Max(t, c) => format!("the largest {} over {}", t.noun(), c.noun()),
            Rule::Percentile(t, c, p) => {
                format!("the {p}th percentile of {} over {}, to 3 significant digits", t.noun(), c.noun())
            }
            Rule::WholeMs(t, c, p) => format!(
                "the {p}th percentile of {} over {}, each rounded to whole ms, to 3 significant digits",
                t.noun(),
                c.noun()
            ),
            Rule::Ratio(num, den) => format!("{} / {}", num.noun(), den.noun()),
            Rule::PeakRate => {
                "the admitted requests released to the server in the busiest 100 ms window, times 10".to_owned()
            }
            Rule::Busy => {
                "the server's busy time (answered requests × service time) as a share of the window, at most 100 %"
                    .to_owned()
            }
        };
        format!("{} means {rule}", self.name())
    }
}

const fn q(short: Option<&'static str>, rule: Rule, unit: Unit) -> Quantity {
    Quantity { short, rule, unit }
}

/// Arrivals (attempts, where the model retries).
pub const ARRIVALS: Quantity = q(None, Rule::Count(Count::Arrivals), Unit::Requests);
/// Refused arrivals.
pub const REFUSED: Quantity = q(None, Rule::Count(Count::Refused), Unit::Requests);
/// Requests answered after the deadline.
pub const LATE: Quantity = q(None, Rule::Count(Count::Late), Unit::Requests);
/// Offered load: arrivals per second of the window.
pub const OFFERED_RPS: Quantity = q(Some("offered load"), Rule::PerSecond(Count::Arrivals), Unit::Rps);
/// Goodput: answers within the deadline per second of the window.
pub const GOODPUT_RPS: Quantity = q(Some("goodput"), Rule::PerSecond(Count::OnTime), Unit::Rps);
/// Share of arrivals refused.
pub const REFUSED_PCT: Quantity = q(None, Rule::Share(Count::Refused, Count::Arrivals), Unit::Pct);
/// Share of arrivals served late.
pub const LATE_OF_ARRIVALS_PCT: Quantity = q(None, Rule::Share(Count::Late, Count::Arrivals), Unit::Pct);
/// Share of admitted requests served late.
pub const LATE_OF_ADMITTED_PCT: Quantity = q(None, Rule::Share(Count::Late, Count::Admitted), Unit::Pct);
/// Share of answered requests served late.
pub const LATE_OF_ANSWERED_PCT: Quantity = q(None, Rule::Share(Count::Late, Count::Answered), Unit::Pct);
/// Share of arrivals answered within the deadline.
pub const ON_TIME_PCT: Quantity = q(None, Rule::Share(Count::OnTime, Count::Arrivals), Unit::Pct);
/// Longest time in the system of an answered request.
pub const MAX_TIME_IN_SYSTEM_MS: Quantity = q(None, Rule::Max(Time::InSystem, Count::Answered), Unit::Ms);
/// Longest queue wait of an answered request.
pub const MAX_QUEUE_WAIT_MS: Quantity = q(None, Rule::Max(Time::QueueWait, Count::Answered), Unit::Ms);
/// p99 time in the system of answered requests.
pub const P99_ANSWERED_MS: Quantity = q(None, Rule::Percentile(Time::InSystem, Count::Answered, 99), Unit::Ms);
/// p99 time in the system of the answers within the deadline, each time
/// rounded to whole ms first (the engine timeline's p99).
pub const P99_ON_TIME_MS: Quantity = q(Some("p99 latency"), Rule::WholeMs(Time::InSystem, Count::OnTime, 99), Unit::Ms);
/// p99 queue wait of answered requests.
pub const P99_WAIT_MS: Quantity = q(None, Rule::Percentile(Time::QueueWait, Count::Answered, 99), Unit::Ms);
/// Attempts per first try (retry amplification).
pub const AMPLIFICATION: Quantity = q(None, Rule::Ratio(Count::Arrivals, Count::FirstTries), Unit::Times);
/// Share of arrivals shed (refused at the door, or dropped after admission).
pub const SHED_PCT: Quantity = q(None, Rule::Share(Count::Shed, Count::Arrivals), Unit::Pct);
/// Longest delay at the gate of an answered request.
pub const MAX_GATE_DELAY_MS: Quantity = q(None, Rule::Max(Time::GateDelay, Count::Answered), Unit::Ms);
/// Longest wait at the server (after the gate) of an answered request.
pub const MAX_SERVER_WAIT_MS: Quantity = q(None, Rule::Max(Time::ServerWait, Count::Answered), Unit::Ms);
/// Critical success: the share of scored critical arrivals served.
pub const CRITICAL_SUCCESS_PCT: Quantity =
    q(Some("critical success"), Rule::Share(Count::CriticalServed, Count::ScoredCritical), Unit::Pct);
/// Background success: the share of scored background arrivals served.
pub const BACKGROUND_SUCCESS_PCT: Quantity =
    q(Some("background success"), Rule::Share(Count::BackgroundServed, Count::ScoredBackground), Unit::Pct);
/// How many critical arrivals were scored.
pub const SCORED_CRITICAL: Quantity = q(None, Rule::Count(Count::ScoredCritical), Unit::Requests);
/// Arrivals refused at the door or shed from the line.
pub const SHED: Quantity = q(None, Rule::Count(Count::Shed), Unit::Requests);
/// Tries the caller's throttling rejected locally.
pub const THROTTLED: Quantity = q(None, Rule::Count(Count::Throttled), Unit::Requests);
/// The downstream peak rate.
pub const PEAK_RPS: Quantity = q(None, Rule::PeakRate, Unit::Rps);
/// Server utilisation.
pub const UTILISATION_PCT: Quantity = q(None, Rule::Busy, Unit::Pct);

/// Every quantity of the vocabulary (the docs and the tests iterate it).
pub const VOCABULARY: [Quantity; 26] = [
    SHED,
    THROTTLED,
    P99_ON_TIME_MS,
    SCORED_CRITICAL,
    CRITICAL_SUCCESS_PCT,
    BACKGROUND_SUCCESS_PCT,
    MAX_GATE_DELAY_MS,
    MAX_SERVER_WAIT_MS,
    PEAK_RPS,
    AMPLIFICATION,
    SHED_PCT,
    ARRIVALS,
    REFUSED,
    LATE,
    OFFERED_RPS,
    GOODPUT_RPS,
    REFUSED_PCT,
    LATE_OF_ARRIVALS_PCT,
    LATE_OF_ADMITTED_PCT,
    LATE_OF_ANSWERED_PCT,
    ON_TIME_PCT,
    MAX_TIME_IN_SYSTEM_MS,
    MAX_QUEUE_WAIT_MS,
    P99_ANSWERED_MS,
    P99_WAIT_MS,
    UTILISATION_PCT,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_named_by_its_denominator() {
        assert_eq!(LATE_OF_ADMITTED_PCT.name(), "share of admitted requests served late");
        assert_eq!(LATE_OF_ARRIVALS_PCT.name(), "share of arrivals served late");
        for q in VOCABULARY {
            if let Rule::Share(_, den) = q.rule {
                // A generated name says its denominator; a short name's definition does.
                let said = if q.short.is_some() { q.definition() } else { q.name() };
                assert!(said.contains(den.noun()), "{said}");
            }
        }
        let names: std::collections::BTreeSet<String> = VOCABULARY.iter().map(Quantity::name).collect();
        assert_eq!(names.len(), VOCABULARY.len(), "one name per quantity");
    }
}
