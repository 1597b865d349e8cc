//! P13: the same rent, touch and give-back with what a Rust user would pick instead of the
//! `pool` crate: the published pool crates, a `thread_local!` vector, a reused one, a fresh one
//! unzeroed and a fresh one zeroed.

use std::cell::RefCell;

use super::{HIT_BYTES, LINE_BUFFER, fresh_touch, rent_touch, reused_touch, touch, unzeroed_touch};

/// The buffer sizes of the comparison with other pool crates (P13) and its criterion bench: the
/// order line's 128 bytes and the hit path's 8 KiB.
pub const P13_SIZES: [usize; 2] = [LINE_BUFFER, HIT_BYTES];

thread_local! {
    /// One scratch vector per thread, grown to the largest request it has served: what a
    /// Rust program often keeps instead of a pool.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A way to get a scratch buffer of `n` bytes, touch it and let it go (P13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Contender {
    /// `pool::shared().rent(n)`: the `pool` crate.
    SharedPool,
    /// `object-pool` 0.6: a `parking_lot::Mutex<Vec<T>>`, `pull` with a fallback.
    ObjectPool,
    /// `lockfree-object-pool` 0.1: `LinearObjectPool`, a lock-free list of pages.
    LockfreeObjectPool,
    /// `opool` 0.2: a bounded lock-free queue (`crossbeam-queue`'s `ArrayQueue`).
    Opool,
    /// `opool` 0.2's `LocalPool`: a queue for one thread (it is not `Send`), no atomics.
    OpoolLocal,
    /// No pool crate: a `thread_local!` `RefCell<Vec<u8>>` per thread, grown as needed.
    ThreadLocalVec,
    /// No pool: the caller owns one `Vec<u8>` and passes it down (`clear()` per use).
    ReusedVec,
    /// No pool: a fresh, unzeroed `Vec::with_capacity(n)` each time, written before it is read.
    FreshUnzeroed,
    /// No pool: a fresh `vec![0u8; n]` each time (zeroed).
    FreshVec,
}

impl Contender {
    /// Every contender, in the order a table lists them.
    pub const ALL: [Contender; 9] = [
        Self::SharedPool,
        Self::ObjectPool,
        Self::LockfreeObjectPool,
        Self::Opool,
        Self::OpoolLocal,
        Self::ThreadLocalVec,
        Self::ReusedVec,
        Self::FreshUnzeroed,
        Self::FreshVec,
    ];

    /// How a table names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::SharedPool => "`pool::shared()`",
            Self::ObjectPool => "`object-pool` 0.6 (`Pool::pull`)",
            Self::LockfreeObjectPool => "`lockfree-object-pool` 0.1 (`LinearObjectPool`)",
            Self::Opool => "`opool` 0.2 (`Pool::get`)",
            Self::OpoolLocal => "`opool` 0.2 (`LocalPool::get`, one thread)",
            Self::ThreadLocalVec => "`thread_local!` `RefCell<Vec<u8>>`",
            Self::ReusedVec => "one reused `Vec<u8>` (`clear()` per use)",
            Self::FreshUnzeroed => "fresh, unzeroed `Vec::with_capacity(n)`",
            Self::FreshVec => "fresh, zeroed `vec![0u8; n]`",
        }
    }
}

/// `opool`'s way to make a buffer: `n` zero bytes, and only vectors of that length go back.
#[derive(Debug)]
struct Zeroed(usize);

impl opool::PoolAllocator<Vec<u8>> for Zeroed {
    fn allocate(&self) -> Vec<u8> {
        vec![0; self.0]
    }

    fn is_valid(&self, buf: &Vec<u8>) -> bool {
        buf.len() == self.0
    }
}

/// Every contender set up for buffers of `n` bytes, each holding one warm buffer, so that
/// every operation is a hit (the other crates' pools hand out whole objects, so each pool
/// is for one size, as a user of them would set it up). It holds a `LocalPool`, so it
/// stays on the thread that made it.
pub struct Contenders {
    n: usize,
    object_pool: object_pool::Pool<Vec<u8>>,
    lockfree: lockfree_object_pool::LinearObjectPool<Vec<u8>>,
    opool: opool::Pool<Zeroed, Vec<u8>>,
    opool_local: opool::LocalPool<Zeroed, Vec<u8>>,
    reused: Vec<u8>,
}

impl std::fmt::Debug for Contenders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contenders")
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}

impl Contenders {
    /// The contenders for `n`-byte buffers (`n` at least 1), each warmed with one buffer.
    pub fn new(n: usize) -> Self {
        let n = n.max(1);
        let lockfree = lockfree_object_pool::LinearObjectPool::new(move || vec![0u8; n], |_| {});
        drop(lockfree.pull());
        let mut contenders = Self {
            n,
            object_pool: object_pool::Pool::new(1, move || vec![0u8; n]),
            lockfree,
            opool: opool::Pool::new_prefilled(1, Zeroed(n)),
            opool_local: opool::LocalPool::new_prefilled(1, Zeroed(n)),
            reused: Vec::with_capacity(n),
        };
        for contender in Contender::ALL {
            contenders.run(contender);
        }
        contenders
    }

    /// The buffer size, in bytes.
    pub fn buffer_len(&self) -> usize {
        self.n
    }

    /// `pool::shared().rent(n)`, touched, given back.
    #[inline(always)]
    pub fn shared_pool(&self) -> u8 {
        rent_touch(pool::shared(), self.n)
    }

    /// `object-pool`: `pull` (allocating `vec![0u8; n]` if the pool is empty), touched,
    /// given back when the guard drops.
    #[inline(always)]
    pub fn object_pool(&self) -> u8 {
        let n = self.n;
        let mut buf = self.object_pool.pull(move || vec![0u8; n]);
        touch(&mut buf)
    }

    /// `lockfree-object-pool`: `pull`, touched, given back when the guard drops.
    #[inline(always)]
    pub fn lockfree_object_pool(&self) -> u8 {
        let mut buf = self.lockfree.pull();
        touch(&mut buf)
    }

    /// `opool`: `get`, touched, given back when the guard drops.
    #[inline(always)]
    pub fn opool(&self) -> u8 {
        let mut buf = self.opool.get();
        touch(&mut buf)
    }

    /// `opool`'s `LocalPool`: `get`, touched, given back when the guard drops.
    #[inline(always)]
    pub fn opool_local(&self) -> u8 {
        let mut buf = self.opool_local.get();
        touch(&mut buf)
    }

    /// This thread's `thread_local!` scratch vector, grown to `n` bytes if it is shorter,
    /// its first `n` bytes touched.
    #[inline(always)]
    pub fn thread_local_vec(&self) -> u8 {
        let n = self.n;
        SCRATCH.with_borrow_mut(|scratch| {
            if scratch.len() < n {
                scratch.resize(n, 0);
            }
            touch(&mut scratch[..n])
        })
    }

    /// The caller's own `Vec<u8>`, cleared and touched: no pool at all.
    #[inline(always)]
    pub fn reused_vec(&mut self) -> u8 {
        reused_touch(&mut self.reused, self.n)
    }

    /// A fresh, unzeroed `Vec::with_capacity(n)`, touched and freed.
    #[inline(always)]
    pub fn fresh_unzeroed(&self) -> u8 {
        unzeroed_touch(self.n)
    }

    /// A fresh `vec![0u8; n]`, touched and freed.
    #[inline(always)]
    pub fn fresh_vec(&self) -> u8 {
        fresh_touch(self.n)
    }

    /// One operation of `contender`.
    pub fn run(&mut self, contender: Contender) -> u8 {
        match contender {
            Contender::SharedPool => self.shared_pool(),
            Contender::ObjectPool => self.object_pool(),
            Contender::LockfreeObjectPool => self.lockfree_object_pool(),
            Contender::Opool => self.opool(),
            Contender::OpoolLocal => self.opool_local(),
            Contender::ThreadLocalVec => self.thread_local_vec(),
            Contender::ReusedVec => self.reused_vec(),
            Contender::FreshUnzeroed => self.fresh_unzeroed(),
            Contender::FreshVec => self.fresh_vec(),
        }
    }
}
