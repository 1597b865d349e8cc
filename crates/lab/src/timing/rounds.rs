//! [`Timing`]: the methods of one timed table registered with their twins, calibrated, and run
//! in rounds; in a callgrind child, one copy inside the counting window.

use crate::callgrind;
use crate::protocol::{self, ProcessRole};

use super::config::{Config, Schedule};
use super::measured::Measured;
use super::measurements::{Measurements, MethodResult, Role};
use super::summary::Summary;
use super::twins::{Runner, runner};

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

#[cfg(test)]
pub(super) mod tests {
    use std::time::Duration;

    use super::*;

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
    pub(in crate::timing) fn one_op_batches(rounds: usize) -> Config {
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
}
