//! What Rust turns into compile errors (A8).
//!
//! The Zig seed recommends reserving capacity because it "reduces data movement, so pointers
//! or slices into the list are not invalidated halfway". That is a rule the programmer keeps:
//! Zig checks nothing, and a pointer kept across an `append` that did reallocate dangles. In
//! Rust the rule is the borrow checker's, and it is stricter: a reference into a `Vec` cannot
//! be held across *any* `push`, reserved or not, because `push` takes `&mut self`. An arena
//! keeps the other half of the promise: `Bump::alloc` takes `&self` and never moves what it
//! handed out, so references into the arena stay valid while it grows — until `reset`, which
//! takes `&mut self` and therefore cannot run while one is alive.
//!
//! Every rule below has a `compile_fail` example **and** a compiling twin that differs only in
//! obeying the rule: stable rustdoc does not check *which* error a `compile_fail` example
//! produces, so without the twin a typo would pass as a proof. Each example also names its
//! error code, which nightly rustdoc checks (`cargo +nightly test --doc -p arena`).
//!
//! # 1. A reference into a `Vec` held across `push`
//! Even with the capacity reserved, so that this `push` cannot reallocate, the compiler
//! refuses: `push` borrows the vector mutably while `first` borrows it (E0502). The reserve is
//! a run-time fact; the borrow checker reasons about types.
//! ```compile_fail,E0502
//! let mut nodes = Vec::with_capacity(4);
//! nodes.push(arena::node(0));
//! let first = &nodes[0];
//! nodes.push(arena::node(1));
//! assert_eq!(first.id, 0);
//! ```
//! The twin is done with the reference before the `push` (an index would do as well):
//! ```
//! let mut nodes = Vec::with_capacity(4);
//! nodes.push(arena::node(0));
//! let first = &nodes[0];
//! assert_eq!(first.id, 0);
//! nodes.push(arena::node(1));
//! ```
//!
//! # 2. What an arena allows instead
//! `Bump::alloc` takes `&self` and never moves a value it returned, so earlier references stay
//! usable while the arena allocates more — even across a new chunk. This compiles, and is
//! sound:
//! ```
//! let bump = bumpalo::Bump::new();
//! let first = bump.alloc(arena::node(0));
//! let later: Vec<&arena::Node> = (1..10_000).map(|i| &*bump.alloc(arena::node(i))).collect();
//! assert_eq!((first.id, later.len()), (0, 9_999));
//! ```
//!
//! # 3. `Bump::reset` while something borrows the arena
//! `reset` takes `&mut self`: it cannot run while a reference returned by `alloc` is alive
//! (E0502), so a value can never outlive the memory it lives in.
//! ```compile_fail,E0502
//! let mut bump = bumpalo::Bump::new();
//! let node = bump.alloc(arena::node(7));
//! bump.reset();
//! assert_eq!(node.id, 7);
//! ```
//! The twin uses the value before the reset:
//! ```
//! let mut bump = bumpalo::Bump::new();
//! let node = bump.alloc(arena::node(7));
//! assert_eq!(node.id, 7);
//! bump.reset();
//! ```
//!
//! # 4. Dropping the arena while something borrows it
//! Dropping (or moving) the arena while a reference into it is alive is a move out of a
//! borrowed value (E0505).
//! ```compile_fail,E0505
//! let bump = bumpalo::Bump::new();
//! let node = bump.alloc(arena::node(7));
//! drop(bump);
//! assert_eq!(node.id, 7);
//! ```
//! The twin drops it last:
//! ```
//! let bump = bumpalo::Bump::new();
//! let node = bump.alloc(arena::node(7));
//! assert_eq!(node.id, 7);
//! drop(bump);
//! ```

/// One rule of this module: what the Zig seed leaves to the programmer, and what Rust does with
/// the same code. Chapter 4's A8 table lists them; each is a section above with a
/// `compile_fail` example (when Rust refuses) and a compiling twin.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The heading of its section above, without its number.
    pub section: &'static str,
    /// What the same code does in Zig.
    pub zig: &'static str,
    /// What Rust does.
    pub rust: &'static str,
    /// The compiler's error code, or `None` when the code compiles.
    pub error: Option<&'static str>,
}

/// The rules, in the order of the sections above.
pub const RULES: [Rule; 4] = [
    Rule {
        section: "A reference into a `Vec` held across `push`",
        zig: "a pointer into an `ArrayList` kept across `append` dangles if that append reallocated; the seed reserves capacity so that it does not, a rule the programmer keeps",
        rust: "refused, even after `with_capacity`: `push` takes `&mut self` while `&v[i]` borrows the vector",
        error: Some("E0502"),
    },
    Rule {
        section: "What an arena allows instead",
        zig: "pointers into an arena stay valid while it allocates more",
        rust: "allowed: `Bump::alloc` takes `&self` and never moves a value, even when it starts a new chunk",
        error: None,
    },
    Rule {
        section: "`Bump::reset` while something borrows the arena",
        zig: "`arena.reset(…)` compiles while pointers into the arena are still in use; they dangle",
        rust: "refused: `reset` takes `&mut self`, so no reference returned by `alloc` may be alive",
        error: Some("E0502"),
    },
    Rule {
        section: "Dropping the arena while something borrows it",
        zig: "`arena.deinit()` compiles while pointers into the arena are still in use; they dangle",
        rust: "refused: dropping the `Bump` moves it out while it is borrowed",
        error: Some("E0505"),
    },
];

#[cfg(test)]
mod tests {
    use super::RULES;
    use crate::doc_sections::assert_sections;

    /// A8: every rule of the table is a section with its `compile_fail` example (and the error
    /// code nightly rustdoc checks) when Rust refuses the code, and always a compiling example.
    #[test]
    fn a8_every_rule_is_a_section_with_its_compile_fail_example_and_a_compiling_twin() {
        let expected = RULES.map(|rule| (rule.section, rule.error));
        assert_sections(include_str!("contract.rs"), &expected);
    }
}
