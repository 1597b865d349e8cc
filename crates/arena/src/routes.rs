//! One function, any allocator (A5): the ways Rust code can be handed an allocator, beside the
//! Zig seed's `std.mem.Allocator` parameter.
//!
//! In Zig every allocating function takes an allocator, an interface called through a vtable,
//! and the seed's `buildNodes` runs unchanged with the general-purpose allocator or an arena.
//! Rust has one global allocator per program; passing another one is done through a trait, with
//! different trade-offs. Each route below is a section with an example that compiles (and, where
//! Rust refuses the code, a `compile_fail` example with its error code, checked by nightly
//! rustdoc: `cargo +nightly test --doc -p arena`); [`ROUTES`] is the chapter's A5 table.
//!
//! # 1. `std` collections
//! On Rust 1.95, this workspace's toolchain, `Vec<T, A>` takes an allocator parameter only
//! behind the unstable `allocator_api` feature: stable code cannot pass an allocator to a `std`
//! collection (E0658). Nightly compilers of late 2026 (1.101) accept the same line without a
//! feature gate, so this route is opening. The crate's build script asks the compiler, and the
//! example below is a `compile_fail` test exactly when the compiler refuses it.
#![cfg_attr(not(std_allocator_api), doc = "```compile_fail,E0658")]
#![cfg_attr(std_allocator_api, doc = "```")]
//! let nodes: Vec<u64, std::alloc::System> = Vec::new_in(std::alloc::System);
//! assert!(nodes.is_empty());
//! ```
//! The same vector from the `allocator-api2` crate compiles on stable:
//! ```
//! let nodes: allocator_api2::vec::Vec<u64, std::alloc::System> =
//!     allocator_api2::vec::Vec::new_in(std::alloc::System);
//! assert!(nodes.is_empty());
//! ```
//!
//! # 2. A generic function over `allocator-api2`'s `Allocator`
//! `allocator-api2` mirrors the unstable trait on stable, with its own `Vec<T, A>` and
//! `Box<T, A>`. [`build_nodes`](crate::allocators::build_nodes) is generic over it, so the
//! compiler makes one copy per allocator type and can inline each allocator's calls.
//! ```
//! use allocator_api2::alloc::Global;
//! use arena::allocators::build_nodes;
//! let bump = bumpalo::Bump::new();
//! assert_eq!(build_nodes(100, Global).as_slice(), build_nodes(100, &bump).as_slice());
//! ```
//!
//! # 3. `&dyn Allocator`: the Zig shape
//! The same function given `&dyn Allocator` is one copy for every allocator, and each call goes
//! through the vtable, as in Zig. A1 times this shape against the inlined one.
//! ```
//! use allocator_api2::alloc::{Allocator, Global};
//! use arena::allocators::build_nodes;
//! let bump = bumpalo::Bump::new();
//! let by_ref = &bump;
//! for allocator in [&Global as &dyn Allocator, &by_ref] {
//!     assert_eq!(build_nodes(100, allocator).len(), 100);
//! }
//! ```
//!
//! # 4. `bumpalo::collections`
//! A fork of `std`'s `Vec` and `String` that allocate in a `Bump`; bumpalo's README says the
//! module will go once `std` collections take an allocator, so the workspace pins `~3.20`.
//! ```
//! let bump = bumpalo::Bump::new();
//! let mut nodes = bumpalo::collections::Vec::new_in(&bump);
//! nodes.push(arena::node(1));
//! assert_eq!(nodes[0].id, 1);
//! ```
//!
//! # 5. A typed arena
//! `typed_arena::Arena<T>` takes no allocator: it is one, for one type, and hands out `&mut T`.
//! ```
//! let arena = typed_arena::Arena::new();
//! let node: &mut arena::Node = arena.alloc(arena::node(1));
//! assert_eq!(node.id, 1);
//! ```

/// One way of handing Rust code an allocator: a row of the chapter's A5 table and a section of
/// this module's docs.
#[derive(Clone, Copy, Debug)]
pub struct Route {
    /// The heading of its section above, without its number.
    pub section: &'static str,
    /// How it is written.
    pub how: &'static str,
    /// What it costs or allows.
    pub status: &'static str,
    /// The compiler's error code when its section shows code Rust refuses.
    pub error: Option<&'static str>,
}

/// The routes, in the order of the sections above.
pub const ROUTES: [Route; 5] = [
    Route {
        section: "`std` collections",
        how: "one global allocator per program (`#[global_allocator]`); `Vec<T, A>` with an allocator parameter needs the unstable `allocator_api` feature on Rust 1.95 (nightly 1.101 accepts it without one)",
        status: "stable code cannot pass an allocator to a `std` collection yet",
        // What this compiler says (the build script asks it): refused on Rust 1.95.
        error: if cfg!(std_allocator_api) {
            None
        } else {
            Some("E0658")
        },
    },
    Route {
        section: "A generic function over `allocator-api2`'s `Allocator`",
        how: "`fn build_nodes<A: Allocator>(n, alloc: A)` with `allocator-api2`'s `Vec<T, A>`, called with `Global` or `&Bump`",
        status: "one copy per allocator type, whose calls the compiler can inline (static dispatch)",
        error: None,
    },
    Route {
        section: "`&dyn Allocator`: the Zig shape",
        how: "the same function given `&dyn Allocator`",
        status: "one copy for every allocator, each call through the vtable, as in Zig (timed in A1)",
        error: None,
    },
    Route {
        section: "`bumpalo::collections`",
        how: "a fork of `std`'s `Vec` and `String` that allocate in a `Bump`",
        status: "to be removed once `std` collections take an allocator (bumpalo's README); pinned as `~3.20`",
        error: None,
    },
    Route {
        section: "A typed arena",
        how: "`typed_arena::Arena<T>::alloc(value) -> &mut T`, one type per arena",
        status: "no allocator parameter: the arena is the allocator",
        error: None,
    },
];

#[cfg(test)]
mod tests {
    use super::ROUTES;
    use crate::doc_sections::assert_sections;

    /// A5: every route of the table is a section with an example that compiles, and a
    /// `compile_fail` example with its error code where Rust refuses the code.
    #[test]
    fn a5_every_route_is_a_section_with_a_compiling_example() {
        let expected = ROUTES.map(|route| (route.section, route.error));
        assert_sections(include_str!("routes.rs"), &expected);
    }

    /// A5: the workspace pins `bumpalo` to 3.20, as the table says.
    #[test]
    fn a5_the_workspace_pins_bumpalo_to_3_20() {
        let manifest = include_str!("../../../Cargo.toml");
        assert!(
            manifest
                .lines()
                .any(|line| line.starts_with("bumpalo = { version = \"~3.20\"")),
            "the root Cargo.toml no longer pins bumpalo to ~3.20"
        );
    }
}
