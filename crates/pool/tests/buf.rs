//! The writable buffers, `RentedBuf` and `OwnedRentedBuf`: what they show, how they grow
//! through the buckets and what they give back, their `Write` impls, their fallible growth,
//! and the hand-off of a rented buffer to `bytes::Bytes` without a copy.

use std::io::Write as _;
use std::sync::Arc;

use bytes::Bytes;
use hotpath_pool::{
    BufferPool, ClearPolicy, OwnedRented, OwnedRentedBuf, PoolConfig, Rented, RentedBuf,
};

mod common;

use common::scaled;

fn pool() -> BufferPool<u8> {
    BufferPool::new(PoolConfig::new())
}

/// What each bucket of `p` holds, from the smallest, as (capacity, buffers) for those that
/// hold any.
fn held(p: &BufferPool<u8>) -> Vec<(usize, u64)> {
    p.stats()
        .buckets
        .iter()
        .filter(|b| b.cached_buffers + b.stacked_buffers > 0)
        .map(|b| (b.capacity, b.cached_buffers + b.stacked_buffers))
        .collect()
}

#[test]
fn a_rented_buf_shows_only_what_was_written_never_the_previous_renters_bytes() {
    let p = pool();
    p.rent(64).copy_from_slice(&[b'S'; 64]); // a previous renter's secret
    let mut buf = p.rent_buf(64);
    assert_eq!((buf.len(), buf.capacity()), (0, 64));
    assert_eq!(&buf[..], b"");
    buf.extend_from_slice(b"1042");
    buf.push(b'|');
    assert_eq!(buf.as_slice(), b"1042|");
    assert_eq!(buf.as_ref(), b"1042|");
    assert_eq!(buf.get(5), None, "the rest of the buffer is not shown");
    buf.truncate(2);
    assert_eq!(&buf[..], b"10");
    buf.truncate(10);
    assert_eq!(
        &buf[..],
        b"10",
        "truncating to more than the length does nothing"
    );
    buf.clear();
    assert!(buf.is_empty());
    assert_eq!(buf.capacity(), 64);
}

#[test]
fn growth_within_a_bucket_allocates_nothing_and_past_it_moves_to_the_bucket_it_needs() {
    let p = pool();
    let mut buf = p.rent_buf(16);
    buf.extend_from_slice(&[1; 16]);
    assert_eq!((buf.capacity(), p.stats().rents), (16, 1));
    buf.push(2); // 17: the next bucket
    assert_eq!((buf.len(), buf.capacity()), (17, 32));
    buf.extend_from_slice(&[3; 100]); // 117: straight to 128, past 64
    assert_eq!((buf.len(), buf.capacity()), (117, 128));
    assert_eq!(&buf[..16], &[1; 16]);
    assert_eq!(buf[16], 2);
    assert!(buf[17..].iter().all(|&b| b == 3));
    let s = p.stats();
    assert_eq!((s.rents, s.returns, s.outstanding()), (3, 2, 1));
    assert_eq!(
        held(&p),
        [(16, 1), (32, 1)],
        "the smaller buffers went back"
    );
    drop(buf);
    assert_eq!(held(&p), [(16, 1), (32, 1), (128, 1)]);
    assert_eq!(p.stats().outstanding(), 0);
}

/// The growth rule the receipt's bound rests on: a buffer that grows from its first bucket, by
/// writes of any sizes, gives back at most one buffer of each bucket it went through, and its
/// last is the bucket of its length, so a thread that writes one buffer at a time leaves the
/// pool at most one buffer per bucket from the first to the bucket of the longest length.
#[test]
fn a_growing_buffer_leaves_at_most_one_buffer_per_bucket_up_to_its_lengths_bucket() {
    let steps: [&[usize]; 4] = [&[1], &[7, 300, 5], &[1000], &[3, 3000, 1, 60]];
    let longest = scaled(20_000, 3_000);
    let source = [b'x'; 3000];
    for step in steps {
        let p = pool();
        for round in 0..3 {
            let mut buf = p.rent_buf(1024);
            let mut sizes = step.iter().cycle();
            while buf.len() < longest {
                let n = (*sizes.next().unwrap()).min(longest - buf.len());
                buf.extend_from_slice(&source[..n]);
                assert_eq!(buf.capacity(), buf.len().max(1024).next_power_of_two());
            }
            drop(buf);
            let kept = held(&p);
            assert!(
                kept.iter().all(|&(_, n)| n == 1),
                "{step:?}, {round}: {kept:?}"
            );
            let largest = kept.iter().map(|&(c, _)| c).max();
            assert_eq!(largest, Some(longest.next_power_of_two()), "{step:?}");
            assert!(kept.iter().all(|&(c, _)| c >= 1024), "{step:?}: {kept:?}");
        }
        // Once warm, a round allocates nothing: every bucket it goes through is kept.
        let before = p.stats().allocations;
        let mut buf = p.rent_buf(1024);
        buf.reserve(longest);
        drop(buf);
        assert_eq!(p.stats().allocations, before, "{step:?}");
    }
}

#[test]
fn rent_buf_of_zero_allocates_nothing_until_its_first_write() {
    let p = pool();
    let mut buf = p.rent_buf(0);
    assert_eq!((buf.capacity(), p.stats().allocations), (0, 0));
    buf.push(7);
    assert_eq!((buf.capacity(), p.stats().allocations), (16, 1));
    drop(buf);
    let s = p.stats();
    assert_eq!((s.rents, s.returns, s.outstanding()), (2, 2, 0));
}

#[test]
fn above_the_largest_bucket_it_grows_by_powers_of_two_that_are_freed_not_kept() {
    let p = BufferPool::<u8>::new(PoolConfig::new().with_max_len(64));
    let mut buf = p.rent_buf(64);
    buf.extend_from_slice(&[1; 65]);
    assert_eq!(buf.capacity(), 128);
    buf.extend_from_slice(&[2; 100]);
    assert_eq!(buf.capacity(), 256);
    drop(buf);
    let s = p.stats();
    assert_eq!((s.oversize, s.discarded, s.outstanding()), (2, 2, 0));
    assert_eq!(held(&p), [(64, 1)]);
}

#[test]
fn a_clearing_pool_clears_everything_written_in_every_buffer_it_gets_back() {
    let p = BufferPool::<u8>::new(PoolConfig::new().with_clear(ClearPolicy::OnReturn));
    let mut buf = p.rent_buf(16);
    buf.extend_from_slice(&[b'S'; 16]);
    buf.truncate(3); // written, then truncated away: still cleared
    buf.extend_from_slice(&[b'T'; 20]); // moves to 32; the 16-byte buffer goes back
    buf.clear();
    drop(buf);
    assert_eq!(&p.rent(16)[..], &[0; 16]);
    assert_eq!(&p.rent(32)[..], &[0; 32]);
}

#[test]
fn give_back_cleared_clears_what_was_truncated_away_too() {
    let p = pool();
    let mut card = p.rent_buf(32);
    card.extend_from_slice(b"4111111111111111");
    card.truncate(4);
    card.give_back_cleared();
    assert_eq!(&p.rent(32)[..16], &[0; 16]);
    assert_eq!(p.stats().outstanding(), 0);
}

#[test]
fn it_is_an_io_writer_and_a_fmt_writer() {
    let p = pool();
    let mut buf = p.rent_buf(16);
    let (id, item) = (1042, "ต้มยำกุ้ง");
    write!(buf, "{id}|{item}").unwrap();
    std::io::Write::write_all(&mut buf, b"|2|18000\n").unwrap();
    assert_eq!(buf.write(b"").unwrap(), 0);
    buf.flush().unwrap();
    assert_eq!(&buf[..], "1042|ต้มยำกุ้ง|2|18000\n".as_bytes());
    let mut text = p.rent_buf(0);
    std::fmt::Write::write_fmt(&mut text, format_args!("{:>6}", 1.5)).unwrap();
    std::fmt::Write::write_str(&mut text, "!").unwrap();
    assert_eq!(&text[..], b"   1.5!");
}

/// Sizes whose check fails before the allocator is asked: more than a `usize` holds, or more
/// than `isize::MAX` bytes.
#[test]
fn growth_past_what_a_size_can_hold_is_an_error_and_leaves_the_buffer_as_it_was() {
    let p = pool();
    assert!(p.try_rent_buf(usize::MAX).is_err());
    assert_eq!(p.stats().rents, 0, "a failed rent counts nothing");
    let mut buf = p.try_rent_buf(16).unwrap();
    buf.extend_from_slice(b"kept");
    for additional in [usize::MAX, usize::MAX - 4, isize::MAX as usize] {
        let err = buf.try_reserve(additional).unwrap_err();
        assert!(err.requested() >= additional, "{err}");
        assert_eq!((&buf[..], buf.capacity()), (&b"kept"[..], 16));
    }
    assert_eq!(p.stats().rents, 1);
    let words = BufferPool::<u64>::new(PoolConfig::new());
    let mut ids = words.rent_buf(16);
    ids.push(1);
    assert!(ids.try_reserve(isize::MAX as usize / 8).is_err());
    assert_eq!(&ids[..], &[1]);
    let owned = Arc::new(pool());
    assert!(Arc::clone(&owned).try_rent_buf_owned(usize::MAX).is_err());
    assert_eq!(owned.stats().rents, 0);
}

/// Sizes the allocator itself refuses (Miri would try to allocate them, so it skips this).
#[test]
#[cfg_attr(miri, ignore)]
fn growth_of_isize_max_or_1_tib_is_an_error_instead_of_an_abort() {
    let p = pool();
    assert!(p.try_rent_buf(isize::MAX as usize).is_err());
    assert!(p.try_rent_buf(1 << 40).is_err());
    let mut buf = p.rent_buf(16);
    buf.extend_from_slice(b"kept");
    assert!(buf.try_reserve(1 << 40).is_err());
    assert!(buf.try_reserve(isize::MAX as usize - 4).is_err());
    assert_eq!((&buf[..], buf.capacity()), (&b"kept"[..], 16));
    assert!(Arc::new(pool()).try_rent_buf_owned(1 << 40).is_err());
    assert_eq!(p.stats().rents, 1);
}

#[test]
fn the_owned_guards_are_send_and_static_and_show_their_bytes_as_a_slice() {
    fn owner<T: AsRef<[u8]> + Send + 'static>(_: &T) {}
    let p = Arc::new(pool());
    let fixed: OwnedRented<u8> = Arc::clone(&p).rent_owned(4);
    let mut writable: OwnedRentedBuf<u8> = Arc::clone(&p).rent_buf_owned(4);
    writable.extend_from_slice(b"abc");
    owner(&fixed);
    owner(&writable);
    assert_eq!((fixed.as_ref().len(), writable.as_ref()), (4, &b"abc"[..]));
    // The process-wide pool's borrowing guards are `'static` too.
    let shared: Rented<'static, u8> = hotpath_pool::shared().rent(4);
    let shared_buf: RentedBuf<'static, u8> = hotpath_pool::shared().rent_buf(4);
    owner(&shared);
    owner(&shared_buf);
}

/// A rented buffer becomes the owner of a `Bytes` without a copy (the `Bytes` points at the
/// buffer itself), and comes back to its pool when the last clone of the `Bytes` is dropped.
#[test]
fn bytes_from_owner_takes_a_rented_buffer_without_a_copy_and_gives_it_back_at_the_last_drop() {
    let p = Arc::new(pool());
    let mut reply = Arc::clone(&p).rent_buf_owned(1024);
    reply.extend_from_slice(b"HTTP/1.1 200 OK\r\n\r\n");
    let at = reply.as_ptr();
    let bytes = Bytes::from_owner(reply);
    assert_eq!(
        bytes.as_ptr(),
        at,
        "no copy: the Bytes is the rented buffer"
    );
    assert_eq!(&bytes[..], b"HTTP/1.1 200 OK\r\n\r\n");
    let head = bytes.slice(..8);
    let writer = std::thread::spawn(move || bytes.len()); // an I/O writer's thread
    assert_eq!(writer.join().unwrap(), 19);
    assert_eq!(p.stats().outstanding(), 1, "a clone is still alive");
    assert_eq!(head.as_ptr(), at);
    drop(head);
    let s = p.stats();
    assert_eq!((s.outstanding(), s.returns, s.retained_buffers), (0, 1, 1));
    // It is back in the pool: the next rent of its bucket gets the same buffer.
    let again = Arc::clone(&p).rent_buf_owned(1024);
    assert_eq!(again.as_ptr(), at);
    assert_eq!(p.stats().allocations, 1);

    // A fixed-length owned guard, the same way.
    let mut fixed = Arc::clone(&p).rent_owned(5);
    fixed.copy_from_slice(b"hello");
    let at = fixed.as_ptr();
    let bytes = Bytes::from_owner(fixed);
    assert_eq!((bytes.as_ptr(), &bytes[..]), (at, &b"hello"[..]));
    assert_eq!(p.stats().outstanding(), 2);
    drop(bytes);
    assert_eq!(p.stats().outstanding(), 1);
}

#[test]
fn its_debug_shows_its_length_and_capacity() {
    let p = pool();
    let mut buf = p.rent_buf(16);
    buf.push(1);
    assert_eq!(format!("{buf:?}"), "RentedBuf { len: 1, capacity: 16, .. }");
    let owned = Arc::new(pool()).rent_buf_owned(20);
    assert_eq!(
        format!("{owned:?}"),
        "OwnedRentedBuf { len: 0, capacity: 32, .. }"
    );
}

#[test]
fn extend_takes_any_iterator() {
    let p = BufferPool::<u32>::new(PoolConfig::new());
    let mut buf = p.rent_buf(0);
    buf.extend(0..40);
    buf.extend((0..5).filter(|n| n % 2 == 0));
    assert_eq!(
        (buf.len(), buf.capacity(), buf[39], buf[42]),
        (43, 64, 39, 4)
    );
}

#[cfg(feature = "bytes")]
#[test]
fn with_the_bytes_feature_it_is_a_buf_mut_that_grows_through_the_buckets() {
    use bytes::BufMut;

    let p = pool();
    let mut frame = p.rent_buf(16);
    frame.put_u32(0xDEAD_BEEF);
    frame.put_slice(&[7; 12]);
    assert_eq!(frame.capacity(), 16);
    frame.put_u8(1); // full: moves to 32
    assert_eq!((frame.len(), frame.capacity()), (17, 32));
    frame.put_bytes(b'z', 40); // through `chunk_mut`, one bucket at a time
    assert_eq!((frame.len(), frame.capacity()), (57, 64));
    assert_eq!(&frame[..4], &[0xDE, 0xAD, 0xBE, 0xEF]);
    assert!(frame[17..].iter().all(|&b| b == b'z'));
    let room = frame.capacity() - frame.len();
    assert_eq!(frame.chunk_mut().len(), room);
    frame.chunk_mut()[..2].copy_from_slice(b"ok");
    // SAFETY: the first two bytes of the chunk were just written.
    unsafe { frame.advance_mut(2) };
    assert!(frame.ends_with(b"zok"));
    assert_eq!(frame.remaining_mut(), isize::MAX as usize - 59);
    let owned = Arc::new(pool());
    let mut buf = Arc::clone(&owned).rent_buf_owned(0);
    buf.put_slice(b"owned");
    let bytes = Bytes::from_owner(buf);
    assert_eq!(&bytes[..], b"owned");
    drop(bytes);
    assert_eq!(owned.stats().outstanding(), 0);
}

#[cfg(feature = "bytes")]
#[test]
#[should_panic(expected = "past the capacity")]
fn with_the_bytes_feature_advancing_past_the_capacity_panics() {
    use bytes::BufMut;

    let p = pool();
    let mut buf = p.rent_buf(16);
    // SAFETY: the call panics before it shows anything; every byte of a rented buffer is
    // initialised in any case.
    unsafe { buf.advance_mut(17) };
}
