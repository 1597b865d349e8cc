//! Chapter 4's experiments binary under mimalloc: `cargo xtask report` runs it as a replica of
//! the allocator-sensitive experiments (A1, A6).

lab::experiments_main!(arena_chapter::CHAPTER, mimalloc);
