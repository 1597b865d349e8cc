//! `cargo xtask lab <n>`: grades lab `n` by exact counts, and `cargo xtask lab --check` grades
//! every lab's reference solution (which must pass) and starting point (which must fail, on its
//! budget and not on correctness).
//!
//! A lab is a package of `crates/labs/` (a workspace of its own, excluded from the course's):
//! `src/lib.rs` is the learner's, `src/bin/grade.rs` checks it against a reference and prints its
//! exact counts (see the `grading` crate). Instructions are counted here, under callgrind, as the
//! difference between `grade --instructions 2N` and `--instructions N`, divided by `N`: start-up
//! and checking cancel out, and the count is the same on every machine with the same toolchain.
//! Without valgrind, only the counts are graded, and the grader says so.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::data::workspace::Workspace;

/// One lab: what it asks, how it is graded, the hint a failing learner gets.
#[derive(Debug)]
pub struct Lab {
    /// Its number, the chapter's.
    pub n: u8,
    /// Its directory under `crates/labs/`.
    pub dir: &'static str,
    /// What to do, in one line.
    pub task: &'static str,
    /// Every graded figure, with its budget.
    pub budgets: &'static [Budget],
    /// Whether `src/lib.rs` must keep `#![forbid(unsafe_code)]`.
    pub forbid_unsafe: bool,
    /// Printed on failure.
    pub hint: &'static str,
}

/// A graded figure: a count the grade binary prints, or instructions per unit counted here.
#[derive(Debug)]
pub struct Budget {
    /// The figure: a `figure` line's name, or `instructions` for the callgrind count.
    pub figure: &'static str,
    /// What it is, for the learner.
    pub what: &'static str,
    /// The budget.
    pub limit: Limit,
    /// For `instructions`: how many units one `--instructions 1` runs (lines, iterations).
    pub units: u64,
    /// Why the budget is what it is: the reference solution's figure and the margin.
    pub why: &'static str,
}

/// A budget's side.
#[derive(Debug, Clone, Copy)]
pub enum Limit {
    AtMost(f64),
    AtLeast(f64),
}

impl Limit {
    fn holds(self, value: f64) -> bool {
        match self {
            Limit::AtMost(b) => value <= b,
            Limit::AtLeast(b) => value >= b,
        }
    }

    fn text(self) -> String {
        match self {
            Limit::AtMost(b) => format!("at most {}", number(b)),
            Limit::AtLeast(b) => format!("at least {}", number(b)),
        }
    }
}

/// The labs, in course order. Budgets come from the reference solutions' figures
/// (`cargo xtask lab --check` prints them), with the margin each `why` states.
pub const LABS: &[Lab] = &[
    Lab {
        n: 1,
        dir: "01-measure",
        task: "make the benchmark loop measure the work it claims to (chapter 1, M7)",
        budgets: &[Budget {
            figure: "instructions",
            what: "instructions per iteration of the measured loop",
            limit: Limit::AtLeast(2_000.0),
            units: 1,
            why: "the reference solution's count is one checksum of 1,000 values per iteration; the loop must do at least about half of it",
        }],
        forbid_unsafe: false,
        hint: "the compiler deletes a call whose result nobody uses, and computes once what cannot change between iterations: `std::hint::black_box` on the input and on each result tells it that both matter (chapter 1, M7)",
    },
    Lab {
        n: 2,
        dir: "02-stack-buffer",
        task: "pack orders of up to 256 items with no heap allocation, and no `unsafe` (chapter 2)",
        budgets: &[
            Budget {
                figure: "allocations-16",
                what: "allocating calls per pack of 16 items",
                limit: Limit::AtMost(0.0),
                units: 1,
                why: "the reference solution makes none",
            },
            Budget {
                figure: "allocations-256",
                what: "allocating calls per pack of 256 items",
                limit: Limit::AtMost(0.0),
                units: 1,
                why: "the reference solution makes none",
            },
        ],
        forbid_unsafe: true,
        hint: "both buffers hold at most one value per item: a fixed array of 256 on the stack holds them for small orders, and a hybrid that falls back to the heap above it keeps large orders correct — chapter 2's `Scratch::Hybrid`, or `smallvec::SmallVec<[f64; 256]>` (already a dependency)",
    },
    Lab {
        n: 3,
        dir: "03-pool",
        task: "encode order lines into messages that outlive the call, with no allocation per line once warm (chapter 3)",
        budgets: &[
            Budget {
                figure: "allocations-per-line",
                what: "allocating calls per line, once warm",
                limit: Limit::AtMost(0.0),
                units: 1,
                why: "the reference solution makes none",
            },
            Budget {
                figure: "instructions",
                what: "instructions per line (encode, queue, drop)",
                limit: Limit::AtMost(2_750.0),
                units: 1_000,
                why: "the reference solution's count, `write!` into a rented buffer, with a margin of ×1.25",
            },
        ],
        forbid_unsafe: false,
        hint: "a message outlives `encode`, so a buffer you own and pass down cannot be reused; rent one from a pool instead and write into it (`hotpath-pool` is a dependency as `pool`: an `Arc<BufferPool<u8>>` and `rent_buf_owned` give a buffer that implements `io::Write` and goes back to the pool when the sender drops it; size the pool for the 64 messages in flight) (chapter 3)",
    },
    Lab {
        n: 4,
        dir: "04-arena",
        task: "build and drop a tree of 200,000 nodes with a handful of allocations (chapter 4)",
        budgets: &[Budget {
            figure: "allocations",
            what: "allocating calls to build, walk and drop 200,000 nodes",
            limit: Limit::AtMost(32.0),
            units: 1,
            why: "the reference solution makes 1, an arena sized for the tree; an arena that grows makes one more per doubling of its chunk; the starting point makes one per node",
        }],
        forbid_unsafe: false,
        hint: "every node lives as long as the tree: put them all in one arena (`bumpalo::Bump` or `typed_arena::Arena`, both dependencies) and let the nodes refer to each other by `&'a Node<'a>`; dropping the arena frees them at once (chapter 4)",
    },
    Lab {
        n: 5,
        dir: "05-receipt",
        task: "write the receipt with no allocation per line once warm, within an instruction budget (chapter 5)",
        budgets: &[
            Budget {
                figure: "allocations-per-line",
                what: "allocating calls per line, once `out` has grown",
                limit: Limit::AtMost(0.0),
                units: 1,
                why: "the reference solution makes none",
            },
            Budget {
                figure: "instructions",
                what: "instructions per line",
                limit: Limit::AtMost(4_900.0),
                units: 10_000,
                why: "the reference solution's count, `write!` straight into `out`, with a margin of ×1.25",
            },
        ],
        forbid_unsafe: false,
        hint: "every field is already in the input: take it as a slice of the line instead of a `String`, parse the numbers from their bytes, and `write!` the receipt line straight into `out` (`Vec<u8>` implements `io::Write` and allocates only when it must grow) (chapter 5)",
    },
];

/// What `cargo xtask lab` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Options {
    /// Grade the learner's code of one lab.
    Grade(u8),
    /// Grade every solution and every starting point.
    Check,
}

/// What grading found.
#[derive(Debug)]
struct Graded {
    correct: Result<(), String>,
    /// `(budget, figure)`: `None` where it could not be measured here.
    figures: Vec<(&'static Budget, Option<f64>)>,
    unsafe_kept: Option<bool>,
    notes: Vec<String>,
}

impl Graded {
    fn budgets_met(&self) -> bool {
        self.figures
            .iter()
            .all(|(b, v)| v.is_none_or(|v| b.limit.holds(v)))
            && self.unsafe_kept != Some(false)
    }

    fn passed(&self) -> bool {
        self.correct.is_ok() && self.budgets_met()
    }
}

/// Runs `lab`.
pub fn run(ws: &Workspace, options: Options) -> Result<(), String> {
    match options {
        Options::Grade(n) => {
            let lab = LABS
                .iter()
                .find(|l| l.n == n)
                .ok_or_else(|| format!("no lab {n} (labs: 1 to {})", LABS.len()))?;
            let graded = grade(ws, lab, false)?;
            print!("{}", describe(lab, &graded, "your code"));
            if graded.passed() {
                println!("lab {n}: pass");
                Ok(())
            } else {
                println!("hint: {}", lab.hint);
                Err(format!("lab {n}: not yet"))
            }
        }
        Options::Check => check(ws),
    }
}

fn check(ws: &Workspace) -> Result<(), String> {
    let mut problems = Vec::new();
    let (mut solutions, mut starts) = (0, 0);
    for lab in LABS {
        let solution = grade(ws, lab, true)?;
        print!("{}", describe(lab, &solution, "reference solution"));
        if solution.passed() {
            solutions += 1;
        } else {
            problems.push(format!(
                "lab {}: the reference solution does not pass",
                lab.n
            ));
        }
        let start = grade(ws, lab, false)?;
        print!("{}", describe(lab, &start, "starting point"));
        match (&start.correct, start.budgets_met()) {
            (Ok(()), false) => starts += 1,
            (Err(why), _) => problems.push(format!(
                "lab {}: the starting point is not correct ({why}): it must fail on its budget only",
                lab.n
            )),
            (Ok(()), true) => problems.push(format!(
                "lab {}: the starting point already meets its budget",
                lab.n
            )),
        }
    }
    println!("labs: {solutions} solutions pass, {starts} starting points fail on budget");
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn describe(lab: &Lab, graded: &Graded, whose: &str) -> String {
    let mut out = format!(
        "lab {} ({whose}, crates/labs/{}/src/lib.rs): {}\n",
        lab.n, lab.dir, lab.task
    );
    out.push_str(&match &graded.correct {
        Ok(()) => "  correct: yes\n".to_owned(),
        Err(why) => format!("  correct: no — {why}\n"),
    });
    for (budget, value) in &graded.figures {
        match value {
            Some(v) => out.push_str(&format!(
                "  {}: {} · budget {} ({}) · {}\n",
                budget.what,
                number(*v),
                budget.limit.text(),
                budget.why,
                if budget.limit.holds(*v) {
                    "pass"
                } else {
                    "FAIL"
                }
            )),
            None => out.push_str(&format!(
                "  {}: not measured here · budget {}\n",
                budget.what,
                budget.limit.text()
            )),
        }
    }
    if let Some(kept) = graded.unsafe_kept {
        out.push_str(&format!(
            "  no `unsafe` (`#![forbid(unsafe_code)]` kept in src/lib.rs): {}\n",
            if kept { "yes · pass" } else { "no · FAIL" }
        ));
    }
    for note in &graded.notes {
        out.push_str(&format!("  ({note})\n"));
    }
    out
}

/// A figure as the learner reads it: a whole number as one (`3`, `200,000`), else three digits.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        lab::fmt::thousands(v.abs() as u64)
    } else {
        lab::fmt::significant(v, 3)
    }
}

fn labs_dir(ws: &Workspace) -> PathBuf {
    ws.root.join("crates").join("labs")
}

/// Builds lab `lab`'s grader (its learner's code, or with `solution` the reference solution)
/// and returns the path of a copy of the binary, so the two builds do not overwrite each other.
fn build(ws: &Workspace, lab: &Lab, solution: bool) -> Result<PathBuf, String> {
    let target = ws.target.join("labs");
    let package = format!("lab-{}", lab.dir);
    let bin = format!("grade-lab-{:02}", lab.n);
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .current_dir(labs_dir(ws))
        .env("CARGO_TARGET_DIR", &target)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            &package,
            "--bin",
            &bin,
        ]);
    if solution {
        command.args(["--features", "solution"]);
    }
    let status = command
        .status()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if !status.success() {
        return Err(format!(
            "lab {}: crates/labs/{}/ does not build ({status}): fix the compiler's errors above",
            lab.n, lab.dir
        ));
    }
    let built = target.join("release").join(&bin);
    let copy = target.join(format!(
        "{bin}-{}",
        if solution { "solution" } else { "yours" }
    ));
    std::fs::copy(&built, &copy).map_err(|err| format!("{}: {err}", built.display()))?;
    Ok(copy)
}

fn grade(ws: &Workspace, lab: &Lab, solution: bool) -> Result<Graded, String> {
    let binary = build(ws, lab, solution)?;
    let output = Command::new(&binary)
        .output()
        .map_err(|err| format!("cannot run {}: {err}", binary.display()))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut correct = Err(format!(
        "the grader did not finish ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .last()
            .unwrap_or_default()
    ));
    let mut counts = Vec::new();
    for line in text.lines() {
        if line == "correct yes" {
            correct = Ok(());
        } else if let Some(why) = line.strip_prefix("correct no ") {
            correct = Err(why.to_owned());
        } else if let Some(rest) = line.strip_prefix("figure ")
            && let Some((name, value)) = rest.split_once(' ')
            && let Ok(value) = value.parse::<f64>()
        {
            counts.push((name.to_owned(), value));
        }
    }
    let mut notes = Vec::new();
    let mut figures = Vec::new();
    for budget in lab.budgets {
        let value = if budget.figure == "instructions" {
            match instructions(&binary, budget.units) {
                Ok(v) => Some(v),
                Err(why) => {
                    notes.push(format!(
                        "instructions not counted: {why}; install valgrind to grade them"
                    ));
                    None
                }
            }
        } else {
            counts
                .iter()
                .find(|(name, _)| name == budget.figure)
                .map(|(_, v)| *v)
        };
        figures.push((budget, value));
    }
    let unsafe_kept = lab.forbid_unsafe.then(|| {
        let lib = labs_dir(ws).join(lab.dir).join("src").join("lib.rs");
        solution
            || std::fs::read_to_string(lib)
                .is_ok_and(|text| text.lines().any(|l| l.trim() == "#![forbid(unsafe_code)]"))
    });
    Ok(Graded {
        correct,
        figures,
        unsafe_kept,
        notes,
    })
}

/// Instructions per unit of `binary`'s measured work: (`--instructions 2N` − `--instructions
/// N`) / (N × `units`), counted by callgrind.
fn instructions(binary: &Path, units: u64) -> Result<f64, String> {
    const N: u64 = 4;
    let at = |n: u64| lab::callgrind::count_program(binary, &["--instructions", &n.to_string()]);
    let (one, two) = (at(N)?, at(2 * N)?);
    Ok(two.saturating_sub(one) as f64 / (N * units) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lab has its starting point, its grader and its reference solution, and a budget.
    #[test]
    fn every_lab_has_a_start_a_grader_a_solution_and_a_budget() {
        let ws = Workspace::load().unwrap();
        for (i, lab) in LABS.iter().enumerate() {
            assert_eq!(usize::from(lab.n), i + 1);
            let dir = labs_dir(&ws).join(lab.dir);
            for file in ["src/lib.rs", "src/bin/grade.rs", "Cargo.toml"] {
                assert!(dir.join(file).exists(), "lab {}: no {file}", lab.n);
            }
            let grader = std::fs::read_to_string(dir.join("src/bin/grade.rs")).unwrap();
            let solution = format!("xtask/lab-solutions/{}.rs", lab.dir);
            assert!(
                ws.root.join(&solution).exists(),
                "lab {}: no {solution}",
                lab.n
            );
            assert!(
                grader.contains(&format!("lab-solutions/{}.rs", lab.dir)),
                "lab {}: its grader does not include {solution}",
                lab.n
            );
            assert!(!lab.budgets.is_empty(), "lab {}: no budget", lab.n);
        }
    }

    #[test]
    fn a_budget_holds_on_its_side() {
        assert!(Limit::AtMost(0.0).holds(0.0) && !Limit::AtMost(0.0).holds(0.5));
        assert!(Limit::AtLeast(2.0).holds(2.0) && !Limit::AtLeast(2.0).holds(1.9));
        assert_eq!(number(200_000.0), "200,000");
        assert_eq!(number(3.055), "3.06");
    }
}
