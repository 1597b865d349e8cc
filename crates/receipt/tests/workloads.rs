//! The workloads of the chapter's timed tables do the work they claim: R2's chunk runner and
//! floors, R5's cumulative stages.

mod common;

use receipt::generate::generated;
use receipt::workloads::{self, ChunkRunner, Stage, Stages};
use receipt::{STRATEGIES, Strategy};

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
            assert_eq!(runner.run(&input), summary.printed, "{strategy}");
            assert_eq!(runner.output(), expected.as_bytes(), "{strategy}");
        }
    }
}

/// R2: the floors see every line end and copy every byte.
#[test]
fn r2_the_floors_see_every_line_and_every_byte() {
    let input = chunk();
    let lines = input.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(workloads::line_ends(&input), lines);
    let mut out = Vec::new();
    assert_eq!(workloads::copy_through(&input, &mut out), input.len());
    assert_eq!(out, input);
}

/// R5: every stage handles every line of the generated input as a good line — the scanner
/// never falls back to the reference checker there, so each stage measures the fast path —
/// and the last two are the streaming strategy itself.
#[test]
fn r5_every_stage_handles_every_line_of_the_generated_input() {
    let input = chunk();
    let lines = input.iter().filter(|&&b| b == b'\n').count() as u64;
    let mut stages = Stages::new();
    for stage in Stage::ALL {
        assert_eq!(stages.run(stage, &input), lines, "{}", stage.name());
    }
}

/// R5: the stages are cumulative — each one's name starts with `+` after the first — and
/// listed in the order the chapter presents them.
#[test]
fn r5_the_stages_are_listed_in_order_each_adding_to_the_last() {
    let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(names[0], "find line ends (memchr)");
    assert!(names[1..].iter().all(|n| n.starts_with("+ ")), "{names:?}");
    assert_eq!(names.last(), Some(&"+ write"));
}
