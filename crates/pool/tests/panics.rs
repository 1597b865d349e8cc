//! Element code that panics, and lengths that cannot be allocated: the process never aborts,
//! and the counters come back to where they should be (`outstanding()` to 0).

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use hotpath_pool::{BufferPool, ClearPolicy, PoolConfig, PoolStats, VecPool};

mod common;

thread_local! {
    /// Whether `Bomb::default()` (or `Bomb::clone()`) panics on this thread; each test arms
    /// its own thread only, so tests running side by side do not see each other's bombs.
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

fn arm(armed: bool) {
    ARMED.set(armed);
}

/// An element whose `Default` and `Clone` panic while armed.
#[derive(Copy, Debug, PartialEq)]
struct Bomb(u8);

impl Default for Bomb {
    fn default() -> Self {
        assert!(!ARMED.get(), "Bomb::default");
        Bomb(0)
    }
}

#[allow(clippy::non_canonical_clone_impl, clippy::expl_impl_clone_on_copy)]
impl Clone for Bomb {
    fn clone(&self) -> Self {
        assert!(!ARMED.get(), "Bomb::clone");
        *self
    }
}

/// A snapshot's counters and what it holds.
fn counts(s: &PoolStats) -> [u64; 7] {
    [
        s.rents,
        s.allocations,
        s.returns,
        s.discarded,
        s.oversize,
        s.retained_buffers,
        s.retained_bytes,
    ]
}

fn pool(clear: ClearPolicy) -> BufferPool<Bomb> {
    BufferPool::new(PoolConfig::default().with_clear(clear))
}

/// Runs `f`, which must panic, with the bombs armed, and disarms them again.
fn panics(f: impl FnOnce()) {
    arm(true);
    let caught = panic::catch_unwind(AssertUnwindSafe(f));
    arm(false);
    assert!(caught.is_err(), "the element code was expected to panic");
}

#[test]
fn a_default_that_panics_while_on_return_clears_frees_the_buffer_and_counts_the_return() {
    let p = pool(ClearPolicy::OnReturn);
    let mut buf = p.rent(10);
    buf[0] = Bomb(7);
    panics(move || drop(buf));
    let s = p.stats();
    assert_eq!((s.outstanding(), s.returns, s.discarded), (0, 1, 1));
    assert_eq!(
        s.retained_buffers, 0,
        "a buffer that was not cleared is never kept"
    );
    let next = p.rent(10);
    assert_eq!(next[0], Bomb(0));
}

#[test]
fn a_guard_dropped_while_unwinding_under_on_return_does_not_run_element_code_or_abort() {
    let p = pool(ClearPolicy::OnReturn);
    drop(p.rent(10)); // a cached buffer, so that the rent below runs no element code
    panics(|| {
        let mut buf = p.rent(10);
        buf[0] = Bomb(7);
        // The guard drops while this panic unwinds; a `Bomb::default()` there would be a
        // panic in a destructor during unwinding, which aborts.
        panic!("the renter's own panic");
    });
    let s = p.stats();
    assert_eq!((s.outstanding(), s.returns, s.discarded), (0, 2, 1));
    assert_eq!(s.retained_buffers, 0);
}

#[test]
fn rent_cleared_whose_default_panics_under_on_return_discards_the_buffer() {
    let p = pool(ClearPolicy::OnReturn);
    drop(p.rent(10));
    // The fill panics with the guard alive: the guard drops during that unwinding.
    panics(|| drop(p.rent_cleared(10)));
    let s = p.stats();
    assert_eq!((s.rents, s.outstanding(), s.discarded), (2, 0, 1));
}

#[test]
fn rent_cleared_whose_default_panics_under_never_gives_the_buffer_back() {
    let p = pool(ClearPolicy::Never);
    drop(p.rent(10));
    panics(|| drop(p.rent_cleared(10)));
    let s = p.stats();
    assert_eq!((s.rents, s.outstanding(), s.discarded), (2, 0, 0));
    assert_eq!(
        s.retained_buffers, 1,
        "no element code ran on give-back: it is kept"
    );
}

#[test]
fn give_back_cleared_whose_default_panics_frees_the_buffer_instead_of_keeping_the_secret() {
    let p = pool(ClearPolicy::Never);
    let mut secret = p.rent(10);
    secret.fill(Bomb(42));
    panics(move || secret.give_back_cleared());
    let s = p.stats();
    assert_eq!((s.outstanding(), s.returns, s.discarded), (0, 1, 1));
    assert_eq!(s.retained_buffers, 0);
    assert!(p.rent(10).iter().all(|&b| b == Bomb(0)), "a fresh buffer");
}

/// A value whose destructor gives a buffer back cleared: dropped during unwinding, it runs
/// `give_back_cleared` while the thread panics.
struct ClearsOnDrop<'a>(Option<hotpath_pool::Rented<'a, Bomb>>);

impl Drop for ClearsOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(buf) = self.0.take() {
            buf.give_back_cleared();
        }
    }
}

#[test]
fn give_back_cleared_called_while_unwinding_does_not_run_element_code_or_abort() {
    let p = pool(ClearPolicy::Never);
    panics(|| {
        arm(false);
        let held = ClearsOnDrop(Some(p.rent(10)));
        arm(true);
        let _held = held;
        panic!("the renter's own panic");
    });
    let s = p.stats();
    assert_eq!((s.outstanding(), s.returns, s.discarded), (0, 1, 1));
}

#[test]
fn an_owned_guard_dropped_while_unwinding_under_on_return_does_not_abort() {
    let p = Arc::new(pool(ClearPolicy::OnReturn));
    drop(Arc::clone(&p).rent_owned(10));
    let owned = Arc::clone(&p);
    panics(move || {
        let _buf = owned.rent_owned(10);
        panic!("the renter's own panic");
    });
    let s = p.stats();
    assert_eq!((s.outstanding(), s.discarded), (0, 1));
}

#[test]
fn a_rented_buf_whose_growth_panics_in_default_keeps_what_it_wrote_and_comes_back() {
    let p = pool(ClearPolicy::Never);
    let mut buf = p.rent_buf(16);
    buf.extend_from_slice(&[Bomb(1); 16]);
    let caught = {
        arm(true);
        let caught = panic::catch_unwind(AssertUnwindSafe(|| buf.push(Bomb(2))));
        arm(false);
        caught
    };
    assert!(
        caught.is_err(),
        "the fresh 32-element buffer's default panics"
    );
    assert_eq!((buf.len(), buf.capacity(), buf[15]), (16, 16, Bomb(1)));
    buf.push(Bomb(3));
    assert_eq!((buf.len(), buf.capacity()), (17, 32));
    drop(buf);
    let s = p.stats();
    assert_eq!((s.outstanding(), s.retained_buffers), (0, 2));
}

#[test]
fn a_rented_buf_whose_move_panics_while_on_return_clears_discards_the_smaller_buffer() {
    let p = pool(ClearPolicy::OnReturn);
    drop(p.rent(32)); // the bucket it moves to is kept: taking it runs no element code
    let mut buf = p.rent_buf(16);
    buf.extend_from_slice(&[Bomb(1); 16]);
    panics(move || {
        buf.push(Bomb(2)); // clearing the 16-element buffer it leaves panics
        unreachable!("the move panics");
    });
    let s = p.stats();
    assert_eq!((s.outstanding(), s.returns, s.discarded), (0, 3, 2));
    assert_eq!(
        s.retained_buffers, 0,
        "no buffer that was not cleared is kept"
    );
}

#[test]
fn a_fresh_buffer_whose_default_or_clone_panics_counts_nothing() {
    let p = pool(ClearPolicy::Never);
    panics(|| drop(p.rent(10)));
    panics(|| drop(p.try_rent(1 << 12)));
    panics(|| drop(Arc::new(pool(ClearPolicy::Never)).rent_owned(10)));
    let s = p.stats();
    assert_eq!((s.rents, s.allocations, s.returns), (0, 0, 0));
    // Above the largest bucket (oversize), with no thread cache involved at all.
    panics(|| drop(p.rent(p.largest_bucket() + 1)));
    let s = p.stats();
    assert_eq!(
        (s.rents, s.allocations, s.oversize, s.retained_bytes),
        (0, 0, 0, 0)
    );
}

#[test]
fn try_rent_beyond_isize_max_bytes_is_an_error() {
    let bytes = BufferPool::<u8>::new(PoolConfig::default());
    let err = bytes.try_rent(isize::MAX as usize + 1).unwrap_err();
    assert_eq!(err.requested(), isize::MAX as usize + 1);
    assert!(std::error::Error::source(&err).is_some());
    assert!(
        err.to_string().starts_with("could not rent a buffer of"),
        "{err}"
    );
    let words = BufferPool::<u64>::new(PoolConfig::default());
    assert!(words.try_rent(isize::MAX as usize).is_err());
    assert!(words.try_rent(usize::MAX).is_err());
    assert!(Arc::new(words).try_rent_owned(usize::MAX).is_err());
    assert_eq!(
        counts(&bytes.stats()),
        counts(&PoolStats::default()),
        "a failed rent counts nothing"
    );
}

// Miri reports an allocation it cannot make as resource exhaustion instead of returning null.
#[test]
#[cfg_attr(miri, ignore)]
fn try_rent_of_isize_max_or_1_tib_is_an_error_instead_of_an_abort() {
    let bytes = BufferPool::<u8>::new(PoolConfig::default());
    assert!(bytes.try_rent(isize::MAX as usize).is_err());
    assert!(bytes.try_rent(1 << 40).is_err());
    let vecs = VecPool::<u8>::new(1 << 16, 8);
    assert!(vecs.try_rent_vec(isize::MAX as usize).is_err());
    assert_eq!(counts(&bytes.stats()), counts(&PoolStats::default()));
    assert_eq!(counts(&vecs.stats()), counts(&PoolStats::default()));
}

#[test]
fn try_rent_counts_like_rent_when_it_succeeds() {
    let p = BufferPool::<u8>::new(PoolConfig::default());
    let buf = p.try_rent(100).unwrap();
    assert_eq!((buf.len(), buf.capacity()), (100, 128));
    drop(buf);
    drop(p.try_rent(100).unwrap());
    drop(p.try_rent(0).unwrap());
    let s = p.stats();
    assert_eq!((s.rents, s.allocations, s.returns), (3, 1, 3));
    let vecs = VecPool::<u8>::new(1 << 16, 8);
    drop(vecs.try_rent_vec(100).unwrap());
    assert!(vecs.try_rent_vec(usize::MAX).is_err());
    let s = vecs.stats();
    assert_eq!((s.rents, s.allocations, s.returns), (1, 1, 1));
}

#[test]
fn a_joined_threads_cache_is_no_longer_counted_once_join_returns() {
    let p = BufferPool::<u8>::new(PoolConfig::default());
    std::thread::scope(|s| {
        let worker = s.spawn(|| drop(p.rent(64)));
        // An explicit join waits for the thread itself to end, its thread-local destructors
        // (which retire its cache) included.
        worker.join().unwrap();
        let stats = p.stats();
        assert_eq!((stats.thread_caches, stats.retained_buffers), (0, 1));
    });
}

/// An element whose destructor panics while armed.
#[derive(Debug)]
struct DropBomb;

impl Drop for DropBomb {
    fn drop(&mut self) {
        assert!(!ARMED.get(), "DropBomb::drop");
    }
}

#[test]
fn a_vec_pool_element_whose_drop_panics_frees_the_vector_and_counts_the_return() {
    let vecs = VecPool::<DropBomb>::new(1 << 10, 8);
    let mut held = vecs.rent_vec(4);
    held.push(DropBomb);
    panics(move || drop(held));
    let s = vecs.stats();
    assert_eq!((s.outstanding(), s.returns, s.discarded), (0, 1, 1));
    assert_eq!(s.retained_buffers, 0);
}
