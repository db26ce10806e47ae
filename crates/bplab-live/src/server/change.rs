//! `POST /config`: a live change of `spin_ms`, `wait_ms` and `workers`,
//! as a JSON object holding any subset of them, e.g. `{"spin_ms": 4,
//! "wait_ms": 36}`. Each value is checked against the same flag spec as its
//! `serve` flag, and a refusal reads in the house style, naming the field:
//! `spin_ms: '20000' is not accepted; expected a whole number from 0 to
//! 10000 (ms)`. Anything else (not JSON, not an object, an unknown field) is
//! refused too, and so is a field given twice (JSON leaves that open; the
//! last one silently winning would hide a typo); nothing changes unless the
//! whole body is accepted.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::flags::WholeFlag;
use crate::server::config::{SPIN_MS, WAIT_MS, WORKERS};

/// The fields `POST /config` accepts.
pub const CONFIG_FIELDS: &str = "spin_ms, wait_ms, workers";

/// A live change (each field range-checked).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ConfigChange {
    pub(crate) spin_ms: Option<u64>,
    pub(crate) wait_ms: Option<u64>,
    pub(crate) workers: Option<usize>,
}

fn field(name: &str, spec: &WholeFlag, v: &Value) -> Result<u64, String> {
    v.as_u64()
        .filter(|&n| spec.check(n).is_ok())
        .ok_or_else(|| format!("{name}: '{v}' is not accepted; expected {}", spec.accepted()))
}

/// A JSON object's members in order, duplicates kept.
struct Members(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut out = Vec::new();
                while let Some(member) = map.next_entry::<String, Value>()? {
                    out.push(member);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Each)
    }
}

/// Parse and check a `POST /config` body; the error is the 400's message.
pub(crate) fn parse_change(body: &[u8]) -> Result<ConfigChange, String> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| format!("body: not JSON ({e}); expected an object with any of {CONFIG_FIELDS}"))?;
    if !v.is_object() {
        return Err(format!("body: '{v}' is not accepted; expected an object with any of {CONFIG_FIELDS}"));
    }
    let Members(members) = serde_json::from_slice(body).map_err(|e| format!("body: not JSON ({e})"))?;
    for (i, (name, _)) in members.iter().enumerate() {
        if members[..i].iter().any(|(seen, _)| seen == name) {
            return Err(format!("field '{name}' is given twice; expected each of {CONFIG_FIELDS} at most once"));
        }
    }
    let mut ch = ConfigChange::default();
    for (name, v) in &members {
        match name.as_str() {
            "spin_ms" => ch.spin_ms = Some(field(name, &SPIN_MS, v)?),
            "wait_ms" => ch.wait_ms = Some(field(name, &WAIT_MS, v)?),
            "workers" => ch.workers = Some(usize::try_from(field(name, &WORKERS, v)?).unwrap_or(1)),
            other => return Err(format!("field '{other}' is not accepted; expected any of {CONFIG_FIELDS}")),
        }
    }
    Ok(ch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_and_refusals() {
        assert_eq!(parse_change(b"{}"), Ok(ConfigChange::default()));
        assert_eq!(
            parse_change(br#"{"spin_ms": 4, "workers": 2}"#),
            Ok(ConfigChange { spin_ms: Some(4), wait_ms: None, workers: Some(2) })
        );
        assert_eq!(
            parse_change(br#"{"spin_ms": 20000}"#).unwrap_err(),
            "spin_ms: '20000' is not accepted; expected a whole number from 0 to 10000 (ms)"
        );
        assert_eq!(
            parse_change(br#"{"workers": 0}"#).unwrap_err(),
            "workers: '0' is not accepted; expected a whole number from 1 to 1024 (slots)"
        );
        for bad in [r#"{"wait_ms": -1}"#, r#"{"wait_ms": 2.5}"#, r#"{"wait_ms": "18"}"#] {
            assert!(parse_change(bad.as_bytes()).unwrap_err().starts_with("wait_ms: '"), "{bad}");
        }
        assert_eq!(
            parse_change(br#"{"spin_ms": 1, "limit": 3}"#).unwrap_err(),
            "field 'limit' is not accepted; expected any of spin_ms, wait_ms, workers"
        );
        assert!(parse_change(b"{spin_ms: 1").unwrap_err().starts_with("body: not JSON"));
        assert!(parse_change(b"[1]").unwrap_err().starts_with("body: '[1]' is not accepted"));
        assert!(parse_change(b"").is_err());
        assert_eq!(
            parse_change(br#"{"wait_ms": 18, "wait_ms": 36}"#).unwrap_err(),
            "field 'wait_ms' is given twice; expected each of spin_ms, wait_ms, workers at most once"
        );
    }
}
