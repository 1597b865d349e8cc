//! Chapter 5's claims: identical output across strategies, the error behaviour, every line
//! accounted for, and zero allocations per line in steady state.

use std::process::Command;

use lab::count;
use proptest::prelude::*;
use receipt::generate::generated;
use receipt::{Processor, STRATEGIES, Strategy as Way, Summary};

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

fn run(strategy: Way, input: &[u8]) -> (String, String, Summary) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let summary = Processor::new(strategy)
        .run(input, &mut out, &mut err)
        .unwrap();
    (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
        summary,
    )
}

fn assert_all_agree(input: &[u8]) -> (String, String, Summary) {
    let first = run(Way::Naive, input);
    for strategy in STRATEGIES {
        assert_eq!(run(strategy, input), first, "{strategy}");
    }
    first
}

const SEED_ORDER: &str = "1042|ต้มยำกุ้ง|2|18000\n1042|ข้าวผัด|1|6000\n";

#[test]
fn the_seed_order_prints_the_expected_receipt() {
    let (out, err, summary) = assert_all_agree(SEED_ORDER.as_bytes());
    let expected = format!(
        "Order 1042\n  ต้มยำกุ้ง{}     2 x     180.00      360.00\n  ข้าวผัด{}     1 x      60.00       60.00\nTOTAL{}420.00\n",
        " ".repeat(14),
        " ".repeat(15),
        " ".repeat(42),
    );
    assert_eq!(out, expected);
    assert_eq!(err, "");
    assert_eq!(
        (
            summary.read,
            summary.printed,
            summary.receipts,
            summary.exit_code()
        ),
        (2, 2, 1, 0)
    );
}

#[test]
fn every_strategy_prints_the_same_bytes_for_a_generated_file() {
    let input = generated(if cfg!(miri) { 30 } else { 5_000 }, 1);
    let (out, _, summary) = assert_all_agree(&input);
    assert_eq!(summary.printed, summary.read);
    assert!(out.matches("Order ").count() as u64 == summary.receipts);
}

#[test]
fn crlf_blank_lines_and_a_missing_final_newline_are_accepted() {
    let (out, _, s) = assert_all_agree(b"7|x|1|100\r\n\r\n\n7|y|2|50");
    assert_eq!((s.read, s.blank, s.printed, s.receipts), (4, 2, 2, 1));
    assert!(
        out.ends_with("TOTAL                                            2.00\n"),
        "{out:?}"
    );
}

#[test]
fn the_same_id_later_starts_a_new_receipt() {
    let (out, _, s) = assert_all_agree(b"1|a|1|100\n2|b|1|100\n1|c|1|100\n");
    assert_eq!(s.receipts, 3);
    assert_eq!(out.matches("Order 1\n").count(), 2);
    assert!(
        out.contains("\n\nOrder 2\n"),
        "a blank line between receipts"
    );
}

#[test]
fn an_order_with_a_bad_line_is_rejected_whole_and_named() {
    let input = "1|a|1|100\n2|b|1|100\n2|c|x|100\n2|d|1|100\n3|e|1|100\n";
    let (out, err, s) = assert_all_agree(input.as_bytes());
    assert!(!out.contains("Order 2"), "never print a wrong total");
    assert!(out.contains("Order 1") && out.contains("Order 3"));
    assert_eq!(
        err,
        "line 3: qty is not a positive decimal integer\norder 2 rejected (3 lines), bad: 3\n"
    );
    assert_eq!(
        (
            s.read,
            s.printed,
            s.rejected,
            s.rejected_orders,
            s.exit_code()
        ),
        (5, 2, 3, 1, 1)
    );
}

#[test]
fn each_error_class_has_its_message_and_prints_nothing() {
    for (class, text, message) in receipt::cases::BAD_INPUT {
        let input = receipt::cases::input(class, text);
        let (out, err, s) = assert_all_agree(&input);
        assert_eq!(out, "", "{class}");
        assert_eq!(err.lines().next(), Some(message), "{class}");
        assert_eq!(s.exit_code(), 1, "{class}");
        assert_eq!(s.read, s.printed + s.rejected + s.blank, "{class}");
    }
}

#[test]
fn streaming_pooled_stack_and_arena_allocate_0_bytes_per_line_once_warm() {
    let input = generated(if cfg!(miri) { 200 } else { 100_000 }, 3);
    for strategy in [Way::Streaming, Way::Pooled, Way::Stack, Way::Arena] {
        let mut processor = Processor::new(strategy);
        processor
            .run(&input, &mut std::io::sink(), &mut std::io::sink())
            .unwrap();
        let (_, stats) = count(|| {
            processor
                .run(&input, &mut std::io::sink(), &mut std::io::sink())
                .unwrap()
        });
        assert_eq!(stats.bytes_allocated, 0, "{strategy}");
    }
    let mut naive = Processor::new(Way::Naive);
    naive
        .run(&input, &mut std::io::sink(), &mut std::io::sink())
        .unwrap();
    let (_, stats) = count(|| {
        naive
            .run(&input, &mut std::io::sink(), &mut std::io::sink())
            .unwrap()
    });
    assert!(
        stats.allocs > 5 * 100,
        "the naive strategy allocates per line ({})",
        stats.allocs
    );
}

fn line_strategy() -> impl proptest::strategy::Strategy<Value = String> {
    let good = (
        1u64..6,
        prop_oneof![Just("ต้มยำกุ้ง"), Just("Pad Thai"), Just("x")],
        1u64..5,
        0u64..100_000,
    )
        .prop_map(|(id, item, qty, price)| format!("{id}|{item}|{qty}|{price}"));
    let bad = prop_oneof![
        Just(String::new()),
        Just("1|a|0|1".to_owned()),
        Just("2||1|1".to_owned()),
        Just("junk".to_owned()),
        Just("3|a|1|18446744073709551615".to_owned()),
        "[0-9|a-z]{0,12}",
    ];
    prop_oneof![4 => good, 1 => bad]
}

proptest! {
    #![proptest_config(if cfg!(miri) {
        ProptestConfig { cases: 2, failure_persistence: None, ..ProptestConfig::default() }
    } else {
        ProptestConfig::with_cases(200)
    })]

    #[test]
    fn strategies_agree_on_random_order_files(lines in proptest::collection::vec(line_strategy(), 0..40), crlf in any::<bool>()) {
        let input = lines.join(if crlf { "\r\n" } else { "\n" });
        let (_, _, s) = assert_all_agree(input.as_bytes());
        prop_assert_eq!(s.read, s.printed + s.rejected + s.blank);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_every_line_is_accounted_for(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let (_, _, s) = assert_all_agree(&bytes);
        prop_assert_eq!(s.read, s.printed + s.rejected + s.blank);
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        prop_assert!(s.read == newlines || s.read == newlines + 1);
    }
}

fn receipt_command(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_receipt"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
#[cfg_attr(miri, ignore = "runs the binary")]
fn the_command_exits_0_1_or_2_and_says_why() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/sample/orders.txt");
    let bad = concat!(env!("CARGO_MANIFEST_DIR"), "/sample/bad.txt");
    let ok = receipt_command(&[sample]);
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).starts_with("Order "));
    let rejected = receipt_command(&["--strategy", "naive", bad]);
    assert_eq!(rejected.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&rejected.stderr);
    assert!(
        stderr.contains("line 3: qty is not a positive decimal integer"),
        "{stderr}"
    );
    assert!(
        stderr.trim_end().ends_with("blank"),
        "the summary comes last: {stderr}"
    );
    for args in [
        &["--strategy", "fast"][..],
        &["--frobnicate"],
        &["/no/such/file"],
        &["a", "b"],
        &["gen"],
    ] {
        let out = receipt_command(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("receipt: "),
            "{args:?}"
        );
    }
    assert_eq!(receipt_command(&["--help"]).status.code(), Some(0));
    let generated_file = receipt_command(&["gen", "--lines", "16", "--seed", "7"]);
    assert_eq!(
        generated_file.stdout,
        std::fs::read(sample).unwrap(),
        "the sample is `receipt gen --lines 16 --seed 7`"
    );
}
