//! Second copies of the hot path, for timing twins. Not part of the API: use
//! [`Processor::run`].
//!
//! A timed table measures every method twice, the original and its twin, and the twin runs a
//! copy of its own of the measured code, at another address, so that the twins' disagreement
//! shows what code placement alone does (a twin that called the same function as its original
//! could not). The order loop and the line reader are private to this crate, so measuring code
//! outside it cannot compile those copies itself: it asks for copy `COPY` (0 or 1) here.

use std::hint::black_box;
use std::io::{self, Write};

use crate::input::{Kind, Lines, Slices};
use crate::scan::{ItemCache, Scanner};
use crate::{Processor, RunError, Summary};

/// [`Processor::run`] through copy `COPY` of the order loop.
///
/// # Errors
/// As [`Processor::run`].
pub fn run<const COPY: u8>(
    processor: &mut Processor,
    input: &[u8],
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> Result<Summary, RunError> {
    processor.run_copy::<COPY>(input, out, errors)
}

/// Reads every line of `input` with the streaming strategy's line reader and scanner `S` (the
/// scanner cut at a stage), in a loop of its own rather than the order loop, through copy `COPY`;
/// returns how many lines the scan accepted. What it found goes through `black_box`, so no part
/// of the stage is optimised away.
#[inline(never)]
pub fn scan_lines<S: Scanner, const COPY: u8>(
    input: &[u8],
    items: &mut ItemCache,
    carry: &mut Vec<u8>,
) -> u64 {
    black_box(COPY);
    let mut lines = Lines::new(Slices::new(input, usize::MAX), carry);
    let mut accepted = 0;
    let mut nothing_to_hand_on = || Ok(());
    while let Ok(Some(rec)) = lines.next::<S, io::Error>(items, &mut nothing_to_hand_on, |err| err)
    {
        if let Kind::Good { .. } = rec.kind {
            black_box(rec);
            accepted += 1;
        }
    }
    accepted
}
