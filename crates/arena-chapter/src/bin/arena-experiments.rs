//! Chapter 4's experiments binary under the system allocator: `cargo xtask report` runs it in
//! release mode and reads its JSON.

lab::experiments_main!(arena_chapter::CHAPTER);
