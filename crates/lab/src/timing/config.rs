//! How long to measure and in which order.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::Settings;

/// No timed method of a full report gets fewer measured rounds than this.
pub const MIN_ROUNDS: usize = 100;

/// How long to measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The duration one batch of one method aims for (the batch size is calibrated to it; an
    /// operation slower than this runs once per batch).
    pub batch_target: Duration,
    /// Rounds discarded before measuring.
    pub warmup_rounds: usize,
    /// Measured rounds: every method and twin runs one batch per round.
    pub rounds: usize,
    /// After an interleaved run, count each copy's instructions under callgrind (final process
    /// of a report only: the counts are deterministic).
    pub count_instructions: bool,
}

impl Config {
    /// The report's default.
    pub fn full() -> Self {
        Config {
            batch_target: Duration::from_micros(200),
            warmup_rounds: 10,
            rounds: 151,
            count_instructions: true,
        }
    }

    /// `--quick`: a fraction of a second per table, for smoke runs (never the docs' figures).
    pub fn quick() -> Self {
        Config {
            batch_target: Duration::from_micros(100),
            warmup_rounds: 5,
            rounds: 41,
            count_instructions: false,
        }
    }

    /// For doctests and unit tests: as short as can still exercise every code path.
    pub fn smoke() -> Self {
        Config {
            batch_target: Duration::from_micros(20),
            warmup_rounds: 1,
            rounds: 5,
            count_instructions: false,
        }
    }

    /// The configuration for the report's settings.
    pub fn for_settings(settings: &Settings) -> Self {
        if settings.quick {
            Self::quick()
        } else {
            Self::full()
        }
    }

    /// The same configuration without instruction counts (for tables that would need a
    /// callgrind child per size and copy; say so in the table's notes).
    pub fn without_instructions(mut self) -> Self {
        self.count_instructions = false;
        self
    }
}

/// In which order the batches run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Schedule {
    /// Round-robin: one batch of each method and twin per round, the start rotating. The default.
    Interleaved,
    /// Every round of one method, then every round of the next (the way criterion runs
    /// benchmarks). Only for showing why the interleaved schedule exists.
    Sequential,
}
