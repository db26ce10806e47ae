//! Slider spans for the core's parameters: sensible UI ranges inside each
//! spec's accepted range. The typed input still accepts the spec's full
//! range; validation is the core's (`Params::set` + `Scenario::new`).

use bplab_core::{ParamKey, ParamKind, ParamSpec};

use crate::control::{ControlSpec, SliderRange};

const fn r(min: f64, max: f64, step: f64) -> Option<SliderRange> {
    Some(SliderRange { min, max, step })
}

/// The slider span of `key`, or `None` for lists (typed only).
pub fn slider(key: ParamKey) -> Option<SliderRange> {
    use ParamKey::*;
    match key {
        ServiceMs => r(1.0, 50.0, 1.0),
        DeadlineMs => r(10.0, 1000.0, 10.0),
        DurationMs => r(1000.0, 20000.0, 500.0),
        ValleyRps => r(0.0, 500.0, 5.0),
        ValleyMs => r(50.0, 3000.0, 50.0),
        SpikeRps => r(0.0, 2000.0, 10.0),
        SpikeMs => r(10.0, 2000.0, 10.0),
        QueueCapacity => r(1.0, 100_000.0, 1.0),
        MaxRetries => r(0.0, 10.0, 1.0),
        RetryBackoffMs => r(0.0, 1000.0, 10.0),
        PlateauLimit => r(1.0, 200.0, 1.0),
        GateRateRps => r(10.0, 500.0, 5.0),
        WindowBurst => r(1.0, 200.0, 1.0),
        WindowMs => r(10.0, 1000.0, 10.0),
        CriticalShare => r(0.01, 0.99, 0.01),
        Offered | Limits | Bursts => None,
    }
}

/// The control spec of a core parameter.
pub fn control_spec(s: &'static ParamSpec) -> ControlSpec<'static> {
    let inputmode = match s.kind {
        ParamKind::Int => "numeric",
        ParamKind::Real => "decimal",
        _ => "text",
    };
    ControlSpec { name: s.name, label: s.label, unit: s.unit, slider: slider(s.key), help: s.help, inputmode }
}
