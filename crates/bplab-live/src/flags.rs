//! Flag specs: each numeric flag's name, label, unit and accepted range in
//! one constant that both the check and the message use, so the range in a
//! message is always the range enforced.
//!
//! A real-number flag is the core's spec type underneath ([`RealFlag::spec`]):
//! its range check and its wording are `bplab_core::ParamSpec`'s, "a number
//! above 0 to 10000 (requests per second)", lists "1 to 64 comma-separated
//! numbers, each above 0 to 10000 (...)". A whole-number flag keeps exact
//! `u64` bounds (a seed takes any `u64`, which an `f64` range cannot state)
//! in the same wording: "a whole number from 1 to 1024 (slots)". A value
//! that does not parse and a value out of range get the same message,
//! naming the value as given.

use bplab_core::{ParamKind, ParamSpec, Range};

use crate::error::LiveError;

/// A whole-number flag accepting `min..=max` (both inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WholeFlag {
    /// Flag name without `--`, e.g. `workers`.
    pub name: &'static str,
    /// What it does, for `--help`.
    pub label: &'static str,
    /// Lowest accepted value (inclusive).
    pub min: u64,
    /// Highest accepted value (inclusive).
    pub max: u64,
    /// Unit shown after the range, e.g. `ms`; empty for none.
    pub unit: &'static str,
    /// A word accepted besides the numbers (e.g. `off`), if any.
    pub or_word: Option<&'static str>,
}

/// A real-number flag accepting `min..=max`, or `(min, max]` when
/// `min_exclusive`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RealFlag {
    /// Flag name without `--`, e.g. `seconds`.
    pub name: &'static str,
    /// What it does, for `--help`.
    pub label: &'static str,
    /// Lowest accepted value (inclusive unless `min_exclusive`).
    pub min: f64,
    /// Highest accepted value (inclusive).
    pub max: f64,
    /// `min` itself is refused.
    pub min_exclusive: bool,
    /// Unit shown after the range, e.g. `s`.
    pub unit: &'static str,
}

fn with_unit(text: String, unit: &str) -> String {
    if unit.is_empty() { text } else { format!("{text} ({unit})") }
}

impl WholeFlag {
    /// What is accepted, in words, e.g. "a whole number from 1 to 1024 (slots)".
    pub fn accepted(&self) -> String {
        let text = with_unit(format!("a whole number from {} to {}", self.min, self.max), self.unit);
        match self.or_word {
            Some(word) => format!("{text}, or {word}"),
            None => text,
        }
    }

    /// The `--help` text: label and accepted range.
    pub fn help(&self) -> String {
        format!("{}; {}", self.label, self.accepted())
    }

    /// The usage error for `value` (as given).
    pub fn error(&self, value: impl ToString) -> LiveError {
        LiveError::OutOfRange { flag: self.name, value: value.to_string(), accepted: self.accepted() }
    }

    /// `value` if it is in range, else the usage error naming it.
    pub fn check(&self, value: u64) -> Result<u64, LiveError> {
        if (self.min..=self.max).contains(&value) { Ok(value) } else { Err(self.error(value)) }
    }

    /// Parse `text` (surrounding spaces allowed) and check the range; `-3`,
    /// `abc` and `1e3` are refused with the same message as an out-of-range
    /// number.
    pub fn parse(&self, text: &str) -> Result<u64, LiveError> {
        let value: u64 = text.trim().parse().map_err(|_| self.error(text))?;
        self.check(value).map_err(|_| self.error(text))
    }

    /// [`WholeFlag::parse`] into a `usize` (every `max` here fits).
    pub fn parse_usize(&self, text: &str) -> Result<usize, LiveError> {
        usize::try_from(self.parse(text)?).map_err(|_| self.error(text))
    }

    /// [`WholeFlag::check`] for a `usize` value.
    pub fn check_usize(&self, value: usize) -> Result<usize, LiveError> {
        match u64::try_from(value) {
            Ok(v) => self.check(v).map(|_| value),
            Err(_) => Err(self.error(value)),
        }
    }
}

impl RealFlag {
    /// The flag as the core's parameter spec (the one spec type).
    pub const fn spec(&self) -> ParamSpec {
        ParamSpec {
            name: self.name,
            label: self.label,
            unit: self.unit,
            kind: ParamKind::Real,
            range: Range { min: self.min, max: self.max, min_exclusive: self.min_exclusive, max_exclusive: false },
            help: self.label,
            slider: None,
        }
    }

    /// The range in words, e.g. "above 0 to 10000".
    pub fn range(&self) -> String {
        self.spec().range.words()
    }

    /// What is accepted, in words, e.g. "a number from 0.1 to 600 (s)".
    pub fn accepted(&self) -> String {
        self.spec().accepted()
    }

    /// What a comma-separated list of up to `max_len` values accepts.
    pub fn list_accepted(&self, max_len: usize) -> String {
        with_unit(format!("1 to {max_len} comma-separated numbers, each {}", self.range()), self.unit)
    }

    /// The `--help` text: label and accepted range.
    pub fn help(&self) -> String {
        format!("{}; {}", self.label, self.accepted())
    }

    /// The usage error for `value` (as given).
    pub fn error(&self, value: impl ToString) -> LiveError {
        LiveError::OutOfRange { flag: self.name, value: value.to_string(), accepted: self.accepted() }
    }

    /// True if `value` is finite and in range.
    pub fn contains(&self, value: f64) -> bool {
        self.spec().range.contains(value)
    }

    /// `value` if it is in range, else the usage error naming it.
    pub fn check(&self, value: f64) -> Result<f64, LiveError> {
        if self.contains(value) { Ok(value) } else { Err(self.error(value)) }
    }

    /// Parse `text` and check the range; `abc`, `inf` and `NaN` are refused
    /// with the same message as an out-of-range number.
    pub fn parse(&self, text: &str) -> Result<f64, LiveError> {
        match text.trim().parse::<f64>() {
            Ok(v) if self.contains(v) => Ok(v),
            _ => Err(self.error(text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: WholeFlag = WholeFlag { name: "workers", label: "slots", min: 1, max: 8, unit: "slots", or_word: None };
    const R: RealFlag = RealFlag { name: "rate", label: "rate", min: 0.0, max: 10.5, min_exclusive: true, unit: "rps" };

    #[test]
    fn messages_read_like_the_core() {
        assert_eq!(
            W.parse("0").unwrap_err().to_string(),
            "--workers: '0' is not accepted; expected a whole number from 1 to 8 (slots)"
        );
        assert_eq!(W.parse(" 3 ").ok(), Some(3));
        for bad in ["-3", "abc", "", "1e3", "9"] {
            let e = W.parse(bad).unwrap_err();
            assert!(e.is_usage());
            assert!(e.to_string().starts_with(&format!("--workers: '{bad}' is not accepted; expected ")), "{e}");
        }
        assert_eq!(R.accepted(), "a number above 0 to 10.5 (rps)");
        assert_eq!(R.list_accepted(64), "1 to 64 comma-separated numbers, each above 0 to 10.5 (rps)");
        for bad in ["0", "-1", "inf", "NaN", "10.6", "x"] {
            assert!(R.parse(bad).is_err(), "{bad}");
        }
        assert_eq!(R.parse("10.5").ok(), Some(10.5));
        let off = WholeFlag { or_word: Some("off"), ..W };
        assert_eq!(off.accepted(), "a whole number from 1 to 8 (slots), or off");
    }
}
