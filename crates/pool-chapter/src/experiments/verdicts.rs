//! What the timed runs of this process add up to: whether the pool still pays under mimalloc
//! (X1-pool) and the decision rules (P11). Neither makes a timing run of its own: both read the
//! runs of P9-time, P10, P10-hit, P12 and P13, kept by those experiments in this process.

use lab::Table;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::Cell;
use lab::timing::{BySize, Technique, agree, allocator_table};
use pool::{PoolConfig, SHARED_MAX_LEN};

use super::by_size::{FRESH, REUSED, SHARED, UNZEROED};
use super::bytes_label;
use super::crates::{reused_is_fastest, shared_is_fastest};
use super::hit::{
    HIT_FRESH, HIT_POOL, HIT_REUSED, HIT_UNZEROED, HIT_UNZEROED_HEAP, HIT_ZEROED, SMALL_FRESH,
    SMALL_POOL, SMALL_STACK, SMALL_UNZEROED_HEAP,
};
use crate::decisions::{Counts, Findings, rules};
use crate::workloads::{self, HIT_BYTES, LetGo, Source};

pub(super) const X1: Function = lab::function!(x1_pool);
pub(super) const P11: Function = lab::function!(p11_rules);

/// The runs both tables read, or `None` when an `--only` run skipped the experiments that make
/// them.
struct Runs {
    p9: BySize,
    p10: Vec<BySize>,
    hit: BySize,
    p12: Vec<BySize>,
    p13: BySize,
}

impl Runs {
    fn kept(run: &Run) -> Self {
        let first = |id| run.kept(id).swap_remove(0);
        Runs {
            p9: first("P9-time"),
            p10: run.kept("P10"),
            hit: first("P10-hit"),
            p12: run.kept("P12"),
            p13: first("P13"),
        }
    }

    /// The contention run with the most threads.
    fn most_threads(&self) -> &BySize {
        self.p12.last().expect("P12 ran at least one thread count")
    }
}

fn x1_pool(run: &Run) -> Vec<Table> {
    let runs = Runs::kept(run);
    // Each size of P10 twice: against the fair fresh buffer (unzeroed), then against `vec!`.
    let labels: Vec<(String, String)> = runs
        .p10
        .iter()
        .map(|s| {
            let n = bytes_label(s.size);
            (
                format!("the shared pool vs a fresh, unzeroed `Vec::with_capacity(n)`, {n}"),
                format!(
                    "the shared pool vs a fresh, zeroed `vec![0u8; n]` (zeroing included), {n}"
                ),
            )
        })
        .collect();
    let contended_unzeroed = format!(
        "{} threads at once: the shared pool vs a fresh, unzeroed `Vec::with_capacity(8192)`, 8 KiB (P12)",
        runs.most_threads().size
    );
    let contended = format!(
        "{} threads at once: the shared pool vs a fresh, zeroed `vec!`, 8 KiB (P12)",
        runs.most_threads().size
    );
    let mut rows = vec![
        Technique {
            label: "the shared pool vs a fresh, unzeroed `Vec::with_capacity(64)`, 64 B (P9-time)",
            measured: &runs.p9.measured,
            technique: SMALL_POOL,
            baseline: SMALL_UNZEROED_HEAP,
        },
        Technique {
            label: "the shared pool vs a fresh, zeroed `vec![0u8; 64]`, 64 B (P9-time)",
            measured: &runs.p9.measured,
            technique: SMALL_POOL,
            baseline: SMALL_FRESH,
        },
    ];
    for (s, (unzeroed, zeroed)) in runs.p10.iter().zip(&labels) {
        rows.push(Technique {
            label: unzeroed,
            measured: &s.measured,
            technique: SHARED,
            baseline: UNZEROED,
        });
        rows.push(Technique {
            label: zeroed,
            measured: &s.measured,
            technique: SHARED,
            baseline: FRESH,
        });
    }
    rows.push(Technique {
        label: "the hit path at 8 KiB, the pool taken once, vs a fresh, unzeroed `Vec::with_capacity(8192)` (P10-hit)",
        measured: &runs.hit.measured,
        technique: HIT_POOL,
        baseline: HIT_UNZEROED_HEAP,
    });
    rows.push(Technique {
        label: "the hit path at 8 KiB, the pool taken once, vs a fresh, zeroed `vec![0u8; 8192]` (P10-hit)",
        measured: &runs.hit.measured,
        technique: HIT_POOL,
        baseline: HIT_FRESH,
    });
    rows.push(Technique {
        label: &contended_unzeroed,
        measured: &runs.most_threads().measured,
        technique: Source::SharedPool.label(),
        baseline: Source::FreshUnzeroed.label(),
    });
    rows.push(Technique {
        label: &contended,
        measured: &runs.most_threads().measured,
        technique: Source::SharedPool.label(),
        baseline: Source::FreshVec.label(),
    });
    let mut table = run.own(allocator_table("X1-pool", "", &rows));
    table.note("Each row compares two methods of one timing run, in the same processes: P9-time's, each size of P10's, P10-hit's and P12's with the most threads. Under mimalloc only the fresh buffers change allocator: a hit of the pool never calls one.");
    table.note(format!("Each size is compared twice: with a fresh, unzeroed `Vec::with_capacity(n)`, written before it is read (the allocation alone, the fair comparison), and with a fresh `vec![0u8; n]`, which asks `calloc` for zeroed memory, so its ratio counts the zeroing of n bytes, or the page faults of fresh pages, as the pool's gain. P12's most threads are compared the same two ways, as ratios of whole timed runs ({} operations per worker, releasing and waiting for the workers included), where P12's table subtracts that floor from each rate: so these two rows are closer to 1× than P12's rates give. One reused `Vec` calls no allocator, so it is not here: P10, P10-hit, P12 and P13 set it against the pool.", lab::fmt::thousands(workloads::CONTENTION_OPS)));
    table.note(format!("P9-time: {}", runs.p9.measured.protocol_note()));
    table.note(format!(
        "P10, first size: {}",
        runs.p10[0].measured.protocol_note()
    ));
    table.note(format!("P10-hit: {}", runs.hit.measured.protocol_note()));
    table.note(format!(
        "P12, {} threads: {}",
        runs.most_threads().size,
        runs.most_threads().measured.protocol_note()
    ));
    if let Some(mm) = BySize::under(&runs.p10, Allocator::Mimalloc) {
        let all: Vec<&BySize> = mm.iter().collect();
        table.conclude(
            "under mimalloc, the sizes of P10 at which a warm rent from the shared pool is still faster than a fresh, unzeroed `Vec::with_capacity(n)` (the allocation alone)",
            BySize::sizes_where_faster(&all, SHARED, UNZEROED, bytes_label),
        );
        table.conclude(
            "under mimalloc, the sizes of P10 at which a fresh, unzeroed `Vec::with_capacity(n)` is faster than a warm rent from the shared pool",
            BySize::sizes_where_faster(&all, UNZEROED, SHARED, bytes_label),
        );
        table.conclude(
            "under mimalloc, the sizes of P10 at which a warm rent from the shared pool is still faster than a fresh, zeroed `vec![0u8; n]` (its zeroing included)",
            BySize::sizes_where_faster(&all, SHARED, FRESH, bytes_label),
        );
    }
    vec![table]
}

/// What process `p` of every run found, as the decision rules read it.
fn findings(runs: &Runs, p: usize) -> Findings {
    let by_size: Vec<&BySize> = runs.p10.iter().collect();
    let hit = &runs.hit.measured.processes[p];
    let small = &runs.p9.measured.processes[p];
    let contended = &runs.most_threads().measured.processes[p];
    let shared = Source::SharedPool.label();
    let sizes_where =
        |a: &str, b: &str| lab::verdicts::sizes_where(&BySize::outcomes(&by_size, p, a, b));
    Findings {
        sizes: by_size.iter().map(|s| s.size).collect(),
        reused_beats_pool_at: sizes_where(REUSED, SHARED),
        reused_beats_hit: hit.faster(HIT_REUSED, HIT_POOL),
        reused_fastest_in_p13: reused_is_fastest(&runs.p13.measured.processes[p], HIT_BYTES),
        pool_beats_unzeroed_at: sizes_where(SHARED, UNZEROED),
        unzeroed_beats_pool_at: sizes_where(UNZEROED, SHARED),
        pool_beats_zeroed_from: lab::verdicts::crossover(&BySize::outcomes(
            &by_size, p, SHARED, FRESH,
        )),
        unzeroed_stack_beats_pool: hit.faster(HIT_UNZEROED, HIT_POOL),
        pool_beats_zeroed_stack: hit.faster(HIT_POOL, HIT_ZEROED),
        small_stack_beats_pool: small.faster(SMALL_STACK, SMALL_POOL),
        small_pool_beats_unzeroed: small.faster(SMALL_POOL, SMALL_UNZEROED_HEAP),
        contended_pool_beats_fresh: contended.faster(shared, Source::FreshUnzeroed.label()),
        contended_pool_beats_no_cache: contended.faster(shared, Source::NoThreadCache.label()),
        no_pool_crate_beats_shared: Some(shared_is_fastest(
            &runs.p13.measured.processes[p],
            HIT_BYTES,
        )),
    }
}

/// The counts the rules cite: the same in every process.
fn counts(runs: &Runs) -> Counts {
    let left = |how| workloads::secret_left_for_next_renter(how).0;
    let shared = pool::shared();
    Counts {
        default_limit: 1 + PoolConfig::default().max_per_bucket,
        shared_limit: 1 + shared.config().max_per_bucket,
        shared_max_len: SHARED_MAX_LEN,
        shared_stack_bytes: shared.max_retained_bytes(0),
        shared_cache_bytes_per_thread: shared.max_retained_bytes(1) - shared.max_retained_bytes(0),
        threads: runs.most_threads().size,
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        secret_left_by_give_back: left(LetGo::GiveBack),
        secret_left_by_rent_cleared: left(LetGo::RentClearedThenGiveBack),
        secret_left_by_give_back_cleared: left(LetGo::GiveBackCleared),
    }
}

// P11 is one of a kind (each row a rule in words), so it is built row by row.
fn p11_rules(run: &Run) -> Vec<Table> {
    let runs = Runs::kept(run);
    let counts = counts(&runs);
    let k = runs.hit.measured.process_count();
    let per_process: Vec<_> = (0..k)
        .map(|p| rules(&findings(&runs, p), &counts, bytes_label))
        .collect();
    let mut table = run.table(&["situation", "do", "because (this machine)"]);
    for (i, rule) in per_process[k - 1].iter().enumerate() {
        let cell = |text: &dyn Fn(usize) -> String| {
            if rule.timed {
                Cell::Claim(agree(k, |p| Some(text(p))))
            } else {
                Cell::text(text(k - 1))
            }
        };
        table.row(vec![
            Cell::text(rule.situation),
            cell(&|p| per_process[p][i].action.clone()),
            cell(&|p| per_process[p][i].because.clone()),
        ]);
    }
    table.note("The rules are `pool_chapter::decisions::rules`, a function of what one process measured. A rule that depends on a timing is evaluated in every process of this report and printed where every process produced the same words; *varies between runs* means they did not, and that this machine cannot decide it. The other rules cite counts.");
    table.note("The timed rules read the runs of P9-time, P10, P10-hit, P12 and P13, each measured as the line under its table says. Where a rule sets the pool against allocating, it reads the fresh, unzeroed buffer (the allocation alone): `vec![0u8; n]` adds the zeroing, which a rent does not do.");
    table.note("The first two rules are the pool's reason to exist: a buffer the caller can own and pass down needs no pool, and the pool is for the buffers that cannot be passed down. The stack array and the arena are the other chapters' answers, given here as pointers.");
    table
        .note("They are this machine's: run `cargo xtask verify` on yours before relying on them.");
    vec![table]
}
