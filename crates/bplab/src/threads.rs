//! Runs a sweep's independent model runs on every core (the page stays
//! single-threaded). Results are collected in input order by the core, so
//! the bytes are the same as a sequential run.

use std::sync::Mutex;

use bplab_core::{Exec, Job};

/// Spreads jobs over `threads` scoped threads pulling from one queue.
#[derive(Clone, Copy, Debug)]
pub struct Threads {
    threads: usize,
}

impl Threads {
    /// One thread per available core, or `BPLAB_THREADS` threads when that
    /// is set to a whole number from 1 (1 = the old sequential run, for
    /// timing comparisons).
    pub fn all_cores() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = std::env::var("BPLAB_THREADS").ok().and_then(|v| v.parse::<usize>().ok()).filter(|&n| n >= 1);
        Self { threads: threads.unwrap_or(cores) }
    }
}

impl Exec for Threads {
    fn run_all<'a>(&self, jobs: Vec<Job<'a>>) {
        if self.threads <= 1 || jobs.len() <= 1 {
            jobs.into_iter().for_each(|j| j());
            return;
        }
        let n = self.threads.min(jobs.len());
        let queue = Mutex::new(jobs.into_iter());
        std::thread::scope(|scope| {
            for _ in 0..n {
                scope.spawn(|| {
                    loop {
                        let job = match queue.lock() {
                            Ok(mut q) => q.next(),
                            Err(_) => None,
                        };
                        match job {
                            Some(j) => j(),
                            None => break,
                        }
                    }
                });
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bplab_core::{EXPERIMENTS, Scenario};

    #[test]
    fn threaded_runs_give_the_same_bytes() {
        let exec = Threads { threads: 4 };
        for e in EXPERIMENTS {
            let sc = Scenario::defaults(e.id);
            let a: Vec<String> = sc.run().tables().iter().map(|t| t.csv()).collect();
            let b: Vec<String> = sc.run_with(&exec).tables().iter().map(|t| t.csv()).collect();
            assert_eq!(a, b, "{}", e.name);
        }
    }
}
