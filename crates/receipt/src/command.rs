//! The `receipt` command run as a child process: what the chapter measures of the whole command
//! (its peak memory, R4; its instructions, R2), the answers it gives to bad input (R3), and what
//! the command's tests run.
//!
//! Peak resident memory is known only for a process that has ended, and only as the largest
//! among all the children a process has waited for (`getrusage(RUSAGE_CHILDREN)`). A figure for
//! one run alone therefore needs a fresh intermediate process that starts that run and nothing
//! else: the experiments binary, started again with [`MEMORY_PROBE_VAR`] set to a
//! [`MemoryProbe`], [`feed`]s generated lines to one `receipt` child, waits for it and prints the
//! child's peak. Nothing else it ran can mix into the figure.

use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};

use crate::generate::generate;
use crate::{CHUNK_SIZE, Strategy};

/// The environment variable that makes the experiments binary R4's intermediate process; its
/// value is a [`MemoryProbe`] in its text form.
pub const MEMORY_PROBE_VAR: &str = "RECEIPT_MEMORY_PROBE";

/// One run of the whole command whose peak memory is measured (R4): `receipt --strategy S` with
/// `lines` lines generated from `seed` on its standard input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryProbe {
    /// The strategy.
    pub strategy: Strategy,
    /// Lines fed to it.
    pub lines: u64,
    /// The generator's seed.
    pub seed: u64,
}

impl MemoryProbe {
    /// Its text form: `streaming:100000:7`.
    pub fn encode(&self) -> String {
        format!("{}:{}:{}", self.strategy, self.lines, self.seed)
    }

    /// Reads the text form back.
    ///
    /// # Errors
    /// Says what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = text.split(':');
        let (Some(strategy), Some(lines), Some(seed), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "`{text}` is not `strategy:lines:seed` (three fields)"
            ));
        };
        let number = |field: &str, what: &str| {
            field
                .parse::<u64>()
                .map_err(|_| format!("`{text}`: {what} `{field}` is not a number"))
        };
        Ok(Self {
            strategy: strategy.parse()?,
            lines: number(lines, "lines")?,
            seed: number(seed, "seed")?,
        })
    }
}

/// The `receipt` binary in the same directory as `exe`, if it is there: cargo builds a
/// package's binaries side by side, and `cargo xtask report` builds it with the experiments.
pub fn beside(exe: &Path) -> Option<PathBuf> {
    let path = exe.with_file_name(format!("receipt{}", std::env::consts::EXE_SUFFIX));
    path.is_file().then_some(path)
}

/// What [`feed`] did: how the command exited, and how many bytes it was fed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fed {
    /// The command's exit status.
    pub status: ExitStatus,
    /// The bytes written to its standard input.
    pub bytes: u64,
}

/// A writer that counts the bytes it passes on.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Runs `receipt --strategy S` with the probe's generated lines on its standard input, its
/// receipts and report discarded, and waits for it. The lines are written through a pipe as
/// they are generated, so this process never holds them either.
///
/// # Errors
/// If the command cannot be started or waited for, or stops reading before the last line.
pub fn feed(binary: &Path, probe: &MemoryProbe) -> io::Result<Fed> {
    let mut child = Command::new(binary)
        .args(["--strategy", probe.strategy.name()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let written = child.stdin.take().map_or(Ok(0), |stdin| {
        // Dropping the writer at the end of this block closes the pipe: the end of the input.
        let mut stdin = BufWriter::with_capacity(
            CHUNK_SIZE,
            Counting {
                inner: stdin,
                bytes: 0,
            },
        );
        generate(probe.lines, probe.seed, &mut stdin)?;
        stdin.flush()?;
        Ok(stdin.get_ref().bytes)
    });
    let status = child.wait()?;
    written.map(|bytes| Fed { status, bytes })
}

/// Writes `input` to `stdin` from another thread while `work` runs, then closes it. A write the
/// child refuses by exiting first (a broken pipe) is not an error: the child decides how much
/// input it reads.
fn feeding<T>(stdin: Option<impl Write + Send>, input: &[u8], work: impl FnOnce() -> T) -> T {
    std::thread::scope(|scope| {
        if let Some(mut stdin) = stdin {
            scope.spawn(move || drop(stdin.write_all(input)));
        }
        work()
    })
}

/// Runs `receipt args` with `input` on its standard input and returns everything it printed and
/// its exit status.
///
/// # Errors
/// If the command cannot be started or waited for.
pub fn run_with_input(binary: &Path, args: &[&str], input: &[u8]) -> io::Result<Output> {
    let mut child = Command::new(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = child.stdin.take();
    feeding(stdin, input, || child.wait_with_output())
}

/// Runs `receipt args` (with `input` on its standard input, if any), reads the first `keep`
/// bytes of its output, closes the pipe as `head -c <keep>` would, and waits for it. The output
/// returned holds what it wrote to standard error, not to standard output.
///
/// # Errors
/// If the command cannot be started or waited for, or prints fewer than `keep` bytes.
pub fn close_after(
    binary: &Path,
    args: &[&str],
    input: Option<&[u8]>,
    keep: usize,
) -> io::Result<Output> {
    let mut child = Command::new(binary)
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = child.stdin.take();
    feeding(stdin, input.unwrap_or_default(), || {
        let head = child.stdout.take().map_or(Ok(()), |mut stdout| {
            let mut head = vec![0; keep];
            stdout.read_exact(&mut head)
        });
        let output = child.wait_with_output()?;
        head.map(|()| output)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R4: a memory probe survives its trip through the environment.
    #[test]
    fn r4_a_memory_probe_round_trips_through_its_text_form() {
        let probe = MemoryProbe {
            strategy: Strategy::Arena,
            lines: 4_000_000,
            seed: 7,
        };
        assert_eq!(probe.encode(), "arena:4000000:7");
        assert_eq!(MemoryProbe::parse(&probe.encode()), Ok(probe));
        for bad in [
            "arena:4000000",
            "arena:4000000:7:1",
            "fast:1:7",
            "arena:x:7",
        ] {
            assert!(MemoryProbe::parse(bad).is_err(), "{bad}");
        }
    }
}
