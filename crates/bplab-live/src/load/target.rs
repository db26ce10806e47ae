//! The load target: a plain `http://host[:port][/path]` URL, and the
//! loopback-only rule.

use std::fmt;
use std::net::{IpAddr, SocketAddr};

use crate::error::LiveError;

/// A parsed `http://` target. Only plain HTTP/1.1 is supported: no TLS, no
/// user info; the fragment is dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    host: String,
    port: u16,
    path: String,
}

impl Target {
    /// Parse `http://HOST[:PORT][/PATH][?QUERY]`. HOST is a name, an IPv4
    /// address or a bracketed IPv6 address; PORT is `1..=65535` (default 80).
    pub fn parse(text: &str) -> Result<Self, LiveError> {
        let bad = |reason| LiveError::BadTarget { value: text.to_string(), reason };
        let t = text.trim();
        let rest = match t.get(..7) {
            Some(s) if s.eq_ignore_ascii_case("http://") => &t[7..],
            _ if t.to_ascii_lowercase().starts_with("https://") => {
                return Err(bad("only http:// is supported, not https://"));
            }
            _ => return Err(bad("it must start with http://")),
        };
        let rest = rest.split('#').next().unwrap_or_default();
        let split = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(split);
        if authority.contains('@') {
            return Err(bad("user info is not supported"));
        }
        let (host, port_text) = if let Some(v6) = authority.strip_prefix('[') {
            let end = v6.find(']').ok_or_else(|| bad("unclosed [ in host"))?;
            let after = &v6[end + 1..];
            let port = match after.strip_prefix(':') {
                Some(p) => Some(p),
                None if after.is_empty() => None,
                None => return Err(bad("unexpected text after ]")),
            };
            (&v6[..end], port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(bad("the host is empty"));
        }
        if authority.starts_with('[') {
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(bad("the bracketed host is not an IPv6 address"));
            }
        } else if !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.') {
            return Err(bad("the host has characters a host name cannot have"));
        }
        let port = match port_text {
            None => 80,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(bad("the port is out of range")),
            },
        };
        let path = if path.is_empty() {
            "/".to_string()
        } else if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        if path.parse::<hyper::Uri>().is_err() {
            return Err(bad("the path has characters a URL path cannot have"));
        }
        Ok(Target { host: host.to_ascii_lowercase(), port, path })
    }

    /// Host as written (lower-cased, IPv6 without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Port (80 when not given).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Path and query, always starting with `/`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The value of the `Host` header.
    pub fn host_header(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// Resolve the host to one socket address, loopback only unless
    /// `allow_non_loopback`, and without any lookup that could leave the
    /// machine: an IP literal must be loopback (127.0.0.0/8, ::1, or
    /// IPv4-mapped 127.x); `localhost` and `*.localhost` (RFC 6761) are
    /// 127.0.0.1, not looked up; any other name is refused before a lookup.
    /// With `allow_non_loopback`, other names are looked up. A refusal is a
    /// usage error naming the target.
    pub async fn resolve(&self, allow_non_loopback: bool) -> Result<SocketAddr, LiveError> {
        let local = self.host == "localhost" || self.host.ends_with(".localhost");
        let addrs: Vec<SocketAddr> = match self.host.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, self.port)],
            Err(_) if local => vec![SocketAddr::new(IpAddr::from([127, 0, 0, 1]), self.port)],
            Err(_) if !allow_non_loopback => return Err(LiveError::NonLoopbackName { target: self.to_string() }),
            Err(_) => tokio::net::lookup_host((self.host.as_str(), self.port))
                .await
                .map_err(|e| LiveError::Resolve { host: self.host.clone(), reason: e.to_string() })?
                .collect(),
        };
        if let Some(addr) = addrs.iter().find(|a| !is_loopback(a.ip()))
            && !allow_non_loopback
        {
            return Err(LiveError::NonLoopback { target: self.to_string(), addr: *addr });
        }
        addrs
            .first()
            .copied()
            .ok_or_else(|| LiveError::Resolve { host: self.host.clone(), reason: "no addresses".to_string() })
    }
}

/// Loopback test that also accepts IPv4-mapped IPv6 loopback.
pub fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://{}{}", self.host_header(), self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_common_forms() {
        let t = Target::parse("http://127.0.0.1:8080/work?x=1#frag").expect("ok");
        assert_eq!((t.host(), t.port(), t.path()), ("127.0.0.1", 8080, "/work?x=1"));
        let t = Target::parse("HTTP://LocalHost").expect("ok");
        assert_eq!((t.host(), t.port(), t.path()), ("localhost", 80, "/"));
        let t = Target::parse("http://[::1]:9/").expect("ok");
        assert_eq!((t.host(), t.port()), ("::1", 9));
        assert_eq!(t.to_string(), "http://[::1]:9/");
    }

    #[test]
    fn rejects_bad_forms() {
        for bad in [
            "https://127.0.0.1/",
            "ftp://x/",
            "127.0.0.1:80",
            "http://",
            "http://:80/",
            "http://h:0/",
            "http://h:99999/",
            "http://h:abc/",
            "http://u@h/",
            "http://[::1/",
            "http://[nope]/",
            "http://a b/",
        ] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.is_usage(), "{bad}");
            assert!(e.to_string().starts_with(&format!("--target: '{bad}' is not accepted; expected http://")), "{e}");
        }
    }

    #[tokio::test]
    async fn loopback_only_by_default() {
        let t = Target::parse("http://10.1.2.3:80/").expect("ok");
        let e = t.resolve(false).await.unwrap_err();
        assert!(e.is_usage());
        assert!(
            e.to_string().starts_with("--target: 'http://10.1.2.3:80/' is not accepted; expected a loopback"),
            "{e}"
        );
        let t = Target::parse("http://127.0.0.2:80/").expect("ok");
        assert!(t.resolve(false).await.is_ok());
        // Refused before any lookup: a lookup of .invalid would fail with
        // a resolve error instead.
        let t = Target::parse("http://example.invalid:80/").expect("ok");
        let e = t.resolve(false).await.unwrap_err();
        assert!(matches!(e, LiveError::NonLoopbackName { .. }), "{e}");
        assert!(e.is_usage());
        assert!(e.to_string().contains("names other than localhost are not looked up"), "{e}");
        for name in ["localhost", "api.localhost"] {
            let t = Target::parse(&format!("http://{name}:9/")).expect("ok");
            assert_eq!(t.resolve(false).await.ok(), Some(SocketAddr::from(([127, 0, 0, 1], 9))), "{name}");
        }
        assert!(is_loopback("::ffff:127.0.0.1".parse().expect("ip")));
    }
}
