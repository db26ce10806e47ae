//! How independent model runs of a sweep are executed. The core never
//! spawns threads: the page runs [`Sequential`]; the native CLI passes an
//! [`Exec`] that spreads the jobs over its cores. Results come back in input
//! order, so the bytes never depend on the executor.

use std::sync::Mutex;

/// One independent unit of work.
pub type Job<'a> = Box<dyn FnOnce() + Send + 'a>;

/// Runs a batch of independent jobs, each exactly once, in any order or in
/// parallel, and returns when all have finished.
pub trait Exec: Sync {
    /// Runs every job in `jobs`.
    fn run_all<'a>(&self, jobs: Vec<Job<'a>>);
}

/// Runs jobs one after another on the calling thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl Exec for Sequential {
    fn run_all<'a>(&self, jobs: Vec<Job<'a>>) {
        for job in jobs {
            job();
        }
    }
}

/// `items.iter().map(f)` through `exec`, results in input order.
pub fn par_map<T: Sync, R: Send>(exec: &dyn Exec, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let f = &f;
    let jobs: Vec<Job<'_>> = items
        .iter()
        .zip(&slots)
        .map(|(item, slot)| {
            Box::new(move || {
                let r = f(item);
                if let Ok(mut s) = slot.lock() {
                    *s = Some(r);
                }
            }) as Job<'_>
        })
        .collect();
    exec.run_all(jobs);
    // Every job ran (the trait's contract), so every slot is filled.
    slots.into_iter().filter_map(|s| s.into_inner().ok().flatten()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs jobs in reverse order: results must still come back in input order.
    struct Reversed;
    impl Exec for Reversed {
        fn run_all<'a>(&self, mut jobs: Vec<Job<'a>>) {
            while let Some(j) = jobs.pop() {
                j();
            }
        }
    }

    #[test]
    fn order_is_the_input_order_whatever_the_executor() {
        let items: Vec<u32> = (0..50).collect();
        let a = par_map(&Sequential, &items, |x| x * 3);
        let b = par_map(&Reversed, &items, |x| x * 3);
        assert_eq!(a, b);
        assert_eq!(a[7], 21);
    }
}
