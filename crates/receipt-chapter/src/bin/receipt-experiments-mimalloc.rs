//! Chapter 5's experiments binary under mimalloc: `cargo xtask report` runs it as a replica of
//! the allocator-sensitive experiment (R2).

lab::experiments_main!(receipt_chapter::CHAPTER, mimalloc);
