//! Controls for the core's parameters: the slider span comes from the core's
//! registry (`ParamSpec::slider`). The typed input still accepts the spec's
//! full range; validation is the core's (`Params::set` + `Scenario::new`).

use bplab_core::{ParamKind, ParamSpec};

use crate::control::{ControlSpec, SliderRange};

/// The slider span of a parameter (from the core's registry), `None` for lists.
pub fn slider(s: &ParamSpec) -> Option<SliderRange> {
    s.slider.map(|x| SliderRange { min: x.min, max: x.max, step: x.step })
}

/// The control spec of a core parameter.
pub fn control_spec(s: &ParamSpec) -> ControlSpec<'static> {
    let inputmode = match s.kind {
        ParamKind::Int => "numeric",
        ParamKind::Real => "decimal",
        _ => "text",
    };
    // "off" (no limit) sits one step beyond the slider's right end.
    let beyond = (s.kind == ParamKind::IntOrOff).then_some("off");
    ControlSpec { name: s.name, label: s.label, unit: s.unit, slider: slider(s), help: s.help, inputmode, beyond }
}
