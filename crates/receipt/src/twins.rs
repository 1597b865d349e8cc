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
use crate::lane::{self, OpenId, SPAN};
use crate::scan::{self, Depth, ItemCache, Scanner};

/// The depths the streaming strategy's fast lane can be cut at, for [`lane_lines`]: find the
/// separators and the line end ([`WALK`]); and check the item ([`CHECK`]); and compute and check
/// the numbers ([`PARSE`]), everything the lane needs to write the line.
pub use crate::lane::{CHECK, PARSE, WALK};
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

/// Reads every line of `input` as the streaming strategy reads it — its fast lane (`lane`,
/// cut at `DEPTH`, with the item cache or without it) in a loop of its own rather than the order
/// loop, and the lines the lane leaves (the first, a line it does not take, the last few, within
/// its span of the end) through the line reader and the full scanner — through copy `COPY`;
/// returns how many lines were accepted. What each line gave goes through `black_box`, so no
/// part of the stage is optimised away.
#[inline(never)]
pub fn lane_lines<const DEPTH: u8, const CACHED: bool, const COPY: u8>(
    input: &[u8],
    items: &mut ItemCache,
    carry: &mut Vec<u8>,
) -> u64 {
    black_box(COPY);
    let mut lines = Lines::new(Slices::new(input, usize::MAX), carry);
    let mut open = OpenId::new(0);
    let mut accepted = 0;
    let mut nothing_to_hand_on = || Ok(());
    loop {
        if let Some((data, start)) = lines.unread() {
            let (mut at, mut taken) = (start, 0);
            while let Some(line) = data.get(at..).and_then(|rest| rest.first_chunk::<SPAN>()) {
                let Some(read) = lane::read::<DEPTH, CACHED>(line, &open, items) else {
                    break;
                };
                if let Some(next) = read.new_order {
                    open = next;
                }
                black_box(&read);
                at += read.len;
                taken += 1;
            }
            lines.took(at, taken);
            accepted += taken;
        }
        let next = lines.next::<Depth<{ scan::WIDTH }, CACHED>, io::Error>(
            items,
            &mut nothing_to_hand_on,
            |err| err,
        );
        let Ok(Some(rec)) = next else {
            return accepted;
        };
        if let Kind::Good { numbers, .. } = rec.kind {
            open = OpenId::new(numbers.order_id);
            black_box(rec);
            accepted += 1;
        }
    }
}
