//! Reading lines from chunks: the input is never held whole.
//!
//! A source hands out the input one chunk at a time (a slice of a slice, or one `read` into a
//! reused buffer). The line reader cuts lines out of the current chunk in place; only a line
//! cut by the end of a chunk is copied, into the carry buffer, and only its first
//! [`CARRY_CAP`] bytes: a line longer than that is too long to accept anyway, so the rest of it
//! is only counted. Memory held: one chunk and at most `CARRY_CAP` bytes, whatever the input's
//! size.

use std::io::{self, Read};

use memchr::memchr;

use crate::line::{self, MAX_LINE, Numbers};
use crate::scan::{ItemCache, Scanner};

/// The UTF-8 byte-order mark, accepted (and skipped) at the start of the input.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The most bytes of one line kept when it is cut by the end of a chunk: a longest acceptable
/// line, with room for a byte-order mark and a `\r`. A line longer than this cannot be
/// accepted, whatever its ending.
pub const CARRY_CAP: usize = MAX_LINE + BOM.len() + 1;

/// Where the input comes from, one chunk at a time.
pub(crate) trait Source {
    /// Whether getting the next chunk may wait for a writer (a pipe, a terminal): then what is
    /// complete is handed on first, so that a reader sees it without waiting for more input.
    const MAY_BLOCK: bool;
    /// The current chunk.
    fn data(&self) -> &[u8];
    /// Replaces the current chunk by the next one; `false` when the input is exhausted.
    fn fill(&mut self) -> io::Result<bool>;
}

/// An in-memory input, handed out in pieces of at most `piece` bytes (no copy).
#[derive(Debug)]
pub(crate) struct Slices<'a> {
    rest: &'a [u8],
    current: &'a [u8],
    piece: usize,
}

impl<'a> Slices<'a> {
    pub(crate) fn new(input: &'a [u8], piece: usize) -> Self {
        Self {
            rest: input,
            current: &[],
            piece: piece.max(1),
        }
    }
}

impl Source for Slices<'_> {
    const MAY_BLOCK: bool = false;

    #[inline]
    fn data(&self) -> &[u8] {
        self.current
    }

    fn fill(&mut self) -> io::Result<bool> {
        let (current, rest) = self.rest.split_at(self.piece.min(self.rest.len()));
        self.current = current;
        self.rest = rest;
        Ok(!current.is_empty())
    }
}

/// A reader, read one `read` call at a time into a reused buffer.
pub(crate) struct Reads<'b, R: ?Sized> {
    reader: &'b mut R,
    buf: &'b mut Vec<u8>,
    len: usize,
}

impl<'b, R: Read + ?Sized> Reads<'b, R> {
    /// Reads through `buf`, resized to `chunk` bytes, at least 1 and at most
    /// [`MAX_READ`](crate::MAX_READ) (allocated once, then reused).
    pub(crate) fn new(reader: &'b mut R, buf: &'b mut Vec<u8>, chunk: usize) -> Self {
        buf.resize(chunk.clamp(1, crate::MAX_READ), 0);
        Self {
            reader,
            buf,
            len: 0,
        }
    }
}

impl<R: Read + ?Sized> Source for Reads<'_, R> {
    const MAY_BLOCK: bool = true;

    #[inline]
    fn data(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn fill(&mut self) -> io::Result<bool> {
        loop {
            match self.reader.read(self.buf) {
                Ok(n) => {
                    self.len = n;
                    return Ok(n > 0);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
    }
}

/// Where a line's bytes are: in the current chunk or in the carry buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    start: usize,
    end: usize,
    carried: bool,
}

/// What a line is, as the reader hands it out. `A` is the scanner's proof of acceptance
/// ([`Scanner::Accepted`]): a strategy without a scanner never receives a `Good` line.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind<A> {
    /// Accepted by the fast scanner.
    Good {
        /// Its numbers.
        numbers: Numbers,
        /// Where its item is.
        item: Span,
        /// The item's display width.
        width: usize,
        /// The scanner's proof.
        accepted: A,
    },
    /// Not scanned (or not accepted by the scanner): the line without its line ending, to be
    /// checked by the reference checker, and the order id it claims.
    Raw { span: Span, claimed: Option<u64> },
    /// Longer than [`MAX_LINE`]: its length without its line ending, and the order id it
    /// claims.
    TooLong { len: usize, claimed: Option<u64> },
}

/// A line whose order id cannot be read: what is left of it to check.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Unclaimed {
    /// A line of acceptable length, to be checked by the reference checker.
    Raw(Span),
    /// A line longer than [`MAX_LINE`], and its length.
    TooLong(usize),
}

/// One non-blank line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec<A> {
    /// Its 1-based line number.
    pub number: u64,
    /// What it is.
    pub kind: Kind<A>,
}

impl<A: Copy> Rec<A> {
    /// The order id its first field claims, or, if that cannot be read, what is left of the line
    /// to check.
    #[inline]
    pub(crate) fn order(&self) -> Result<u64, Unclaimed> {
        match self.kind {
            Kind::Good { numbers, .. } => Ok(numbers.order_id),
            Kind::Raw {
                claimed: Some(id), ..
            }
            | Kind::TooLong {
                claimed: Some(id), ..
            } => Ok(id),
            Kind::Raw {
                span,
                claimed: None,
            } => Err(Unclaimed::Raw(span)),
            Kind::TooLong { len, claimed: None } => Err(Unclaimed::TooLong(len)),
        }
    }
}

/// A line too long to keep: how many bytes it has so far and its last byte.
#[derive(Clone, Copy, Debug)]
struct Long {
    len: usize,
    last: u8,
}

/// Cuts lines out of a [`Source`]'s chunks; counts every line, blank ones included.
pub(crate) struct Lines<'c, S> {
    source: S,
    /// The next unread byte of `source.data()`.
    at: usize,
    /// The start of a line cut by the end of a chunk, at most `CARRY_CAP` bytes of it; it
    /// stays valid after the line is handed out, until the next cut line.
    carry: &'c mut Vec<u8>,
    /// Whether a line is being assembled in `carry`.
    carrying: bool,
    /// Set when the carried line is longer than `CARRY_CAP`.
    long: Option<Long>,
    /// Lines read so far.
    pub number: u64,
    /// Blank lines among them.
    pub blank: u64,
    /// The number of the last line, once the input has ended without a line ending after it:
    /// the input may have been cut off there. Taken by whoever reports it.
    pub unterminated: Option<u64>,
    /// Whether the source is exhausted.
    done: bool,
}

impl<'c, S: Source> Lines<'c, S> {
    pub(crate) fn new(source: S, carry: &'c mut Vec<u8>) -> Self {
        carry.clear();
        Self {
            source,
            at: 0,
            carry,
            carrying: false,
            long: None,
            number: 0,
            blank: 0,
            unterminated: None,
            done: false,
        }
    }

    /// The bytes of a span handed out by the last call to [`Lines::next`].
    #[inline]
    pub(crate) fn slice(&self, span: Span) -> &[u8] {
        let bytes = if span.carried {
            &self.carry[..]
        } else {
            self.source.data()
        };
        &bytes[span.start..span.end]
    }

    /// The current chunk and where its unread bytes start, for the fast lane
    /// ([`lane`](crate::lane)); `None` while a line cut by the end of a chunk is being put
    /// together.
    #[inline(always)]
    pub(crate) fn unread(&self) -> Option<(&[u8], usize)> {
        (!self.carrying).then(|| (self.source.data(), self.at))
    }

    /// The fast lane took `lines` whole lines of the chunk, up to `at`.
    #[inline(always)]
    pub(crate) fn took(&mut self, at: usize, lines: u64) {
        self.at = at;
        self.number += lines;
    }

    /// The next non-blank line, trying the scanner `F` first on lines that are whole in the
    /// chunk; `None` at the end of the input. Blank lines are counted and skipped.
    ///
    /// When the chunk is used up and the next read may wait (`S::MAY_BLOCK`), `before_read` runs
    /// first: the caller hands on what is complete. A failed read is turned into the caller's
    /// error by `read_failed`.
    #[inline(always)]
    pub(crate) fn next<F: Scanner, E>(
        &mut self,
        items: &mut ItemCache,
        before_read: &mut impl FnMut() -> Result<(), E>,
        read_failed: impl Fn(io::Error) -> E,
    ) -> Result<Option<Rec<F::Accepted>>, E> {
        loop {
            let data = self.source.data();
            if self.at < data.len() {
                let rest = &data[self.at..];
                if self.carrying {
                    // The end of a line begun in an earlier chunk.
                    let cut = memchr(b'\n', rest);
                    let part = &rest[..cut.unwrap_or(rest.len())];
                    keep(self.carry, &mut self.long, part);
                    self.at = cut.map_or(data.len(), |i| self.at + i + 1);
                    if cut.is_some()
                        && let Some(rec) = self.carried_line(Ending::Newline)
                    {
                        return Ok(Some(rec));
                    }
                    continue;
                }
                if let Some((scanned, accepted)) = F::scan(rest, items) {
                    let start = self.at;
                    self.at += scanned.len;
                    self.number += 1;
                    let item = Span {
                        start: start + scanned.item_start,
                        end: start + scanned.item_end,
                        carried: false,
                    };
                    return Ok(Some(Rec {
                        number: self.number,
                        kind: Kind::Good {
                            numbers: scanned.numbers,
                            item,
                            width: scanned.width,
                            accepted,
                        },
                    }));
                }
                match memchr(b'\n', rest) {
                    Some(i) => {
                        let span = Span {
                            start: self.at,
                            end: self.at + i,
                            carried: false,
                        };
                        self.at += i + 1;
                        self.number += 1;
                        if let Some(rec) = self.raw(span, Ending::Newline) {
                            return Ok(Some(rec));
                        }
                    }
                    None => {
                        // The carried line handed out before, if any, is done with.
                        self.carry.clear();
                        self.carry.reserve(CARRY_CAP);
                        self.long = None;
                        self.carrying = true;
                        keep(self.carry, &mut self.long, rest);
                        self.at = data.len();
                    }
                }
                continue;
            }
            if !self.done {
                if S::MAY_BLOCK {
                    before_read()?;
                }
                self.done = !self.source.fill().map_err(&read_failed)?;
                self.at = 0;
                if !self.done {
                    continue;
                }
            }
            if self.carrying {
                // The last line, without a line ending: accepted if it is good, and reported.
                self.unterminated = Some(self.number + 1);
                if let Some(rec) = self.carried_line(Ending::EndOfInput) {
                    return Ok(Some(rec));
                }
            }
            return Ok(None);
        }
    }

    /// The line assembled in `carry` is complete, ended by `ending`: hand it out.
    fn carried_line<A>(&mut self, ending: Ending) -> Option<Rec<A>> {
        self.carrying = false;
        self.number += 1;
        let Some(long) = self.long else {
            let span = Span {
                start: 0,
                end: self.carry.len(),
                carried: true,
            };
            return self.raw(span, ending);
        };
        let bom = self.bom_len(&self.carry[..]);
        let cr = usize::from(ending == Ending::Newline && long.last == b'\r');
        Some(Rec {
            number: self.number,
            kind: Kind::TooLong {
                len: long.len - cr - bom,
                claimed: line::claimed_order_id(&self.carry[bom..]),
            },
        })
    }

    /// The length of the byte-order mark that starts `bytes`, if this is the first line.
    fn bom_len(&self, bytes: &[u8]) -> usize {
        if self.number == 1 && bytes.starts_with(BOM) {
            BOM.len()
        } else {
            0
        }
    }

    /// A whole line, without its `\n`: strips the `\r` of a `\r\n` and the byte-order mark,
    /// counts it if it is blank, or hands it out. A `\r` just before the end of the input is not
    /// a line ending: it is part of the line, as a `\r` before any other byte is.
    fn raw<A>(&mut self, mut span: Span, ending: Ending) -> Option<Rec<A>> {
        let bytes = self.slice(span);
        if ending == Ending::Newline && bytes.last() == Some(&b'\r') {
            span.end -= 1;
        }
        span.start += self.bom_len(bytes);
        if span.start >= span.end {
            self.blank += 1;
            return None;
        }
        Some(Rec {
            number: self.number,
            kind: Kind::Raw {
                span,
                claimed: line::claimed_order_id(self.slice(span)),
            },
        })
    }
}

/// What ended a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// A `\n` (a `\r` just before it is part of the line ending).
    Newline,
    /// The end of the input.
    EndOfInput,
}

/// Appends part of a cut line to the carry buffer, keeping at most `CARRY_CAP` bytes of it and
/// counting the rest.
fn keep(carry: &mut Vec<u8>, long: &mut Option<Long>, part: &[u8]) {
    let Some(&last) = part.last() else {
        return;
    };
    match long {
        Some(long) => {
            long.len += part.len();
            long.last = last;
        }
        None if carry.len() + part.len() <= CARRY_CAP => carry.extend_from_slice(part),
        None => {
            let len = carry.len() + part.len();
            carry.extend_from_slice(&part[..CARRY_CAP - carry.len()]);
            *long = Some(Long { len, last });
        }
    }
}
