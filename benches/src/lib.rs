//! Criterion benches for every chapter, one file per chapter under `benches/benches/`.
//!
//! Each bench calls the same workload function the chapter's experiment and tests call, so
//! there is never a second copy of a workload. The chapter tables in `docs/` come from
//! `cargo xtask report`, not from these benches: criterion runs each benchmark's samples one
//! after the other, and chapter 1's M3 table shows how much that order alone moves
//! two copies of the same function on a noisy machine. Use the benches to explore; cite the report.
