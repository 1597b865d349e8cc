//! Instruction counts from `valgrind --tool=callgrind`: a noise-free second opinion on timings.
//!
//! After a timed run, every method copy (original and twin) is executed again in a child
//! process, the experiments binary itself under callgrind, with collection switched on only
//! inside [`window`]. The child is told which copy to run through [`PROBE_VAR`]: it runs the same
//! experiment, skips every other timed run, executes that copy's batch loop inside the window and
//! exits. Instruction counts are deterministic for the same binary and input: twins should agree
//! to within a few instructions. Where valgrind is missing the column says so and nothing fails.

use std::process::Command;

use crate::protocol::{DEV_BINARY_VAR, PROBE_VAR};

/// The callgrind function pattern of [`window`] (callgrind matches demangled names).
const WINDOW_PATTERN: &str = "lab::callgrind::window*";

/// What a probe child must run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The experiment to run.
    pub experiment: String,
    /// Which `Timing::run` of that experiment (0-based, in call order).
    pub run: usize,
    /// Which copy: method index × 2 + (0 original, 1 twin).
    pub slot: usize,
    /// Operations to execute inside the window.
    pub iters: u64,
}

impl Probe {
    fn encode(&self) -> String {
        format!(
            "{}:{}:{}:{}",
            self.experiment, self.run, self.slot, self.iters
        )
    }

    /// The probe this process was started for, if any.
    pub fn from_env() -> Option<Probe> {
        let text = std::env::var(PROBE_VAR).ok()?;
        let mut parts = text.split(':');
        let probe = Probe {
            experiment: parts.next()?.to_owned(),
            run: parts.next()?.parse().ok()?,
            slot: parts.next()?.parse().ok()?,
            iters: parts.next()?.parse().ok()?,
        };
        Some(probe)
    }
}

/// The only code whose instructions are collected. Never inlined, so callgrind sees its name.
#[inline(never)]
pub fn window(run: &mut dyn FnMut(u64) -> u64, iters: u64) -> u64 {
    run(iters)
}

/// Whether instruction counts can be taken here, and if not, why.
pub fn availability() -> Result<(), String> {
    if cfg!(debug_assertions) {
        return Err("not counted in a dev build".to_owned());
    }
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err("valgrind is not installed".to_owned()),
    }
}

/// Runs `program` with `args` under callgrind (extra valgrind options in `options`, the
/// command's stdin, stdout and stderr discarded; `configure` may set its environment) and
/// returns the instructions callgrind collected.
fn callgrind(
    options: &[String],
    program: &std::path::Path,
    args: &[&str],
    configure: impl FnOnce(&mut Command),
) -> Result<u64, String> {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let out_file = std::env::temp_dir().join(format!(
        "lab-callgrind-{}-{}.out",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let mut command = Command::new("valgrind");
    command
        .arg("--tool=callgrind")
        .args(options)
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    configure(&mut command);
    let status = command
        .status()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let text = std::fs::read_to_string(&out_file);
    let _ = std::fs::remove_file(&out_file);
    if !status.success() {
        return Err(format!("the callgrind run failed ({status})"));
    }
    let text = text.map_err(|e| format!("no callgrind output: {e}"))?;
    parse_total(&text).ok_or_else(|| "no totals line in the callgrind output".to_owned())
}

/// Runs `probe` in a child process under callgrind and returns instructions per operation.
pub fn count_instructions(probe: &Probe) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let total = callgrind(
        &[format!("--toggle-collect={WINDOW_PATTERN}")],
        &exe,
        &["--only", &probe.experiment],
        |command| {
            command
                .env(PROBE_VAR, probe.encode())
                .env_remove(DEV_BINARY_VAR);
        },
    )?;
    if total == 0 {
        return Err(format!(
            "callgrind collected nothing: `{WINDOW_PATTERN}` matched no function"
        ));
    }
    Ok(total as f64 / probe.iters as f64)
}

/// The instructions a whole command executes from its first instruction to its exit (its
/// standard streams discarded), or why they could not be counted.
///
/// # Errors
/// If valgrind is missing, this is a dev build, the command fails, or callgrind's output cannot
/// be read.
pub fn count_command(program: &std::path::Path, args: &[&str]) -> Result<u64, String> {
    availability()?;
    callgrind(&[], program, args, |_| {})
}

/// The instructions another program executes, whatever this binary's profile (`count_command`
/// refuses in a dev build, whose children would be dev builds too): for a grader that counts a
/// release binary it built.
///
/// # Errors
/// If valgrind is missing, the program fails, or callgrind's output cannot be read.
pub fn count_program(program: &std::path::Path, args: &[&str]) -> Result<u64, String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => return Err("valgrind is not installed".to_owned()),
    }
    callgrind(&[], program, args, |_| {})
}

/// The `totals:` (or `summary:`) instruction count of a callgrind output file.
pub fn parse_total(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| {
            line.strip_prefix("totals:")
                .or_else(|| line.strip_prefix("summary:"))
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_callgrind_totals() {
        let text = "events: Ir\nfn=foo\n3 120\nsummary: 4242\ntotals: 4242\n";
        assert_eq!(parse_total(text), Some(4242));
        assert_eq!(parse_total("events: Ir\n"), None);
    }

    #[test]
    fn a_probe_round_trips_through_its_encoding() {
        let probe = Probe {
            experiment: "M3".into(),
            run: 1,
            slot: 5,
            iters: 1000,
        };
        assert_eq!(probe.encode(), "M3:1:5:1000");
    }
}
