//! Paired timing with twins, a floor and a publish rule (experiments M3–M5).
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
//! ```
//! use std::hint::black_box;
//! use lab::timing::{Config, Schedule, Timing, publish};
//!
//! let existing = vec![0u8; 2048];
//! let mut timing = Timing::new(Config::smoke());
//! timing.floor("touch an existing buffer", || black_box(&existing)[2047]);
//! timing.method("vec![0u8; 2048]", || black_box(vec![0u8; 2048])[2047]);
//! let measured = timing.run(Schedule::Interleaved);
//!
//! let heap = measured.method("vec![0u8; 2048]").unwrap();
//! let floor = measured.floor().unwrap();
//! assert!(heap.median_ns > 0.0 && heap.twin.median_ns > 0.0);
//! // The publish rule decides whether a difference may be printed.
//! match publish::difference(heap.pair(), floor.pair()) {
//!     publish::Verdict::Published(ns) => println!("heap costs {ns:.1} ns over the floor"),
//!     publish::Verdict::NotResolvable { .. } => println!("not resolvable"),
//! }
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::callgrind;
use crate::report::Settings;
use crate::table::{Cell, Kind, Table, TwinRecord, significant};

/// How long to measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// The duration one batch of one method aims for (the batch size is calibrated to it).
    pub batch_target: Duration,
    /// Rounds discarded before measuring.
    pub warmup_rounds: usize,
    /// Measured rounds: every method and twin runs one batch per round.
    pub rounds: usize,
    /// After an interleaved run, count each copy's instructions under callgrind.
    pub count_instructions: bool,
}

impl Config {
    /// The report's default: accurate, a few seconds per table.
    pub fn full() -> Self {
        Config {
            batch_target: Duration::from_micros(500),
            warmup_rounds: 20,
            rounds: 301,
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
        assert!(
            self.entries.iter().all(|e| e.role != Role::Floor),
            "a table has one floor"
        );
        self.push(name, Role::Floor, f)
    }

    fn push<F, R>(&mut self, name: &str, role: Role, f: F) -> &mut Self
    where
        F: FnMut() -> R + Clone + 'a,
    {
        let (original, original_address) = runner::<F, R, 0>(f.clone());
        let (twin, twin_address) = runner::<F, R, 1>(f);
        self.entries.push(Entry {
            name: name.to_owned(),
            role,
            runners: [original, twin],
            addresses: [original_address, twin_address],
        });
        self
    }

    /// Calibrates, warms up and measures every method and twin; consumes the table.
    pub fn run(mut self, schedule: Schedule) -> Measurements {
        // Time the allocator, not the instrument: no counting on this thread while timing.
        let _paused = crate::alloc::pause();
        let (experiment, run_index) = callgrind::next_run();
        if let Some(probe) = callgrind::Probe::from_env() {
            // A callgrind child: run one copy inside the window, or skip this run entirely.
            if experiment.as_deref() == Some(probe.experiment.as_str()) && probe.run == run_index {
                let entry = &mut self.entries[probe.slot / 2];
                callgrind::window(&mut *entry.runners[probe.slot % 2], probe.iters);
                std::process::exit(0);
            }
            return self.placeholder(schedule);
        }
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
        let mut measured = Measurements {
            config,
            schedule,
            methods,
            instructions_note: None,
        };
        if schedule == Schedule::Interleaved {
            measured.count_instructions(experiment, run_index);
        }
        measured
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

/// Doubles the batch until it takes a quarter of the target, then scales it to the target.
fn calibrate(runner: &mut Runner<'_>, target_ns: u64) -> u64 {
    let mut iters = 1u64;
    loop {
        let ns = runner(iters).max(1);
        if ns >= target_ns / 4 || iters >= 1 << 40 {
            return ((iters as u128 * target_ns as u128 / ns as u128) as u64).max(1);
        }
        iters *= 2;
    }
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

/// One method's result: its own figures and its twin's.
#[derive(Debug, Clone, PartialEq)]
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
    /// Per-round samples of the original and the twin, in round order.
    pub samples: [Vec<f64>; 2],
    /// Instructions per operation of the original and the twin, from callgrind, when counted.
    pub instructions: Option<[f64; 2]>,
}

impl MethodResult {
    /// The pair the publish rule works on.
    pub fn pair(&self) -> publish::Pair {
        publish::Pair {
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

    /// The twin record the report's summary line is computed from.
    pub fn twin_record(&self) -> TwinRecord {
        TwinRecord {
            method: self.name.clone(),
            median_ns: self.median_ns,
            twin_median_ns: self.twin.median_ns,
        }
    }
}

/// Everything one [`Timing::run`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurements {
    /// The configuration it ran with.
    pub config: Config,
    /// The schedule it ran with.
    pub schedule: Schedule,
    /// Every method, the floor included, in registration order.
    pub methods: Vec<MethodResult>,
    /// Why instruction counts are missing, when they are.
    pub instructions_note: Option<String>,
}

impl Measurements {
    /// Counts every copy's instructions under callgrind, or records why not.
    fn count_instructions(&mut self, experiment: Option<String>, run: usize) {
        if !self.config.count_instructions {
            self.instructions_note =
                Some("Instruction counts are taken only by the full report.".to_owned());
            return;
        }
        let Some(experiment) = experiment else {
            self.instructions_note =
                Some("Instruction counts need the experiments runner.".to_owned());
            return;
        };
        if let Err(why) = callgrind::availability() {
            self.instructions_note = Some(format!("No instruction counts: {why}."));
            return;
        }
        for (idx, method) in self.methods.iter_mut().enumerate() {
            let iters = method.iters_per_batch.clamp(1, 1000);
            let mut counts = [0.0; 2];
            for (copy, count) in counts.iter_mut().enumerate() {
                let probe = callgrind::Probe {
                    experiment: experiment.clone(),
                    run,
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

    /// The floor, if one was registered.
    pub fn floor(&self) -> Option<&MethodResult> {
        self.methods.iter().find(|m| m.role == Role::Floor)
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

    /// The standard timed table: one row per method with its median, quartiles, twin median,
    /// twin disagreement and the difference to the floor under the publish rule.
    pub fn table(&self, id: &str, title: &str) -> Table {
        let mut table = Table::new(
            id,
            Kind::Time,
            title,
            &[
                "method",
                "median",
                "IQR",
                "twin median",
                "twin disagreement",
                "minus floor",
                "instructions (twin)",
            ],
        );
        let floor = self.floor();
        for m in &self.methods {
            let minus_floor = match (m.role, floor) {
                (Role::Method, Some(floor)) => {
                    publish::difference(m.pair(), floor.pair()).cell(Cell::Nanos)
                }
                _ => Cell::Empty,
            };
            let name = if m.role == Role::Floor {
                format!("{} (floor)", m.name)
            } else {
                m.name.clone()
            };
            table.row(vec![
                Cell::Text(name),
                Cell::Nanos(m.median_ns),
                Cell::Text(format!(
                    "{} – {}",
                    crate::table::format_nanos(m.p25_ns),
                    crate::table::format_nanos(m.p75_ns)
                )),
                Cell::Nanos(m.twin.median_ns),
                Cell::Percent(m.twin_disagreement_pct()),
                minus_floor,
                match m.instructions {
                    Some([original, twin]) => Cell::Text(format!(
                        "{} ({})",
                        significant(original, 4),
                        significant(twin, 4)
                    )),
                    None => Cell::Empty,
                },
            ]);
        }
        table.twins = self.methods.iter().map(MethodResult::twin_record).collect();
        table.note(self.protocol_note());
        match &self.instructions_note {
            Some(why) => table.note(why.clone()),
            None => table.note("Instructions per operation are counted by callgrind, in a separate run of each copy, collection switched on only around its batch loop: they are deterministic, so twins agree to within the batch's fixed overhead."),
        };
        table
    }

    /// One sentence saying how the table was measured, for its notes.
    pub fn protocol_note(&self) -> String {
        let distinct = self.methods.iter().all(MethodResult::twins_are_distinct);
        format!(
            "Times are nanoseconds per operation: median over {} {} rounds of one calibrated batch per method and per twin (batches of about {} µs, after {} warm-up rounds). Twins are separately monomorphised copies of the batch loop{}. The counting allocator is paused while timing. A difference is printed only if it exceeds both methods' twin disagreement.",
            self.config.rounds,
            match self.schedule {
                Schedule::Interleaved => "interleaved",
                Schedule::Sequential => "sequential",
            },
            self.config.batch_target.as_micros(),
            self.config.warmup_rounds,
            if distinct {
                " at distinct code addresses"
            } else {
                " (some share a code address)"
            },
        )
    }
}

/// The publish rule (M5): which timed figures may be printed.
///
/// - A **difference** between two methods is printed only if it exceeds the twin disagreement
///   of *every* method it is made of.
/// - A **ratio** is printed only if its difference is printable and the ratio stays within its
///   stated precision when either twin is swapped in (all four combinations).
///
/// Otherwise the cell reads *not resolvable*, and the table's notes give the twin figures.
pub mod publish {
    use crate::table::Cell;

    /// A method's median and its twin's median, in nanoseconds.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Pair {
        /// The original copy's median.
        pub original_ns: f64,
        /// The twin's median.
        pub twin_ns: f64,
    }

    impl Pair {
        /// The twins' absolute disagreement: this method's noise floor.
        pub fn noise_ns(&self) -> f64 {
            (self.original_ns - self.twin_ns).abs()
        }

        /// The disagreement as a percentage of the pair's mean.
        pub fn disagreement_pct(&self) -> f64 {
            let mean = (self.original_ns + self.twin_ns) / 2.0;
            if mean > 0.0 {
                100.0 * self.noise_ns() / mean
            } else {
                0.0
            }
        }
    }

    /// What the rule decided.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub enum Verdict {
        /// The figure may be printed.
        Published(f64),
        /// It may not: the figure it would have been, and the noise or spread that beat it.
        NotResolvable {
            /// The figure from the original copies.
            value: f64,
            /// For a difference, the larger twin disagreement (ns); for a ratio, the largest
            /// relative change under twin swap.
            noise: f64,
        },
    }

    impl Verdict {
        /// The table cell: the figure in `unit`, or *not resolvable*.
        pub fn cell(self, unit: fn(f64) -> Cell) -> Cell {
            match self {
                Verdict::Published(value) => unit(value),
                Verdict::NotResolvable { .. } => Cell::NotResolvable,
            }
        }

        /// Whether the figure may be printed.
        pub fn is_published(self) -> bool {
            matches!(self, Verdict::Published(_))
        }
    }

    /// `a − b` in nanoseconds, if it exceeds both twin disagreements.
    pub fn difference(a: Pair, b: Pair) -> Verdict {
        let value = a.original_ns - b.original_ns;
        let noise = a.noise_ns().max(b.noise_ns());
        if value.abs() > noise {
            Verdict::Published(value)
        } else {
            Verdict::NotResolvable { value, noise }
        }
    }

    /// `a / b`, if the difference is printable and every twin swap keeps the ratio within
    /// `precision` (a fraction: 0.1 means ±10 %).
    pub fn ratio(a: Pair, b: Pair, precision: f64) -> Verdict {
        let value = a.original_ns / b.original_ns;
        let spread = ratio_spread(a, b);
        if difference(a, b).is_published() && spread <= precision {
            Verdict::Published(value)
        } else {
            Verdict::NotResolvable {
                value,
                noise: spread,
            }
        }
    }

    /// One sentence for a table's notes about a ratio with a target: the ratio under the
    /// publish rule, the target, the value from the originals and how much it moves under twin
    /// swap — `"{label}: 3.2× (target {target}; from the originals 3.2×, moving 1.0 % under twin swap)."`.
    pub fn ratio_note(label: &str, a: Pair, b: Pair, precision: f64, target: &str) -> String {
        format!(
            "{label}: {} (target {target}; from the originals {}, moving {} under twin swap).",
            ratio(a, b, precision).cell(Cell::Ratio).render(),
            Cell::Ratio(a.original_ns / b.original_ns).render(),
            Cell::Percent(100.0 * ratio_spread(a, b)).render(),
        )
    }

    /// The largest relative change of `a / b` when either twin is swapped in (0.1 = 10 %).
    pub fn ratio_spread(a: Pair, b: Pair) -> f64 {
        let value = a.original_ns / b.original_ns;
        let swaps = [
            a.twin_ns / b.original_ns,
            a.original_ns / b.twin_ns,
            a.twin_ns / b.twin_ns,
        ];
        swaps
            .iter()
            .map(|r| (r - value).abs() / value)
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::publish::{Pair, Verdict, difference, ratio};
    use super::*;

    fn pair(original_ns: f64, twin_ns: f64) -> Pair {
        Pair {
            original_ns,
            twin_ns,
        }
    }

    #[test]
    fn a_difference_larger_than_both_twin_disagreements_is_published() {
        // The seed's 8 KiB literal row: 97.56 ns zeroed vs 4.93 ns not, twins within 0.5 ns.
        assert_eq!(
            difference(pair(97.56, 97.2), pair(4.93, 5.1)),
            Verdict::Published(97.56 - 4.93)
        );
    }

    #[test]
    fn a_difference_inside_one_methods_noise_is_not_resolvable() {
        // The seed's Var1024NoInit: 5.522 vs 6.542 ns twins, an effect of 1.1 ns against a floor of 1.02 ns
        // is published; an effect of 0.86 ns is not.
        assert!(difference(pair(6.0, 5.9), pair(4.9, 4.95)).is_published());
        let verdict = difference(pair(5.522 + 0.86, 5.522 + 0.86), pair(5.522, 6.542));
        match verdict {
            Verdict::NotResolvable { noise, .. } => assert!((noise - 1.02).abs() < 1e-9),
            Verdict::Published(_) => {
                panic!("published a difference smaller than a twin disagreement")
            }
        }
    }

    #[test]
    fn a_ratio_that_moves_under_twin_swap_is_not_resolvable() {
        // The seed's 256 B cell: the difference passes, but the factor moves from 3.3 to 4.5.
        let zeroed = pair(2.60, 2.60);
        let unzeroed = pair(0.68, 0.58);
        assert!(difference(zeroed, unzeroed).is_published());
        assert!(!ratio(zeroed, unzeroed, 0.10).is_published());
        // With tight twins the same ratio is published.
        assert_eq!(
            ratio(pair(2.6, 2.6), pair(0.65, 0.65), 0.10),
            Verdict::Published(4.0)
        );
    }

    #[test]
    fn a_ratio_needs_a_resolvable_difference() {
        assert!(!ratio(pair(10.0, 10.0), pair(10.0, 10.0), 0.5).is_published());
    }

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

    #[test]
    fn twins_are_two_copies_of_the_code() {
        let mut timing = Timing::new(Config::smoke());
        timing.method("sum", || (0..black_box(100u64)).sum::<u64>());
        let measured = timing.run(Schedule::Interleaved);
        assert!(
            measured.methods[0].twins_are_distinct(),
            "{:?}",
            measured.methods[0].addresses
        );
    }
}
