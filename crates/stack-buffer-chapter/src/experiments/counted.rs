//! Bytes per call (S6): the one result the seed says transfers to any machine.

use std::hint::black_box;

use lab::report::{Function, Run};
use lab::table::Columns;
use lab::{Cell, Table, count};
use stack_buffer::{AIR_FACTOR, BOX_KG, MAX_STACK_ITEMS, Scratch, generate_order, pack_boxes};

use super::SEED_CELLS;
use crate::workloads;

pub(super) const S6: Function = lab::function!(s6_bytes_per_call);

/// `(2N values, the seed's bytes for new double[2N])`, where the seed measured that many values.
const S6_SEED: [(usize, &str); 8] = [
    (2, "40 B"),
    (8, "88 B"),
    (16, "152 B"),
    (32, "280 B"),
    (64, "536 B"),
    (128, "1,048 B"),
    (256, "2,072 B"),
    (1024, "8,216 B"),
];

/// One order size's counted bytes per call.
struct Bytes {
    n: usize,
    heap: u64,
    chunk: Option<usize>,
    stack: Option<u64>,
    pool: u64,
    pack_heap: u64,
    pack_hybrid: u64,
}

fn bytes_per_call(n: usize) -> Bytes {
    let bytes = |f: &dyn Fn() -> f64| count(|| black_box(f())).1.bytes_allocated;
    drop(stack_buffer::scratch_pool().rent(2 * n));
    let order = generate_order(n, n as u64);
    let pack = |s: Scratch| {
        count(|| pack_boxes(&order, BOX_KG, AIR_FACTOR, s))
            .1
            .bytes_allocated
    };
    pack(Scratch::Hybrid); // warm the pool for N > 128
    Bytes {
        n,
        heap: bytes(&|| workloads::s1_heap::<0>(n)),
        chunk: chunk_bytes(16 * n),
        stack: (n <= MAX_STACK_ITEMS).then(|| bytes(&|| workloads::s1_stack::<0>(n))),
        pool: bytes(&|| workloads::s1_pool::<0>(n)),
        pack_heap: pack(Scratch::Heap),
        pack_hybrid: pack(Scratch::Hybrid),
    }
}

/// The block glibc hands out for a request of `bytes`, header included (not under Miri, which
/// has its own allocator).
#[cfg(all(target_env = "gnu", not(miri)))]
fn chunk_bytes(bytes: usize) -> Option<usize> {
    crate::heap::glibc_chunk_bytes(bytes)
}

#[cfg(not(all(target_env = "gnu", not(miri))))]
fn chunk_bytes(_: usize) -> Option<usize> {
    None
}

fn s6_bytes_per_call(run: &Run) -> Vec<Table> {
    let rows: Vec<Bytes> = workloads::S6_ITEMS.map(bytes_per_call).into();
    let mut table = run.own(
        Columns::new()
            .col("N items", |r: &Bytes| Cell::count(r.n))
            .col("heap `vec![0.0; 2N]`: bytes requested", |r: &Bytes| {
                Cell::Bytes(r.heap)
            })
            .col("glibc's block for that request", |r: &Bytes| {
                r.chunk.map_or(Cell::Empty, Cell::bytes)
            })
            .col("fixed-cap stack", |r: &Bytes| {
                r.stack
                    .map_or_else(|| Cell::text("does not fit"), Cell::Bytes)
            })
            .col("pool (warm)", |r: &Bytes| Cell::Bytes(r.pool))
            .col("`pack_boxes`, Heap", |r: &Bytes| Cell::Bytes(r.pack_heap))
            .col("`pack_boxes`, Hybrid", |r: &Bytes| {
                Cell::Bytes(r.pack_hybrid)
            })
            .col("seed: `new double[2N]`, header included", |r: &Bytes| {
                S6_SEED
                    .iter()
                    .find(|(values, _)| *values == 2 * r.n)
                    .map_or(Cell::Empty, |(_, s)| Cell::Seed((*s).into()))
            })
            .table("S6", run.experiment.kind, "", &rows),
    );
    table.note("The heap column is what is asked of the allocator: exactly 16 bytes per item (two `f64`s). What the block occupies is more: glibc puts an 8-byte size field in front of it, rounds the whole up to a multiple of 16 and never hands out less than 32 bytes (*glibc's block*: the usable size `malloc_usable_size` reports for a block of that request, plus the size field). The seed's figures are the same kind of footprint on .NET's heap: the 16 bytes per item plus a 24-byte array header.");
    table.note("The stack and the warm pool pay nothing, at every size; the hybrid switches from the stack to the pool above 128 items and stays at zero.");
    table.note(SEED_CELLS);
    vec![table]
}
