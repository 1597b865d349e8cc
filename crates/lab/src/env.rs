//! The environment header (experiment M2): which machine, compiler and build produced a table.

use std::process::Command;

use serde::{Deserialize, Serialize};

/// Where and how a snapshot was measured. Printed at the top of every chapter's generated section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// CPU model name, as the OS reports it.
    pub cpu: String,
    /// Logical cores available to the process.
    pub logical_cores: usize,
    /// Operating system and kernel release.
    pub os: String,
    /// `rustc -V` of the compiler that built the experiments.
    pub rustc: String,
    /// `release` or `dev`: the profile the experiments were built with.
    pub profile: String,
    /// The extra flags the compiler was given (`RUSTFLAGS`), empty for none.
    #[serde(default)]
    pub rustflags: String,
    /// The global allocator this process ran under, with its version.
    pub allocator: String,
    /// The date of the run, UTC, `YYYY-MM-DD`.
    pub date: String,
    /// The git commit of the work tree (12 hex digits).
    pub commit: String,
    /// Whether what the chapter's binaries compile from had uncommitted changes. The process
    /// cannot know what that is; `cargo xtask report` sets it from the chapter's declaration.
    #[serde(default)]
    pub uncommitted: bool,
    /// A fingerprint of what the chapter's binaries compile from (a git hash of those files at
    /// `commit`), which machine records are matched by; empty when `uncommitted`. Set by
    /// `cargo xtask report`, like `uncommitted`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sources: String,
}

impl Environment {
    /// Reads the environment of the running process, which runs under `allocator` (a label
    /// with its version, from [`allocator_label`]).
    pub fn collect(allocator: String) -> Self {
        let commit = git_commit();
        Environment {
            cpu: cpu_model(),
            logical_cores: std::thread::available_parallelism().map_or(1, usize::from),
            os: os_name(),
            rustc: env!("LAB_RUSTC_VERSION").to_owned(),
            rustflags: env!("LAB_RUSTFLAGS").to_owned(),
            profile: if cfg!(debug_assertions) {
                "dev"
            } else {
                "release"
            }
            .to_owned(),
            allocator,
            date: today_utc(),
            commit,
            uncommitted: false,
            sources: String::new(),
        }
    }

    /// The commit, marked when the measured sources had uncommitted changes.
    pub fn commit_label(&self) -> String {
        if self.uncommitted {
            format!("{} with uncommitted changes", self.commit)
        } else {
            self.commit.clone()
        }
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| format!("unknown ({})", std::env::consts::ARCH))
}

fn os_name() -> String {
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("PRETTY_NAME="))
                .map(|name| name.trim_matches('"').to_owned())
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|k| k.trim().to_owned());
    match (pretty, kernel) {
        (Some(p), Some(k)) => format!("{p}, kernel {k}"),
        (Some(p), None) => p,
        (None, Some(k)) => format!("{} kernel {k}", std::env::consts::OS),
        (None, None) => std::env::consts::OS.to_owned(),
    }
}

/// The largest peak resident set of any child process this process has waited for, in KiB
/// (`getrusage(RUSAGE_CHILDREN)`'s `ru_maxrss` on Linux), or `None` where it cannot be read.
///
/// To measure one command alone, run it from a fresh intermediate process that waits for it and
/// then calls this: the figure is the maximum over every child that process waited for.
pub fn peak_rss_of_waited_children_kib() -> Option<u64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes one `rusage` through the pointer, which points to memory of
    // that type that lives across the call; RUSAGE_CHILDREN is a valid `who`.
    let status = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    if status != 0 {
        return None;
    }
    // SAFETY: `getrusage` returned 0, so it filled the whole struct (and it was zeroed before).
    let usage = unsafe { usage.assume_init() };
    u64::try_from(usage.ru_maxrss).ok()
}

/// Waits for `child` and returns its exit status and its own peak resident set, in KiB
/// (`wait4`'s `ru_maxrss` for that one child, on Linux).
///
/// # Errors
/// If the wait fails.
pub fn wait_with_peak_rss(
    child: std::process::Child,
) -> Result<(std::process::ExitStatus, u64), String> {
    use std::os::unix::process::ExitStatusExt as _;
    let pid = libc::pid_t::try_from(child.id())
        .map_err(|_| "the child's pid does not fit a pid_t".to_owned())?;
    let mut status: libc::c_int = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `pid` is our own child, not yet waited for (`child` was moved in and is never
    // waited on again, since `Child` does not wait when dropped); `status` and `usage` point to
    // writable memory of the right types for the duration of the call.
    let waited = unsafe { libc::wait4(pid, &raw mut status, 0, usage.as_mut_ptr()) };
    if waited != pid {
        return Err(format!("wait4 failed: {}", std::io::Error::last_os_error()));
    }
    drop(child);
    // SAFETY: `wait4` returned the child's pid, so it filled `usage` (zeroed before in any case).
    let usage = unsafe { usage.assume_init() };
    Ok((
        std::process::ExitStatus::from_raw(status),
        u64::try_from(usage.ru_maxrss).unwrap_or(0),
    ))
}

/// The C library's version as `getconf GNU_LIBC_VERSION` prints it, trimmed (`glibc 2.36`).
/// `None` if the command cannot be run, fails or prints nothing (a C library other than glibc).
fn glibc_version_text() -> Option<String> {
    Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// The allocator of this process, named with its version where it can be read.
pub fn allocator_label(allocator: crate::protocol::Allocator) -> String {
    match allocator {
        crate::protocol::Allocator::System => match glibc_version_text() {
            Some(version) => format!("{version} malloc (the system allocator)"),
            None => "the system allocator".to_owned(),
        },
        crate::protocol::Allocator::Mimalloc => mimalloc_label(),
    }
}

#[cfg(feature = "mimalloc")]
fn mimalloc_label() -> String {
    // SAFETY: `mi_version` takes no arguments and returns a constant; it allocates nothing.
    let version = unsafe { libmimalloc_sys::mi_version() };
    // `MI_MALLOC_VERSION`: major, then two digits of minor, then two digits of patch.
    format!(
        "mimalloc {}.{}.{}",
        version / 10_000,
        (version / 100) % 100,
        version % 100
    )
}

#[cfg(not(feature = "mimalloc"))]
fn mimalloc_label() -> String {
    "mimalloc (version unknown: lab built without its `mimalloc` feature)".to_owned()
}

/// The commit of the work tree.
fn git_commit() -> String {
    let run = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    run(&["rev-parse", "--short=12", "HEAD"])
        .unwrap_or_else(|| "unknown (not a git checkout)".to_owned())
}

/// Today's date in UTC, from the system clock (no time-zone database needed).
fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    #[cfg_attr(miri, ignore)] // Miri does not run foreign functions such as `wait4`.
    fn a_childs_own_peak_resident_set_is_read_as_it_is_waited_for() {
        let Ok(child) = std::process::Command::new("true").spawn() else {
            return;
        };
        let (status, kib) = super::wait_with_peak_rss(child).expect("waited");
        assert!(status.success());
        assert!(kib > 0);
    }

    #[test]
    #[cfg_attr(miri, ignore)] // Miri does not run foreign functions such as `getrusage`.
    fn the_peak_resident_set_of_a_waited_child_is_read() {
        let status = std::process::Command::new("true").status();
        if status.is_ok_and(|s| s.success()) {
            assert!(super::peak_rss_of_waited_children_kib().is_some_and(|kib| kib > 0));
        }
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
    }
}
