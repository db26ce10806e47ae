//! Name-based access to any experiment's parameters: what the CLI, the URL
//! state, the JS API and the fuzz harness use. The typed structs live in each
//! experiment's folder; this is written once for all of them.

use super::{EXPERIMENTS, Experiment, Params};
use crate::error::ConfigError;
use crate::params::{ParamKind, ParamSpec};

fn is_preset(s: &ParamSpec) -> bool {
    matches!(s.kind, ParamKind::Preset(_))
}

impl Params {
    /// The experiment's registry entry.
    pub fn experiment(&self) -> &'static Experiment {
        Experiment::get(self.id())
    }

    /// The spec of parameter `name`, if the experiment has one.
    pub fn spec(&self, name: &str) -> Option<&'static ParamSpec> {
        self.specs().iter().find(|s| s.name == name)
    }

    /// B = round(capacity × deadline) of the experiment's `service-ms` and
    /// `deadline-ms`, for experiments that take both (what `B` stands for).
    pub fn budget(&self) -> Option<u32> {
        let num = |n: &str| self.get(n)?.parse::<u32>().ok();
        Some(crate::calc::budget_value(num("service-ms")?, num("deadline-ms")?))
    }

    /// Sets parameter `name` from text (the CLI's and the URL's format),
    /// checking its range. Setting a preset sets the parameters it names.
    /// A name another experiment takes is [`ConfigError::NotUsed`]; any
    /// other unknown name is [`ConfigError::Unknown`] with this experiment's
    /// names.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        if let Some(r) = self.set_named(name, text) {
            return r;
        }
        let experiment = self.experiment().name;
        match EXPERIMENTS.iter().flat_map(|e| e.params).find(|s| s.name == name) {
            Some(s) => Err(ConfigError::NotUsed { param: s.name, experiment }),
            None => Err(ConfigError::Unknown {
                what: "parameter",
                name: name.to_owned(),
                accepted: self.specs().iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// Sets every `(name, text)` pair as if typed one by one, except that an
    /// explicitly given value always beats a preset's, whatever the order:
    /// first the plain values, then the presets (which may derive values
    /// from them, e.g. 1.1 × the capacity of the given service time), then
    /// the plain values again.
    pub fn apply<N: AsRef<str>, T: AsRef<str>>(&mut self, pairs: &[(N, T)]) -> Result<(), ConfigError> {
        let preset = |n: &N| self.spec(n.as_ref()).is_some_and(is_preset);
        let (presets, plain): (Vec<_>, Vec<_>) = pairs.iter().partition(|(n, _)| preset(n));
        for (n, t) in plain.iter().chain(&presets) {
            self.set(n.as_ref(), t.as_ref())?;
        }
        if !presets.is_empty() {
            for (n, t) in &plain {
                self.set(n.as_ref(), t.as_ref())?;
            }
        }
        Ok(())
    }

    /// The fewest `(name, text)` pairs that [`Params::apply`] turns the
    /// defaults into these parameters with (the URL query, the command a
    /// widget shows): every value that differs from the defaults, less those
    /// a chosen preset already sets, plus a default value given beside a
    /// preset that would otherwise set another.
    pub fn changed(&self) -> Vec<(&'static str, String)> {
        let defaults = Params::defaults(self.id());
        let mut pairs: Vec<(&'static str, String)> =
            self.specs().iter().filter_map(|s| Some((s.name, self.get(s.name)?))).collect();
        // Drop what reproduces without it: values at their default first, then the rest.
        let at_default = |(n, v): &(&str, String)| defaults.get(n).as_deref() == Some(v.as_str());
        let order: Vec<&'static str> = pairs
            .iter()
            .filter(|p| at_default(p))
            .chain(pairs.iter().filter(|p| !at_default(p)))
            .map(|(n, _)| *n)
            .collect();
        for name in order {
            let rest: Vec<(&str, String)> = pairs.iter().filter(|(n, _)| *n != name).cloned().collect();
            let mut again = defaults.clone();
            if again.apply(&rest).is_ok() && again == *self {
                pairs = rest;
            }
        }
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adaptive::{Controller, Preset};
    use crate::{AdaptiveParams, ExperimentId};

    fn adaptive(pairs: &[(&str, &str)]) -> AdaptiveParams {
        let mut p = Params::defaults(ExperimentId::Adaptive);
        p.apply(pairs).unwrap();
        match p {
            Params::Adaptive(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unknown_controller_is_refused_with_the_accepted_names() {
        let mut p = Params::defaults(ExperimentId::Adaptive);
        let e = p.set("controllers", "fixed,gradient3").unwrap_err().to_string();
        assert!(
            e.starts_with("controllers: 'fixed,gradient3' is not accepted; expected 1 to 6 of fixed, codel"),
            "{e}"
        );
        assert_eq!(p, Params::defaults(ExperimentId::Adaptive), "nothing half-set");
        assert!(p.set("preset", "deploy-3x").unwrap_err().to_string().contains("one of none, deploy-2x"));
    }

    #[test]
    fn names_of_other_experiments_and_unknown_names_are_told_apart() {
        let mut p = Params::defaults(ExperimentId::Lesson);
        assert_eq!(
            p.set("max-retries", "3").unwrap_err(),
            ConfigError::NotUsed { param: "max-retries", experiment: "lesson" }
        );
        let e = p.set("bogus", "1").unwrap_err().to_string();
        assert!(e.contains("unknown parameter 'bogus'") && e.contains("rate, seconds, seed"), "{e}");
    }

    #[test]
    fn a_preset_sets_its_values_and_explicit_ones_win() {
        let storm = adaptive(&[("preset", "retry-storm")]);
        assert_eq!((storm.retries, storm.retry_backoff_ms, storm.slowdown_factor), (3, 100, 2.0));
        // 1.1 × the capacity of the service time given beside it (10 ms, 2 workers: 200 rps).
        let steady = adaptive(&[("preset", "steady-overload"), ("service", "exp:10"), ("workers", "2")]);
        assert_eq!(steady.rate_schedule, vec![(1.1 * 200.0, 0)]);
        assert_eq!(steady.slowdown_factor, 1.0);
        let typed = adaptive(&[("slowdown-factor", "3.5"), ("preset", "steady-overload")]);
        assert_eq!(typed.slowdown_factor, 3.5, "a typed factor is not overridden");
        let stuck = adaptive(&[("preset", "stuck-downstream")]);
        assert_eq!(stuck.deploy, crate::adaptive::Deploy::Stuck);
        assert_eq!(stuck.controllers, <Controller as crate::Named>::ALL.to_vec());
    }

    #[test]
    fn deploy_2x_restores_the_lessons_deploy_after_another_preset() {
        let mut p = Params::defaults(ExperimentId::Adaptive);
        p.set("preset", "steady-overload").unwrap();
        p.set("retries", "2").unwrap();
        p.set("preset", "deploy-2x").unwrap();
        assert_eq!(p, Params::defaults(ExperimentId::Adaptive));
        let Params::Adaptive(a) = &p else { unreachable!() };
        assert_eq!(a.preset, Preset::Deploy2x);
        // `none` sets nothing: the values stay as they are.
        p.set("slowdown-factor", "4").unwrap();
        p.set("preset", "none").unwrap();
        assert_eq!(p.get("slowdown-factor").as_deref(), Some("4"));
    }

    #[test]
    fn changed_leaves_out_what_the_preset_sets() {
        let mut p = Params::defaults(ExperimentId::Adaptive);
        p.set("preset", "steady-overload").unwrap();
        assert_eq!(p.changed(), vec![("preset", "steady-overload".to_owned())]);
        p.set("workers", "2").unwrap();
        // The rate was derived from one worker; a link must keep it.
        let pairs = p.changed();
        assert!(pairs.iter().any(|(n, _)| *n == "rate-schedule"), "{pairs:?}");
        let mut again = Params::defaults(ExperimentId::Adaptive);
        again.apply(&pairs).unwrap();
        assert_eq!(again, p);
    }

    #[test]
    fn a_default_given_beside_a_preset_stays_in_the_link() {
        // Found by the property test: deploy=slower (the default) beside stuck-downstream.
        let mut p = Params::defaults(ExperimentId::Adaptive);
        p.apply(&[("deploy", "slower"), ("preset", "stuck-downstream")]).unwrap();
        let pairs = p.changed();
        assert_eq!(pairs, vec![("deploy", "slower".to_owned()), ("preset", "stuck-downstream".to_owned())]);
    }

    #[test]
    fn every_main_and_window_param_names_one_of_the_experiments_params() {
        for e in EXPERIMENTS {
            assert!(e.param(e.main_param).is_some(), "{}: {}", e.name, e.main_param);
            assert!(e.param(e.window_param).is_some(), "{}: {}", e.name, e.window_param);
            let mut names: Vec<&str> = e.params.iter().map(|s| s.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), e.params.len(), "{}: a name twice", e.name);
        }
    }
}
