//! What the compiler refuses in the arena strategy.
//!
//! The arena strategy keeps an order's lines in a `bumpalo` arena, each line's item name copied
//! in, and resets the arena when the next order opens. `Bump::reset` takes `&mut self`, and the
//! open order's lines borrow the arena, so the reset compiles only where no line of the order
//! is still in use. The example below has a `compile_fail` version and a compiling twin that
//! differs only in obeying the rule: stable rustdoc does not check *which* error a
//! `compile_fail` example produces, so without the twin a typo would pass as a proof. Chapter
//! 4's A8 table (`arena::contract`) lists the same rule for an arena of any values.
//!
//! # Resetting the arena while an order's lines point into it
//! The next order opens, and resets the arena, while the previous order's lines are still read
//! (E0502): what would be a use after free is a compile error.
//! ```compile_fail,E0502
//! use receipt::render::Line;
//! let mut arena = bumpalo::Bump::new();
//! let mut lines = bumpalo::collections::Vec::new_in(&arena);
//! let item = arena.alloc_slice_copy("ผัดไทย".as_bytes());
//! lines.push(Line { item, width: 6, numbers: Default::default() });
//! arena.reset();
//! assert_eq!(lines[0].item, "ผัดไทย".as_bytes());
//! ```
//! The twin is done with the lines (the receipt is rendered) before the reset:
//! ```
//! use receipt::render::Line;
//! let mut arena = bumpalo::Bump::new();
//! let mut lines = bumpalo::collections::Vec::new_in(&arena);
//! let item = arena.alloc_slice_copy("ผัดไทย".as_bytes());
//! lines.push(Line { item, width: 6, numbers: Default::default() });
//! assert_eq!(lines[0].item, "ผัดไทย".as_bytes());
//! drop(lines);
//! arena.reset();
//! ```
