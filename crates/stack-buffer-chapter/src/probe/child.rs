//! Running a probe in a child process: the variable that carries the [`Spec`], the child's entry
//! point ([`child_from_env`]), and the parent's [`Launcher`], which starts children, reads how
//! they ended and bisects for the largest size that survives.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use super::{ARRAY_SIZES, ARRAY_STEP, BOX_SIZES, BoxWay, Probe, Spec, Thread};

/// The environment variable that turns a binary into a probe child: it holds a [`Spec`].
pub const PROBE_VAR: &str = "STACK_BUFFER_PROBE";

/// If [`PROBE_VAR`] is set, runs that probe and returns the exit code (success if it survived,
/// 2 if the spec is malformed); `None` if this process is not a probe child.
pub fn child_from_env() -> Option<ExitCode> {
    let text = std::env::var(PROBE_VAR).ok()?;
    let outcome = Spec::decode(&text)
        .ok_or_else(|| {
            format!("{PROBE_VAR}={text}: expected <main|spawned|sized=BYTES>:<descend|guarded|array|box-way>:<n>")
        })
        .and_then(Spec::run);
    Some(match outcome {
        Ok(value) => {
            black_box(value);
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{why}");
            ExitCode::from(2)
        }
    })
}

/// The outcome of one probe child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildRun {
    /// It exited with success.
    pub survived: bool,
    /// The signal that killed it, if one did.
    pub signal: Option<i32>,
    /// Its standard error, non-empty lines joined by ` / `.
    pub message: String,
}

/// How to start a probe child: a binary and its arguments.
#[derive(Clone, Debug)]
pub struct Launcher {
    exe: PathBuf,
    args: Vec<String>,
}

impl Launcher {
    /// The running binary, started again with `args` (a test binary needs the name of the test
    /// that calls [`child_from_env`]; the experiments binary needs none).
    ///
    /// # Errors
    /// If the running binary cannot be located.
    pub fn this_binary(args: &[&str]) -> Result<Launcher, String> {
        let exe =
            std::env::current_exe().map_err(|err| format!("cannot locate the binary: {err}"))?;
        Ok(Launcher::binary(exe, args))
    }

    /// Another binary that calls [`child_from_env`] first thing, started with `args` (S13
    /// runs the dev-profile build of the experiments binary this way).
    pub fn binary(exe: PathBuf, args: &[&str]) -> Launcher {
        Launcher {
            exe,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    /// Runs `spec` in a child process and waits for it.
    ///
    /// # Errors
    /// If the child cannot be started.
    pub fn run(&self, spec: Spec) -> Result<ChildRun, String> {
        let output = Command::new(&self.exe)
            .args(&self.args)
            .env(PROBE_VAR, spec.encode())
            .output()
            .map_err(|err| format!("cannot start a probe: {err}"))?;
        use std::os::unix::process::ExitStatusExt as _;
        Ok(ChildRun {
            survived: output.status.success(),
            signal: output.status.signal(),
            message: String::from_utf8_lossy(&output.stderr)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(without_thread_ids)
                .collect::<Vec<_>>()
                .join(" / "),
        })
    }

    /// The largest `k` in `low..=high` whose probe survives, by bisection, assuming that
    /// every `k` below a survivor survives too; with the run of the smallest `k` that failed.
    ///
    /// # Errors
    /// If a child cannot be started, `low` does not survive, or `high` does (raise it).
    pub fn largest_surviving(
        &self,
        low: usize,
        high: usize,
        spec: impl Fn(usize) -> Spec,
    ) -> Result<(usize, ChildRun), String> {
        let bottom = self.run(spec(low))?;
        if !bottom.survived {
            return Err(format!(
                "{:?} did not survive: {}",
                spec(low),
                bottom.message
            ));
        }
        let mut failure = self.run(spec(high))?;
        if failure.survived {
            return Err(format!("{:?} survived: raise the ceiling", spec(high)));
        }
        let (mut lo, mut hi) = (low, high);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let run = self.run(spec(mid))?;
            if run.survived {
                lo = mid;
            } else {
                hi = mid;
                failure = run;
            }
        }
        Ok((lo, failure))
    }

    /// S8: the largest single array (a multiple of [`ARRAY_STEP`]) that survives on `thread`,
    /// and the run of the next size.
    ///
    /// # Errors
    /// As [`Launcher::largest_surviving`].
    pub fn largest_single_array(&self, thread: Thread) -> Result<(usize, ChildRun), String> {
        let spec = move |k: usize| Spec {
            thread,
            probe: Probe::SingleArray(k * ARRAY_STEP),
        };
        let (k, failure) = self.largest_surviving(1, ARRAY_SIZES, spec)?;
        Ok((k * ARRAY_STEP, failure))
    }

    /// S13: the largest of [`BOX_SIZES`] that `way` builds on `thread` without overflowing,
    /// trying them in ascending order until one fails (`None` if even the smallest fails), and
    /// the run that failed (`None` if every size survived).
    ///
    /// # Errors
    /// If a child cannot be started.
    pub fn largest_boxed(
        &self,
        way: BoxWay,
        thread: Thread,
    ) -> Result<(Option<usize>, Option<ChildRun>), String> {
        let mut largest = None;
        for bytes in BOX_SIZES {
            let run = self.run(Spec {
                thread,
                probe: Probe::Boxed(way, bytes),
            })?;
            if !run.survived {
                return Ok((largest, Some(run)));
            }
            largest = Some(bytes);
        }
        Ok((largest, None))
    }

    /// S8: the deepest [`descend`](super::descend) that survives on `thread`, up to `ceiling`, and the run of
    /// the next depth.
    ///
    /// # Errors
    /// As [`Launcher::largest_surviving`].
    pub fn deepest_descent(
        &self,
        thread: Thread,
        ceiling: usize,
    ) -> Result<(usize, ChildRun), String> {
        self.largest_surviving(0, ceiling, move |depth| Spec {
            thread,
            probe: Probe::Descend(depth),
        })
    }
}

/// A line of a child's standard error without the thread ids Rust prints in parentheses
/// (`thread 'main' (26066) has overflowed its stack`), so the same crash reads the same on
/// every run.
pub fn without_thread_ids(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(" (") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) if end > 0 && after[..end].bytes().all(|b| b.is_ascii_digit()) => {
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str(" (");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A signal number as the S8 table names it.
pub fn signal_name(signal: Option<i32>) -> String {
    match signal {
        Some(6) => "SIGABRT (6)".to_owned(),
        Some(11) => "SIGSEGV (11)".to_owned(),
        Some(n) => format!("signal {n}"),
        None => "none (exited)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_ids_are_left_out_of_a_crash_message() {
        assert_eq!(
            without_thread_ids("thread 'main' (26066) has overflowed its stack"),
            "thread 'main' has overflowed its stack"
        );
        assert_eq!(without_thread_ids("SIGABRT (6) (x) ("), "SIGABRT (x) (");
    }
}
