//! Chapter 1's experiments binary: `cargo xtask report` runs it in release mode and reads its JSON.

lab::experiments_main!(lab_chapter::CHAPTER);
