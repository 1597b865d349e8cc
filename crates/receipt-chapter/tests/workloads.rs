//! The chapter's workloads do the work they claim: R2's chunk runner and floors, R5's cumulative
//! stages, both copies of each, and R1's pooled processor that starts cold on every row.

// The library's own test helpers: every strategy run the same way its tests run them.
#[path = "../../receipt/tests/common/mod.rs"]
mod common;

use std::io::sink;

use lab::count;
use receipt::generate::generated;
use receipt::{Processor, STRATEGIES, Strategy};
use receipt_chapter::workloads::{self, ChunkRunner, Stage, Stages};

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

/// R2's and R5's chunk (shorter under Miri).
fn chunk() -> Vec<u8> {
    if cfg!(miri) {
        generated(40, workloads::CHUNK_SEED)
    } else {
        workloads::chunk()
    }
}

/// R2: a chunk runner prints, round after round, exactly what a processor prints.
#[test]
fn r2_a_chunk_runner_prints_what_the_processor_prints_every_round() {
    let input = chunk();
    let (expected, _, summary) = common::run(Strategy::Naive, &input);
    for strategy in STRATEGIES {
        let mut runner = ChunkRunner::new(strategy);
        for _ in 0..3 {
            assert_eq!(runner.run::<0>(&input), summary.printed, "{strategy}");
            assert_eq!(runner.output(), expected.as_bytes(), "{strategy}");
        }
    }
}

/// R2: the floors see every line end and copy every byte.
#[test]
fn r2_the_floors_see_every_line_and_every_byte() {
    let input = chunk();
    let lines = input.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(workloads::line_ends::<0>(&input), lines);
    let mut buf = Vec::new();
    assert_eq!(workloads::copy_through::<0>(&input, &mut buf), input.len());
    let last = input.chunks(receipt::CHUNK_SIZE).last().unwrap_or_default();
    assert_eq!(buf, last, "one reused buffer, holding the last piece");
}

/// R2, R5: the two copies of each timed workload (the original's and the twin's) do the same
/// work.
#[test]
fn r2_both_copies_of_each_workload_do_the_same_work() {
    let input = chunk();
    for strategy in STRATEGIES {
        let (mut original, mut twin) = (ChunkRunner::new(strategy), ChunkRunner::new(strategy));
        assert_eq!(original.run::<0>(&input), twin.run::<1>(&input));
        assert_eq!(original.output(), twin.output(), "{strategy}");
    }
    assert_eq!(
        workloads::line_ends::<0>(&input),
        workloads::line_ends::<1>(&input)
    );
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert_eq!(
        workloads::copy_through::<0>(&input, &mut a),
        workloads::copy_through::<1>(&input, &mut b)
    );
    assert_eq!(a, b);
    for stage in Stage::MEASURED {
        let (mut original, mut twin) = (Stages::new(), Stages::new());
        assert_eq!(
            original.run::<0>(stage, &input),
            twin.run::<1>(stage, &input),
            "{}",
            stage.name()
        );
    }
}

/// R5: every stage handles every line of the generated input as a good line — the scanner
/// never falls back to the reference checker there, so each stage measures the fast path —
/// and the last two are the streaming strategy itself.
#[test]
fn r5_every_stage_handles_every_line_of_the_generated_input() {
    let input = chunk();
    let lines = input.iter().filter(|&&b| b == b'\n').count() as u64;
    for stage in Stage::MEASURED {
        let mut stages = Stages::new();
        assert_eq!(stages.run::<0>(stage, &input), lines, "{}", stage.name());
    }
}

/// R5: the stages are cumulative. Each lane stage rejects every line the one before it
/// rejects: `+ check the item` also a name that is not UTF-8 or holds a control character,
/// `+ parse and check the numbers` also a quantity of 0; `+ render` prints what it accepts;
/// the row with the item cache off accepts the same lines as `+ parse and check the numbers`.
/// Each line is the second of its input, with enough lines after it that the lane, not the
/// scanner, reads it.
#[test]
fn r5_each_stage_does_the_work_of_the_one_before_it_and_more() {
    let lines: [&[u8]; 6] = [
        "5|ต้มยำกุ้ง|1|100\n".as_bytes(),
        b"5|\xFF|1|100\n",
        b"5|a|0|100\n",
        b"5|a\x1b|1|100\n",
        "5|ต้ม\u{202e}|1|100\n".as_bytes(),
        b"5|a|x|100\n",
    ];
    let after = "2|Water|1|1500\n".repeat(30);
    let input = |line: &[u8]| [b"1|a|1|100\n", line, after.as_bytes()].concat();
    let accepted = |stage: Stage| -> Vec<bool> {
        lines
            .iter()
            .map(|line| Stages::new().run::<0>(stage, &input(line)) == 32)
            .collect()
    };
    let lane = [Stage::Walk, Stage::Item, Stage::Numbers];
    let by_stage: Vec<Vec<bool>> = lane.iter().map(|&s| accepted(s)).collect();
    assert_eq!(
        by_stage,
        [
            [true, true, true, true, true, false],
            [true, false, true, false, false, false],
            [true, false, false, false, false, false],
        ]
    );
    assert_eq!(
        accepted(Stage::Render),
        by_stage[2],
        "it prints what it accepts"
    );
    assert_eq!(accepted(Stage::Write), by_stage[2]);
    assert_eq!(accepted(Stage::NumbersWithoutCache), by_stage[2]);
    let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
    assert!(names[1..].iter().all(|n| n.starts_with("+ ")), "{names:?}");
    for stage in Stage::MEASURED {
        let before = stage.compared_with();
        assert_eq!(
            before.is_none(),
            stage == Stage::LineEnds,
            "{}",
            stage.name()
        );
    }
}

/// R1: a pooled processor with a pool of its own allocates exactly the same on every fresh
/// start, whatever ran before it; one renting from the process-wide pool finds it warm.
#[test]
fn r1_a_fresh_pool_per_row_allocates_the_same_every_time() {
    let input = generated(if cfg!(miri) { 50 } else { 1_000 }, 2026);
    let fresh = || {
        count(|| {
            workloads::fresh_pooled()
                .run(&input, &mut sink(), &mut sink())
                .unwrap()
        })
        .1
    };
    // Whether a reallocation moved is the system allocator's business: compare the counts.
    let counts = |stats: lab::AllocStats| (stats.allocs, stats.reallocs, stats.bytes_allocated);
    // The first pool a thread uses also sets up the thread's list of pool caches, once per
    // thread: count from the second on.
    fresh();
    let first = fresh();
    assert_eq!(counts(fresh()), counts(first));
    assert!(first.allocs > 0, "the pool starts cold");
    let shared = || {
        count(|| {
            Processor::new(Strategy::Pooled)
                .run(&input, &mut sink(), &mut sink())
                .unwrap()
        })
        .1
    };
    shared();
    assert!(
        shared().bytes_allocated < first.bytes_allocated,
        "the shared pool is warm"
    );
}
