//! The open-file limit and the connection cap, checked as `serve` starts.
//!
//! The server holds at most [`fd_bound`]`(max_connections)` descriptors
//! (`2 × max_connections + 65`, see [`super::listen`]). Below that limit
//! accepts fail with "Too many open files" before the cap is reached, so
//! the cap never sheds idle connections: the slowloris defence is off. So
//! at start the soft limit is raised to the bound when the hard limit
//! allows; otherwise the soft limit is raised to the hard limit and the cap
//! lowered to the largest one whose bound fits ([`largest_cap`]). Either
//! way `serve` says which on stderr.

use crate::server::fd_bound;

/// Descriptors beside the two pools of connections: the listener and a
/// margin for the runtime and stdio (the `+ 65` of [`fd_bound`]).
const BESIDE_POOLS: u64 = 65;

/// What to do about the open-file limit for a cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FdFit {
    /// The soft limit already covers the cap's bound.
    Enough,
    /// Raise the soft limit from `from` to `to` (the bound); the cap stays.
    Raise {
        /// The soft limit found.
        from: u64,
        /// The soft limit set: the cap's bound.
        to: u64,
    },
    /// The hard limit is below the bound: the soft limit goes to `hard`
    /// (when above it) and the cap down to `cap`.
    Lower {
        /// The soft limit found.
        soft: u64,
        /// The hard limit, which the soft limit is raised to.
        hard: u64,
        /// The cap asked for.
        from: usize,
        /// The largest cap whose bound fits in `hard` (at least 1).
        cap: usize,
    },
}

/// The largest cap whose [`fd_bound`] fits in `limit` descriptors, at
/// least 1: `(limit − 65) / 2`.
pub fn largest_cap(limit: u64) -> usize {
    usize::try_from(limit.saturating_sub(BESIDE_POOLS) / 2).unwrap_or(usize::MAX).max(1)
}

/// What to do for `cap` with the soft and hard open-file limits.
pub fn fit(cap: usize, soft: u64, hard: u64) -> FdFit {
    let need = fd_bound(cap);
    if soft >= need {
        FdFit::Enough
    } else if hard >= need {
        FdFit::Raise { from: soft, to: need }
    } else {
        FdFit::Lower { soft, hard: hard.max(soft), from: cap, cap: largest_cap(hard.max(soft)).min(cap) }
    }
}

impl FdFit {
    /// The cap to serve with (`asked` unless lowered).
    pub fn cap(&self, asked: usize) -> usize {
        match *self {
            FdFit::Lower { cap, .. } => cap,
            _ => asked,
        }
    }

    /// One line for stderr saying what was done (`None` when nothing was).
    pub fn message(&self) -> Option<String> {
        match *self {
            FdFit::Enough => None,
            FdFit::Raise { from, to } => Some(format!(
                "the soft open-file limit was {from}: raised it to {to}, the descriptors --max-connections may use \
                 (2 × connections + {BESIDE_POOLS})"
            )),
            FdFit::Lower { soft, hard, from, cap } => {
                let raised = if hard > soft {
                    format!("raised the soft limit from {soft} to {hard} and ")
                } else {
                    String::new()
                };
                Some(format!(
                    "warning: the open-file limit is {hard} (hard), below the {} descriptors --max-connections {from} \
                     may use: {raised}lowered the connection cap to {cap} (2 × {cap} + {BESIDE_POOLS} = {} \
                     descriptors), so idle connections are still shed at the cap; raise the hard limit (ulimit -Hn) \
                     to keep {from}",
                    fd_bound(from),
                    fd_bound(cap)
                ))
            }
        }
    }
}

/// The process's soft and hard open-file limits (`None` where they cannot
/// be read).
pub fn open_file_limits() -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        rlimit::getrlimit(rlimit::Resource::NOFILE).ok()
    }
    #[cfg(not(unix))]
    None
}

/// Fit `cap` to this process's open-file limit: raise the soft limit as
/// [`fit`] decides and return the cap to serve with and the line to print.
/// When the soft limit cannot be raised, the cap is lowered to fit it.
pub fn fit_to_open_files(cap: usize) -> (usize, Option<String>) {
    let Some((soft, hard)) = open_file_limits() else { return (cap, None) };
    let plan = fit(cap, soft, hard);
    let target = match plan {
        FdFit::Enough => return (cap, None),
        FdFit::Raise { to, .. } => to,
        FdFit::Lower { hard, .. } => hard,
    };
    if target > soft && !set_soft(target, hard) {
        let fallback = fit(cap, soft, soft);
        return (fallback.cap(cap), fallback.message());
    }
    (plan.cap(cap), plan.message())
}

#[cfg(unix)]
fn set_soft(soft: u64, hard: u64) -> bool {
    rlimit::setrlimit(rlimit::Resource::NOFILE, soft, hard).is_ok()
}

#[cfg(not(unix))]
fn set_soft(_soft: u64, _hard: u64) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_fits_the_limit_it_is_given() {
        // The audit's ulimit -n 300 (soft and hard) with the default cap.
        let f = fit(1024, 300, 300);
        assert_eq!(f, FdFit::Lower { soft: 300, hard: 300, from: 1024, cap: 117 });
        assert!(fd_bound(117) <= 300 && fd_bound(118) > 300);
        assert_eq!(
            f.message().as_deref(),
            Some(
                "warning: the open-file limit is 300 (hard), below the 2113 descriptors --max-connections 1024 may \
                 use: lowered the connection cap to 117 (2 × 117 + 65 = 299 descriptors), so idle connections are \
                 still shed at the cap; raise the hard limit (ulimit -Hn) to keep 1024"
            )
        );
        assert_eq!(fit(1024, 1024, 4096), FdFit::Raise { from: 1024, to: 2113 });
        assert_eq!(fit(1024, 1024, 4096).cap(1024), 1024);
        assert_eq!(fit(1024, 2113, 2113), FdFit::Enough);
        assert_eq!(fit(1024, 1024, 1500).cap(1024), 717);
        assert!(fit(1024, 1024, 1500).message().is_some_and(|m| m.contains("raised the soft limit from 1024 to 1500")));
        // A cap already below the limit is never raised; a tiny limit keeps one connection.
        assert_eq!(fit(4, 300, 300), FdFit::Enough);
        assert_eq!(largest_cap(10), 1);
    }
}
