//! The previous tenant: what the next renter of a buffer or of a [`VecPool`]'s vector finds
//! (P4), and what is left of a secret after each way of letting go of it (P5).

use pool::{BufferPool, ClearPolicy, PoolConfig, VecPool};

use super::{FIRST_LINE, SECOND_LINE};

/// What the next renter finds in a buffer given back without clearing (P4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleData {
    /// Whether the second rent returned the very same buffer.
    pub same_buffer: bool,
    /// Bytes the first renter wrote.
    pub first_written: usize,
    /// Non-zero bytes the second renter finds before writing anything.
    pub nonzero_before_writing: usize,
    /// Bytes the second renter wrote.
    pub second_written: usize,
    /// What `std::str::from_utf8` says about the first `first_written` bytes after the second
    /// write (a read with the wrong, remembered length): `Err(valid_up_to)` or `Ok`.
    pub wrong_length_read: Result<(), usize>,
    /// The same read, decoded lossily.
    pub wrong_length_lossy: String,
    /// Non-zero bytes the third renter finds after the second gave the buffer back.
    pub nonzero_after_second_return: usize,
}

/// The seed's stale-data sequence (P4) on a fresh pool with the given clearing policy: rent
/// 64 bytes, write the first line, give back; rent 64 again, count what is there, write the
/// shorter second line, read with the first line's length; give back; rent again and count.
pub fn stale_data(clear: ClearPolicy) -> StaleData {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_clear(clear));
    let nonzero = |buf: &[u8]| buf.iter().filter(|&&b| b != 0).count();
    let mut first = pool.rent(64);
    let first_written = write_str(&mut first, FIRST_LINE);
    let first_addr = first.as_ptr();
    drop(first);

    let mut second = pool.rent(64);
    let same_buffer = std::ptr::eq(second.as_ptr(), first_addr);
    let nonzero_before_writing = nonzero(&second);
    let second_written = write_str(&mut second, SECOND_LINE);
    let read = &second[..first_written];
    let wrong_length_read = std::str::from_utf8(read)
        .map(|_| ())
        .map_err(|e| e.valid_up_to());
    let wrong_length_lossy = String::from_utf8_lossy(read).into_owned();
    drop(second);

    let third = pool.rent(64);
    StaleData {
        same_buffer,
        first_written,
        nonzero_before_writing,
        second_written,
        wrong_length_read,
        wrong_length_lossy,
        nonzero_after_second_return: nonzero(&third),
    }
}

fn write_str(buf: &mut [u8], text: &str) -> usize {
    buf[..text.len()].copy_from_slice(text.as_bytes());
    text.len()
}

/// What the next renter finds in a [`VecPool`]'s vector after the seed's sequence (P4 with a
/// vector): the same storage, and nothing to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleVec {
    /// Whether the second rent got the very same storage.
    pub same_buffer: bool,
    /// Bytes the first renter wrote.
    pub first_written: usize,
    /// The length the second renter's vector has before it writes anything.
    pub len_before_writing: usize,
    /// Bytes the second renter wrote.
    pub second_written: usize,
    /// A read with the first line's length after the second write: `None`, because the vector
    /// holds only what its renter wrote (`vec.get(..first_written)`).
    pub wrong_length_read: Option<String>,
}

/// The seed's stale-data sequence (P4) on a [`VecPool`]: rent a vector of 64 bytes, write the
/// first line, give back; rent again, look, write the shorter second line and try to read with
/// the first line's length.
pub fn stale_vec() -> StaleVec {
    let pool = VecPool::<u8>::new(1 << 10, 4);
    let mut first = pool.rent_vec(64);
    first.extend_from_slice(FIRST_LINE.as_bytes());
    let (first_written, first_addr) = (first.len(), first.as_ptr());
    drop(first);

    let mut second = pool.rent_vec(64);
    let same_buffer = std::ptr::eq(second.as_ptr(), first_addr);
    let len_before_writing = second.len();
    second.extend_from_slice(SECOND_LINE.as_bytes());
    StaleVec {
        same_buffer,
        first_written,
        len_before_writing,
        second_written: second.len(),
        wrong_length_read: second
            .get(..first_written)
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// How a renter that held a secret lets go of its buffer (P5, P11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LetGo {
    /// Drop the guard: the secret stays in the buffer.
    GiveBack,
    /// It had rented with `rent_cleared`, which clears on *rent*; then drop the guard.
    RentClearedThenGiveBack,
    /// [`Rented::give_back_cleared`](pool::Rented::give_back_cleared): clear what it was shown,
    /// then give back.
    GiveBackCleared,
    /// Drop the guard of a pool with [`ClearPolicy::OnReturn`].
    PoolClearsOnReturn,
}

impl LetGo {
    /// Every way, in the order a table lists them.
    pub const ALL: [LetGo; 4] = [
        Self::GiveBack,
        Self::RentClearedThenGiveBack,
        Self::GiveBackCleared,
        Self::PoolClearsOnReturn,
    ];
}

/// A renter writes a 16-byte secret into a 64-byte buffer and lets go of it the way `how`
/// says; the next renter of the same size, renting plainly, counts the secret's bytes it can
/// still read. Returns that count and whether it got the same buffer.
pub fn secret_left_for_next_renter(how: LetGo) -> (usize, bool) {
    const SECRET: &[u8; 16] = b"card 4111-1111-1";
    let clear = match how {
        LetGo::PoolClearsOnReturn => ClearPolicy::OnReturn,
        _ => ClearPolicy::Never,
    };
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_clear(clear));
    let mut holder = match how {
        LetGo::RentClearedThenGiveBack => pool.rent_cleared(64),
        _ => pool.rent(64),
    };
    holder[..SECRET.len()].copy_from_slice(SECRET);
    let addr = holder.as_ptr();
    match how {
        LetGo::GiveBackCleared => holder.give_back_cleared(),
        _ => drop(holder),
    }
    let next = pool.rent(64);
    let readable = next.iter().zip(SECRET).filter(|(a, b)| a == b).count();
    (readable, std::ptr::eq(next.as_ptr(), addr))
}
