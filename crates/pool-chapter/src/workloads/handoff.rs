//! The handoff: 8 KiB rented on one thread and given back on another, through a channel
//! pipeline (P12-handoff). Each pair of threads is a producer, which gets a buffer from its
//! source, touches it and sends it, and a consumer, which touches it again and drops it: the
//! pool's buffer goes back on the consumer's thread and is rented again on the producer's.
//!
//! No thread of a pair ever sleeps in the kernel waiting for the other: a receiver polls its
//! channel and yields its core between tries ([`receive`]), and a channel has room for every
//! batch there is, so a send never waits ([`send`]). A thread that blocks is woken by a system
//! call of the thread that unblocks it, which costs microseconds, far more than an 8 KiB
//! buffer: a blocking pipeline would time the kernel's wake-ups, the same for every source.

use std::hint::black_box;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::sync::{Arc, Barrier, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pool::Rented;

use super::{HIT_BYTES, Source, touch, with_spare_ends};

/// Where the producer of the handoff gets each 8 KiB (P12-handoff).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Handoff {
    /// [`pool::shared`]: rented on the producer's thread, given back on the consumer's.
    SharedPool,
    /// A fresh, unzeroed `Vec::with_capacity(8192)`: allocated on the producer's thread,
    /// freed on the consumer's.
    FreshUnzeroed,
    /// A fresh, zeroed `vec![0u8; 8192]`: allocated and zeroed on the producer's thread,
    /// freed on the consumer's.
    FreshVec,
}

impl Handoff {
    /// Every source, in the order a table lists them.
    pub const ALL: [Handoff; 3] = [Self::SharedPool, Self::FreshUnzeroed, Self::FreshVec];

    /// How a table names it (as P12 names the same source).
    pub fn label(self) -> &'static str {
        match self {
            Self::SharedPool => Source::SharedPool.label(),
            Self::FreshUnzeroed => Source::FreshUnzeroed.label(),
            Self::FreshVec => Source::FreshVec.label(),
        }
    }
}

/// The numbers of producer–consumer pairs of the handoff experiment (P12-handoff) and its
/// criterion bench: 2 and 4 threads.
pub const HANDOFF_PAIRS: [usize; 2] = [1, 2];

/// Items each producer sends in one timed run of the handoff (P12-handoff).
pub const HANDOFF_ITEMS: u64 = 10_000;

/// How many items a producer sends at a time: it fills a batch, sends it, and its consumer
/// empties it and sends the batch back. A channel costs about the same per message whatever the
/// message, so batches keep its cost per item small beside the buffers'.
pub const HANDOFF_BATCH: usize = 8;

/// How many batches circulate in each pair (being filled, in the channel, being emptied): the
/// most buffers in flight is this times [`HANDOFF_BATCH`], 24 per pair, so wherever there are
/// at least as many logical cores as pairs, the shared pool's stack of the bucket (32 buffers
/// per logical core) has room for every buffer of every pair.
pub const HANDOFF_BATCHES: usize = 3;

/// Receives from `rx` without sleeping: tries, and yields the core to another thread while the
/// channel is empty. `None` once every sender is gone and the channel is empty.
///
/// ```
/// use std::sync::mpsc::sync_channel;
/// use pool_chapter::workloads::{receive, send};
///
/// let (tx, rx) = sync_channel(1);
/// std::thread::spawn(move || send(&tx, 7).unwrap());
/// assert_eq!(receive(&rx), Some(7));
/// assert_eq!(receive(&rx), None); // the sender is gone
/// ```
pub fn receive<X>(rx: &Receiver<X>) -> Option<X> {
    loop {
        match rx.try_recv() {
            Ok(x) => return Some(x),
            Err(TryRecvError::Empty) => std::thread::yield_now(),
            Err(TryRecvError::Disconnected) => return None,
        }
    }
}

/// Sends `x` on `tx` without sleeping: tries, and yields the core while the channel is full.
/// Gives `x` back if the receiver is gone.
pub fn send<X>(tx: &SyncSender<X>, mut x: X) -> Result<(), X> {
    loop {
        match tx.try_send(x) {
            Ok(()) => return Ok(()),
            Err(TrySendError::Full(back)) => {
                x = back;
                std::thread::yield_now();
            }
            Err(TrySendError::Disconnected(back)) => return Err(back),
        }
    }
}

/// One 8 KiB buffer on its way from a producer to a consumer.
#[derive(Debug)]
pub enum Item {
    /// Rented from [`pool::shared`].
    Pooled(Rented<'static, u8>),
    /// `vec![0u8; 8192]`.
    Zeroed(Vec<u8>),
    /// `Vec::with_capacity(8192)`, empty: touched through its spare capacity.
    Unzeroed(Vec<u8>),
}

/// The producer's half of one item: 8 KiB from `source`, touched (the chapter's touch: write
/// the first and last byte, read them back). Returns the item and the touch's result.
#[inline]
pub fn produce(source: Handoff) -> (Item, u8) {
    let n = black_box(HIT_BYTES);
    match source {
        Handoff::SharedPool => {
            let mut buf = pool::shared().rent(n);
            let t = touch(&mut buf);
            (Item::Pooled(buf), t)
        }
        Handoff::FreshVec => {
            let mut buf = vec![0u8; n];
            let t = touch(&mut buf);
            (Item::Zeroed(buf), t)
        }
        Handoff::FreshUnzeroed => {
            let mut buf = Vec::with_capacity(n);
            let t = with_spare_ends(&mut buf, n, super::touch_ends).unwrap_or(0);
            (Item::Unzeroed(buf), t)
        }
    }
}

/// The consumer's half: touches the item the same way and drops it (the pool's buffer is given
/// back, a fresh one freed, on this thread).
#[inline]
pub fn consume(item: Item) -> u8 {
    match item {
        Item::Pooled(mut buf) => touch(&mut buf),
        Item::Zeroed(mut buf) => touch(&mut buf),
        Item::Unzeroed(mut buf) => {
            let n = buf.capacity().min(HIT_BYTES);
            with_spare_ends(&mut buf, n, super::touch_ends).unwrap_or(0)
        }
    }
}

/// What one [`HandoffWorkers::run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandoffRun {
    /// Items each consumer received, in pair order.
    pub received: Vec<u64>,
    /// The folded touches of every producer and consumer, so that none can be skipped.
    pub checksum: u8,
    /// From the release of the threads to the end of the last one.
    pub wall: Duration,
}

impl HandoffRun {
    /// Items received by all consumers.
    pub fn total_items(&self) -> u64 {
        self.received.iter().sum()
    }
}

#[derive(Debug, Clone, Copy)]
enum Job {
    Run(Handoff, u64),
    Stop,
}

/// What a pair's two threads report at the end of a run.
#[derive(Debug, Clone, Copy, Default)]
struct Report {
    received: u64,
    checksum: u8,
    panicked: bool,
}

#[derive(Debug)]
struct Crew {
    job: Mutex<Job>,
    start: Barrier,
    done: Barrier,
    reports: Mutex<Vec<Report>>,
}

fn lock<X>(mutex: &Mutex<X>) -> MutexGuard<'_, X> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Producer–consumer pairs kept alive between runs of the handoff (P12-handoff), so that a run
/// — one call to [`run`](Self::run) — is a fixed amount of work to time: releasing the waiting
/// threads, every producer sending its items and every consumer dropping them, and waiting for
/// the last one. Spawning and joining are not part of it.
///
/// A first run includes first-use costs (each thread's cache, the pool's first buffers): run
/// once to warm up before measuring.
///
/// ```
/// use pool_chapter::workloads::{Handoff, HandoffWorkers};
///
/// let pairs = HandoffWorkers::new(2);
/// pairs.run(Handoff::SharedPool, 10); // warm-up
/// let run = pairs.run(Handoff::SharedPool, 1_000);
/// assert_eq!((run.received.len(), run.total_items()), (2, 2_000));
/// ```
#[derive(Debug)]
pub struct HandoffWorkers {
    crew: Arc<Crew>,
    handles: Vec<JoinHandle<()>>,
}

impl HandoffWorkers {
    /// Spawns `pairs` producer–consumer pairs (at least 1), waiting for a job.
    pub fn new(pairs: usize) -> Self {
        Self::with_each_thread(pairs, || ())
    }

    /// Like [`new`](Self::new), and each thread calls `setup` once, before its first job, and
    /// keeps what it returns until it stops (the experiment switches the counting allocator
    /// off on every thread this way, as a timed run does on its own thread).
    pub fn with_each_thread<G: 'static>(pairs: usize, setup: fn() -> G) -> Self {
        let pairs = pairs.max(1);
        let crew = Arc::new(Crew {
            job: Mutex::new(Job::Stop),
            start: Barrier::new(2 * pairs + 1),
            done: Barrier::new(2 * pairs + 1),
            reports: Mutex::new(vec![Report::default(); 2 * pairs]),
        });
        let mut handles = Vec::with_capacity(2 * pairs);
        for pair in 0..pairs {
            // Full batches go one way, empty ones come back; neither channel allocates per
            // message, and the batches are made here, once. Each channel has room for every
            // batch, so that a send never waits.
            let (full, from_producer) = sync_channel(HANDOFF_BATCHES);
            let (empty, from_consumer) = sync_channel(HANDOFF_BATCHES);
            for _ in 0..HANDOFF_BATCHES {
                let _ = empty.send(Vec::with_capacity(HANDOFF_BATCH));
            }
            let producer_crew = Arc::clone(&crew);
            handles.push(std::thread::spawn(move || {
                let _kept = setup();
                producer(&producer_crew, 2 * pair, &from_consumer, &full);
            }));
            let consumer_crew = Arc::clone(&crew);
            handles.push(std::thread::spawn(move || {
                let _kept = setup();
                consumer(&consumer_crew, 2 * pair + 1, &from_producer, &empty);
            }));
        }
        Self { crew, handles }
    }

    /// How many producer–consumer pairs there are.
    pub fn pairs(&self) -> usize {
        self.handles.len() / 2
    }

    /// Every producer sends `items` items from `source` to its consumer, all pairs at once;
    /// returns when the last consumer has dropped its last item.
    ///
    /// # Panics
    /// If a producer or a consumer panicked during the run (none of the sources does).
    pub fn run(&self, source: Handoff, items: u64) -> HandoffRun {
        *lock(&self.crew.job) = Job::Run(source, items);
        let begin = Instant::now();
        self.crew.start.wait();
        self.crew.done.wait();
        let wall = begin.elapsed();
        let reports = lock(&self.crew.reports).clone();
        if let Some(thread) = reports.iter().position(|r| r.panicked) {
            panic!("handoff thread {thread} panicked during its run");
        }
        HandoffRun {
            received: reports
                .iter()
                .skip(1)
                .step_by(2)
                .map(|r| r.received)
                .collect(),
            checksum: reports.iter().fold(0, |c, r| c ^ r.checksum),
            wall,
        }
    }
}

impl Drop for HandoffWorkers {
    fn drop(&mut self) {
        *lock(&self.crew.job) = Job::Stop;
        self.crew.start.wait();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

/// A batch of items.
type Batch = Vec<Item>;

/// A producer's life: for each job, `items` items made and sent in batches of
/// [`HANDOFF_BATCH`], then an empty batch as the end marker (sent even if making an item
/// panicked, so that its consumer never waits for items that will not come).
fn producer(crew: &Crew, me: usize, empties: &Receiver<Batch>, to_consumer: &SyncSender<Batch>) {
    loop {
        crew.start.wait();
        let Job::Run(source, items) = *lock(&crew.job) else {
            return;
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut checksum = 0u8;
            let mut left = items;
            while left > 0 {
                let Some(mut batch) = receive(empties) else {
                    break;
                };
                while left > 0 && batch.len() < HANDOFF_BATCH {
                    let (item, t) = produce(source);
                    checksum ^= t;
                    batch.push(item);
                    left -= 1;
                }
                if send(to_consumer, batch).is_err() {
                    break;
                }
            }
            black_box(checksum)
        }));
        let end = receive(empties).unwrap_or_default();
        let _ = send(to_consumer, end);
        lock(&crew.reports)[me] = Report {
            received: 0,
            panicked: outcome.is_err(),
            checksum: outcome.unwrap_or(0),
        };
        crew.done.wait();
    }
}

/// A consumer's life: for each job, every item of every batch touched and dropped, each batch
/// sent back empty, until the empty batch that ends the run.
fn consumer(crew: &Crew, me: usize, from_producer: &Receiver<Batch>, empties: &SyncSender<Batch>) {
    loop {
        crew.start.wait();
        if let Job::Stop = *lock(&crew.job) {
            return;
        }
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (mut received, mut checksum) = (0u64, 0u8);
            while let Some(mut batch) = receive(from_producer) {
                let end = batch.is_empty();
                for item in batch.drain(..) {
                    checksum ^= consume(item);
                    received += 1;
                }
                let _ = send(empties, batch);
                if end {
                    break;
                }
            }
            (received, black_box(checksum))
        }));
        lock(&crew.reports)[me] = match outcome {
            Ok((received, checksum)) => Report {
                received,
                checksum,
                panicked: false,
            },
            Err(_) => Report {
                panicked: true,
                ..Report::default()
            },
        };
        crew.done.wait();
    }
}
