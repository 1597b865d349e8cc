//! Helpers shared by the test files: running every strategy over the same input, whole and cut
//! into chunks, and checking they agree; the contract written a second time ([`reference`]);
//! the bad-input cases ([`cases`]); the command run as a child process ([`child`]).
//!
//! `cases` and `child` are also the chapter's: `crates/receipt-chapter` compiles the same two
//! files, so its tables run the inputs and the harness these tests run.

#![allow(dead_code)] // each test file uses its own subset

use std::io::Read;

use receipt::{Processor, STRATEGIES, Strategy, Summary};

pub mod cases;
pub mod child;
pub mod reference;

/// Chunk sizes every agreement check runs with: tiny ones cut every line somewhere, and
/// `usize::MAX` hands the whole input over at once. (Under Miri, lines are still cut by the
/// reader run of [`assert_all_agree`].)
pub const CHUNKS: &[usize] = if cfg!(miri) {
    &[usize::MAX]
} else {
    &[1, 2, 3, 7, 64, 4099, usize::MAX]
};

/// What a run produced: receipts, error report, accounts.
pub type Outcome = (String, String, Summary);

/// Runs `processor` over in-memory `input`.
pub fn run_with(mut processor: Processor, input: &[u8]) -> Outcome {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let summary = processor.run(input, &mut out, &mut err).unwrap();
    (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
        summary,
    )
}

/// Runs `strategy` over the whole of `input` at once.
pub fn run(strategy: Strategy, input: &[u8]) -> Outcome {
    run_with(Processor::new(strategy).with_chunk_size(usize::MAX), input)
}

/// A reader that returns at most `step` bytes per `read`, as a pipe may.
pub struct Trickle<'a> {
    pub bytes: &'a [u8],
    pub step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Runs `strategy` reading `input` through a reader that trickles `step` bytes at a time into
/// chunks of `chunk` bytes.
pub fn run_reading(strategy: Strategy, input: &[u8], chunk: usize, step: usize) -> Outcome {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut reader = Trickle { bytes: input, step };
    let summary = Processor::new(strategy)
        .with_chunk_size(chunk)
        .run_reader(&mut reader, &mut out, &mut err)
        .unwrap();
    (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
        summary,
    )
}

/// Checks that every strategy, at every chunk size, in memory and through a reader, produces
/// exactly what the contract's second implementation ([`reference::run`]) produces; returns that.
pub fn assert_all_agree(input: &[u8]) -> Outcome {
    let reference = reference::run(input);
    for strategy in STRATEGIES {
        for &chunk in CHUNKS {
            let processor = Processor::new(strategy).with_chunk_size(chunk);
            assert_eq!(
                run_with(processor, input),
                reference,
                "{strategy}, chunks of {chunk} bytes"
            );
        }
        assert_eq!(
            run_reading(strategy, input, 5, 3),
            reference,
            "{strategy}, read 3 bytes at a time"
        );
    }
    reference
}
