//! The `receipt` command run as a child process: its input fed through a pipe as it is produced,
//! its output closed early or sent to a file. What the command's tests run, and what the
//! chapter runs of the whole command (R3's answers to bad input; R4's fed runs).

use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use receipt::generate::{generate, worst_case};
use receipt::{CHUNK_SIZE, Strategy};

/// The lines a fed run reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// `receipt gen --lines <lines> --seed <seed>`.
    Generated {
        /// How many lines.
        lines: u64,
        /// The generator's seed.
        seed: u64,
    },
    /// [`worst_case`]: `orders` orders of lines as long as accepted, built so that each
    /// strategy holds the most it can.
    WorstCase {
        /// How many orders.
        orders: u64,
    },
}

impl Lines {
    /// Writes the lines to `out`.
    ///
    /// # Errors
    /// If writing fails.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        match *self {
            Lines::Generated { lines, seed } => generate(lines, seed, out),
            Lines::WorstCase { orders } => worst_case(orders, out),
        }
    }
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

/// `receipt --strategy S` with its receipts and report discarded.
pub fn discarding(binary: &Path, strategy: Strategy) -> Command {
    let mut command = Command::new(binary);
    command
        .args(["--strategy", strategy.name()])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// Starts `command`, writes `lines` into its standard input through a pipe as they are produced
/// (so this process never holds them), and closes it. Returns the child, not yet reaped, and the
/// bytes written.
///
/// # Errors
/// If the command cannot be started, or stops reading before the last line (it is then reaped).
pub fn start_fed(mut command: Command, lines: Lines) -> io::Result<(Child, u64)> {
    let mut child = command.stdin(Stdio::piped()).spawn()?;
    let written = child.stdin.take().map_or(Ok(0), |stdin| {
        // Dropping the writer at the end of this block closes the pipe: the end of the input.
        let mut stdin = BufWriter::with_capacity(
            CHUNK_SIZE,
            Counting {
                inner: stdin,
                bytes: 0,
            },
        );
        lines.write(&mut stdin)?;
        stdin.flush()?;
        Ok(stdin.get_ref().bytes)
    });
    match written {
        Ok(bytes) => Ok((child, bytes)),
        Err(err) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(err)
        }
    }
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
    run_to(binary, args, input, Stdio::piped())
}

/// Like [`run_with_input`], with standard output going to `stdout` (a file such as `/dev/full`)
/// instead of a pipe.
///
/// # Errors
/// If the command cannot be started or waited for.
pub fn run_to(binary: &Path, args: &[&str], input: &[u8], stdout: Stdio) -> io::Result<Output> {
    let mut child = Command::new(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = child.stdin.take();
    feeding(stdin, input, || child.wait_with_output())
}

/// Runs `receipt args` with `input` on its standard input and the `closed` stream closed, as
/// `receipt >&-` or `receipt 2>&-` runs it (through `sh`, which closes it before it starts the
/// command); the other stream is captured.
///
/// # Errors
/// If `sh` or the command cannot be started or waited for.
pub fn run_closed(
    binary: &Path,
    args: &[&str],
    input: &[u8],
    closed: Closed,
) -> io::Result<Output> {
    let redirect = match closed {
        Closed::Stdout => ">&-",
        Closed::Stderr => "2>&-",
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\" {redirect}"))
        .arg(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = child.stdin.take();
    feeding(stdin, input, || child.wait_with_output())
}

/// The output stream a reader closes early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// Standard output (`receipt FILE | head`).
    Stdout,
    /// Standard error (`receipt FILE 2>&1 >/dev/null | head`); standard output is discarded.
    Stderr,
}

/// Runs `receipt args` (with `input` on its standard input, if any), reads the first `keep`
/// bytes of the `closed` stream, closes that pipe as `head -c <keep>` would, and waits for it.
/// The output returned holds what it wrote to the other stream.
///
/// # Errors
/// If the command cannot be started or waited for, or prints fewer than `keep` bytes.
pub fn close_after(
    binary: &Path,
    args: &[&str],
    input: Option<&[u8]>,
    closed: Closed,
    keep: usize,
) -> io::Result<Output> {
    let mut command = Command::new(binary);
    command.args(args).stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    match closed {
        Closed::Stdout => command.stdout(Stdio::piped()).stderr(Stdio::piped()),
        Closed::Stderr => command.stdout(Stdio::null()).stderr(Stdio::piped()),
    };
    let mut child = command.spawn()?;
    let stdin = child.stdin.take();
    feeding(stdin, input.unwrap_or_default(), || {
        let pipe: Option<Box<dyn Read>> = match closed {
            Closed::Stdout => child.stdout.take().map(|p| Box::new(p) as Box<dyn Read>),
            Closed::Stderr => child.stderr.take().map(|p| Box::new(p) as Box<dyn Read>),
        };
        let head = pipe.map_or(Ok(()), |mut pipe| {
            let mut head = vec![0; keep];
            pipe.read_exact(&mut head)
        });
        let output = child.wait_with_output()?;
        head.map(|()| output)
    })
}
