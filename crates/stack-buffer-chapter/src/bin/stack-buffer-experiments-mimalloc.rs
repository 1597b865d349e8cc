//! Chapter 2's experiments binary under mimalloc: `cargo xtask report` runs it as a replica of
//! the allocator-sensitive experiments (S1, S3, S7, S12-time).

lab::experiments_main!(stack_buffer_chapter::CHAPTER, mimalloc);
