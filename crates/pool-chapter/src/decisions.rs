//! The chapter's decision rules (P11), as a function of what one process measured.
//!
//! Each rule names a situation, what to do in it, and why, citing the table and the conclusion
//! that support it. The first is the baseline every Rust programmer already has: reuse a buffer
//! you own and pass down. The pool comes second, for the buffers that cannot be passed down; the
//! stack array (chapter 2) and the arena (chapter 4) follow, then the pool's own limits. Where
//! the answer depends on a timing, the rule reads the verdicts of one process of the report
//! (`Some(true)`: resolvably faster in that process, `Some(false)`: resolvably slower, `None`: not
//! resolvable there), and the chapter prints its action and reason only where every process
//! produced the same text. The other rules cite counts, which are the same in every process.
//!
//! ```
//! use pool_chapter::decisions::{Counts, Findings, rules};
//!
//! let findings = Findings {
//!     sizes: vec![100, 10_000_000],
//!     pool_beats_unzeroed_at: vec![100, 10_000_000],
//!     reused_beats_hit: Some(true),
//!     ..Findings::default()
//! };
//! let rules = rules(&findings, &Counts::default(), |n| format!("{n} B"));
//! assert!(rules[0].action.starts_with("reuse one buffer you own"));
//! assert_eq!(rules[1].action, "rent from a pool (`pool::shared()`)");
//! assert!(rules[1].because.starts_with("of P10's sizes, from 100 B to 10000000 B, a warm rent"));
//! assert!(rules[1].because.contains("at every size"));
//! ```

/// What one process of the report measured, as the rules read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// The sizes P10 measured, smallest first.
    pub sizes: Vec<usize>,
    /// P10: the sizes at which one reused `Vec` the caller owns was faster than a warm rent from
    /// the shared pool.
    pub reused_beats_pool_at: Vec<usize>,
    /// At 8 KiB (P10-hit): whether one reused `Vec` was faster than the pool's hit path.
    pub reused_beats_hit: Option<bool>,
    /// At 8 KiB (P13): whether one reused `Vec` was faster than every other way to get a buffer
    /// (`Some(false)`: another way was faster than it).
    pub reused_fastest_in_p13: Option<bool>,
    /// P10: the sizes at which a warm rent from the shared pool was faster than a fresh, unzeroed
    /// `Vec::with_capacity(n)`.
    pub pool_beats_unzeroed_at: Vec<usize>,
    /// P10: the sizes at which a fresh, unzeroed `Vec::with_capacity(n)` was faster than a warm
    /// rent from the shared pool.
    pub unzeroed_beats_pool_at: Vec<usize>,
    /// The smallest size of P10 from which a warm rent from the shared pool was faster than a
    /// fresh, zeroed `vec![0u8; n]` at that size and every larger one (`None`: not at the
    /// largest size).
    pub pool_beats_zeroed_from: Option<usize>,
    /// At 8 KiB (P10-hit): whether an unzeroed stack array was faster than the pool's hit path.
    pub unzeroed_stack_beats_pool: Option<bool>,
    /// At 8 KiB (P10-hit): whether the pool's hit path was faster than a zeroed stack array.
    pub pool_beats_zeroed_stack: Option<bool>,
    /// At 64 B (P9-time): whether a zeroed stack array was faster than the pool's hit path.
    pub small_stack_beats_pool: Option<bool>,
    /// At 64 B (P9-time): whether the pool's hit path was faster than a fresh, unzeroed
    /// `Vec::with_capacity(64)`.
    pub small_pool_beats_unzeroed: Option<bool>,
    /// With the most threads P12 ran: whether the shared pool was faster than a fresh,
    /// unzeroed `Vec::with_capacity(8192)` (the allocation alone).
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
/// size in bytes. The first is reuse, the second the pool; each names what supports it.
pub fn rules(findings: &Findings, counts: &Counts, label: impl Fn(usize) -> String) -> Vec<Rule> {
    vec![
        reuse(findings, &label),
        cannot_pass_down(findings, &label),
        stack_sized_buffer(findings),
        small_buffer(findings),
        one_lifetime(),
        many_threads(findings, counts),
        which_crate(findings),
        many_at_once(counts),
        very_large(counts, &label),
        secrets(counts),
    ]
}

/// P10's sizes as a phrase: "of P10's sizes, from 100 B to 10,000,000 B,".
fn of_sizes(all: &[usize], label: &impl Fn(usize) -> String) -> String {
    match (all.first(), all.last()) {
        (Some(&first), Some(&last)) => {
            format!("of P10's sizes, from {} to {},", label(first), label(last))
        }
        _ => "of P10's sizes,".to_owned(),
    }
}

/// Some of P10's sizes as a verdict: "at every size", "at no size" or "at 100 B, 1,000 B".
fn at_sizes(at: &[usize], all: &[usize], label: &impl Fn(usize) -> String) -> String {
    lab::verdicts::describe_sizes(at, all.len(), label)
}

fn reuse(f: &Findings, label: &impl Fn(usize) -> String) -> Rule {
    let hit = says(
        f.reused_beats_hit,
        "at 8 KiB one reused `Vec` was faster than the pool's hit path (P10-hit)",
        "at 8 KiB the pool's hit path was faster than one reused `Vec` (P10-hit)",
        "at 8 KiB one reused `Vec` against the pool's hit path was not resolvable (P10-hit)",
    );
    let sizes = format!(
        "{} it was faster than a warm rent {} (P10)",
        of_sizes(&f.sizes, label),
        at_sizes(&f.reused_beats_pool_at, &f.sizes, label)
    );
    let p13 = says(
        f.reused_fastest_in_p13,
        "it was the fastest of every way to get 8 KiB, pools and fresh buffers alike, allocating nothing per use (P13)",
        "another way to get 8 KiB was faster than it (P13)",
        "it was within noise of another way to get 8 KiB (P13)",
    );
    let action = match f.reused_beats_hit {
        Some(false) => {
            "reuse one buffer you own where you can pass it down, or rent: the pool was faster here (measure)"
        }
        Some(true) => {
            "reuse one buffer you own: `Vec::with_capacity` once, `clear()` per use, passed down as `&mut Vec<u8>`; no pool"
        }
        None => {
            "reuse one buffer you own: `Vec::with_capacity` once, `clear()` per use, passed down as `&mut Vec<u8>`; it needs no pool and no contract"
        }
    };
    Rule {
        situation: "a buffer per call that the caller can own and pass down to the code that fills it",
        action: action.to_owned(),
        because: format!("{hit}; {sizes}; {p13}"),
        timed: true,
    }
}

fn cannot_pass_down(f: &Findings, label: &impl Fn(usize) -> String) -> Rule {
    let (won, lost) = (&f.pool_beats_unzeroed_at, &f.unzeroed_beats_pool_at);
    let list = |sizes: &[usize]| {
        sizes
            .iter()
            .map(|&n| label(n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let action = if !f.sizes.is_empty() && won.len() == f.sizes.len() {
        "rent from a pool (`pool::shared()`)".to_owned()
    } else if won.is_empty() {
        "a fresh `Vec::with_capacity(n)`, written before it is read, unless you measure otherwise on your machine".to_owned()
    } else if lost.is_empty() {
        "rent from a pool; at the sizes where it did not resolvably win, measure".to_owned()
    } else {
        format!(
            "rent from a pool; at the sizes where it lost ({}), a fresh `Vec::with_capacity(n)`",
            list(lost)
        )
    };
    let mut because = format!(
        "{} a warm rent was faster than a fresh, unzeroed `Vec::with_capacity(n)` (the allocation without the zeroing) {}",
        of_sizes(&f.sizes, label),
        at_sizes(won, &f.sizes, label)
    );
    if !lost.is_empty() {
        because.push_str(&format!(", and slower {}", at_sizes(lost, &f.sizes, label)));
    }
    let largest = f.sizes.last().map_or_else(String::new, |&n| label(n));
    because.push_str(&match f.pool_beats_zeroed_from {
        Some(from) => format!(
            "; against a fresh, zeroed `vec![0u8; n]`, its zeroing included, it won from {} up (P10)",
            label(from)
        ),
        None => format!(
            "; against a fresh, zeroed `vec![0u8; n]`, its zeroing included, it did not win at {largest} (P10)"
        ),
    });
    Rule {
        situation: "a buffer you cannot pass down: it crosses threads, outlives the call, or is asked for by code you do not own",
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
        f.small_pool_beats_unzeroed,
        "the pool was faster than a fresh, unzeroed `Vec::with_capacity(64)`",
        "a fresh, unzeroed `Vec::with_capacity(64)` was faster than the pool",
        "the pool against a fresh, unzeroed `Vec::with_capacity(64)` was not resolvable",
    );
    // P9-time times only the zeroed stack array: where the pool beats it, the unzeroed array
    // (chapter 2) is still the first choice, and the pool the one that needs no `unsafe`.
    let inside = if f.small_stack_beats_pool == Some(false) {
        "an unzeroed stack array where every byte read is written first (chapter 2; P9-time does not time it), or the pool rather than a zeroed array"
    } else {
        "a stack array"
    };
    let outliving = says(
        f.small_pool_beats_unzeroed,
        "the pool",
        "a fresh `Vec`",
        "either (measure)",
    );
    Rule {
        situation: "a small buffer (64 B), its size fixed",
        action: format!("{inside} inside one function; if it must outlive the call, {outliving}"),
        because: format!(
            "at 64 B {stack}, and {heap} (P9-time); neither the pool nor the stack allocates (P9); chapter 2 measures stack buffers by size"
        ),
        timed: true,
    }
}

fn one_lifetime() -> Rule {
    Rule {
        situation: "many objects with one lifetime (a request's, a batch's), not buffers of bytes",
        action: "an arena (chapter 4), freed all at once at the end of that lifetime".to_owned(),
        because: "not measured here: chapter 4 sets one `Box` per object against an arena's one `alloc` per object and against one allocation for all of them (A1), and finds where a pool of objects beats an arena (A6)".to_owned(),
        timed: false,
    }
}

fn many_threads(f: &Findings, c: &Counts) -> Rule {
    let fresh = says(
        f.contended_pool_beats_fresh,
        "did more operations per thread than a fresh, unzeroed buffer",
        "did fewer operations per thread than a fresh, unzeroed buffer",
        "against a fresh, unzeroed buffer was not resolvable",
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
        (Some(false), _) => {
            "measure with your thread count: a fresh, unzeroed buffer was faster here"
        }
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

    const SIZES: [usize; 3] = [100, 8192, 10_000_000];

    fn findings() -> Findings {
        Findings {
            sizes: SIZES.to_vec(),
            reused_beats_pool_at: SIZES.to_vec(),
            reused_beats_hit: Some(true),
            reused_fastest_in_p13: Some(true),
            pool_beats_unzeroed_at: SIZES.to_vec(),
            unzeroed_beats_pool_at: vec![],
            pool_beats_zeroed_from: Some(100),
            unzeroed_stack_beats_pool: Some(true),
            pool_beats_zeroed_stack: Some(true),
            small_stack_beats_pool: Some(true),
            small_pool_beats_unzeroed: Some(true),
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

    /// P11, P10-hit, P10, P13: the first rule is the baseline — reuse a buffer you own and pass
    /// down — and it cites the reused `Vec`'s rows of P10-hit, P10 and P13; its words change with
    /// their verdicts.
    #[test]
    fn p11_the_first_rule_is_to_reuse_a_buffer_you_own() {
        let f = findings();
        let all = rules(&f, &Counts::default(), bytes);
        let first = &all[0];
        assert!(first.situation.contains("pass down"));
        assert!(first.action.starts_with("reuse one buffer you own"));
        assert!(first.action.contains("`clear()` per use"));
        for table in ["(P10-hit)", "(P10)", "(P13)"] {
            assert!(first.because.contains(table), "{table}: {}", first.because);
        }
        assert!(first.because.contains(
            "of P10's sizes, from 100 B to 10000000 B, it was faster than a warm rent at every size (P10)"
        ));
        assert!(first.timed);
        let pool_faster = Findings {
            reused_beats_hit: Some(false),
            reused_fastest_in_p13: Some(false),
            ..f.clone()
        };
        let flipped = &rules(&pool_faster, &Counts::default(), bytes)[0];
        assert_ne!(flipped.action, first.action);
        assert!(flipped.because.contains("the pool's hit path was faster"));
        assert!(
            flipped
                .because
                .contains("another way to get 8 KiB was faster")
        );
        let some = Findings {
            reused_beats_pool_at: vec![100, 8192],
            ..f
        };
        assert!(
            rules(&some, &Counts::default(), bytes)[0]
                .because
                .contains("faster than a warm rent at 100 B, 8192 B (P10)")
        );
    }

    /// P11, P10: the pool is the second rule, for the buffers that cannot be passed down, and it
    /// follows the comparison with a fresh, unzeroed buffer (the allocation alone), not with
    /// `vec!`, whose zeroing it cites apart.
    #[test]
    fn p11_the_pool_rule_follows_the_unzeroed_buffer() {
        let mut f = findings();
        let second = &rules(&f, &Counts::default(), bytes)[1];
        assert!(
            second
                .situation
                .starts_with("a buffer you cannot pass down")
        );
        for reason in [
            "crosses threads",
            "outlives the call",
            "code you do not own",
        ] {
            assert!(second.situation.contains(reason), "{reason}");
        }
        assert_eq!(second.action, "rent from a pool (`pool::shared()`)");
        assert!(second.because.contains(
            "faster than a fresh, unzeroed `Vec::with_capacity(n)` (the allocation without the zeroing) at every size;"
        ));
        assert!(
            second
                .because
                .contains("its zeroing included, it won from 100 B up (P10)")
        );
        f.pool_beats_unzeroed_at = vec![100, 8192];
        f.unzeroed_beats_pool_at = vec![10_000_000];
        let partly = rule(&f, "a buffer you cannot pass down");
        assert_eq!(
            partly.action,
            "rent from a pool; at the sizes where it lost (10000000 B), a fresh `Vec::with_capacity(n)`"
        );
        assert!(
            partly
                .because
                .contains("at 100 B, 8192 B, and slower at 10000000 B;")
        );
        f.unzeroed_beats_pool_at = vec![];
        assert!(
            rule(&f, "a buffer you cannot pass down")
                .action
                .ends_with("did not resolvably win, measure")
        );
        f.pool_beats_unzeroed_at = vec![];
        f.pool_beats_zeroed_from = None;
        let never = rule(&f, "a buffer you cannot pass down");
        assert!(never.action.starts_with("a fresh `Vec::with_capacity(n)`"));
        assert!(
            never
                .because
                .contains("(the allocation without the zeroing) at no size;")
        );
        assert!(never.because.contains("it did not win at 10000000 B (P10)"));
    }

    /// P11: the rules come in the order the chapter teaches them — reuse, the pool, then the
    /// stack array and the arena as pointers to chapters 2 and 4 — and every rule names the
    /// table whose conclusion supports it.
    #[test]
    fn p11_every_rule_names_what_supports_it_in_the_order_taught() {
        let all = rules(&findings(), &Counts::default(), bytes);
        assert!(all[0].situation.contains("pass down"));
        assert!(
            all[1]
                .situation
                .starts_with("a buffer you cannot pass down")
        );
        assert!(all[2].action.contains("chapter 2"));
        assert!(all[3].because.contains("chapter 2"));
        assert!(all[4].action.contains("an arena (chapter 4)"));
        assert!(all[4].because.contains("(A1)") && all[4].because.contains("(A6)"));
        assert!(!all[4].timed);
        for rule in &all {
            assert!(
                rule.because.contains("(P") || rule.because.contains("(A"),
                "{}: {}",
                rule.situation,
                rule.because
            );
        }
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
            reused_beats_hit: Some(false),
            pool_beats_unzeroed_at: vec![],
            small_pool_beats_unzeroed: Some(false),
            contended_pool_beats_fresh: Some(false),
            no_pool_crate_beats_shared: Some(false),
            ..f.clone()
        };
        let (a, b) = (
            rules(&f, &Counts::default(), bytes),
            rules(&flipped, &Counts::default(), bytes),
        );
        for situation in [
            "a buffer per call that the caller can own",
            "a buffer you cannot pass down",
            "a small buffer",
            "many threads",
            "choosing a pool crate",
        ] {
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
