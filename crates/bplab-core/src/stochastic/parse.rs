//! The text form of a [`ServiceTime`]: parsing and a `Display` that
//! round-trips (`"lognormal:p50=20,p99=60".parse()` then `to_string()`
//! gives the same text, and parsing that gives the same bits).

use std::fmt;
use std::str::FromStr;

use super::error::StochasticError;
use super::service::ServiceTime;

/// The accepted forms of a service time, as error messages print them.
pub const GRAMMAR: &str = "fixed:<ms> | exp:<mean_ms> | lognormal:p50=<ms>,p99=<ms> | mix:<ms>,<pct>%x<factor> \
                           (e.g. fixed:21, exp:21, lognormal:p50=20,p99=60, mix:20,5%x10)";

/// A service-time text that cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseServiceError {
    /// The text does not have one of the forms in [`GRAMMAR`].
    /// Fix: write it as one of them.
    Syntax {
        /// The text as given.
        value: String,
    },
    /// The form is right but a number is out of range.
    /// Fix: the range in `problem`.
    Range {
        /// The text as given.
        value: String,
        /// Which number and what it must be.
        problem: StochasticError,
    },
}

impl fmt::Display for ParseServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax { value } => write!(f, "service time `{value}` is not one of: {GRAMMAR}"),
            Self::Range { value, problem } => write!(f, "service time `{value}`: {problem}"),
        }
    }
}

impl std::error::Error for ParseServiceError {}

impl ParseServiceError {
    /// What is accepted, and what is wrong with this text: for a range
    /// error, the number at fault in words ("p99 20 ms is below p50 60 ms",
    /// "a slow share of 150 % is over 100 %"), then the forms.
    pub fn accepted(&self) -> String {
        match self {
            Self::Syntax { .. } => GRAMMAR.to_owned(),
            Self::Range { value, problem } => format!("{}; the forms are {GRAMMAR}", wrong(value, problem)),
        }
    }
}

fn wrong(text: &str, problem: &StochasticError) -> String {
    let StochasticError::OutOfRange { param, value, accepted } = problem else {
        return problem.to_string();
    };
    match (unchecked(text), *param) {
        (Ok(ServiceTime::LogNormal { p50_ms, .. }), "p99") if *value < p50_ms => {
            format!("p99 at least p50 (here p99 {value} ms is below p50 {p50_ms} ms)")
        }
        (Ok(ServiceTime::LogNormal { p50_ms, .. }), "p99") => {
            format!("p99 at most 1000 × p50 (here p99 {value} ms is {}× p50 {p50_ms} ms)", value / p50_ms)
        }
        (_, "slow-pct") if *value > 100.0 => format!("a slow share from 0 to 100 % (here {value} % is over 100 %)"),
        (_, "slow-pct") => format!("a slow share from 0 to 100 % (here {value} % is below 0)"),
        (_, "factor") => format!("a slow factor from 1 to 1e6 (here {value})"),
        _ => format!("{param} {accepted} (here {value})"),
    }
}

/// The four forms read without the range checks.
fn unchecked(text: &str) -> Result<ServiceTime, ParseServiceError> {
    let syntax = || ParseServiceError::Syntax { value: text.to_string() };
    let num = |s: &str| s.trim().parse::<f64>().map_err(|_| syntax());
    let (kind, args) = text.trim().split_once(':').ok_or_else(syntax)?;
    Ok(match kind.trim() {
        "fixed" => ServiceTime::Fixed { ms: num(args)? },
        "exp" => ServiceTime::Exp { mean_ms: num(args)? },
        "lognormal" => {
            let (a, b) = args.split_once(',').ok_or_else(syntax)?;
            let p50 = a.trim().strip_prefix("p50=").ok_or_else(syntax)?;
            let p99 = b.trim().strip_prefix("p99=").ok_or_else(syntax)?;
            ServiceTime::LogNormal { p50_ms: num(p50)?, p99_ms: num(p99)? }
        }
        "mix" => {
            let (base, rest) = args.split_once(',').ok_or_else(syntax)?;
            let (pct, factor) = rest.split_once("%x").ok_or_else(syntax)?;
            ServiceTime::Mix { base_ms: num(base)?, slow_pct: num(pct)?, factor: num(factor)? }
        }
        _ => return Err(syntax()),
    })
}

impl fmt::Display for ServiceTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `{}` of an f64 prints the shortest text that parses back to the
        // same bits, never in exponent form.
        match self {
            Self::Fixed { ms } => write!(f, "fixed:{ms}"),
            Self::Exp { mean_ms } => write!(f, "exp:{mean_ms}"),
            Self::LogNormal { p50_ms, p99_ms } => write!(f, "lognormal:p50={p50_ms},p99={p99_ms}"),
            Self::Mix { base_ms, slow_pct, factor } => write!(f, "mix:{base_ms},{slow_pct}%x{factor}"),
        }
    }
}

impl FromStr for ServiceTime {
    type Err = ParseServiceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let dist = unchecked(text)?;
        dist.validate().map_err(|problem| ParseServiceError::Range { value: text.to_string(), problem })?;
        Ok(dist)
    }
}

impl ServiceTime {
    /// Parses the text form (same as `str::parse`).
    pub fn parse(text: &str) -> Result<Self, ParseServiceError> {
        text.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_four_forms_and_round_trips() {
        let cases = [
            ("fixed:21", ServiceTime::Fixed { ms: 21.0 }),
            ("exp:21", ServiceTime::Exp { mean_ms: 21.0 }),
            ("lognormal:p50=20,p99=60", ServiceTime::LogNormal { p50_ms: 20.0, p99_ms: 60.0 }),
            ("mix:20,5%x10", ServiceTime::Mix { base_ms: 20.0, slow_pct: 5.0, factor: 10.0 }),
            ("mix:0.1,0.5%x2.5", ServiceTime::Mix { base_ms: 0.1, slow_pct: 0.5, factor: 2.5 }),
        ];
        for (text, want) in cases {
            let got: ServiceTime = text.parse().unwrap();
            assert_eq!(got, want);
            assert_eq!(got.to_string(), text);
        }
        let odd = ServiceTime::Exp { mean_ms: 0.1 + 0.2 };
        assert_eq!(odd.to_string().parse::<ServiceTime>().unwrap(), odd);
        assert_eq!(" fixed: 21 ".parse::<ServiceTime>().unwrap(), ServiceTime::Fixed { ms: 21.0 });
    }

    #[test]
    fn errors_name_the_value_and_the_grammar() {
        for bad in ["", "fixed", "fixed:", "fixed:abc", "poisson:3", "lognormal:20,60", "mix:20,5x10", "é:1"] {
            let e = bad.parse::<ServiceTime>().unwrap_err();
            assert_eq!(e, ParseServiceError::Syntax { value: bad.to_string() });
            let msg = e.to_string();
            assert!(msg.contains(&format!("`{bad}`")) && msg.contains(GRAMMAR), "{msg}");
        }
        for bad in ["fixed:0", "fixed:inf", "exp:NaN", "lognormal:p50=60,p99=20", "mix:20,150%x10"] {
            let e = bad.parse::<ServiceTime>().unwrap_err();
            assert!(matches!(e, ParseServiceError::Range { .. }), "{bad}: {e:?}");
            assert!(e.to_string().contains(bad));
        }
        let says = |t: &str| t.parse::<ServiceTime>().unwrap_err().accepted();
        assert!(says("lognormal:p50=60,p99=20").starts_with("p99 at least p50 (here p99 20 ms is below p50 60 ms)"));
        assert!(says("mix:20,200%x10").starts_with("a slow share from 0 to 100 % (here 200 % is over 100 %)"));
    }
}
