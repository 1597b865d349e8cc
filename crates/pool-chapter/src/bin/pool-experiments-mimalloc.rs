//! Chapter 3's experiments binary under mimalloc: `cargo xtask report` runs it as a replica of
//! the allocator-sensitive experiments (P9-time, P10, P10-hit, P12).

lab::experiments_main!(pool_chapter::CHAPTER, mimalloc);
