//! The number, with its record: the limit calculator at the fitted workers
//! and mean service time, with the record's measurement filled from the
//! user's files, and the existing edge exports carrying it.

use super::explain::{Subject, explain_one};
use super::report::Fit;
use crate::calc::{EdgeTarget, LimitInput, LimitResult, export, limit};
use crate::error::ConfigError;

/// The limit derived from a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitRecord {
    /// What the calculator was given (the fitted workers, the fitted mean
    /// service time to 0.1 ms, the budget).
    pub input: LimitInput,
    /// Its result, with the record's measurement field describing the fit.
    pub result: LimitResult,
}

/// The service time the record uses: the fitted mean to 0.1 ms.
fn service_ms(fit: &Fit) -> f64 {
    (fit.mean_service_ms * 10.0).round().max(1.0) / 10.0
}

/// The calculator's limit for `budget_ms` at the fitted server; an error
/// names the value (a budget not above the service time, out of range).
pub fn record(fit: &Fit, budget_ms: f64) -> Result<FitRecord, ConfigError> {
    let input = LimitInput { workers: fit.workers, budget_ms, service_ms: service_ms(fit) };
    let mut result = limit(input)?;
    result.record.measurement = explain_one(Subject::Measurement(fit));
    Ok(FitRecord { input, result })
}

impl FitRecord {
    /// The edge configuration for `target`, its comments carrying this record.
    pub fn export(&self, target: EdgeTarget) -> String {
        export(target, &self.input, &self.result)
    }
}
