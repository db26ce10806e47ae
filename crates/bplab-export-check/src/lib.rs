//! # bplab-export-check
//!
//! Compiles the tower snippet that `bplab limit --export tower` prints for
//! the lesson's inputs (1 worker, 230 ms budget, 21 ms service time), so the
//! exported Rust is known to build against the real tower API.
//!
//! `src/generated.rs` is that output, committed. `crates/bplab/tests/export.rs`
//! fails when it differs from what the CLI prints; regenerate it with
//!
//! ```text
//! bplab limit --workers 1 --budget-ms 230 --service-ms 21 --export tower \
//!     > crates/bplab-export-check/src/generated.rs
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Byte-for-byte the CLI's output: rustfmt must not touch it.
#[rustfmt::skip]
mod generated;

pub use generated::{IN_SYSTEM_LIMIT, QUEUE_LIMIT, WORKERS, layers};
