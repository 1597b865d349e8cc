//! R4: the whole command's peak resident memory as the input grows, read from the kernel for
//! one `receipt` process at a time (see [`crate::command`] for why each figure needs a fresh
//! intermediate process).

use std::process::{Command, ExitCode, Stdio};

use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns};
use lab::{Kind, Table};

use super::{NO_BINARY, receipt_binary};
use crate::command::{MEMORY_PROBE_VAR, MemoryProbe, feed};
use crate::workloads::CHUNK_SEED;
use crate::{STRATEGIES, Strategy};

pub(super) const R4: Function = lab::function!(r4_peak_memory);

/// The input sizes, in lines.
const R4_LINES: [u64; 3] = [100_000, 1_000_000, 4_000_000];

/// The most the whole command may hold on the largest input, for every strategy but `naive`.
const PEAK_TARGET_BYTES: u64 = 16 << 20;
/// How much more than on the smallest input the peak on the largest may be and still count as
/// flat.
const FLAT_TOLERANCE_BYTES: u64 = 1 << 20;

/// What one intermediate process measured: the child's peak and the bytes it was fed.
#[derive(Clone, Copy, Debug)]
struct Peak {
    rss_bytes: u64,
    input_bytes: u64,
}

/// R4's intermediate process: feeds the probe's lines to one `receipt` child, waits for it, and
/// prints `<peak resident set in KiB> <bytes fed>`.
pub(super) fn probe_from_env() -> Option<ExitCode> {
    let text = std::env::var(MEMORY_PROBE_VAR).ok()?;
    let measured = MemoryProbe::parse(&text).and_then(|probe| {
        let binary = receipt_binary().ok_or(NO_BINARY)?;
        let fed = feed(&binary, &probe).map_err(|err| format!("feeding {text}: {err}"))?;
        if !fed.status.success() {
            return Err(format!("`receipt` failed on {text} ({})", fed.status));
        }
        let kib = lab::env::peak_rss_of_waited_children_kib()
            .ok_or("getrusage(RUSAGE_CHILDREN) failed")?;
        Ok((kib, fed.bytes))
    });
    Some(match measured {
        Ok((kib, bytes)) => {
            println!("{kib} {bytes}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("receipt-experiments: {why}");
            ExitCode::FAILURE
        }
    })
}

/// Starts this binary again as the intermediate process for `probe` and reads its figures.
fn measure(probe: &MemoryProbe) -> Result<Peak, String> {
    let exe = std::env::current_exe().map_err(|err| format!("cannot find this binary: {err}"))?;
    let out = Command::new(exe)
        .env(MEMORY_PROBE_VAR, probe.encode())
        .env_remove(lab::protocol::PROBE_VAR)
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot start the probe: {err}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let numbers: Vec<u64> = text
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    match numbers[..] {
        [kib, input_bytes] => Ok(Peak {
            rss_bytes: kib * 1024,
            input_bytes,
        }),
        _ => Err(format!("the probe printed `{}`", text.trim())),
    }
}

/// One input size and each strategy's peak, in [`STRATEGIES`] order.
struct Row {
    lines: u64,
    peaks: Vec<Result<Peak, String>>,
}

impl Row {
    fn input_bytes(&self) -> Option<u64> {
        self.peaks.iter().flatten().map(|p| p.input_bytes).next()
    }

    fn peak(&self, strategy: Strategy) -> Option<u64> {
        let idx = STRATEGIES.iter().position(|&s| s == strategy)?;
        self.peaks[idx].as_ref().ok().map(|p| p.rss_bytes)
    }
}

/// `met` if `holds` for every strategy in `strategies`, `missed` if not, not resolvable if a
/// figure is missing.
fn target(strategies: &[Strategy], holds: impl Fn(Strategy) -> Option<bool>) -> Claim {
    let outcomes: Option<Vec<bool>> = strategies.iter().map(|&s| holds(s)).collect();
    match outcomes {
        Some(all) => Claim::Verdict {
            text: if all.iter().all(|&ok| ok) {
                "met"
            } else {
                "missed"
            }
            .to_owned(),
        },
        None => Claim::NotResolvable,
    }
}

fn r4_peak_memory(run: &Run) -> Vec<Table> {
    let mut columns = Columns::new()
        .col("N lines", |r: &Row| Cell::Count(r.lines))
        .col("input", |r: &Row| {
            r.input_bytes().map_or(Cell::Empty, Cell::Bytes)
        });
    for (idx, strategy) in STRATEGIES.iter().enumerate() {
        columns = columns.col(format!("`{strategy}`"), move |r: &Row| {
            match &r.peaks[idx] {
                Ok(peak) => Cell::Bytes(peak.rss_bytes),
                Err(_) => Cell::text("failed"),
            }
        });
    }
    if receipt_binary().is_none() {
        let mut table = run.own(columns.table("R4", Kind::Fact, "", &[]));
        table.note(NO_BINARY);
        return vec![table];
    }
    let rows: Vec<Row> = R4_LINES
        .iter()
        .map(|&lines| Row {
            lines,
            peaks: STRATEGIES
                .iter()
                .map(|&strategy| {
                    measure(&MemoryProbe {
                        strategy,
                        lines,
                        seed: CHUNK_SEED,
                    })
                })
                .collect(),
        })
        .collect();
    let mut table = run.own(columns.table("R4", Kind::Fact, "", &rows));
    table.note(format!("Each figure is the peak resident set (`ru_maxrss`) of one `receipt --strategy S` process, read with `getrusage(RUSAGE_CHILDREN)` by a process started for that one measurement: it generated the lines (`receipt gen`, seed {CHUNK_SEED}), wrote them into the command's standard input through a pipe as it went, and waited for it. So the command never had a file it could map, and no other process's peak is mixed in."));
    table.note("The command runs on the system allocator (no counting layer). The figure counts every resident page: the binary's code, the C library, the stack and the heap. It is not exactly the same from run to run: a few pages come and go.");
    for (row, strategy, why) in rows.iter().flat_map(|row| {
        STRATEGIES
            .iter()
            .zip(&row.peaks)
            .filter_map(move |(s, p)| p.as_ref().err().map(|why| (row.lines, s, why)))
    }) {
        table.note(format!("{strategy}, {row} lines: {why}"));
    }
    let (smallest, largest) = (&rows[0], &rows[rows.len() - 1]);
    let non_naive: Vec<Strategy> = STRATEGIES
        .into_iter()
        .filter(|&s| s != Strategy::Naive)
        .collect();
    table.conclude(
        format!(
            "target: at most 16 MiB on {} lines for every strategy but `naive`, because a streaming command holds one input chunk, one output buffer and one order, whatever the input's size",
            Cell::count(largest.lines).render()
        ),
        target(&non_naive, |s| {
            largest.peak(s).map(|peak| peak <= PEAK_TARGET_BYTES)
        }),
    );
    table.conclude(
        format!(
            "flat: for every strategy, the peak on {} lines at most 1 MiB above the peak on {} lines (a command that held its input would grow with it)",
            Cell::count(largest.lines).render(),
            Cell::count(smallest.lines).render()
        ),
        target(&STRATEGIES, |s| {
            Some(largest.peak(s)? <= smallest.peak(s)? + FLAT_TOLERANCE_BYTES)
        }),
    );
    vec![table]
}
