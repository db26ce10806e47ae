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
    /// a chosen preset already sets.
    pub fn changed(&self) -> Vec<(&'static str, String)> {
        let defaults = Params::defaults(self.id());
        let mut pairs: Vec<(&'static str, String)> = self
            .specs()
            .iter()
            .filter_map(|s| {
                let v = self.get(s.name)?;
                (defaults.get(s.name).as_deref() != Some(v.as_str())).then_some((s.name, v))
            })
            .collect();
        let mut i = 0;
        while i < pairs.len() {
            let dropped: Vec<(&str, String)> =
                pairs.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, p)| p.clone()).collect();
            let mut again = defaults.clone();
            if again.apply(&dropped).is_ok() && again == *self {
                pairs.remove(i);
            } else {
                i += 1;
            }
        }
        pairs
    }
}
