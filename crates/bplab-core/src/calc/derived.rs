//! Quantities derived from the parameters in several places, written once.

/// Drain rate of `workers` servers with a fixed `service_ms`, rps:
/// `workers × 1000 / service`.
pub fn capacity_rps(service_ms: f64, workers: u32) -> f64 {
    f64::from(workers) * 1000.0 / service_ms
}

/// B = `round((1000 / S) × (D / 1000))` in exactly that order (the models'
/// in-system bound, half-up as the reference rounds), at least 1.
pub fn budget_value(service_ms: u32, deadline_ms: u32) -> u32 {
    let b = (capacity_rps(f64::from(service_ms.max(1)), 1) * (f64::from(deadline_ms) / 1000.0)).round();
    if b >= 1.0 { b.min(f64::from(i32::MAX)) as u32 } else { 1 }
}

/// The deadline-safe in-system bound `floor(D / S)`: the most requests one
/// server can hold while the last one still finishes within the deadline
/// (`bound × S <= D`), at least 1.
pub fn deadline_safe_bound(service_ms: u32, deadline_ms: u32) -> u32 {
    (deadline_ms / service_ms.max(1)).max(1)
}

/// Worst time in the system of a request admitted behind `in_system - 1`
/// others on one FIFO server with a fixed service time: `in_system × S`;
/// its queue wait is at most `(in_system − 1) × S`.
pub fn worst_sojourn_ms(in_system: u32, service_ms: u32) -> u64 {
    u64::from(in_system) * u64::from(service_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(capacity_rps(10.0, 1), 100.0);
        assert_eq!(capacity_rps(12.0, 4), 1000.0 / 3.0);
        assert_eq!(budget_value(7, 200), 29);
        assert_eq!(deadline_safe_bound(7, 200), 28);
        assert_eq!(worst_sojourn_ms(29, 7), 203);
        assert_eq!(budget_value(6, 9), 1);
    }
}
