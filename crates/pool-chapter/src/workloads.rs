//! The chapter's workloads, one function each, called by the experiments, the criterion bench
//! and the tests (so the three always measure the same code).
//!
//! The domain is the .NET chapter's: an order line such as `1042|ต้มยำกุ้ง|2|18000\n` encoded as
//! UTF-8 into a 128-byte buffer, once per line. The contention workload (P12) and the
//! comparison with other pool crates (P13) rent, touch and give back 8 KiB, like the hit path
//! of P10.

use std::hint::black_box;
use std::mem::MaybeUninit;
use std::sync::{Arc, Barrier, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pool::{BufferPool, ClearPolicy, PoolConfig, Rented, VecPool};

/// The seed's first order line: 41 bytes of UTF-8 (the dish name is 9 characters, 27 bytes).
pub const FIRST_LINE: &str = "1042|ต้มยำกุ้ง|2|18000\n";
/// The seed's second, shorter order line: 25 bytes.
pub const SECOND_LINE: &str = "7|ส้มตำ|1|6000\n";
/// The per-line buffer of the .NET chapter.
pub const LINE_BUFFER: usize = 128;

/// Copies `line` into the front of `buf` and hides the result from the optimiser; returns a
/// value derived from the bytes written, so the work cannot be deleted.
#[inline(always)]
pub fn encode_line(buf: &mut [u8], line: &str) -> u8 {
    let bytes = line.as_bytes();
    let n = bytes.len().min(buf.len());
    buf[..n].copy_from_slice(&bytes[..n]);
    let buf = black_box(buf);
    buf[0] ^ buf[n - 1]
}

/// One line through a fresh zeroed 128-byte heap buffer (what the .NET chapter's loop did).
pub fn line_fresh(line: &str) -> u8 {
    let mut buf = vec![0u8; LINE_BUFFER];
    encode_line(&mut buf, line)
}

/// One line through a 128-byte buffer rented from `pool` and given back.
pub fn line_pooled(pool: &BufferPool<u8>, line: &str) -> u8 {
    let mut buf = pool.rent(LINE_BUFFER);
    encode_line(&mut buf, line)
}

/// One line through a 128-byte stack array.
pub fn line_stack(line: &str) -> u8 {
    let mut buf = [0u8; LINE_BUFFER];
    encode_line(black_box(&mut buf), line)
}

/// `n` lines through `per_line`, folding the results so none can be skipped.
pub fn lines(n: usize, mut per_line: impl FnMut(&str) -> u8) -> u8 {
    (0..n).fold(0u8, |acc, _| acc ^ per_line(black_box(FIRST_LINE)))
}

/// The one touch every timed buffer gets, whatever holds it: write the first and the last
/// byte, hide both from the optimiser, read them back (the seed's `Touch`). The reads go through
/// references the optimiser cannot see through, so they are real loads for every buffer: the
/// timed ways to get a buffer differ only in how they reach it.
#[inline(always)]
pub fn touch_ends(first: &mut u8, last: &mut u8) -> u8 {
    *first = 1;
    *last = 2;
    let (first, last) = black_box((first, last));
    *first ^ *last
}

/// [`touch_ends`] on a buffer's first and last byte (a buffer of fewer than two bytes gets no
/// touch: 0).
#[inline(always)]
pub fn touch(buf: &mut [u8]) -> u8 {
    match buf {
        [first, .., last] => touch_ends(first, last),
        _ => 0,
    }
}

/// The buffer sizes of the size experiment (P10) and its criterion bench: seed `003`'s decades
/// from 100 bytes to 10 MB, plus 2 KiB and 8 KiB, the sizes chapter 2 measures.
pub const P10_SIZES: [usize; 8] = [
    100, 1000, 2048, 8192, 10_000, 100_000, 1_000_000, 10_000_000,
];

/// A pool like seed `003`'s `ArrayPool.Create(n + 1, 10)`: sized for requests of `n` bytes (its
/// largest bucket is `n` rounded up to a power of two), 10 buffers per bucket (P10).
pub fn pool_sized_for(n: usize) -> BufferPool<u8> {
    BufferPool::new(PoolConfig {
        max_len: n,
        max_per_bucket: 10,
        ..PoolConfig::default()
    })
}

/// Runs `f` on a fresh zeroed heap buffer of `n` bytes, freed afterwards.
#[inline(always)]
pub fn with_fresh<R>(n: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = vec![0u8; n];
    f(&mut buf)
}

/// A fresh zeroed heap buffer of `n` bytes, touched and freed.
pub fn fresh_touch(n: usize) -> u8 {
    with_fresh(n, touch)
}

/// A buffer of `n` bytes rented from `pool`, touched and given back: the hit path of P10 and
/// P13. Inlined into its caller, as a rent is into the code that makes it, so that what a
/// batch loop counts is the rent, the touch and the give-back, not a call to this function.
#[inline(always)]
pub fn rent_touch(pool: &BufferPool<u8>, n: usize) -> u8 {
    touch(&mut pool.rent(n))
}

/// The hit path with one bounds check more: the rented buffer sliced again to a length the
/// optimiser cannot see (`buf[..len]`), touched, given back. The guard's own view skips that
/// check; P10-hit counts what it would cost.
#[inline(always)]
pub fn rent_touch_checked(pool: &BufferPool<u8>, n: usize) -> u8 {
    let mut buf = pool.rent(n);
    let len = black_box(buf.len());
    touch(&mut buf[..len])
}

/// Runs `f` on a zeroed stack array of `N` bytes. The array goes through `black_box` first, so
/// the zeroing is real: the optimiser cannot know which bytes `f` reads.
#[inline(always)]
pub fn with_zeroed_stack<const N: usize, R>(f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = [0u8; N];
    f(black_box(&mut buf))
}

/// A zeroed stack array of `N` bytes, touched.
pub fn zeroed_stack_touch<const N: usize>() -> u8 {
    with_zeroed_stack::<N, _>(touch)
}

/// Runs `f` on the first and last byte of an unzeroed stack array of `N` bytes
/// (`MaybeUninit`), each written (with 0) before `f` sees it, so no byte is read before it is
/// written and no `unsafe` is needed. For fewer than two bytes `f` does not run (`None`).
#[inline(always)]
pub fn with_unzeroed_stack_ends<const N: usize, R>(
    f: impl FnOnce(&mut u8, &mut u8) -> R,
) -> Option<R> {
    let mut buf = [const { MaybeUninit::<u8>::uninit() }; N];
    match &mut black_box(&mut buf)[..] {
        [first, .., last] => Some(f(first.write(0), last.write(0))),
        _ => None,
    }
}

/// An unzeroed stack array of `N` bytes, touched the same way as every other buffer.
pub fn uninit_stack_touch<const N: usize>() -> u8 {
    with_unzeroed_stack_ends::<N, _>(touch_ends).unwrap_or(0)
}

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
    let pool = BufferPool::<u8>::new(PoolConfig {
        clear,
        ..PoolConfig::default()
    });
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

/// The error a line can fail with in the error-path workloads (P6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineError;

/// Encodes a line into a rented buffer and fails when asked: the guard gives the buffer back
/// on the `?` early return.
pub fn line_or_error(pool: &BufferPool<u8>, fail: bool) -> Result<u8, LineError> {
    let mut buf = pool.rent(LINE_BUFFER);
    let sum = encode_line(&mut buf, FIRST_LINE);
    check(fail)?;
    Ok(sum)
}

/// The same, but the error path calls `mem::forget` on the guard — the Rust spelling of the
/// .NET bug of returning only on the happy path. Safe, and the buffer is never given back.
pub fn line_or_error_forgetting(pool: &BufferPool<u8>, fail: bool) -> Result<u8, LineError> {
    let mut buf = pool.rent(LINE_BUFFER);
    let sum = encode_line(&mut buf, FIRST_LINE);
    if check(fail).is_err() {
        std::mem::forget(buf);
        return Err(LineError);
    }
    Ok(sum)
}

/// The same, but failing by panicking: the guard gives the buffer back during unwinding.
pub fn line_or_panic(pool: &BufferPool<u8>, fail: bool) -> u8 {
    let mut buf = pool.rent(LINE_BUFFER);
    let sum = encode_line(&mut buf, FIRST_LINE);
    if black_box(fail) {
        std::panic::panic_any(LineError);
    }
    sum
}

#[inline(never)]
fn check(fail: bool) -> Result<(), LineError> {
    if black_box(fail) {
        Err(LineError)
    } else {
        Ok(())
    }
}

/// Rents `k` buffers of `len` at once into `held`, then gives them all back (P7): one round.
/// `held` is the caller's, so its own storage is allocated once, not every round.
pub fn rent_many<'p>(
    pool: &'p BufferPool<u8>,
    held: &mut Vec<Rented<'p, u8>>,
    k: usize,
    len: usize,
) -> u8 {
    held.extend((0..k).map(|_| pool.rent(len)));
    let sum = held.iter().fold(0u8, |acc, b| acc ^ b[0]);
    held.clear();
    sum
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
    let pool = BufferPool::<u8>::new(PoolConfig {
        clear,
        ..PoolConfig::default()
    });
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

/// The buffer size of the contention workload (P12) and of the hit path: 8 KiB.
pub const HIT_BYTES: usize = 8192;

/// The buffer sizes of the comparison with other pool crates (P13) and its criterion bench: the
/// order line's 128 bytes and the hit path's 8 KiB.
pub const P13_SIZES: [usize; 2] = [LINE_BUFFER, HIT_BYTES];

/// Where each operation of the contention workload gets its 8 KiB (P12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// [`pool::shared`]: each thread's cache in front of the shared stacks.
    SharedPool,
    /// A fresh `vec![0u8; 8192]` per operation: the allocator (and its own per-thread caches).
    FreshVec,
    /// A pool like the shared one but without thread caches (`thread_cache_max_len: 0`): every rent
    /// and give-back takes the bucket's lock, which all threads share.
    NoThreadCache,
}

impl Source {
    /// Every source, in the order a table lists them.
    pub const ALL: [Source; 3] = [Self::SharedPool, Self::FreshVec, Self::NoThreadCache];

    /// How a table names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::SharedPool => "`pool::shared()`",
            Self::FreshVec => "fresh `vec![0u8; 8192]`",
            Self::NoThreadCache => "pool without thread cache",
        }
    }
}

/// The thread counts of the contention experiment (P12) and its criterion bench.
pub const CONTENTION_THREADS: [usize; 3] = [1, 2, 4];

/// Operations each worker does in one timed run of the contention experiment (P12): enough
/// that releasing and waiting for the workers is a small part of a run.
pub const CONTENTION_OPS: u64 = 20_000;

/// One thread's share of a contention run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadRun {
    /// Operations done (rent or allocate 8 KiB, touch, give back or free).
    pub ops: u64,
    /// Time from this thread's first operation to the end of its last.
    pub elapsed: Duration,
    /// The folded results of its touches, so that none can be skipped.
    pub checksum: u8,
}

/// What one [`ContentionWorkers::run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentionRun {
    /// Each worker thread's share, in worker order.
    pub threads: Vec<ThreadRun>,
    /// From the release of the workers to the end of the last one.
    pub wall: Duration,
}

impl ContentionRun {
    /// Operations done by all threads.
    pub fn total_ops(&self) -> u64 {
        self.threads.iter().map(|t| t.ops).sum()
    }
}

/// A job for the workers: run `ops` operations from a source, or stop.
#[derive(Debug, Clone, Copy)]
enum Job {
    Run(Source, u64),
    Stop,
}

/// What the workers and their owner share.
#[derive(Debug)]
struct Crew {
    job: Mutex<Job>,
    /// Every worker and the owner meet here to start a job, and again when it is done.
    start: Barrier,
    done: Barrier,
    results: Mutex<Vec<Option<ThreadRun>>>,
    no_cache: BufferPool<u8>,
}

/// A set of worker threads kept alive between runs of the contention workload (P12), so that a
/// run — one call to [`run`](Self::run) — is a fixed amount of work to time: releasing the
/// waiting workers, each doing its operations, and waiting for the last one. Spawning and
/// joining the threads are not part of it.
///
/// A worker's first run includes its first-use costs (its cache for the pool, its first
/// buffer): run once to warm up before measuring.
///
/// ```
/// use pool_chapter::workloads::{ContentionWorkers, Source};
///
/// let workers = ContentionWorkers::new(2);
/// workers.run(Source::SharedPool, 10); // warm-up
/// let run = workers.run(Source::SharedPool, 1_000);
/// assert_eq!((run.threads.len(), run.total_ops()), (2, 2_000));
/// ```
#[derive(Debug)]
pub struct ContentionWorkers {
    crew: Arc<Crew>,
    handles: Vec<JoinHandle<()>>,
}

impl ContentionWorkers {
    /// Spawns `threads` workers (at least 1), waiting for a job. Also creates the pool without
    /// thread caches that [`Source::NoThreadCache`] rents from: the shared pool's configuration
    /// with `thread_cache_max_len: 0`.
    pub fn new(threads: usize) -> Self {
        Self::with_each_worker(threads, || ())
    }

    /// Like [`new`](Self::new), and each worker calls `setup` once, before its first job, and
    /// keeps what it returns until it stops. The experiments switch the counting allocator off
    /// on every worker this way (`lab::alloc::pause`), as a timed run does on its own thread, so
    /// that a fresh `vec!` on a worker costs the allocator's time, not the instrument's.
    pub fn with_each_worker<G: 'static>(threads: usize, setup: fn() -> G) -> Self {
        let threads = threads.max(1);
        let crew = Arc::new(Crew {
            job: Mutex::new(Job::Stop),
            start: Barrier::new(threads + 1),
            done: Barrier::new(threads + 1),
            results: Mutex::new(vec![None; threads]),
            no_cache: BufferPool::new(PoolConfig {
                thread_cache_max_len: 0,
                ..pool::shared_config()
            }),
        });
        let handles = (0..threads)
            .map(|worker| {
                let crew = Arc::clone(&crew);
                std::thread::spawn(move || {
                    let _kept = setup();
                    work(&crew, worker);
                })
            })
            .collect();
        Self { crew, handles }
    }

    /// How many worker threads there are.
    pub fn threads(&self) -> usize {
        self.handles.len()
    }

    /// The pool [`Source::NoThreadCache`] rents from (for its stats).
    pub fn no_cache_pool(&self) -> &BufferPool<u8> {
        &self.crew.no_cache
    }

    /// Every worker does `ops_per_thread` operations from `source` at the same time; returns
    /// when the last one is done.
    ///
    /// # Panics
    /// If a worker panicked during its operations (none of the sources does).
    pub fn run(&self, source: Source, ops_per_thread: u64) -> ContentionRun {
        *lock(&self.crew.job) = Job::Run(source, ops_per_thread);
        let begin = Instant::now();
        self.crew.start.wait();
        self.crew.done.wait();
        let wall = begin.elapsed();
        let threads = lock(&self.crew.results)
            .iter_mut()
            .enumerate()
            .map(|(worker, result)| match result.take() {
                Some(run) => run,
                None => panic!("contention worker {worker} panicked during its operations"),
            })
            .collect();
        ContentionRun { threads, wall }
    }

    /// One operation from `source` on the calling thread: what each worker repeats (for
    /// counting allocations on one thread, for example).
    pub fn op(&self, source: Source) -> u8 {
        contention_op(source, &self.crew.no_cache)
    }
}

impl Drop for ContentionWorkers {
    fn drop(&mut self) {
        *lock(&self.crew.job) = Job::Stop;
        self.crew.start.wait();
        for handle in self.handles.drain(..) {
            // A worker that panicked has already reported it; there is nothing to add here.
            let _ = handle.join();
        }
    }
}

/// Locks the crew's job or results. Every critical section is one read or one write, so a panic
/// elsewhere while the lock was held cannot have left them half written.
fn lock<X>(mutex: &Mutex<X>) -> MutexGuard<'_, X> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A worker's life: wait for a job, do it, report, until told to stop.
fn work(crew: &Crew, worker: usize) {
    loop {
        crew.start.wait();
        let Job::Run(source, ops) = *lock(&crew.job) else {
            return;
        };
        // A panic must not leave the others waiting at the barrier: it is caught here and
        // reported by `run`.
        let outcome = std::panic::catch_unwind(|| {
            let begin = Instant::now();
            let mut checksum = 0u8;
            for _ in 0..ops {
                checksum ^= contention_op(source, &crew.no_cache);
            }
            ThreadRun {
                ops,
                elapsed: begin.elapsed(),
                checksum: black_box(checksum),
            }
        });
        lock(&crew.results)[worker] = outcome.ok();
        crew.done.wait();
    }
}

/// One operation of the contention workload: 8 KiB from `source` (`no_cache` is the pool of
/// [`Source::NoThreadCache`]), touched, and given back or freed.
#[inline]
pub fn contention_op(source: Source, no_cache: &BufferPool<u8>) -> u8 {
    match source {
        Source::SharedPool => rent_touch(pool::shared(), black_box(HIT_BYTES)),
        Source::FreshVec => fresh_touch(black_box(HIT_BYTES)),
        Source::NoThreadCache => rent_touch(no_cache, black_box(HIT_BYTES)),
    }
}

/// Runs the contention workload once on fresh workers (spawned and joined around the run, so
/// not for timing: use [`ContentionWorkers`] for that).
pub fn contention(source: Source, threads: usize, ops_per_thread: u64) -> ContentionRun {
    ContentionWorkers::new(threads).run(source, ops_per_thread)
}

pub use comparison::{Contender, Contenders};

/// P13: the same rent, touch and give-back with what a Rust user would pick instead of the
/// `pool` crate.
mod comparison {
    use std::cell::RefCell;

    use super::{fresh_touch, rent_touch, touch};

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
        /// No pool: the caller owns one `Vec<u8>` and passes it down.
        ReusedVec,
        /// No pool: a fresh `vec![0u8; n]` each time.
        FreshVec,
    }

    impl Contender {
        /// Every contender, in the order a table lists them.
        pub const ALL: [Contender; 8] = [
            Self::SharedPool,
            Self::ObjectPool,
            Self::LockfreeObjectPool,
            Self::Opool,
            Self::OpoolLocal,
            Self::ThreadLocalVec,
            Self::ReusedVec,
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
                Self::ReusedVec => "one reused `Vec<u8>`",
                Self::FreshVec => "fresh `vec![0u8; n]`",
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
            let lockfree =
                lockfree_object_pool::LinearObjectPool::new(move || vec![0u8; n], |_| {});
            drop(lockfree.pull());
            let mut contenders = Self {
                n,
                object_pool: object_pool::Pool::new(1, move || vec![0u8; n]),
                lockfree,
                opool: opool::Pool::new_prefilled(1, Zeroed(n)),
                opool_local: opool::LocalPool::new_prefilled(1, Zeroed(n)),
                reused: vec![0u8; n],
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

        /// The caller's own `Vec<u8>`, touched: no pool at all.
        #[inline(always)]
        pub fn reused_vec(&mut self) -> u8 {
            touch(&mut self.reused)
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
                Contender::FreshVec => self.fresh_vec(),
            }
        }
    }
}
