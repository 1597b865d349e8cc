//! The chapter's decision rules (P11), as a function of what one process measured.
//!
//! Each rule names a situation, what to do in it, and why. Where the answer depends on a
//! timing, the rule reads the verdicts of one process of the report (`Some(true)`: resolvably
//! faster in that process, `Some(false)`: resolvably slower, `None`: not resolvable there), and
//! the chapter prints its action and reason only where every process produced the same text.
//! The other rules cite counts, which are the same in every process.
//!
//! ```
//! use pool_chapter::decisions::{Counts, Findings, rules};
//!
//! let findings = Findings {
//!     pool_faster_from: Some(100),
//!     sizes: (100, 10_000_000),
//!     ..Findings::default()
//! };
//! let rules = rules(&findings, &Counts::default(), |n| format!("{n} B"));
//! assert_eq!(rules[0].action, "rent from a pool");
//! assert!(rules[0].because.contains("at every size from 100 B to 10000000 B"));
//! ```

/// What one process of the report measured, as the rules read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// The smallest size of P10 from which a warm rent from the shared pool was faster than a fresh
    /// `vec![0u8; n]` at that size and every larger one (`None`: not at the largest size).
    pub pool_faster_from: Option<usize>,
    /// The smallest and largest sizes P10 measured.
    pub sizes: (usize, usize),
    /// At 8 KiB (P10-hit): whether an unzeroed stack array was faster than the pool's hit path.
    pub unzeroed_stack_beats_pool: Option<bool>,
    /// At 8 KiB (P10-hit): whether the pool's hit path was faster than a zeroed stack array.
    pub pool_beats_zeroed_stack: Option<bool>,
    /// At 64 B (P9-time): whether a zeroed stack array was faster than the pool's hit path.
    pub small_stack_beats_pool: Option<bool>,
    /// At 64 B (P9-time): whether the pool's hit path was faster than a fresh `vec![0u8; 64]`.
    pub small_pool_beats_fresh: Option<bool>,
    /// With the most threads P12 ran: whether the shared pool was faster than a fresh `vec!`.
    pub contended_pool_beats_fresh: Option<bool>,
    /// With the most threads P12 ran: whether the shared pool was faster than the same pool
    /// without thread caches.
    pub contended_pool_beats_no_cache: Option<bool>,
    /// P13, at 8 KiB, one thread: whether no other pool that threads can share was faster than
    /// `pool::shared()` (`Some(false)`: one was).
    pub no_pool_crate_beats_shared: Option<bool>,
}

/// The counts and limits the rules cite: the same in every process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// How many 128-byte buffers one thread holds before `PoolConfig::default()` allocates
    /// (P7): 1 + `max_per_bucket`.
    pub default_limit: usize,
    /// The same for the shared configuration on this machine (P7).
    pub shared_limit: usize,
    /// The shared pool's largest pooled request, in bytes (P8).
    pub shared_max_len: usize,
    /// The most bytes the shared pool's stacks keep, all buckets together (P9).
    pub shared_stack_bytes: u64,
    /// The most bytes one live thread's cache for the shared pool keeps (P9).
    pub shared_cache_bytes_per_thread: u64,
    /// The most threads P12 ran.
    pub threads: usize,
    /// This machine's logical cores.
    pub cores: usize,
    /// Bytes of a 16-byte secret the next plain renter reads after a plain give-back (P5).
    pub secret_left_by_give_back: usize,
    /// The same after renting with `rent_cleared` (P5).
    pub secret_left_by_rent_cleared: usize,
    /// The same after `give_back_cleared` (P5).
    pub secret_left_by_give_back_cleared: usize,
}

/// One decision rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// When it applies.
    pub situation: &'static str,
    /// What to do.
    pub action: String,
    /// Why, citing the experiments.
    pub because: String,
    /// Whether the action and the reason depend on timings (and so may differ between
    /// processes), or only on counts.
    pub timed: bool,
}

/// A verdict in words: `yes` where it held, `no` where the opposite held, `unresolved` where
/// the process could not tell.
fn says<'a>(verdict: Option<bool>, yes: &'a str, no: &'a str, unresolved: &'a str) -> &'a str {
    match verdict {
        Some(true) => yes,
        Some(false) => no,
        None => unresolved,
    }
}

/// The chapter's decision rules, from one process's findings and the counts; `label` writes a
/// size in bytes.
pub fn rules(findings: &Findings, counts: &Counts, label: impl Fn(usize) -> String) -> Vec<Rule> {
    vec![
        per_call_buffer(findings, &label),
        stack_sized_buffer(findings),
        small_buffer(findings),
        many_threads(findings, counts),
        which_crate(findings),
        many_at_once(counts),
        very_large(counts, &label),
        secrets(counts),
    ]
}

fn per_call_buffer(f: &Findings, label: &impl Fn(usize) -> String) -> Rule {
    let (smallest, largest) = f.sizes;
    let (action, because) = match f.pool_faster_from {
        Some(from) if from <= smallest => (
            "rent from a pool".to_owned(),
            format!(
                "a warm rent beat a fresh `vec![0u8; n]` at every size from {} to {} (P10)",
                label(smallest),
                label(largest)
            ),
        ),
        Some(from) => (
            format!(
                "rent from a pool from {} up; below, allocate or use the stack",
                label(from)
            ),
            format!(
                "a warm rent beat a fresh `vec![0u8; n]` from {} up to {}, and not at every smaller size (P10)",
                label(from),
                label(largest)
            ),
        ),
        None => (
            "allocate, unless you measure otherwise on your machine".to_owned(),
            format!(
                "a warm rent did not beat a fresh `vec![0u8; n]` at {} (P10)",
                label(largest)
            ),
        ),
    };
    Rule {
        situation: "a buffer per call on a hot path, its size known only at run time",
        action,
        because,
        timed: true,
    }
}

fn stack_sized_buffer(f: &Findings) -> Rule {
    let unzeroed = says(
        f.unzeroed_stack_beats_pool,
        "the unzeroed stack array (`MaybeUninit`) was faster than the pool's hit path",
        "the pool's hit path was faster than even the unzeroed stack array",
        "the unzeroed stack array against the pool was not resolvable",
    );
    let zeroed = says(
        f.pool_beats_zeroed_stack,
        "the pool was faster than the zeroed array `[0u8; 8192]`, which pays for zeroing 8 KiB",
        "the zeroed array `[0u8; 8192]` was faster than the pool as well",
        "the zeroed array against the pool was not resolvable",
    );
    let action = match (f.unzeroed_stack_beats_pool, f.pool_beats_zeroed_stack) {
        (Some(true), Some(true)) => {
            "an unzeroed stack array where every byte read is written first (chapter 2); otherwise rent, rather than zero a stack array"
        }
        (Some(true), Some(false)) => "a stack array, zeroed or not (chapter 2)",
        (Some(false), _) => "rent from the pool",
        _ => "measure on your machine: the stack arrays and the pool were too close here",
    };
    Rule {
        situation: "a buffer of a few KiB inside one function, its size bounded at compile time",
        action: action.to_owned(),
        because: format!("at 8 KiB {unzeroed}, and {zeroed} (P10-hit)"),
        timed: true,
    }
}

fn small_buffer(f: &Findings) -> Rule {
    let stack = says(
        f.small_stack_beats_pool,
        "a zeroed stack array `[0u8; 64]` was faster than the pool's hit path",
        "the pool's hit path was faster than a zeroed stack array `[0u8; 64]`",
        "the stack array against the pool was not resolvable",
    );
    let heap = says(
        f.small_pool_beats_fresh,
        "the pool was faster than `vec![0u8; 64]`",
        "`vec![0u8; 64]` was faster than the pool",
        "the pool against `vec![0u8; 64]` was not resolvable",
    );
    let inside = if f.small_stack_beats_pool == Some(false) {
        "the pool"
    } else {
        "a stack array"
    };
    let outliving = says(
        f.small_pool_beats_fresh,
        "the pool",
        "a fresh `Vec`",
        "either (measure)",
    );
    Rule {
        situation: "a small buffer (64 B)",
        action: format!("{inside} inside one function; if it must outlive the call, {outliving}"),
        because: format!(
            "at 64 B {stack}, and {heap} (P9-time); neither the pool nor the stack allocates (P9)"
        ),
        timed: true,
    }
}

fn many_threads(f: &Findings, c: &Counts) -> Rule {
    let fresh = says(
        f.contended_pool_beats_fresh,
        "did more operations per thread than a fresh `vec!`",
        "did fewer operations per thread than a fresh `vec!`",
        "against a fresh `vec!` was not resolvable",
    );
    let no_cache = says(
        f.contended_pool_beats_no_cache,
        "more than the same pool without thread caches",
        "fewer than the same pool without thread caches",
        "against the pool without thread caches was not resolvable",
    );
    let action = match (
        f.contended_pool_beats_fresh,
        f.contended_pool_beats_no_cache,
    ) {
        (Some(true), Some(true)) => "the shared pool: each thread's cache serves it without a lock",
        (Some(false), _) => "measure with your thread count: a fresh `vec!` was faster here",
        _ => "the shared pool, and measure with your thread count",
    };
    Rule {
        situation: "many threads renting at once",
        action: action.to_owned(),
        because: format!(
            "with {} threads on {} logical cores the shared pool {fresh}, and {no_cache} (P12)",
            c.threads, c.cores
        ),
        timed: true,
    }
}

fn which_crate(f: &Findings) -> Rule {
    let (action, because) = match f.no_pool_crate_beats_shared {
        Some(true) => (
            "`pool::shared()`, or any pool crate within noise of it",
            "no other pool that threads can share was faster at 8 KiB on one thread (P13)",
        ),
        Some(false) => (
            "measure the crates you consider: another pool crate was faster here",
            "a published pool that threads can share beat `pool::shared()` at 8 KiB on one thread (P13)",
        ),
        None => (
            "measure the crates you consider",
            "the processes could not tell the pool crates apart at 8 KiB (P13)",
        ),
    };
    Rule {
        situation: "choosing a pool crate for byte buffers",
        action: action.to_owned(),
        because: because.to_owned(),
        timed: true,
    }
}

fn many_at_once(c: &Counts) -> Rule {
    Rule {
        situation: "many buffers of one size held at once",
        action: "size `max_per_bucket` for the peak, or rethink the batch".to_owned(),
        because: format!(
            "one thread holds {} buffers of a size (`PoolConfig::default()`) or {} (the shared pool on {} cores) before every extra one allocates (P7)",
            c.default_limit, c.shared_limit, c.cores
        ),
        timed: false,
    }
}

fn very_large(c: &Counts, label: &impl Fn(usize) -> String) -> Rule {
    Rule {
        situation: "very large buffers",
        action: "a pool with a known `max_len` and byte budget, and `trim()` after the burst; another thread's cache is freed only when that thread next misses it or exits".to_owned(),
        because: format!(
            "above its largest bucket ({} for the shared pool) a buffer is exact-size and not kept; what is kept stays until `trim`, at most {} on the shared pool's stacks plus {} per live thread that used it, and `trim` cannot reach another live thread's cache (P8, P9)",
            label(c.shared_max_len),
            label(c.shared_stack_bytes as usize),
            label(c.shared_cache_bytes_per_thread as usize),
        ),
        timed: false,
    }
}

fn secrets(c: &Counts) -> Rule {
    Rule {
        situation: "buffers that hold secrets",
        action: "give back with `Rented::give_back_cleared`, or use a pool with `ClearPolicy::OnReturn`; not `rent_cleared`".to_owned(),
        because: format!(
            "the next plain renter reads {} bytes of a 16-byte secret after a plain give-back, {} after `rent_cleared` (it clears when the buffer is rented) and {} after `give_back_cleared` (P5)",
            c.secret_left_by_give_back,
            c.secret_left_by_rent_cleared,
            c.secret_left_by_give_back_cleared
        ),
        timed: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize) -> String {
        format!("{n} B")
    }

    fn findings() -> Findings {
        Findings {
            pool_faster_from: Some(100),
            sizes: (100, 10_000_000),
            unzeroed_stack_beats_pool: Some(true),
            pool_beats_zeroed_stack: Some(true),
            small_stack_beats_pool: Some(true),
            small_pool_beats_fresh: Some(true),
            contended_pool_beats_fresh: Some(true),
            contended_pool_beats_no_cache: Some(true),
            no_pool_crate_beats_shared: Some(true),
        }
    }

    fn rule(f: &Findings, situation: &str) -> Rule {
        rules(f, &Counts::default(), bytes)
            .into_iter()
            .find(|r| r.situation.starts_with(situation))
            .expect("a rule for the situation")
    }

    /// P11: the per-call rule follows P10's crossover: a pool from the size where it starts
    /// winning for good, allocation where it never does.
    #[test]
    fn p11_the_per_call_rule_follows_the_crossover() {
        let mut f = findings();
        assert_eq!(rule(&f, "a buffer per call").action, "rent from a pool");
        f.pool_faster_from = Some(2048);
        let later = rule(&f, "a buffer per call");
        assert!(later.action.starts_with("rent from a pool from 2048 B up"));
        assert!(later.because.contains("from 2048 B up to 10000000 B"));
        f.pool_faster_from = None;
        assert!(rule(&f, "a buffer per call").action.starts_with("allocate"));
    }

    /// P11: the stack-array rule cites the zeroed array as well as the unzeroed one, and
    /// recommends the unzeroed array only where every read is written first.
    #[test]
    fn p11_the_stack_rule_cites_the_zeroed_array_too() {
        let f = findings();
        let stack = rule(&f, "a buffer of a few KiB");
        assert!(stack.because.contains("unzeroed stack array"));
        assert!(stack.because.contains("zeroed array `[0u8; 8192]`"));
        assert!(
            stack
                .action
                .contains("where every byte read is written first")
        );
        let both_faster = Findings {
            pool_beats_zeroed_stack: Some(false),
            ..f.clone()
        };
        assert_eq!(
            rule(&both_faster, "a buffer of a few KiB").action,
            "a stack array, zeroed or not (chapter 2)"
        );
        let unresolved = Findings {
            unzeroed_stack_beats_pool: None,
            ..f
        };
        assert!(
            rule(&unresolved, "a buffer of a few KiB")
                .because
                .contains("not resolvable")
        );
    }

    /// P11, P5: for secrets the rule recommends `give_back_cleared`, never `rent_cleared`.
    #[test]
    fn p11_secrets_are_given_back_cleared_not_rented_cleared() {
        let counts = Counts {
            secret_left_by_give_back: 16,
            secret_left_by_rent_cleared: 16,
            ..Counts::default()
        };
        let all = rules(&findings(), &counts, bytes);
        let secrets = all.last().expect("the secrets rule");
        assert!(
            secrets
                .action
                .starts_with("give back with `Rented::give_back_cleared`")
        );
        assert!(secrets.action.ends_with("not `rent_cleared`"));
        assert!(secrets.because.contains("reads 16 bytes"));
        assert!(!secrets.timed);
    }

    /// P11, P9: the rule for very large buffers states what the shared pool can keep and that
    /// `trim` does not reach another live thread's cache.
    #[test]
    fn p11_the_large_buffer_rule_states_the_bound_and_what_trim_cannot_reach() {
        let counts = Counts {
            shared_max_len: 16 << 20,
            shared_stack_bytes: 64 << 20,
            shared_cache_bytes_per_thread: (2 << 20) - 16,
            ..Counts::default()
        };
        let large = rules(&findings(), &counts, bytes)
            .into_iter()
            .find(|r| r.situation == "very large buffers")
            .expect("the rule");
        assert!(large.because.contains(
            "at most 67108864 B on the shared pool's stacks plus 2097136 B per live thread"
        ));
        assert!(
            large
                .because
                .contains("cannot reach another live thread's cache")
        );
        assert!(large.action.contains("next misses it or exits"));
        assert!(!large.timed);
    }

    /// P11: the same findings give the same rules (so processes that agree print them), and
    /// every timed rule's text changes when its verdict does.
    #[test]
    fn p11_rules_are_a_function_of_the_findings() {
        let f = findings();
        assert_eq!(
            rules(&f, &Counts::default(), bytes),
            rules(&f, &Counts::default(), bytes)
        );
        let flipped = Findings {
            small_pool_beats_fresh: Some(false),
            contended_pool_beats_fresh: Some(false),
            no_pool_crate_beats_shared: Some(false),
            ..f.clone()
        };
        let (a, b) = (
            rules(&f, &Counts::default(), bytes),
            rules(&flipped, &Counts::default(), bytes),
        );
        for situation in ["a small buffer", "many threads", "choosing a pool crate"] {
            let pick = |rules: &[Rule]| {
                rules
                    .iter()
                    .find(|r| r.situation.starts_with(situation))
                    .cloned()
                    .expect("the rule")
            };
            assert_ne!(pick(&a), pick(&b), "{situation}");
            assert!(pick(&a).timed);
        }
    }
}
