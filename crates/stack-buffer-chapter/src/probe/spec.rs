//! What a probe child runs, and on which thread: [`Spec`], in a text form that travels to the
//! child in an environment variable.

use super::{BoxWay, boxed, descend, descend_guarded, single_array};

/// Where a probe runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thread {
    /// The process's main thread (in a test binary, whatever thread the test runs on).
    Main,
    /// A `std::thread::spawn`ed thread (Rust's default stack size, 2 MiB unless
    /// `RUST_MIN_STACK` says otherwise).
    Spawned,
    /// A thread from `std::thread::Builder::new().stack_size(bytes)`.
    Sized(usize),
}

impl Thread {
    /// The probe's argument form: `main`, `spawned` or `sized=<bytes>`.
    pub fn encode(self) -> String {
        match self {
            Thread::Main => "main".to_owned(),
            Thread::Spawned => "spawned".to_owned(),
            Thread::Sized(bytes) => format!("sized={bytes}"),
        }
    }

    /// Parses [`Thread::encode`]'s form.
    pub fn decode(text: &str) -> Option<Thread> {
        match text {
            "main" => Some(Thread::Main),
            "spawned" => Some(Thread::Spawned),
            _ => text.strip_prefix("sized=")?.parse().ok().map(Thread::Sized),
        }
    }

    /// Runs `work` on this thread and returns its result; returns at all only if it survived.
    pub fn run<T: Send + 'static>(self, work: impl FnOnce() -> T + Send + 'static) -> T {
        match self {
            Thread::Main => work(),
            Thread::Spawned => std::thread::spawn(work).join().expect("the probe thread"),
            Thread::Sized(bytes) => std::thread::Builder::new()
                .stack_size(bytes)
                .spawn(work)
                .expect("spawn the probe thread")
                .join()
                .expect("the probe thread"),
        }
    }
}

/// Runs [`descend`]`(depth)` on `thread`; returns normally only if it survived.
pub fn run(thread: Thread, depth: usize) -> u8 {
    thread.run(move || descend(depth))
}

/// What a probe child does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// [`descend`] this many levels below the first frame.
    Descend(usize),
    /// [`descend_guarded`] this many levels: the descent inside `catch_unwind`, under a guard
    /// whose `Drop` prints [`GUARD_DROPPED`](super::GUARD_DROPPED).
    Guarded(usize),
    /// [`single_array`] of this many bytes.
    SingleArray(usize),
    /// [`boxed`] this way, this many bytes.
    Boxed(BoxWay, usize),
}

/// A probe and the thread it runs on: what [`PROBE_VAR`](super::PROBE_VAR) carries to a child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Where it runs.
    pub thread: Thread,
    /// What it does.
    pub probe: Probe,
}

impl Spec {
    /// The text form: `<thread>:descend:<depth>`, `<thread>:guarded:<depth>`,
    /// `<thread>:array:<bytes>` or `<thread>:<way>:<bytes>`.
    pub fn encode(&self) -> String {
        let (kind, n) = match self.probe {
            Probe::Descend(depth) => ("descend", depth),
            Probe::Guarded(depth) => ("guarded", depth),
            Probe::SingleArray(bytes) => ("array", bytes),
            Probe::Boxed(way, bytes) => (way.name(), bytes),
        };
        format!("{}:{kind}:{n}", self.thread.encode())
    }

    /// Parses [`Spec::encode`]'s form.
    pub fn decode(text: &str) -> Option<Spec> {
        let mut parts = text.split(':');
        let thread = Thread::decode(parts.next()?)?;
        let kind = parts.next()?;
        let n: usize = parts.next()?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        let probe = match kind {
            "descend" => Probe::Descend(n),
            "guarded" => Probe::Guarded(n),
            "array" => Probe::SingleArray(n),
            _ => Probe::Boxed(BoxWay::from_name(kind)?, n),
        };
        Some(Spec { thread, probe })
    }

    /// Runs the probe on its thread. `Err` if the probe has no function for that size; a stack
    /// overflow does not return at all.
    pub fn run(self) -> Result<u8, String> {
        let probe = self.probe;
        let result = self.thread.run(move || match probe {
            Probe::Descend(depth) => Some(descend(depth)),
            Probe::Guarded(depth) => Some(descend_guarded(depth)),
            Probe::SingleArray(bytes) => single_array(bytes),
            Probe::Boxed(way, bytes) => boxed(way, bytes),
        });
        result.ok_or_else(|| format!("no probe function for {probe:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S8, S13: a probe's spec survives the trip to the child process.
    #[test]
    fn specs_round_trip_through_their_text_form() {
        for spec in [
            Spec {
                thread: Thread::Main,
                probe: Probe::Descend(12),
            },
            Spec {
                thread: Thread::Sized(1 << 20),
                probe: Probe::Guarded(256),
            },
            Spec {
                thread: Thread::Sized(1 << 20),
                probe: Probe::SingleArray(64 << 10),
            },
            Spec {
                thread: Thread::Spawned,
                probe: Probe::Boxed(BoxWay::TryFromBoxedSlice, 1 << 20),
            },
        ] {
            assert_eq!(
                Spec::decode(&spec.encode()),
                Some(spec),
                "{}",
                spec.encode()
            );
        }
        assert_eq!(Spec::decode("main:descend"), None);
        assert_eq!(Spec::decode("main:boxed:1:2"), None);
        assert_eq!(Spec::decode("sized=x:array:8192"), None);
    }
}
