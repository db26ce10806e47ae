//! The six doors the lab races, by name: the fixed limit, CoDel and the four
//! adaptive limiters. One list for the adaptive experiment and for tuning on
//! a user's trace, so both name and order them the same way.

use serde::Serialize;

use super::Algorithm;

/// A door in front of the workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Controller {
    /// A fixed limit on requests in the system.
    Fixed,
    /// Request-queue CoDel, asked at dequeue.
    Codel,
    /// Loss-based AIMD.
    Aimd,
    /// Delay-based Vegas.
    Vegas,
    /// Average-latency Gradient2.
    Gradient2,
    /// Minimum-latency Gradient with probes.
    Gradient,
}

impl Controller {
    /// Every controller, in the order tables list them.
    pub const ALL: [Controller; 6] = [
        Controller::Fixed,
        Controller::Codel,
        Controller::Aimd,
        Controller::Vegas,
        Controller::Gradient2,
        Controller::Gradient,
    ];

    /// The names, in [`Controller::ALL`] order.
    pub const NAMES: [&'static str; 6] = ["fixed", "codel", "aimd", "vegas", "gradient2", "gradient"];

    /// Its name (what flags, URLs and tables carry).
    pub const fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The controller with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The limiter algorithm behind it; `None` for CoDel, which decides per
    /// dequeued request instead of holding a limit.
    pub const fn algorithm(self) -> Option<Algorithm> {
        match self {
            Controller::Fixed => Some(Algorithm::Fixed),
            Controller::Aimd => Some(Algorithm::Aimd),
            Controller::Vegas => Some(Algorithm::Vegas),
            Controller::Gradient2 => Some(Algorithm::Gradient2),
            Controller::Gradient => Some(Algorithm::Gradient),
            Controller::Codel => None,
        }
    }
}

impl From<Controller> for &'static str {
    fn from(c: Controller) -> Self {
        c.name()
    }
}

impl TryFrom<String> for Controller {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Controller::from_name(&s).ok_or_else(|| format!("unknown name '{s}'"))
    }
}

impl std::fmt::Display for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_order() {
        for (i, c) in Controller::ALL.into_iter().enumerate() {
            assert_eq!(c as usize, i);
            assert_eq!(Controller::from_name(c.name()), Some(c));
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{}\"", c.name()));
            assert_eq!(serde_json::from_str::<Controller>(&format!("\"{}\"", c.name())).unwrap(), c);
        }
        assert_eq!(Controller::from_name("Fixed"), None);
        assert!(serde_json::from_str::<Controller>("\"vegas2\"").is_err());
        assert_eq!(Controller::Codel.algorithm(), None);
    }
}
