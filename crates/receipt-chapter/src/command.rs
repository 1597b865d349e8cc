//! The whole `receipt` command measured from outside: finding the binary beside the experiments
//! binary (R2, R3 and R4 run it), and R4's measuring process.
//!
//! A process's peak resident memory is known once it has ended, to the parent that reaps it:
//! `wait4` returns that one child's resource usage, `ru_maxrss` among it. But a process does not
//! start its peak at zero: when a new program replaces the memory image a process was started
//! with, Linux carries that image's peak into the process's `ru_maxrss`, and a process started
//! by `fork` or `vfork` began with its parent's image. So the parent that starts the measured
//! command must be small, and what it held must be known: [`own_peak_kib`] reads it. The
//! experiments start a fresh process that does nothing but start one `receipt` and reap it;
//! [`start_fed`] writes the input into it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use receipt::Strategy;

use crate::child::{Lines, discarding, start_fed};

/// The `receipt` binary in the same directory as `exe`, if it is there: cargo builds a
/// package's binaries side by side, and `cargo xtask report` builds it with the experiments.
pub fn beside(exe: &Path) -> Option<PathBuf> {
    let path = exe.with_file_name(format!("receipt{}", std::env::consts::EXE_SUFFIX));
    path.is_file().then_some(path)
}

/// The peak resident set of this process's memory image so far, in KiB (`VmHWM` in
/// `/proc/self/status`, Linux): what a program started from it now would begin its own
/// `ru_maxrss` with.
pub fn own_peak_kib() -> Option<u64> {
    peak_in_status(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// The `VmHWM` of a `/proc/<pid>/status` text, in KiB.
pub fn peak_in_status(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))?;
    line.trim().strip_suffix("kB")?.trim().parse().ok()
}

/// The environment variable that makes the experiments binary R4's measuring process; its value
/// is the strategy to measure.
pub const PEAK_VAR: &str = "RECEIPT_PEAK_OF";

/// What R4's measuring process reports of one run of the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeakReport {
    /// The command's `ru_maxrss`, in KiB.
    pub kib: u64,
    /// The measuring process's own peak just after starting it, in KiB: the command's figure is
    /// at least this.
    pub floor_kib: u64,
}

impl PeakReport {
    /// Its text form: `<kib> <floor_kib>`.
    pub fn encode(&self) -> String {
        format!("{} {}", self.kib, self.floor_kib)
    }

    /// Reads the text form back.
    ///
    /// # Errors
    /// Says what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let numbers: Vec<u64> = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| format!("`{}` is not two numbers", text.trim()))?;
        match numbers[..] {
            [kib, floor_kib] => Ok(Self { kib, floor_kib }),
            _ => Err(format!("`{}` is not two numbers", text.trim())),
        }
    }
}

/// The measuring process's work: starts `receipt --strategy S` reading this process's standard
/// input, reads this process's own peak, and reaps the command with `reap` (which returns its
/// exit status and its `ru_maxrss` in KiB: `lab::env::wait_with_peak_rss`).
///
/// # Errors
/// If the command cannot be started, reaped, or fails.
pub fn measure_started(
    binary: &Path,
    strategy: Strategy,
    reap: impl FnOnce(Child) -> Result<(ExitStatus, u64), String>,
) -> Result<PeakReport, String> {
    let child = discarding(binary, strategy)
        .stdin(Stdio::inherit())
        .spawn()
        .map_err(|err| format!("cannot start `receipt`: {err}"))?;
    // The command has replaced its copy of this process's image by now: this is the peak it
    // started from.
    let floor_kib = own_peak_kib().ok_or("cannot read /proc/self/status")?;
    let (status, kib) = reap(child)?;
    if !status.success() {
        return Err(format!("`receipt --strategy {strategy}` failed ({status})"));
    }
    Ok(PeakReport { kib, floor_kib })
}

/// The report's side: starts `measuring` (a fresh, small process that runs [`measure_started`])
/// with its output piped, feeds it `lines`, and reads its report. Returns the report and the
/// bytes fed.
///
/// # Errors
/// If the measuring process cannot be started or fed, fails, or prints no report.
pub fn peak_of(mut measuring: Command, lines: Lines) -> Result<(PeakReport, u64), String> {
    measuring.stdout(Stdio::piped()).stderr(Stdio::piped());
    let (child, bytes) = start_fed(measuring, lines).map_err(|err| format!("feeding it: {err}"))?;
    let out = child
        .wait_with_output()
        .map_err(|err| format!("waiting for it: {err}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    Ok((
        PeakReport::parse(&String::from_utf8_lossy(&out.stdout))?,
        bytes,
    ))
}

#[cfg(test)]
mod tests {
    use super::{PeakReport, peak_in_status};

    /// R4: the measuring process's report survives its trip through a pipe.
    #[test]
    fn r4_a_peak_report_round_trips_through_its_text_form() {
        let report = PeakReport {
            kib: 6320,
            floor_kib: 2904,
        };
        assert_eq!(report.encode(), "6320 2904");
        assert_eq!(PeakReport::parse("6320 2904\n"), Ok(report));
        for bad in ["", "6320", "6320 2904 1", "x 1"] {
            assert!(PeakReport::parse(bad).is_err(), "{bad:?}");
        }
    }

    /// R4: the measuring process's own peak is read from its status file.
    #[test]
    fn r4_the_peak_is_read_from_the_status_file() {
        let status =
            "Name:\treceipt\nVmPeak:\t   10000 kB\nVmHWM:\t    2124 kB\nVmRSS:\t 2000 kB\n";
        assert_eq!(peak_in_status(status), Some(2124));
        assert_eq!(peak_in_status("Name:\tx\n"), None);
        assert_eq!(peak_in_status("VmHWM:\t12 MB\n"), None);
    }
}
