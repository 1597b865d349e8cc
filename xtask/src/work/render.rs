//! Rendering the generated regions of a chapter from the snapshots.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use lab::fmt::significant;
use lab::protocol::Allocator;
use lab::publish::median;
use lab::report::{ExperimentInfo, Snapshot};
use lab::{Cell, Kind, Table};

use crate::data::files::ensure_file_contents;
use crate::data::markers;
use crate::data::records::{self, Comparison, M9_PINS, M10_PINS, MachineRecord, Outcome};
use crate::data::workspace::{Chapter, Workspace};
use crate::{Mode, REGENERATE};

/// Targets for the twin disagreement over every timed method of the report (chapter 1): the
/// instrument must be much finer than the effects the course reports.
const TWIN_TARGET_MEDIAN_PCT: f64 = 1.5;
const TWIN_TARGET_MAX_PCT: f64 = 5.0;

/// Regenerates every chapter's doc (and its plots) from the snapshots and the machine records:
/// one error per chapter whose doc cannot be rendered, or (in check mode) differs.
pub fn all(ws: &Workspace, snapshots: &BTreeMap<String, Snapshot>, mode: Mode) -> Vec<String> {
    let machines = match records::machine_records(&ws.root) {
        Ok(machines) => machines,
        Err(err) => return vec![err],
    };
    let mut errors = Vec::new();
    for chapter in &ws.chapters {
        let Some(snapshot) = snapshots.get(&chapter.name) else {
            continue;
        };
        if let Err(err) = doc(ws, chapter, snapshot, snapshots, &machines, mode) {
            errors.push(err);
        }
    }
    errors
}

/// Words a learner reads per minute, for the README's reading order.
const WORDS_PER_MINUTE: usize = 200;

/// The README's reading order: each chapter's title, and minutes for its main page and its
/// appendix at [`WORDS_PER_MINUTE`] (words as `wc -w` counts them).
pub fn reading_order(ws: &Workspace) -> Result<String, String> {
    let docs = ws.root.join("docs");
    let words = |name: &str| -> Result<Option<(String, usize)>, String> {
        let path = docs.join(name);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("docs/{name}: {e}"))?;
        let title = text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .unwrap_or(name)
            .to_owned();
        Ok(Some((title, text.split_whitespace().count())))
    };
    let minutes = |w: usize| w.div_ceil(WORDS_PER_MINUTE);
    let mut out =
        String::from("| chapter | reading time | appendix (for specialists) |\n|---|---:|---:|\n");
    let mut total = 0;
    for chapter in &ws.chapters {
        let Some((title, main)) = words(&chapter.doc)? else {
            continue;
        };
        total += minutes(main);
        let appendix_name = appendix_of(&chapter.doc);
        let appendix = match words(&appendix_name)? {
            Some((_, w)) => format!("[{} min](docs/{appendix_name})", minutes(w)),
            None => "—".to_owned(),
        };
        let _ = writeln!(
            out,
            "| [{title}](docs/{}) | {} min | {appendix} |",
            chapter.doc,
            minutes(main)
        );
    }
    let _ = writeln!(
        out,
        "\nAbout {total} minutes in all, at {WORDS_PER_MINUTE} words a minute (`cargo xtask book` counts them)."
    );
    Ok(out)
}

/// Writes (or checks) the README's generated reading order.
pub fn readme(ws: &Workspace, mode: Mode) -> Result<(), String> {
    let path = ws.root.join("README.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("README.md: {e}"))?;
    let order = reading_order(ws)?;
    let new = markers::replace("README.md", &text, |id| match id {
        "reading-order" => Ok(order.clone()),
        other => Err(format!("README.md has no generated region `{other}`")),
    })?;
    ensure_file_contents(&path, &new, mode).map_err(|e| format!("{e} (run `cargo xtask book`)"))
}

/// A chapter's appendix page: `docs/NN-name-appendix.md` beside `docs/NN-name.md`.
pub fn appendix_of(doc: &str) -> String {
    format!("{}-appendix.md", doc.trim_end_matches(".md"))
}

/// The conclusion a chapter cites: the one claim of its tables whose key starts with `key`,
/// or of another chapter's with `chapter:key` (`pool:P10 · …`).
fn cited(
    own: &Snapshot,
    all: &BTreeMap<String, Snapshot>,
    key: &str,
) -> Result<(String, lab::table::Claim), String> {
    let (snapshot, key) = match key.split_once(':') {
        Some((chapter, rest)) if all.contains_key(chapter) => (&all[chapter], rest),
        _ => (own, key),
    };
    let found: Vec<(String, lab::table::Claim)> = records::claims_of(snapshot, |_| true)
        .into_iter()
        .filter(|(k, _)| k.starts_with(key))
        .collect();
    match found.len() {
        1 => Ok(found.into_iter().next().expect("one")),
        0 => Err(format!(
            "{}: the chapter cites `{key}`, which no table of its snapshot prints",
            own.chapter
        )),
        n => Err(format!(
            "{}: the chapter cites `{key}`, which starts {n} keys: make it longer",
            own.chapter
        )),
    }
}

/// A cited conclusion as a reader sees it: what it says, the verdict or bound, the table.
fn cited_text(
    own: &Snapshot,
    all: &BTreeMap<String, Snapshot>,
    c: &lab::report::CitedText,
) -> Result<String, String> {
    let (key, claim) = cited(own, all, &c.key)?;
    let table = key.split(" · ").next().unwrap_or_default();
    let this_machine = if matches!(claim, lab::table::Claim::Ratio { .. }) {
        ", this machine's figure"
    } else {
        ""
    };
    Ok(format!(
        "{}: **{}** ({table}{this_machine})",
        c.says,
        claim.render()
    ))
}

/// The answer box: at most five conclusions, first thing in the chapter.
fn answer(own: &Snapshot, all: &BTreeMap<String, Snapshot>) -> Result<String, String> {
    if own.answer.is_empty() || own.answer.len() > 5 {
        return Err(format!(
            "{}: the answer box cites {} conclusions (1 to 5: `answer` in the chapter's `Chapter`)",
            own.chapter,
            own.answer.len()
        ));
    }
    let mut out = String::from(
        "> **The answer.** Conclusions of this chapter's tables, each re-checked on your machine by `cargo xtask verify`:\n>\n",
    );
    for c in &own.answer {
        let _ = writeln!(out, "> - {}", cited_text(own, all, c)?);
    }
    Ok(out)
}

/// The decision table: situation → what to do → the conclusion behind it.
fn decisions(own: &Snapshot, all: &BTreeMap<String, Snapshot>) -> Result<String, String> {
    if !(3..=6).contains(&own.decisions.len()) {
        return Err(format!(
            "{}: the decision table has {} rows (3 to 6: `decisions` in the chapter's `Chapter`)",
            own.chapter,
            own.decisions.len()
        ));
    }
    let mut out =
        String::from("| situation | what to do | the conclusion behind it |\n|---|---|---|\n");
    for d in &own.decisions {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            d.situation.replace('|', "\\|"),
            d.action.replace('|', "\\|"),
            cited_text(own, all, &d.because)?.replace('|', "\\|")
        );
    }
    Ok(out)
}

/// Regenerates one chapter's doc and its appendix page, if it has one, and its plots.
fn doc(
    ws: &Workspace,
    chapter: &Chapter,
    own: &Snapshot,
    all: &BTreeMap<String, Snapshot>,
    machines: &[MachineRecord],
    mode: Mode,
) -> Result<(), String> {
    let root = ws.root.as_path();
    let mut present: Vec<String> = Vec::new();
    let appendix = appendix_of(&chapter.doc);
    for (n, name) in [chapter.doc.as_str(), appendix.as_str()]
        .into_iter()
        .enumerate()
    {
        let path = root.join("docs").join(name);
        if n == 1 && !path.exists() {
            continue;
        }
        present.extend(page(ws, chapter, own, all, machines, mode, &path)?);
    }
    let file = ws.rel(&root.join("docs").join(&chapter.doc));
    let mut required: Vec<&str> = vec!["M2"];
    if chapter.name == "lab" {
        required.extend(["twin-summary", "M9", "M10", "protocol"]);
    }
    if !own.sources.is_empty() {
        required.push("sources");
    }
    if !own.answer.is_empty() {
        required.push("answer");
    }
    if !own.decisions.is_empty() {
        required.push("decisions");
    }
    required.extend(own.tables.iter().map(|t| t.id.as_str()));
    let missing: Vec<&str> = required
        .into_iter()
        .filter(|id| !present.iter().any(|p| p == id))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{file} (or its appendix page, {}): no generated region for {} (add `<!-- BEGIN GENERATED: ID -->` / `<!-- END GENERATED: ID -->` lines)",
            appendix,
            missing.join(", ")
        ));
    }
    for plot in own.tables.iter().flat_map(|t| &t.plots) {
        let svg_path = root
            .join("docs")
            .join("img")
            .join(format!("{}.svg", plot.file));
        ensure_file_contents(&svg_path, &plot.to_svg(), mode)?;
    }
    Ok(())
}

/// Regenerates one page of a chapter; returns the ids of its generated regions.
fn page(
    ws: &Workspace,
    chapter: &Chapter,
    own: &Snapshot,
    all: &BTreeMap<String, Snapshot>,
    machines: &[MachineRecord],
    mode: Mode,
    path: &std::path::Path,
) -> Result<Vec<String>, String> {
    let file = ws.rel(path);
    let text =
        std::fs::read_to_string(path).map_err(|err| format!("{file}: cannot read: {err}"))?;
    let data = ws.rel(&ws.data_path(chapter));
    let new = markers::replace(&file, &text, |id| match id {
        "answer" => answer(own, all),
        "decisions" => decisions(own, all),
        "M2" => Ok(environment(own)),
        "twin-summary" => Ok(noise_summary(all)),
        "M9" => Ok(machines_table(machines, all)),
        "M10" => Ok(moved_table(machines, all)),
        "protocol" => Ok(protocol(own)),
        "sources" => Ok(sources(own)),
        _ => {
            let table = own.table(id).ok_or_else(|| {
                format!("no experiment of {} produced a table `{id}`", chapter.name)
            })?;
            Ok(format!(
                "{}\n{}",
                table.to_markdown(),
                footer(&data, table, own.experiment_of(id))
            ))
        }
    })?;
    let present: Vec<String> = markers::regions(&file, &new)?
        .into_iter()
        .map(|r| r.id)
        .collect();
    ensure_file_contents(path, &new, mode)?;
    Ok(present)
}

/// The line under every table: where it came from, the code that made it, what pins it.
fn footer(data: &str, table: &Table, experiment: Option<&ExperimentInfo>) -> String {
    let mut out = format!("<sub>Generated by `{REGENERATE}` from `{data}`");
    if let Some(experiment) = experiment.filter(|e| e.id != table.id) {
        // A companion table: its code and pins are its experiment's, named under that table.
        let _ = write!(
            out,
            " · code: `{}`, with {} · pinned with {}",
            experiment.code, experiment.id, experiment.id
        );
    } else if let Some(experiment) = experiment {
        let _ = write!(out, " · code: `{}`", experiment.code);
        let mut pins: Vec<String> = experiment
            .pinned_by
            .iter()
            .map(|pin| match pin.split_once("::") {
                Some((file, test)) => format!("`{test}` (`{file}`)"),
                None => format!("the `compile_fail` doctests of `{pin}`"),
            })
            .collect();
        pins.push(
            match table.kind {
                Kind::Count => "`cargo xtask report --check` (re-run, compared exactly)",
                Kind::Time => "`cargo xtask verify` (its conclusions, on your machine)",
                Kind::Fact => "`cargo xtask report --check` (rendering)",
            }
            .to_owned(),
        );
        let _ = write!(out, " · pinned by: {}", pins.join(", "));
    }
    out.push_str(".</sub>");
    out
}

fn environment(snapshot: &Snapshot) -> String {
    let env = &snapshot.environment;
    let mut out = String::new();
    let _ = writeln!(out, "**M2 — Measured on**");
    out.push('\n');
    let _ = writeln!(
        out,
        "- CPU: {} ({} logical cores)",
        env.cpu, env.logical_cores
    );
    let _ = writeln!(out, "- OS: {}", env.os);
    let flags = if env.rustflags.is_empty() {
        "no `RUSTFLAGS`".to_owned()
    } else {
        format!("`RUSTFLAGS={}`", env.rustflags)
    };
    let _ = writeln!(
        out,
        "- Compiler: {}, `{}` profile, {flags}",
        env.rustc, env.profile
    );
    let groups: Vec<String> = snapshot
        .processes
        .iter()
        .map(|g| {
            format!(
                "{}: {} process{}, {}",
                g.label,
                g.processes,
                if g.processes == 1 { "" } else { "es" },
                if g.all_experiments {
                    "every experiment"
                } else {
                    "the allocator-sensitive tables"
                }
            )
        })
        .collect();
    let allocators = if groups.is_empty() {
        env.allocator.clone()
    } else {
        groups.join("; ")
    };
    let _ = writeln!(
        out,
        "- Allocators, each behind `lab::CountingAlloc`: {allocators}"
    );
    let _ = writeln!(out, "- Date: {}, commit `{}`", env.date, env.commit_label());
    let _ = writeln!(
        out,
        "- The final process of this chapter took {:.1} s",
        snapshot.duration_s
    );
    if env.uncommitted {
        let _ = writeln!(
            out,
            "- **Measured over uncommitted changes: these figures are not those of the commit above.**"
        );
    }
    if snapshot.quick {
        let _ = writeln!(
            out,
            "- **Quick settings: a smoke run. These timings are not the chapter's figures.**"
        );
    }
    out
}

fn system_processes(snapshot: &Snapshot) -> usize {
    snapshot
        .processes
        .iter()
        .find(|g| g.allocator == Allocator::System)
        .map_or(1, |g| g.processes)
}

/// The protocol paragraph, once per chapter.
fn protocol(snapshot: &Snapshot) -> String {
    let k = system_processes(snapshot);
    let other: Vec<String> = snapshot
        .processes
        .iter()
        .filter(|g| g.allocator != Allocator::System)
        .map(|g| format!("{} ({})", g.allocator.short(), g.processes))
        .collect();
    let mut out = format!(
        "Every timed table here follows chapter 1's protocol. Each method runs interleaved round-robin with its twin, two copies of the same code kept apart by one constant (their instruction counts can differ slightly), with the counting allocator paused, in {k} independent process{} of this chapter's experiments binary, spread over the whole report",
        if k == 1 { "" } else { "es" }
    );
    if !other.is_empty() {
        let _ = write!(
            out,
            "; the allocator-sensitive tables ran again under {}",
            other.join(", ")
        );
    }
    out.push_str(".\n");
    out.push_str("A figure is the median over processes of each process's median. A difference is printed only if it beats, for every method in it, the twin disagreement and the between-process spread, and an absolute floor (1 % of the larger figure, or one instruction's worth of time). A ratio is printed only if it also stays within ±10 % under twin swap in every process and its range over processes does not cross 1×; the range is printed beside it when wider than that. A verdict is printed only if every process reached it; otherwise it *varies between runs*.\n");
    let _ = writeln!(
        out,
        "The line under each table says how many rounds and operations per batch it ran; `cargo xtask verify` re-checks every printed conclusion on your machine. Ratios are this machine's figures; a conclusion meant to hold on another machine is a verdict or a bound (`at least 3×`: the least favourable ratio here cleared it by ×{}, chapter 1).",
        significant(lab::publish::TRANSFER_MARGIN, 2)
    );
    out
}

fn sources(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    for (seed, note) in &snapshot.sources {
        let _ = writeln!(out, "- Seed `{seed}`: {note}");
    }
    out
}

/// The report-wide line: how much twins disagreed, and how far processes lay apart, over every
/// interleaved timed method of every chapter; and which copy was slower, as a sign test.
fn noise_summary(all: &BTreeMap<String, Snapshot>) -> String {
    let records: Vec<_> = all
        .values()
        .filter(|s| !s.quick)
        .flat_map(|s| &s.twins)
        .collect();
    if records.is_empty() {
        return "No timed method in the report yet.\n".to_owned();
    }
    let twin: Vec<f64> = records
        .iter()
        .map(|r| r.figures().twin_disagreement_pct())
        .collect();
    // The spread only means something where a method ran in more than one process.
    let spread: Vec<f64> = records
        .iter()
        .filter(|r| r.per_process.len() > 1)
        .map(|r| r.figures().spread_pct())
        .collect();
    let pairs = records.iter().flat_map(|r| &r.per_process);
    let (twin_slower, unequal) = pairs.fold((0u64, 0u64), |(slower, unequal), (o, t)| {
        (slower + u64::from(t > o), unequal + u64::from(t != o))
    });
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let pct = |v: f64| significant(v, 2);
    let seconds: f64 = all.values().map(|s| s.duration_s).sum();
    let verdict = |value: f64, target: f64| if value <= target { "met" } else { "missed" };
    let (twin_median, twin_max) = (median(&twin), max(&twin));
    let between = if spread.is_empty() {
        "between processes: none (every method ran in one process)".to_owned()
    } else {
        format!(
            "between processes: median {} %, max {} %",
            pct(median(&spread)),
            pct(max(&spread))
        )
    };
    format!(
        "twin disagreement: median {} %, max {} %; {between} over {} methods\n\nThe twin was the slower copy in {twin_slower} of {unequal} process pairs where the two differed: near half is what chance gives; far from half would mean a systematic placement effect.\nTargets for the twin disagreement: median ≤ {TWIN_TARGET_MEDIAN_PCT} % ({}), max ≤ {TWIN_TARGET_MAX_PCT} % ({}). The final processes of the whole report took {:.0} s.\n",
        pct(twin_median),
        pct(twin_max),
        records.len(),
        verdict(twin_median, TWIN_TARGET_MEDIAN_PCT),
        verdict(twin_max, TWIN_TARGET_MAX_PCT),
        seconds
    )
}

/// Every record compared with the committed snapshots it is valid for, in record order.
fn comparisons<'r>(
    records: &'r [MachineRecord],
    snapshots: &BTreeMap<String, Snapshot>,
) -> Vec<(&'r MachineRecord, Comparison)> {
    records
        .iter()
        .map(|r| (r, records::compare_record(r, snapshots)))
        .collect()
}

/// The conclusions that differed on some machine, each with both figures: a reader who
/// finds a "differs" in M9 sees which sentence of the book it is about.
fn differed(compared: &[(&MachineRecord, Comparison)]) -> String {
    let mut out = String::new();
    for (record, comparison) in compared {
        for checked in comparison
            .conclusions
            .iter()
            .filter(|c| c.outcome == Outcome::Differs)
        {
            if out.is_empty() {
                out.push_str("\nConclusions that differed on a machine (as printed here · as measured there):\n\n");
            }
            let _ = writeln!(
                out,
                "- `{}` · {}: printed {} · there {}",
                record.name, checked.key, checked.committed, checked.here
            );
        }
    }
    out
}

/// Per committed conclusion: on how many recorded machines it was checked, held, differed.
fn per_conclusion(compared: &[(&MachineRecord, Comparison)]) -> String {
    let mut tally: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut cpus: Vec<&str> = Vec::new();
    for (record, comparison) in compared {
        if !comparison.chapters.is_empty() && !cpus.contains(&record.environment.cpu.as_str()) {
            cpus.push(&record.environment.cpu);
        }
        for c in &comparison.conclusions {
            let t = tally.entry(c.key.as_str()).or_default();
            match c.outcome {
                Outcome::Holds => t.0 += 1,
                Outcome::Differs => t.1 += 1,
                Outcome::NotResolvableHere => t.2 += 1,
            }
        }
    }
    if tally.is_empty() {
        return String::new();
    }
    let everywhere = tally.values().filter(|t| t.1 == 0 && t.2 == 0).count();
    let differed = tally.values().filter(|t| t.1 > 0).count();
    let unresolved = tally.values().filter(|t| t.1 == 0 && t.2 > 0).count();
    let most = tally.values().map(|t| t.0 + t.1 + t.2).max().unwrap_or(0);
    format!(
        "\nPer conclusion, over the records valid for its chapter (CPU models: {}; each conclusion checked on up to {most}): {everywhere} of {} held on every machine that checked them, {differed} differed on at least one, {unresolved} were not resolvable on at least one and differed on none.\n",
        cpus.join(", "),
        tally.len()
    )
}

/// M9: where the book's conclusions were checked, and every conclusion that differed there.
fn machines_table(records: &[MachineRecord], snapshots: &BTreeMap<String, Snapshot>) -> String {
    let compared = comparisons(records, snapshots);
    let mut table = lab::table::Columns::new()
        .col("record", |(r, _): &(&MachineRecord, Comparison)| {
            Cell::text(format!("`{}`", r.name))
        })
        .col("date", |(r, _): &(&MachineRecord, Comparison)| {
            Cell::text(&r.environment.date)
        })
        .col("CPU", |(r, _): &(&MachineRecord, Comparison)| {
            Cell::text(format!(
                "{} ({} cores)",
                r.environment.cpu, r.environment.logical_cores
            ))
        })
        .col("measured", |(r, _): &(&MachineRecord, Comparison)| {
            Cell::text(format!(
                "{} processes under {}",
                r.processes,
                r.allocators.join("; ")
            ))
        })
        .col(
            "chapters of these docs' code",
            |(_, c): &(&MachineRecord, Comparison)| {
                Cell::text(if c.chapters.is_empty() {
                    "none (older code)".to_owned()
                } else {
                    c.chapters
                        .iter()
                        .map(|ch| match c.partly.iter().find(|p| &p.0 == ch) {
                            Some((_, stale, of)) => {
                                format!("{ch} ({} of {of} timed tables)", of - stale)
                            }
                            None => ch.clone(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
            },
        )
        .col(
            "conclusions: hold · differ · not resolvable",
            |(_, c): &(&MachineRecord, Comparison)| {
                Cell::text(format!(
                    "{} · {} · {}",
                    c.count(Outcome::Holds),
                    c.count(Outcome::Differs),
                    c.count(Outcome::NotResolvableHere)
                ))
            },
        )
        .table(
            "M9",
            Kind::Fact,
            "Where these conclusions were checked (`cargo xtask verify --save`)",
            &compared,
        );
    table.note("Each row is one run of `cargo xtask verify`: every timed experiment measured afresh in independent processes, and every conclusion of a chapter compared with that machine's where the record measured the same code as the chapter's snapshot (a fingerprint of the files its binaries compile from), so a record stays valid while its chapter's code does. A verdict *holds* when every process there reached it, a bound when every process there cleared it; it *differs* when every process there reached another verdict, or none cleared the bound; otherwise it is *not resolvable there*. Timed ratios are figures, not conclusions: M10 shows how far they moved.");
    let shown = if records.is_empty() {
        "**M9 — Where these conclusions were checked (`cargo xtask verify --save`)**\n\n\
         No machine record yet: run `cargo xtask verify --save` and commit `docs/data/machines/`.\n"
            .to_string()
    } else {
        table.to_markdown() + &per_conclusion(&compared) + &differed(&compared)
    };
    with_pins(shown, M9_PINS)
}

/// The part of the machine a figure of a table depends on most, for M10.
fn depends_on(table: &str) -> &'static str {
    let id = table.split(' ').next().unwrap_or_default();
    match id {
        "P10-hit" | "S1" | "S1-baselines" | "S3" | "S3-baselines" | "S3-heap" | "S5" | "S7"
        | "S7-dilution" | "S12-time" | "X1-stack" => {
            "zeroing and copying: `memset` and `rep stosb` speed, cache sizes"
        }
        "P9-time" | "P10" | "P10-mimalloc" | "X1-pool" => {
            "fresh memory: page faults, the allocator's paths for large blocks"
        }
        "P12" | "P13" => "threads: cores, atomics and locks",
        "A1" | "A1-reuse" | "A1-rank" | "A6" | "X1-arena" => {
            "many small allocations: the allocator's fast path, caches"
        }
        "R2" | "R5" | "X1-receipt" => "parsing and formatting: branches, instruction throughput",
        _ => "the timing loop: clock frequency, the timer",
    }
}

/// M10: the figures that moved most between the committed docs and a recorded machine, and
/// the margin every bound is printed with.
fn moved_table(records: &[MachineRecord], snapshots: &BTreeMap<String, Snapshot>) -> String {
    const SHOWN: usize = 8;
    let compared = comparisons(records, snapshots);
    let mut moved: Vec<(&MachineRecord, &records::Moved)> = compared
        .iter()
        .flat_map(|(r, c)| c.figures.iter().map(move |m| (*r, m)))
        .collect();
    let title = "The timed figures that moved most between these docs and a recorded machine";
    if moved.is_empty() {
        return with_pins(
            format!(
                "**M10 — {title}**\n\nNo machine record of these docs' code yet: run `cargo xtask verify --save` and commit `docs/data/machines/`.\n"
            ),
            M10_PINS,
        );
    }
    let toward_one = moved
        .iter()
        .map(|(_, m)| m.toward_one())
        .fold(1.0, f64::max);
    let count = moved.len();
    moved.sort_by(|a, b| b.1.either_way().total_cmp(&a.1.either_way()));
    moved.truncate(SHOWN);
    let ratio = |r: f64| Cell::Ratio(r).render();
    let mut table = lab::table::Columns::new()
        .col("figure", |(_, m): &(&MachineRecord, &records::Moved)| {
            Cell::text(&m.key)
        })
        .col(
            "depends on",
            |(_, m): &(&MachineRecord, &records::Moved)| Cell::text(depends_on(&m.key)),
        )
        .col("here", |(_, m): &(&MachineRecord, &records::Moved)| {
            Cell::text(ratio(m.committed))
        })
        .col("there", |(r, m): &(&MachineRecord, &records::Moved)| {
            Cell::text(format!("{} (`{}`)", ratio(m.here), r.name))
        })
        .col("factor", |(_, m): &(&MachineRecord, &records::Moved)| {
            Cell::text(format!("×{}", significant(m.factor(), 2)))
        })
        .table("M10", Kind::Fact, title, &moved);
    table.note(format!(
        "Of {count} figures compared over every valid record, the {SHOWN} that moved most, either way; \"depends on\" is the part of the machine the table's figures measure. The largest move toward 1× (what could break a bound) was ×{}; every bound in these docs is printed with a margin of ×{} (`lab::publish::TRANSFER_MARGIN`), and a test fails if a record moves a figure toward 1× by more.",
        significant(toward_one, 2),
        significant(lab::publish::TRANSFER_MARGIN, 2)
    ));
    with_pins(table.to_markdown(), M10_PINS)
}

/// A generated region's text with its footer: where it comes from and what pins it.
fn with_pins(shown: String, pins: &[&str]) -> String {
    let pins: Vec<String> = pins
        .iter()
        .filter_map(|pin| pin.split_once("::"))
        .map(|(file, test)| format!("`{test}` (`{file}`)"))
        .collect();
    format!(
        "{shown}\n<sub>Generated by `{REGENERATE}` from `docs/data/machines/*.json` and the snapshots · code: `xtask::data::records` · pinned by: {}.</sub>",
        pins.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab::table::Claim;

    fn verdict(text: &str) -> Claim {
        Claim::Verdict {
            text: text.to_owned(),
        }
    }

    fn snapshots() -> BTreeMap<String, Snapshot> {
        let mut table = Table::new("T1", Kind::Time, "t", &["x"]);
        table.conclude("first", verdict("a"));
        table.conclude("second", verdict("b"));
        let mut environment = lab::env::Environment::collect("test allocator".to_owned());
        environment.sources = "f1".to_owned();
        BTreeMap::from([(
            "pool".to_owned(),
            Snapshot {
                chapter: "pool".to_owned(),
                environment,
                quick: false,
                duration_s: 0.0,
                processes: vec![],
                experiments: vec![],
                sources: vec![],
                tables: vec![table],
                twins: vec![],
                answer: vec![],
                decisions: vec![],
            },
        )])
    }

    fn record(name: &str, second: Claim) -> MachineRecord {
        MachineRecord {
            name: name.to_owned(),
            environment: lab::env::Environment::collect("test allocator".to_owned()),
            allocators: vec!["test allocator".to_owned()],
            processes: 3,
            quick: false,
            sources: BTreeMap::from([("pool".to_owned(), "f1".to_owned())]),
            experiments: BTreeMap::new(),
            claims: BTreeMap::from([(
                "pool".to_owned(),
                BTreeMap::from([
                    ("T1 · first".to_owned(), verdict("a")),
                    ("T1 · second".to_owned(), second),
                ]),
            )]),
        }
    }

    /// M9: a reader who sees "1 differ" finds which conclusion, with both figures.
    #[test]
    fn m9_lists_every_conclusion_that_differed() {
        let records = [record("a", verdict("c")), record("b", Claim::NotResolvable)];
        let text = machines_table(&records, &snapshots());
        assert!(
            text.contains("| `a` |") && text.contains("| `b` |"),
            "{text}"
        );
        assert!(text.contains("| 1 · 1 · 0 |"), "{text}");
        assert!(text.contains("| 1 · 0 · 1 |"), "{text}");
        let listed: Vec<&str> = text.lines().filter(|l| l.starts_with("- `")).collect();
        assert_eq!(listed, ["- `a` · T1 · second: printed b · there c"]);
        assert!(
            text.contains("1 of 2 held on every machine that checked them, 1 differed"),
            "{text}"
        );
    }

    /// The README's reading order is the chapters' lengths now (`cargo xtask book` rewrites it).
    #[test]
    fn the_readmes_reading_order_is_fresh() {
        let ws = Workspace::load().unwrap();
        readme(&ws, Mode::Check).unwrap();
    }

    /// M9 and M10 without records say how to make one, and show no empty table.
    #[test]
    fn m9_without_records_shows_no_empty_table() {
        for text in [
            machines_table(&[], &snapshots()),
            moved_table(&[], &snapshots()),
        ] {
            assert!(text.contains("verify --save"), "{text}");
            assert!(!text.contains("|---"), "{text}");
        }
    }
}
