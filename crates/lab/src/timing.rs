//! Paired timing with twins, a floor, interleaved rounds and replicas (experiments M3–M5, M8).
//!
//! The one way to time things in this workspace. Register the methods of one table, each a
//! closure over a prepared input; every method is given a **twin** automatically, a second,
//! separately monomorphised `#[inline(never)]` copy of the batch loop with the closure inlined
//! into it (the two copies differ by one constant so LLVM cannot merge them: their code
//! addresses are reported). The table's **floor** does the same touch on an existing buffer, so
//! the harness's own cost is visible. Methods run **interleaved round-robin** (a batch of A, a
//! batch of A′, a batch of B, …, for a few hundred rounds, the starting method rotating each
//! round) so that drift on a noisy machine hits every method alike.
//!
//! Under `cargo xtask report`, the same experiment runs in several independent processes; the
//! last one's [`Timing::run`] returns a [`Measured`] holding every process's figures (see
//! [`crate::protocol`]), and [`crate::publish`] decides what may be printed.
//!
//! ```
//! use std::hint::black_box;
//! use lab::timing::{Config, Schedule, Timing};
//!
//! let existing = vec![0u8; 2048];
//! let mut timing = Timing::new(Config::smoke());
//! timing.floor("touch an existing buffer", || black_box(&existing)[2047]);
//! timing.method("vec![0u8; 2048]", || black_box(vec![0u8; 2048])[2047]);
//! let measured = timing.run(Schedule::Interleaved);
//!
//! let heap = measured.expect("vec![0u8; 2048]");
//! assert!(heap.median_ns() > 0.0);
//! // The publish rule decides whether a difference may be printed.
//! match measured.difference("vec![0u8; 2048]", "touch an existing buffer") {
//!     lab::publish::Verdict::Published(ns) => println!("heap costs {ns:.1} ns over the floor"),
//!     lab::publish::Verdict::NotResolvable { .. } => println!("not resolvable"),
//! }
//! ```

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::callgrind;
use crate::fmt::{format_nanos, thousands};
use crate::protocol::{self, Allocator, ProcessRole, RunKey, Settings};
use crate::publish::{self, Figures, Pair, RATIO_PRECISION, Verdict};
use crate::table::{Cell, Claim, Kind, Table, TwinRecord};

/// No timed method of a full report gets fewer measured rounds than this.
pub const MIN_ROUNDS: usize = 100;

/// How long to measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The duration one batch of one method aims for (the batch size is calibrated to it; an
    /// operation slower than this runs once per batch).
    pub batch_target: Duration,
    /// Rounds discarded before measuring.
    pub warmup_rounds: usize,
    /// Measured rounds: every method and twin runs one batch per round.
    pub rounds: usize,
    /// After an interleaved run, count each copy's instructions under callgrind (final process
    /// of a report only: the counts are deterministic).
    pub count_instructions: bool,
}

impl Config {
    /// The report's default.
    pub fn full() -> Self {
        Config {
            batch_target: Duration::from_micros(200),
            warmup_rounds: 10,
            rounds: 151,
            count_instructions: true,
        }
    }

    /// `--quick`: a fraction of a second per table, for smoke runs (never the docs' figures).
    pub fn quick() -> Self {
        Config {
            batch_target: Duration::from_micros(100),
            warmup_rounds: 5,
            rounds: 41,
            count_instructions: false,
        }
    }

    /// For doctests and unit tests: as short as can still exercise every code path.
    pub fn smoke() -> Self {
        Config {
            batch_target: Duration::from_micros(20),
            warmup_rounds: 1,
            rounds: 5,
            count_instructions: false,
        }
    }

    /// The configuration for the report's settings.
    pub fn for_settings(settings: &Settings) -> Self {
        if settings.quick {
            Self::quick()
        } else {
            Self::full()
        }
    }

    /// The same configuration without instruction counts (for tables that would need a
    /// callgrind child per size and copy; say so in the table's notes).
    pub fn without_instructions(mut self) -> Self {
        self.count_instructions = false;
        self
    }
}

/// In which order the batches run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Schedule {
    /// Round-robin: one batch of each method and twin per round, the start rotating. The default.
    Interleaved,
    /// Every round of one method, then every round of the next (the way criterion runs
    /// benchmarks). Only for showing why the interleaved schedule exists.
    Sequential,
}

/// Whether a method is measured for itself or is the table's floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// A method under test.
    Method,
    /// The reference: the same touch on an existing buffer, showing the harness's own cost.
    Floor,
}

/// Runs `iters` calls of one copy of a method and returns the elapsed nanoseconds.
type Runner<'a> = Box<dyn FnMut(u64) -> u64 + 'a>;

/// Two copies of a closure expression: `lab::twins!(move || work(x))` is
/// `(move || work(x), move || work(x))`, two closures of two types. Registered with
/// [`Timing::method_pair`], each is called from one batch loop only, so the optimiser treats the
/// original and the twin alike: inlined into each (its own copy of the measured code) or called in
/// each. With [`Timing::method`] one closure type serves both copies, and a body too large to
/// inline into two callers becomes one out-of-line function both copies call, at one address. The
/// closure may capture only what it can capture twice (references, `Copy` values).
#[macro_export]
macro_rules! twins {
    ($closure:expr) => {
        ($closure, $closure)
    };
}

/// The batch loop. `COPY` makes the original (0) and the twin (1) two monomorphisations, and
/// `black_box(COPY)` makes their code differ, so function merging cannot fold them into one.
#[inline(never)]
fn batch<F: FnMut() -> R, R, const COPY: u8>(f: &mut F, iters: u64) -> u64 {
    black_box(COPY);
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    start.elapsed().as_nanos() as u64
}

fn runner<'a, F, R, const COPY: u8>(mut f: F) -> (Runner<'a>, usize)
where
    F: FnMut() -> R + 'a,
{
    let address = batch::<F, R, COPY> as fn(&mut F, u64) -> u64 as usize;
    (
        Box::new(move |iters| batch::<F, R, COPY>(&mut f, iters)),
        address,
    )
}

struct Entry<'a> {
    name: String,
    role: Role,
    runners: [Runner<'a>; 2],
    addresses: [usize; 2],
}

/// The methods of one timed table, before they run.
pub struct Timing<'a> {
    config: Config,
    entries: Vec<Entry<'a>>,
}

impl std::fmt::Debug for Timing<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.entries.iter().map(|e| e.name.as_str()).collect();
        f.debug_struct("Timing")
            .field("config", &self.config)
            .field("methods", &names)
            .finish()
    }
}

impl<'a> Timing<'a> {
    /// An empty table of methods.
    pub fn new(config: Config) -> Self {
        Timing {
            config,
            entries: Vec::new(),
        }
    }

    /// Registers a method and, automatically, its twin. `f` is called once per operation; its
    /// result goes through `black_box`. Put `black_box` on the inputs inside `f`.
    ///
    /// # Panics
    /// If a method of that name is already registered.
    pub fn method<F, R>(&mut self, name: &str, f: F) -> &mut Self
    where
        F: FnMut() -> R + Clone + 'a,
    {
        self.push(name, Role::Method, f)
    }

    /// Registers the table's floor (and its twin).
    ///
    /// # Panics
    /// If the table already has a floor.
    pub fn floor<F, R>(&mut self, name: &str, f: F) -> &mut Self
    where
        F: FnMut() -> R + Clone + 'a,
    {
        self.push(name, Role::Floor, f)
    }

    /// Registers a method whose twin the caller supplies: `original` and `twin` must do the same
    /// work through two separate copies of the measured code (for example `work::<0>` and
    /// `work::<1>` of an `#[inline(never)]` function generic over a `const COPY: u8` that it
    /// passes to `black_box`). Use it when the measured code is a function of its own, not
    /// inlined into the closure: [`Timing::method`]'s twin copies only the batch loop and the
    /// closure, so both copies would call the same function at the same address.
    ///
    /// # Panics
    /// If a method of that name is already registered.
    pub fn method_pair<F0, F1, R>(&mut self, name: &str, original: F0, twin: F1) -> &mut Self
    where
        F0: FnMut() -> R + 'a,
        F1: FnMut() -> R + 'a,
    {
        self.insert(name, Role::Method, original, twin)
    }

    /// Registers the table's floor with a twin the caller supplies (see [`Timing::method_pair`]).
    ///
    /// # Panics
    /// If the table already has a floor.
    pub fn floor_pair<F0, F1, R>(&mut self, name: &str, original: F0, twin: F1) -> &mut Self
    where
        F0: FnMut() -> R + 'a,
        F1: FnMut() -> R + 'a,
    {
        self.insert(name, Role::Floor, original, twin)
    }

    fn push<F, R>(&mut self, name: &str, role: Role, f: F) -> &mut Self
    where
        F: FnMut() -> R + Clone + 'a,
    {
        self.insert(name, role, f.clone(), f)
    }

    fn insert<F0, F1, R>(&mut self, name: &str, role: Role, original: F0, twin: F1) -> &mut Self
    where
        F0: FnMut() -> R + 'a,
        F1: FnMut() -> R + 'a,
    {
        assert!(
            role != Role::Floor || self.entries.iter().all(|e| e.role != Role::Floor),
            "a table has one floor"
        );
        assert!(
            self.entries.iter().all(|e| e.name != name),
            "two methods named `{name}`"
        );
        let (original, original_address) = runner::<F0, R, 0>(original);
        let (twin, twin_address) = runner::<F1, R, 1>(twin);
        self.entries.push(Entry {
            name: name.to_owned(),
            role,
            runners: [original, twin],
            addresses: [original_address, twin_address],
        });
        self
    }

    /// Calibrates, warms up and measures every method and twin, and returns this process's
    /// figures together with every other process's figures for the same run; consumes the table.
    pub fn run(mut self, schedule: Schedule) -> Measured {
        // Time the allocator, not the instrument: no counting on this thread while timing, and
        // in the runner's processes on no thread at all (a workload may spawn threads).
        let _paused = crate::alloc::pause();
        let _process_paused = matches!(protocol::role(), ProcessRole::Replica | ProcessRole::Final)
            .then(crate::alloc::pause_process);
        let key = protocol::next_run();
        if protocol::role() == ProcessRole::Probe {
            // A callgrind child: run one copy inside the window, or skip this run entirely.
            if let (Some(probe), Some(key)) = (callgrind::Probe::from_env(), &key)
                && probe.experiment == key.experiment
                && probe.run == key.index
            {
                let entry = &mut self.entries[probe.slot / 2];
                callgrind::window(&mut *entry.runners[probe.slot % 2], probe.iters);
                std::process::exit(0);
            }
            return Measured::single(self.placeholder(schedule));
        }
        let mut live = self.measure(schedule);
        if schedule == Schedule::Interleaved {
            live.count_instructions(key.as_ref());
        }
        Measured::assemble(key, live)
    }

    fn measure(&mut self, schedule: Schedule) -> Measurements {
        let config = self.config;
        let target = config.batch_target.as_nanos() as u64;
        let iters: Vec<u64> = self
            .entries
            .iter_mut()
            .map(|e| calibrate(&mut e.runners[0], target))
            .collect();
        // Slot k < n is method k's original; slot n + k is its twin: twins sit n places apart.
        let n = self.entries.len();
        let slots = 2 * n;
        let mut samples = vec![Vec::with_capacity(config.rounds); slots];
        let run_slot = |entries: &mut [Entry<'a>], slot: usize| -> f64 {
            let (entry, copy) = (slot % n, slot / n);
            let ns = (entries[entry].runners[copy])(iters[entry]);
            ns as f64 / iters[entry] as f64
        };
        match schedule {
            Schedule::Interleaved => {
                for round in 0..config.warmup_rounds + config.rounds {
                    for k in 0..slots {
                        let slot = (k + round) % slots;
                        let per_op = run_slot(&mut self.entries, slot);
                        if round >= config.warmup_rounds {
                            samples[slot].push(per_op);
                        }
                    }
                }
            }
            Schedule::Sequential => {
                for (slot, slot_samples) in samples.iter_mut().enumerate() {
                    for round in 0..config.warmup_rounds + config.rounds {
                        let per_op = run_slot(&mut self.entries, slot);
                        if round >= config.warmup_rounds {
                            slot_samples.push(per_op);
                        }
                    }
                }
            }
        }
        let methods = self
            .entries
            .iter()
            .enumerate()
            .map(|(k, entry)| {
                let original = Summary::of(&samples[k]);
                let twin = Summary::of(&samples[n + k]);
                MethodResult {
                    name: entry.name.clone(),
                    role: entry.role,
                    median_ns: original.median_ns,
                    p25_ns: original.p25_ns,
                    p75_ns: original.p75_ns,
                    twin,
                    iters_per_batch: iters[k],
                    addresses: entry.addresses,
                    samples: [samples[k].clone(), samples[n + k].clone()],
                    instructions: None,
                }
            })
            .collect();
        Measurements {
            config,
            schedule,
            methods,
            instructions_note: None,
        }
    }

    /// What a callgrind child returns for the timing runs it skips: one fake sample each.
    fn placeholder(self, schedule: Schedule) -> Measurements {
        let one = Summary {
            median_ns: 1.0,
            p25_ns: 1.0,
            p75_ns: 1.0,
        };
        let methods = self
            .entries
            .iter()
            .map(|entry| MethodResult {
                name: entry.name.clone(),
                role: entry.role,
                median_ns: 1.0,
                p25_ns: 1.0,
                p75_ns: 1.0,
                twin: one,
                iters_per_batch: 1,
                addresses: entry.addresses,
                samples: [vec![1.0], vec![1.0]],
                instructions: None,
            })
            .collect();
        Measurements {
            config: self.config,
            schedule,
            methods,
            instructions_note: None,
        }
    }
}

/// Doubles the batch until it takes a quarter of the target and scales it to the target; then
/// times three batches of that size and scales again by their median, because the first
/// batches of a method pay for cold caches and first-touch page faults and would leave it with
/// batches far shorter than the target.
fn calibrate(runner: &mut Runner<'_>, target_ns: u64) -> u64 {
    let scale = |iters: u64, ns: u64| {
        ((iters as u128 * target_ns as u128 / ns.max(1) as u128) as u64).max(1)
    };
    let mut iters = 1u64;
    let first = loop {
        let ns = runner(iters).max(1);
        if ns >= target_ns / 4 || iters >= 1 << 40 {
            break scale(iters, ns);
        }
        iters *= 2;
    };
    let mut again = [0u64; 3];
    for ns in &mut again {
        *ns = runner(first);
    }
    again.sort_unstable();
    scale(first, again[1])
}

/// Median and quartiles of one copy's per-operation samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Median nanoseconds per operation over the rounds.
    pub median_ns: f64,
    /// First quartile.
    pub p25_ns: f64,
    /// Third quartile.
    pub p75_ns: f64,
}

impl Summary {
    /// Summarises samples (nanoseconds per operation).
    ///
    /// # Panics
    /// If there are no samples.
    pub fn of(samples: &[f64]) -> Self {
        assert!(!samples.is_empty(), "no samples to summarise");
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Summary {
            median_ns: quantile(&sorted, 0.5),
            p25_ns: quantile(&sorted, 0.25),
            p75_ns: quantile(&sorted, 0.75),
        }
    }
}

/// Linear-interpolated quantile of sorted data.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// One method's result in one process: its own figures and its twin's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    /// The name it was registered under.
    pub name: String,
    /// Method or floor.
    pub role: Role,
    /// Median nanoseconds per operation (the original copy).
    pub median_ns: f64,
    /// First quartile (the original copy).
    pub p25_ns: f64,
    /// Third quartile (the original copy).
    pub p75_ns: f64,
    /// The twin's figures.
    pub twin: Summary,
    /// Operations per batch, after calibration (the same for both copies).
    pub iters_per_batch: u64,
    /// Code addresses of the original's and the twin's batch loops.
    pub addresses: [usize; 2],
    /// Per-round samples of the original and the twin, in round order (this process only: not
    /// carried between processes).
    #[serde(skip)]
    pub samples: [Vec<f64>; 2],
    /// Instructions per operation of the original and the twin, from callgrind, when counted.
    pub instructions: Option<[f64; 2]>,
}

impl MethodResult {
    /// The pair the publish rule works on.
    pub fn pair(&self) -> Pair {
        Pair {
            original_ns: self.median_ns,
            twin_ns: self.twin.median_ns,
        }
    }

    /// Twin disagreement as a percentage of the pair's mean.
    pub fn twin_disagreement_pct(&self) -> f64 {
        self.pair().disagreement_pct()
    }

    /// Whether the original and the twin really are two copies of the code.
    pub fn twins_are_distinct(&self) -> bool {
        self.addresses[0] != self.addresses[1]
    }
}

/// Everything one [`Timing::run`] measured in one process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    /// The configuration it ran with.
    pub config: Config,
    /// The schedule it ran with.
    pub schedule: Schedule,
    /// One result per registered method, in registration order.
    pub methods: Vec<MethodResult>,
    /// Why instruction counts are missing, when they are.
    pub instructions_note: Option<String>,
}

impl Measurements {
    /// Counts every copy's instructions under callgrind (the final process of a report only),
    /// or records why not.
    fn count_instructions(&mut self, key: Option<&RunKey>) {
        if !self.config.count_instructions {
            self.instructions_note =
                Some("Instruction counts are taken only by the full report.".to_owned());
            return;
        }
        let role = protocol::role();
        let Some(key) = key.filter(|_| role != ProcessRole::Plain) else {
            self.instructions_note =
                Some("Instruction counts need the experiments runner.".to_owned());
            return;
        };
        if role != ProcessRole::Final {
            // Deterministic: the final process counts them once.
            return;
        }
        if let Err(why) = callgrind::availability() {
            self.instructions_note = Some(format!("No instruction counts: {why}."));
            return;
        }
        for (idx, method) in self.methods.iter_mut().enumerate() {
            let iters = method.iters_per_batch.clamp(1, 1000);
            let mut counts = [0.0; 2];
            for (copy, count) in counts.iter_mut().enumerate() {
                let probe = callgrind::Probe {
                    experiment: key.experiment.clone(),
                    run: key.index,
                    slot: idx * 2 + copy,
                    iters,
                };
                match callgrind::count_instructions(&probe) {
                    Ok(n) => *count = n,
                    Err(why) => {
                        self.instructions_note = Some(format!("No instruction counts: {why}."));
                        return;
                    }
                }
            }
            method.instructions = Some(counts);
        }
    }

    /// The method registered under `name`.
    pub fn method(&self, name: &str) -> Option<&MethodResult> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// The method registered under `name`.
    ///
    /// # Panics
    /// If there is none (a bug in the experiment: names are constants).
    pub fn expect(&self, name: &str) -> &MethodResult {
        self.method(name)
            .unwrap_or_else(|| panic!("no method `{name}` was registered in this timing run"))
    }

    /// The floor, if one was registered.
    pub fn floor(&self) -> Option<&MethodResult> {
        self.methods.iter().find(|m| m.role == Role::Floor)
    }

    /// This process's figures for `name`, for the publish rule.
    pub fn figures(&self, name: &str) -> Figures {
        let method = self.expect(name);
        Figures::single(method.pair())
    }

    /// In this process: `Some(true)` if `a` is resolvably faster than `b`, `Some(false)` if
    /// resolvably slower, `None` if the difference is not resolvable (the publish rule on this
    /// process's twins and the absolute floor).
    pub fn faster(&self, a: &str, b: &str) -> Option<bool> {
        match publish::difference(&self.figures(a), &self.figures(b)) {
            Verdict::Published(d) => Some(d < 0.0),
            Verdict::NotResolvable { .. } => None,
        }
    }

    /// `a / b` in this process, from the original copies.
    pub fn ratio(&self, a: &str, b: &str) -> f64 {
        self.expect(a).median_ns / self.expect(b).median_ns
    }

    /// Median and quartiles, over the rounds, of the per-round ratio `a / b` (original copies,
    /// the same round): how stable the ratio is while the machine drifts.
    pub fn round_ratio(&self, a: &str, b: &str) -> Option<Summary> {
        let (a, b) = (self.method(a)?, self.method(b)?);
        let ratios: Vec<f64> = a.samples[0]
            .iter()
            .zip(&b.samples[0])
            .map(|(x, y)| x / y)
            .collect();
        Some(Summary::of(&ratios))
    }
}

/// One timing run as every process measured it, under one allocator (and, in the final process
/// of a report, the same run under the other allocators).
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The allocator these processes ran under.
    pub allocator: Allocator,
    /// One entry per process, replicas first, this process last.
    pub processes: Vec<Measurements>,
    /// The same run under other allocators, when the report measured it there too.
    pub others: Vec<Measured>,
}

/// One method across the processes of a [`Measured`].
#[derive(Debug, Clone)]
pub struct Method<'a> {
    results: Vec<&'a MethodResult>,
}

impl<'a> Method<'a> {
    /// The method's name.
    pub fn name(&self) -> &'a str {
        &self.results[0].name
    }

    /// Method or floor.
    pub fn role(&self) -> Role {
        self.results[0].role
    }

    /// The figures the publish rule works on.
    pub fn figures(&self) -> Figures {
        Figures {
            per_process: self.results.iter().map(|r| r.pair()).collect(),
        }
    }

    fn last(&self) -> &'a MethodResult {
        self.results[self.results.len() - 1]
    }

    /// The printed figure: the median over processes of each process's median.
    pub fn median_ns(&self) -> f64 {
        self.figures().median_ns()
    }

    /// The median as a cell.
    pub fn median_cell(&self) -> Cell {
        Cell::Nanos(self.median_ns())
    }

    /// The largest twin disagreement of any process, as a percentage.
    pub fn twin_disagreement_pct(&self) -> f64 {
        self.figures().twin_disagreement_pct()
    }

    /// The between-process spread as a percentage of the median (0 for a single process).
    pub fn spread_pct(&self) -> f64 {
        self.figures().spread_pct()
    }

    /// The between-process spread as a cell: — when a single process measured the method.
    pub fn spread_cell(&self) -> Cell {
        if self.results.len() > 1 {
            Cell::Percent(self.spread_pct())
        } else {
            Cell::Empty
        }
    }

    /// The quartiles over rounds: the median over processes of each process's quartile.
    pub fn iqr_ns(&self) -> (f64, f64) {
        let p25: Vec<f64> = self.results.iter().map(|r| r.p25_ns).collect();
        let p75: Vec<f64> = self.results.iter().map(|r| r.p75_ns).collect();
        (publish::median(&p25), publish::median(&p75))
    }

    /// Instructions per operation of the original and the twin, where they were counted.
    pub fn instructions(&self) -> Option<[f64; 2]> {
        self.last().instructions
    }

    /// This method's result in each process, replicas first.
    pub fn per_process(&self) -> &[&'a MethodResult] {
        &self.results
    }
}

impl Measured {
    /// A run measured in this process only.
    pub fn single(measurements: Measurements) -> Self {
        Measured {
            allocator: protocol::allocator(),
            processes: vec![measurements],
            others: Vec::new(),
        }
    }

    /// Keeps this process's figures for the report and joins them with the other processes'.
    fn assemble(key: Option<RunKey>, live: Measurements) -> Self {
        let Some(key) = key else {
            return Measured::single(live);
        };
        protocol::keep(
            key.clone(),
            serde_json::to_value(&live).expect("measurements serialise"),
        );
        let allocator = protocol::allocator();
        let mut processes = Vec::new();
        let mut others: BTreeMap<Allocator, Vec<Measurements>> = BTreeMap::new();
        for recorded in protocol::recorded(&key) {
            let figures: Measurements =
                serde_json::from_value(recorded.figures).unwrap_or_else(|err| {
                    panic!(
                        "replica {} ({}) of {} run {}: unreadable figures: {err}",
                        recorded.replica,
                        recorded.allocator.short(),
                        key.experiment,
                        key.index
                    )
                });
            let names = |m: &Measurements| -> Vec<String> {
                m.methods.iter().map(|r| r.name.clone()).collect()
            };
            assert_eq!(
                names(&figures),
                names(&live),
                "replica {} of {} run {} measured other methods: the binaries differ",
                recorded.replica,
                key.experiment,
                key.index
            );
            if recorded.allocator == allocator {
                processes.push(figures);
            } else {
                others.entry(recorded.allocator).or_default().push(figures);
            }
        }
        processes.push(live);
        Measured {
            allocator,
            processes,
            others: others
                .into_iter()
                .map(|(allocator, processes)| Measured {
                    allocator,
                    processes,
                    others: Vec::new(),
                })
                .collect(),
        }
    }

    /// Runs experiment `experiment` in `binary` (another build of this experiments binary, such
    /// as the dev profile's), which must make exactly one timing run, and returns its figures,
    /// replicated like a run of this process.
    ///
    /// # Errors
    /// If the child cannot run or reports no figures.
    pub fn from_child(
        binary: &Path,
        experiment: &str,
        settings: &Settings,
    ) -> Result<Self, String> {
        let key = protocol::next_run();
        if protocol::role() == ProcessRole::Probe {
            return Err("not run in a callgrind child".to_owned());
        }
        let out = std::env::temp_dir().join(format!(
            "lab-child-{}-{experiment}.json",
            std::process::id()
        ));
        let mut command = std::process::Command::new(binary);
        command
            .args(["--only", experiment, "--replica-out"])
            .arg(&out)
            .env_remove(protocol::DEV_BINARY_VAR)
            .env_remove(protocol::PROBE_VAR)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if settings.quick {
            command.arg("--quick");
        }
        let status = command
            .status()
            .map_err(|err| format!("cannot run {}: {err}", binary.display()))?;
        let text = std::fs::read_to_string(&out);
        let _ = std::fs::remove_file(&out);
        if !status.success() {
            return Err(format!("{} failed ({status})", binary.display()));
        }
        let text = text.map_err(|err| format!("{} wrote no figures: {err}", binary.display()))?;
        let file: protocol::ReplicaFile = serde_json::from_str(&text)
            .map_err(|err| format!("{} wrote unreadable figures: {err}", binary.display()))?;
        let run = file
            .runs
            .into_iter()
            .next()
            .ok_or_else(|| format!("{} made no timing run", binary.display()))?;
        let live: Measurements = serde_json::from_value(run.figures)
            .map_err(|err| format!("{} wrote unreadable figures: {err}", binary.display()))?;
        Ok(Measured::assemble(key, live))
    }

    /// How many processes measured this run.
    pub fn process_count(&self) -> usize {
        self.processes.len()
    }

    /// This process's figures (the last process).
    pub fn live(&self) -> &Measurements {
        &self.processes[self.processes.len() - 1]
    }

    /// Why this run has no instruction counts (only the final process of a full report takes
    /// them), for a table's notes.
    pub fn instructions_note(&self) -> String {
        self.live()
            .instructions_note
            .clone()
            .unwrap_or_else(|| "No instruction counts in this run.".to_owned())
    }

    /// The same run under `allocator`, if it was measured there.
    pub fn under(&self, allocator: Allocator) -> Option<&Measured> {
        if self.allocator == allocator {
            Some(self)
        } else {
            self.others.iter().find(|m| m.allocator == allocator)
        }
    }

    /// The method registered under `name`, across processes.
    pub fn method(&self, name: &str) -> Option<Method<'_>> {
        let results: Option<Vec<&MethodResult>> =
            self.processes.iter().map(|m| m.method(name)).collect();
        results.map(|results| Method { results })
    }

    /// The method registered under `name`, across processes.
    ///
    /// # Panics
    /// If there is none (a bug in the experiment: names are constants).
    pub fn expect(&self, name: &str) -> Method<'_> {
        self.method(name)
            .unwrap_or_else(|| panic!("no method `{name}` was registered in this timing run"))
    }

    /// Every method, in registration order.
    pub fn methods(&self) -> impl Iterator<Item = Method<'_>> {
        (0..self.processes[0].methods.len()).map(|idx| Method {
            results: self.processes.iter().map(|m| &m.methods[idx]).collect(),
        })
    }

    /// The floor, if one was registered.
    pub fn floor(&self) -> Option<Method<'_>> {
        self.methods().find(|m| m.role() == Role::Floor)
    }

    /// `a − b` under the publish rule.
    pub fn difference(&self, a: &str, b: &str) -> Verdict {
        publish::difference(&self.expect(a).figures(), &self.expect(b).figures())
    }

    /// `a − b` as a cell: nanoseconds, or *not resolvable*.
    pub fn difference_cell(&self, a: &str, b: &str) -> Cell {
        match self.difference(a, b) {
            Verdict::Published(ns) => Cell::Nanos(ns),
            Verdict::NotResolvable { .. } => Cell::NotResolvable,
        }
    }

    /// `a / b` under the publish rule, at the course's [`RATIO_PRECISION`].
    pub fn ratio(&self, a: &str, b: &str) -> Claim {
        Claim::ratio(
            publish::ratio(
                &self.expect(a).figures(),
                &self.expect(b).figures(),
                RATIO_PRECISION,
            ),
            RATIO_PRECISION,
        )
    }

    /// `a / b` as a cell.
    pub fn ratio_cell(&self, a: &str, b: &str) -> Cell {
        Cell::Claim(self.ratio(a, b))
    }

    /// A verdict evaluated on each process's figures (`None`: not resolvable in that process),
    /// printed only if every process reaches the same one.
    pub fn verdict(&self, f: impl Fn(&Measurements) -> Option<String>) -> Claim {
        agree(self.process_count(), |p| f(&self.processes[p]))
    }

    /// Which of two methods is faster, judged in every process: `a_label` where `a` was
    /// resolvably faster, `b_label` where `b` was.
    pub fn faster_of(&self, a: &str, a_label: &str, b: &str, b_label: &str) -> Claim {
        self.verdict(|p| {
            p.faster(a, b)
                .map(|a_wins| if a_wins { a_label } else { b_label }.to_owned())
        })
    }

    /// A target judged in every process: `met(p)` says whether process `p` met it (`None`: the
    /// question was not resolvable there). Prints *met* or *missed* when every process agrees.
    pub fn target(&self, met: impl Fn(&Measurements) -> Option<bool>) -> Claim {
        self.verdict(|p| met(p).map(|yes| if yes { "met" } else { "missed" }.to_owned()))
    }

    /// A target "`fast` at least `factor`× faster than `slow`", judged in every process with
    /// the twins' margin: *met* where `slow / fast` stays at or above `factor` whichever twin is
    /// swapped in, *missed* where it stays below, not resolvable in a process where the twins
    /// straddle the target.
    pub fn target_speedup(&self, fast: &str, slow: &str, factor: f64) -> Claim {
        self.target(|p| {
            let (lo, hi) = publish::ratio_bounds(p.expect(slow).pair(), p.expect(fast).pair());
            if lo >= factor {
                Some(true)
            } else if hi < factor {
                Some(false)
            } else {
                None
            }
        })
    }

    /// States one conclusion per allocator this run was measured under: `claim(allocator)` in
    /// words, `judge(the run under it)` for the result.
    pub fn conclude_under_each(
        &self,
        table: &mut Table,
        claim: impl Fn(Allocator) -> String,
        judge: impl Fn(&Measured) -> Claim,
    ) {
        for allocator in Allocator::ALL {
            if let Some(under) = self.under(allocator) {
                table.conclude(claim(allocator), judge(under));
            }
        }
    }

    /// The largest twin disagreement of any method in any process, as a percentage.
    pub fn worst_twin_pct(&self) -> f64 {
        self.methods()
            .map(|m| m.twin_disagreement_pct())
            .fold(0.0, f64::max)
    }

    /// The largest between-process spread of any method, as a percentage.
    pub fn worst_spread_pct(&self) -> f64 {
        self.methods().map(|m| m.spread_pct()).fold(0.0, f64::max)
    }

    /// The largest twin disagreement as a cell.
    pub fn worst_twin_cell(&self) -> Cell {
        Cell::Percent(self.worst_twin_pct())
    }

    /// The largest between-process spread as a cell (— for a single process).
    pub fn worst_spread_cell(&self) -> Cell {
        if self.process_count() > 1 {
            Cell::Percent(self.worst_spread_pct())
        } else {
            Cell::Empty
        }
    }

    /// The standard columns of a table with one row per method of this run: the method, its
    /// median, quartiles, both noise sources, its difference to the floor under the publish
    /// rule, its median under mimalloc (where the run was measured there too) and its
    /// instructions. Add columns after these with [`Columns::col`](crate::table::Columns::col).
    pub fn columns(&self) -> crate::table::Columns<'_, Method<'_>> {
        let floor = self.floor().map(|f| f.name().to_owned());
        let mimalloc = self
            .under(Allocator::Mimalloc)
            .filter(|_| self.allocator != Allocator::Mimalloc);
        // With a second allocator's column, every figure says whose it is.
        let whose = |heading: &str| match mimalloc {
            Some(_) => format!("{heading} ({})", self.allocator.short()),
            None => heading.to_owned(),
        };
        crate::table::Columns::new()
            .col("method", |m: &Method<'_>| {
                Cell::text(if m.role() == Role::Floor {
                    format!("{} (floor)", m.name())
                } else {
                    m.name().to_owned()
                })
            })
            .col(whose("median"), Method::median_cell)
            .col(whose("IQR"), |m: &Method<'_>| {
                let (p25, p75) = m.iqr_ns();
                Cell::text(format!("{} – {}", format_nanos(p25), format_nanos(p75)))
            })
            .col(whose("twin disagreement"), |m: &Method<'_>| {
                Cell::Percent(m.twin_disagreement_pct())
            })
            .col(whose("between processes"), Method::spread_cell)
            .col(whose("minus floor"), move |m: &Method<'_>| {
                match (&floor, m.role()) {
                    (Some(floor), Role::Method) => self.difference_cell(m.name(), floor),
                    _ => Cell::Empty,
                }
            })
            .col_if(
                mimalloc.is_some(),
                "median (mimalloc)",
                move |m: &Method<'_>| {
                    mimalloc.map_or(Cell::Empty, |mm| mm.expect(m.name()).median_cell())
                },
            )
            .col("instructions (twin, where it differs)", |m: &Method<'_>| {
                m.instructions()
                    .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                        original,
                        twin,
                    })
            })
    }

    /// A table with one row per method of this run, from `columns` (usually
    /// [`Measured::columns`] and more), with the line saying how it was measured and, where
    /// instructions are missing, why.
    pub fn table_with<'m>(
        &'m self,
        id: &str,
        title: &str,
        columns: &crate::table::Columns<'m, Method<'m>>,
    ) -> Table {
        let rows: Vec<Method<'m>> = self.methods().collect();
        let mut table = columns.table(id, Kind::Time, title, &rows);
        table.note(self.protocol_note());
        if let Some(why) = &self.live().instructions_note {
            table.note(why.clone());
        }
        table
    }

    /// The standard timed table: [`Measured::columns`], one row per method.
    pub fn table(&self, id: &str, title: &str) -> Table {
        self.table_with(id, title, &self.columns())
    }

    /// One sentence saying how this run was measured, from what actually ran.
    pub fn protocol_note(&self) -> String {
        let first = &self.processes[0];
        let results = || self.processes.iter().flat_map(|m| m.methods.iter());
        let (lo, hi) = results()
            .map(|r| r.iters_per_batch)
            .fold((u64::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
        let (short, long) = results()
            .map(|r| r.iters_per_batch as f64 * r.median_ns)
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), ns| {
                (lo.min(ns), hi.max(ns))
            });
        let operations = if hi == 1 {
            "one operation per batch".to_owned()
        } else if lo == hi {
            format!("{} operation{} per batch", thousands(lo), plural(lo))
        } else {
            format!("{}–{} operations per batch", thousands(lo), thousands(hi))
        };
        let batches = format!(
            "{operations}, batches of {}–{}",
            format_nanos(short),
            format_nanos(long)
        );
        let distinct = self
            .processes
            .iter()
            .flat_map(|m| &m.methods)
            .all(MethodResult::twins_are_distinct);
        let k = self.process_count();
        let warmup = first.config.warmup_rounds as u64;
        format!(
            "Measured under {} in {k} process{} × {} {} rounds (after {warmup} warm-up round{}); {batches} (the batch target is {} µs){}.",
            self.allocator.short(),
            if k == 1 { "" } else { "es" },
            first.config.rounds,
            match first.schedule {
                Schedule::Interleaved => "interleaved",
                Schedule::Sequential => "sequential",
            },
            plural(warmup),
            first.config.batch_target.as_micros(),
            if distinct {
                ""
            } else {
                "; some twins share a code address"
            },
        )
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One timing run per size (S1, P10…): rows of a by-size table, read across sizes by the
/// [`crate::verdicts`] rules.
#[derive(Debug, Clone)]
pub struct BySize {
    /// The size (items, bytes: the caller's unit).
    pub size: usize,
    /// The run at that size.
    pub m: Measured,
}

impl BySize {
    /// The same runs under `allocator`, where every one of them was measured there.
    pub fn under(runs: &[BySize], allocator: Allocator) -> Option<Vec<BySize>> {
        runs.iter()
            .map(|s| {
                s.m.under(allocator).map(|m| BySize {
                    size: s.size,
                    m: m.clone(),
                })
            })
            .collect()
    }

    /// In process `p`: whether `a` was resolvably faster than `b`, size by size.
    pub fn outcomes(runs: &[&BySize], p: usize, a: &str, b: &str) -> Vec<(usize, Option<bool>)> {
        runs.iter()
            .map(|s| (s.size, s.m.processes[p].faster(a, b)))
            .collect()
    }

    /// Every process's verdict on the sizes at which `a` is faster than `b` (each size written
    /// by `label`); printed if they agree.
    pub fn sizes_where_faster(
        runs: &[&BySize],
        a: &str,
        b: &str,
        label: impl Fn(usize) -> String,
    ) -> Claim {
        agree(runs[0].m.process_count(), |p| {
            let outcomes = Self::outcomes(runs, p, a, b);
            Some(crate::verdicts::describe_sizes(
                &crate::verdicts::sizes_where(&outcomes),
                outcomes.len(),
                &label,
            ))
        })
    }

    /// Every process's verdict on the size from which `a` is faster than `b` for good.
    pub fn crossover_claim(
        runs: &[&BySize],
        a: &str,
        b: &str,
        label: impl Fn(usize) -> String,
    ) -> Claim {
        agree(runs[0].m.process_count(), |p| {
            Some(crate::verdicts::describe_crossover(
                crate::verdicts::crossover(&Self::outcomes(runs, p, a, b)),
                &label,
            ))
        })
    }
}

/// One technique and what it replaces, measured in the same timing run (experiment X1).
#[derive(Debug, Clone, Copy)]
pub struct Technique<'a> {
    /// The row's label (`the pool's hit path vs a fresh vec!, 8 KiB`).
    pub label: &'a str,
    /// The timing run that measured both.
    pub run: &'a Measured,
    /// The method that applies the technique.
    pub technique: &'a str,
    /// The method it replaces.
    pub baseline: &'a str,
}

impl Technique<'_> {
    /// Under `allocator`: does the technique beat the baseline in every process there?
    fn pays(&self, allocator: Allocator) -> Claim {
        match self.run.under(allocator) {
            Some(m) => m.verdict(|p| {
                p.faster(self.technique, self.baseline)
                    .map(|yes| if yes { "yes" } else { "no" }.to_owned())
            }),
            None => Claim::NotResolvable,
        }
    }
}

/// X1: each technique against what it replaces, under every allocator the report measured: the
/// ratio (technique / baseline, below 1× when it pays) under each, and whether it still pays.
pub fn allocator_table(id: &str, title: &str, rows: &[Technique<'_>]) -> Table {
    let ratio = |t: &Technique<'_>, allocator: Allocator| {
        t.run
            .under(allocator)
            .map_or(Cell::Empty, |m| m.ratio_cell(t.technique, t.baseline))
    };
    let mut table = crate::table::Columns::new()
        .col("technique vs what it replaces", |t: &Technique<'_>| {
            Cell::text(t.label)
        })
        .col("glibc: technique / replaced", |t: &Technique<'_>| {
            ratio(t, Allocator::System)
        })
        .col("mimalloc: technique / replaced", |t: &Technique<'_>| {
            ratio(t, Allocator::Mimalloc)
        })
        .col("pays under glibc?", |t: &Technique<'_>| {
            Cell::Claim(t.pays(Allocator::System))
        })
        .col("still pays under mimalloc?", |t: &Technique<'_>| {
            if t.run.under(Allocator::Mimalloc).is_some() {
                Cell::Claim(t.pays(Allocator::Mimalloc))
            } else {
                Cell::Empty
            }
        })
        .table(id, Kind::Time, title, rows);
    let measured_under_mimalloc = rows
        .iter()
        .any(|t| t.run.under(Allocator::Mimalloc).is_some());
    table.note("Below 1× the technique is faster than what it replaces. \"Pays\" is a verdict: *yes* when the technique was resolvably faster in every process under that allocator, *no* when it was resolvably slower in every one.");
    if !measured_under_mimalloc {
        table.note("No mimalloc processes in this run (an `--only` or partial run): the mimalloc columns are empty.");
    }
    table
}

/// A verdict over `processes` processes: `f(p)` is process `p`'s verdict (`None`: not resolvable
/// there). Printed only if every process reaches the same one. For verdicts that read several
/// timing runs of one experiment (a crossover across sizes), index each run's `processes` by `p`.
pub fn agree(processes: usize, f: impl Fn(usize) -> Option<String>) -> Claim {
    Claim::verdict(publish::agreement((0..processes).map(f).collect()))
}

/// Every method's per-process figures of the runs `experiment` made in this (final) process and
/// the replicas, for the report-wide summary of both noise sources.
pub fn twin_records(experiment: &str) -> Vec<TwinRecord> {
    let mut records = Vec::new();
    for run in protocol::produced()
        .into_iter()
        .filter(|run| run.key.experiment == experiment)
    {
        let Ok(live) = serde_json::from_value::<Measurements>(run.figures) else {
            continue;
        };
        if live.schedule != Schedule::Interleaved {
            // M3's sequential runs are the bad example, not the instrument's noise.
            continue;
        }
        let mut by_allocator: BTreeMap<Allocator, Vec<Measurements>> = BTreeMap::new();
        for recorded in protocol::recorded(&run.key) {
            if let Ok(m) = serde_json::from_value::<Measurements>(recorded.figures) {
                by_allocator.entry(recorded.allocator).or_default().push(m);
            }
        }
        by_allocator
            .entry(protocol::allocator())
            .or_default()
            .push(live);
        for (allocator, processes) in by_allocator {
            for (idx, method) in processes[0].methods.iter().enumerate() {
                records.push(TwinRecord {
                    experiment: experiment.to_owned(),
                    method: method.name.clone(),
                    allocator,
                    per_process: processes
                        .iter()
                        .filter_map(|m| m.methods.get(idx))
                        .map(|r| (r.median_ns, r.twin.median_ns))
                        .collect(),
                });
            }
        }
    }
    records
}

/// Checks that every timing run `experiment` made in this (final) process was also made by every
/// replica of this process's allocator: a run the replicas skipped would print verdicts "every
/// process" reached from one process.
///
/// # Errors
/// Names the run and how many processes measured it.
pub fn check_replicated(experiment: &str) -> Result<(), String> {
    let allocator = protocol::allocator();
    let expected = protocol::processes(allocator);
    for run in protocol::produced()
        .into_iter()
        .filter(|run| run.key.experiment == experiment)
    {
        let measured = 1 + protocol::recorded(&run.key)
            .iter()
            .filter(|r| r.allocator == allocator)
            .count();
        if measured != expected {
            return Err(format!(
                "{experiment} timing run {} was measured in {measured} of {expected} processes: declare the experiment `Kind::Time` so every replica runs it",
                run.key.index
            ));
        }
    }
    Ok(())
}

/// Checks that every timing run this process kept had at least [`MIN_ROUNDS`] rounds.
///
/// # Errors
/// Names the first run that had fewer.
pub fn check_rounds() -> Result<(), String> {
    for run in protocol::produced() {
        if let Ok(m) = serde_json::from_value::<Measurements>(run.figures)
            && m.config.rounds < MIN_ROUNDS
        {
            return Err(format!(
                "{} timing run {} measured {} rounds; a full report gives every method at least {MIN_ROUNDS} (time long operations per chunk instead)",
                run.key.experiment, run.key.index, m.config.rounds
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!((s.p25_ns, s.median_ns, s.p75_ns), (1.75, 2.5, 3.25));
    }

    #[test]
    fn calibration_scales_the_batch_to_the_target() {
        // A fake runner where one operation takes exactly 10 ns.
        let mut fake: Runner<'_> = Box::new(|iters| iters * 10);
        assert_eq!(calibrate(&mut fake, 1_000_000), 100_000);
        // An operation slower than the target still runs once per batch.
        let mut slow: Runner<'_> = Box::new(|iters| iters * 5_000_000);
        assert_eq!(calibrate(&mut slow, 1_000_000), 1);
    }

    /// A configuration whose calibration settles on one operation per batch, with no warm-up,
    /// so a log of calls shows the round order directly.
    fn one_op_batches(rounds: usize) -> Config {
        Config {
            batch_target: Duration::from_nanos(1),
            warmup_rounds: 0,
            rounds,
            count_instructions: false,
        }
    }

    /// M3: interleaved rounds rotate the starting slot, and every copy runs once per round.
    #[test]
    fn interleaved_rounds_rotate_and_every_slot_gets_every_round() {
        use std::cell::RefCell;
        let log = RefCell::new(Vec::new());
        let mut timing = Timing::new(one_op_batches(3));
        timing.method("a", || log.borrow_mut().push('a'));
        timing.method("b", || log.borrow_mut().push('b'));
        let measured = timing.run(Schedule::Interleaved);
        assert!(
            measured
                .live()
                .methods
                .iter()
                .all(|m| m.samples[0].len() == 3 && m.samples[1].len() == 3)
        );
        // Calibration ran first; then 3 rounds of 4 slots with one op per batch.
        let log = log.into_inner();
        let rounds: String = log[log.len() - 12..].iter().collect();
        // Slots: a, b, a′, b′ — round r starts at slot r.
        assert_eq!(rounds, "abab".to_owned() + "baba" + "abab");
    }

    /// M3: the sequential schedule (criterion's) runs every round of one copy before the next.
    #[test]
    fn sequential_runs_every_round_of_a_slot_before_the_next() {
        use std::cell::RefCell;
        let log = RefCell::new(String::new());
        let mut timing = Timing::new(one_op_batches(2));
        timing.method("a", || log.borrow_mut().push('a'));
        timing.method("b", || log.borrow_mut().push('b'));
        timing.run(Schedule::Sequential);
        assert!(log.into_inner().ends_with("aabbaabb"));
    }

    /// M3: `twins!` gives the method and its twin two closures of their own.
    #[test]
    fn twins_makes_two_closures_that_do_the_same_work() {
        let x = 20u64;
        let (a, b) = crate::twins!(move || x + 1);
        assert_eq!((a(), b()), (21, 21));
        let mut timing = Timing::new(one_op_batches(2));
        timing.method_pair("x + 1", a, b);
        let measured = timing.run(Schedule::Interleaved);
        assert!(measured.live().methods[0].twins_are_distinct());
    }

    /// M3: a twin the caller supplies runs its own code.
    #[test]
    fn a_supplied_twin_runs_its_own_copy() {
        use std::cell::Cell;
        let (originals, twins) = (Cell::new(0u32), Cell::new(0u32));
        let mut timing = Timing::new(one_op_batches(3));
        timing.method_pair(
            "work",
            || originals.set(originals.get() + 1),
            || twins.set(twins.get() + 1),
        );
        let measured = timing.run(Schedule::Interleaved);
        assert!(measured.live().methods[0].twins_are_distinct());
        assert!(originals.get() >= 3 && twins.get() >= 3);
    }

    /// M3: a twin is a second copy of the batch loop, at another code address.
    #[test]
    fn twins_are_two_copies_of_the_code() {
        let mut timing = Timing::new(Config::smoke());
        timing.method("sum", || (0..black_box(100u64)).sum::<u64>());
        let measured = timing.run(Schedule::Interleaved);
        let method = &measured.live().methods[0];
        assert!(method.twins_are_distinct(), "{:?}", method.addresses);
    }

    /// A synthetic run: methods with fixed per-process (original, twin) medians.
    fn synthetic(methods: &[(&str, &[(f64, f64)])]) -> Measured {
        let processes = methods[0].1.len();
        let config = Config::smoke();
        Measured {
            allocator: Allocator::System,
            processes: (0..processes)
                .map(|p| Measurements {
                    config,
                    schedule: Schedule::Interleaved,
                    methods: methods
                        .iter()
                        .map(|(name, pairs)| MethodResult {
                            name: (*name).to_owned(),
                            role: Role::Method,
                            median_ns: pairs[p].0,
                            p25_ns: pairs[p].0,
                            p75_ns: pairs[p].0,
                            twin: Summary {
                                median_ns: pairs[p].1,
                                p25_ns: pairs[p].1,
                                p75_ns: pairs[p].1,
                            },
                            iters_per_batch: 10,
                            addresses: [1, 2],
                            samples: [vec![], vec![]],
                            instructions: None,
                        })
                        .collect(),
                    instructions_note: None,
                })
                .collect(),
            others: Vec::new(),
        }
    }

    #[test]
    fn the_printed_median_is_the_median_of_the_process_medians() {
        let m = synthetic(&[("a", &[(10.0, 10.0), (30.0, 30.0), (12.0, 12.0)])]);
        let a = m.expect("a");
        assert_eq!(a.median_ns(), 12.0);
        assert_eq!(a.spread_pct(), 100.0 * 20.0 / 12.0);
    }

    #[test]
    fn a_per_process_verdict_is_printed_only_when_every_process_agrees() {
        let m = synthetic(&[
            ("pool", &[(10.0, 10.0), (10.0, 10.0), (30.0, 30.0)]),
            ("stack", &[(20.0, 20.0), (20.0, 20.0), (20.0, 20.0)]),
        ]);
        let faster = |p: &Measurements| {
            p.faster("pool", "stack")
                .map(|yes| if yes { "pool" } else { "stack" }.to_owned())
        };
        assert_eq!(
            m.verdict(faster),
            Claim::Varies {
                agree: 2,
                of: 3,
                unresolved: 0
            }
        );
        let steady = synthetic(&[
            ("pool", &[(10.0, 10.0), (10.0, 10.0), (11.0, 11.0)]),
            ("stack", &[(20.0, 20.0), (20.0, 20.0), (20.0, 20.0)]),
        ]);
        assert_eq!(
            steady.verdict(faster),
            Claim::Verdict {
                text: "pool".to_owned()
            }
        );
    }

    #[test]
    fn the_protocol_note_says_what_ran() {
        let m = synthetic(&[("a", &[(10.0, 10.0), (11.0, 11.0)])]);
        assert_eq!(
            m.protocol_note(),
            "Measured under glibc in 2 processes × 5 interleaved rounds (after 1 warm-up round); 10 operations per batch, batches of 100 ns–110 ns (the batch target is 20 µs)."
        );
    }
}
