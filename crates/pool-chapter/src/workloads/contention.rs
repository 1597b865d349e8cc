//! Contention: worker threads renting, touching and giving back 8 KiB at once, from the shared
//! pool, from each worker's own reused `Vec`, from the allocator (a fresh buffer, unzeroed or
//! zeroed) or from a pool without thread caches (P12).

use std::hint::black_box;
use std::sync::{Arc, Barrier, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pool::BufferPool;

use super::{HIT_BYTES, fresh_touch, rent_touch, reused_touch, unzeroed_touch};

/// Where each operation of the contention workload gets its 8 KiB (P12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// One `Vec<u8>` each worker owns, made with `Vec::with_capacity(8192)` before its first
    /// job, `clear()` and `reserve(8192)` per operation, touched through its spare capacity
    /// ([`reused_touch`](super::reused_touch)): no allocator, no pool.
    Reused,
    /// [`pool::shared`]: each thread's cache in front of the shared stacks.
    SharedPool,
    /// A fresh, unzeroed `Vec::with_capacity(8192)` per operation, touched through its spare
    /// capacity ([`unzeroed_touch`](super::unzeroed_touch)): the allocation alone.
    FreshUnzeroed,
    /// A fresh, zeroed `vec![0u8; 8192]` per operation: the allocator (and its own per-thread
    /// caches) and the zeroing of 8 KiB.
    FreshVec,
    /// A pool like the shared one but without thread caches (`thread_cache_max_len: 0`): every rent
    /// and give-back takes the bucket's lock, which all threads share.
    NoThreadCache,
}

impl Source {
    /// Every source, in the order a table lists them.
    pub const ALL: [Source; 5] = [
        Self::Reused,
        Self::SharedPool,
        Self::FreshUnzeroed,
        Self::FreshVec,
        Self::NoThreadCache,
    ];

    /// How a table names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Reused => "one reused `Vec<u8>` per thread (`clear()` per use)",
            Self::SharedPool => "`pool::shared()`",
            Self::FreshUnzeroed => "fresh, unzeroed `Vec::with_capacity(8192)`",
            Self::FreshVec => "fresh, zeroed `vec![0u8; 8192]`",
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
            no_cache: BufferPool::new(pool::shared_config().with_thread_cache_max_len(0)),
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
    /// counting allocations on one thread, for example). `reused` is the calling thread's own
    /// buffer for [`Source::Reused`], as each worker has one.
    pub fn op(&self, source: Source, reused: &mut Vec<u8>) -> u8 {
        contention_op(source, &self.crew.no_cache, reused)
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

/// A worker's life: wait for a job, do it, report, until told to stop. Its reused buffer is
/// made once, here, before its first job, outside every timed loop.
fn work(crew: &Crew, worker: usize) {
    let mut reused = Vec::with_capacity(HIT_BYTES);
    loop {
        crew.start.wait();
        let Job::Run(source, ops) = *lock(&crew.job) else {
            return;
        };
        // A panic must not leave the others waiting at the barrier: it is caught here and
        // reported by `run`.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let begin = Instant::now();
            let mut checksum = 0u8;
            for _ in 0..ops {
                checksum ^= contention_op(source, &crew.no_cache, &mut reused);
            }
            ThreadRun {
                ops,
                elapsed: begin.elapsed(),
                checksum: black_box(checksum),
            }
        }));
        lock(&crew.results)[worker] = outcome.ok();
        crew.done.wait();
    }
}

/// One operation of the contention workload: 8 KiB from `source` (`no_cache` is the pool of
/// [`Source::NoThreadCache`], `reused` the calling thread's buffer of [`Source::Reused`]),
/// touched, and given back, freed or kept.
#[inline]
pub fn contention_op(source: Source, no_cache: &BufferPool<u8>, reused: &mut Vec<u8>) -> u8 {
    match source {
        Source::Reused => reused_touch(reused, black_box(HIT_BYTES)),
        Source::SharedPool => rent_touch(pool::shared(), black_box(HIT_BYTES)),
        Source::FreshUnzeroed => unzeroed_touch(black_box(HIT_BYTES)),
        Source::FreshVec => fresh_touch(black_box(HIT_BYTES)),
        Source::NoThreadCache => rent_touch(no_cache, black_box(HIT_BYTES)),
    }
}

/// Runs the contention workload once on fresh workers (spawned and joined around the run, so
/// not for timing: use [`ContentionWorkers`] for that).
pub fn contention(source: Source, threads: usize, ops_per_thread: u64) -> ContentionRun {
    ContentionWorkers::new(threads).run(source, ops_per_thread)
}
