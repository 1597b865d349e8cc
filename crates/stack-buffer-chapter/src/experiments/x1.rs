//! X1 for chapter 2: every stack technique of the chapter against what it replaces, and the
//! reused buffer against a fresh one, under glibc and under mimalloc. It makes no timing run of its own: it reads S1's, S3's and S12-time's
//! runs, which the report measured under both allocators.

use lab::Table;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::timing::{BySize, Technique, allocator_table};
use stack_buffer::MAX_STACK_ITEMS;

use super::inline::{HYBRID, LARGE};
use super::reach::{HEAP, STACK};
use super::zeroing::{heap_reused, heap_uninit, heap_zeroed, stack_uninit, stack_zeroed};
use super::{bytes_label, items};
use crate::workloads::S3_BYTES;

pub(super) const X1: Function = lab::function!(x1_stack);

/// One row before it borrows its run: label, which run, technique, baseline.
struct Row {
    label: String,
    run: usize,
    technique: String,
    baseline: String,
}

fn x1_stack(run: &Run) -> Vec<Table> {
    let (s1, s3, s12) = (run.kept("S1"), run.kept("S3"), run.kept("S12-time"));
    // Every run the rows may read, in one list: S1's sizes, S3's run, S12-time's sizes.
    let runs: Vec<&BySize> = s1.iter().chain(&s3).chain(&s12).collect();
    let s3_at = s1.len();
    let mut rows: Vec<Row> = Vec::new();
    for (i, s) in s1.iter().enumerate() {
        if s.size <= MAX_STACK_ITEMS {
            rows.push(Row {
                label: format!("zeroed 2 KiB cap vs `vec![0.0; 2N]`, {}", items(s.size)),
                run: i,
                technique: STACK.to_owned(),
                baseline: HEAP.to_owned(),
            });
        }
    }
    let first_s3_row = rows.len();
    for bytes in S3_BYTES {
        let size = bytes_label(bytes);
        rows.push(Row {
            label: format!("zeroed stack array vs `vec![0.0; n]`, {size}"),
            run: s3_at,
            technique: stack_zeroed(bytes),
            baseline: heap_zeroed(bytes),
        });
        rows.push(Row {
            label: format!("`MaybeUninit` stack array vs `Vec::with_capacity`, {size}"),
            run: s3_at,
            technique: stack_uninit(bytes),
            baseline: heap_uninit(bytes),
        });
    }
    let first_reuse_row = rows.len();
    for bytes in S3_BYTES {
        rows.push(Row {
            label: format!(
                "reused `Vec` vs a fresh `Vec::with_capacity`, {}",
                bytes_label(bytes)
            ),
            run: s3_at,
            technique: heap_reused(bytes),
            baseline: heap_uninit(bytes),
        });
    }
    let first_s12_row = rows.len();
    for (i, s) in s12.iter().enumerate() {
        if s.size > MAX_STACK_ITEMS {
            rows.push(Row {
                label: format!(
                    "the hybrid's warm pool vs a spilled `SmallVec<[f64; 256]>`, {}",
                    items(s.size)
                ),
                run: s3_at + 1 + i,
                technique: HYBRID.to_owned(),
                baseline: LARGE.to_owned(),
            });
        }
    }
    let techniques: Vec<Technique<'_>> = rows
        .iter()
        .map(|r| Technique {
            label: &r.label,
            measured: &runs[r.run].measured,
            technique: &r.technique,
            baseline: &r.baseline,
        })
        .collect();
    let mut table = run.own(allocator_table("X1-stack", "", &techniques));
    table.note(format!("S1: {}", s1[0].measured.protocol_note()));
    table.note(format!("S3: {}", s3[0].measured.protocol_note()));
    table.note(format!("S12-time: {}", s12[0].measured.protocol_note()));
    table.note("Each row compares two methods of one run, in the same processes; under mimalloc both ran in processes of `stack-buffer-experiments-mimalloc`. Only the heap side calls an allocator: the stack never does, the pool's hit path does not either, and neither does a reused `Vec` once it is large enough, so its rows ask whether allocating a fresh unzeroed buffer still costs something under each allocator.");
    let pays = |range: std::ops::Range<usize>| {
        let chosen = &techniques[range];
        move |allocator: Allocator| {
            let per_run: Vec<_> = chosen
                .iter()
                .filter_map(|t| t.measured.under(allocator).map(|m| (t, m)))
                .collect();
            (per_run.len() == chosen.len()).then(|| {
                lab::timing::agree(per_run[0].1.process_count(), |p| {
                    let faster: Option<Vec<bool>> = per_run
                        .iter()
                        .map(|(t, m)| m.processes[p].faster(t.technique, t.baseline))
                        .collect();
                    faster.map(|all| if all.iter().all(|&f| f) { "yes" } else { "no" }.to_owned())
                })
            })
        }
    };
    let s3_rows = pays(first_s3_row..first_reuse_row);
    let reuse_rows = pays(first_reuse_row..first_s12_row);
    let s12_rows = pays(first_s12_row..techniques.len());
    for allocator in Allocator::ALL {
        let name = allocator.short();
        if let Some(claim) = s3_rows(allocator) {
            table.conclude(
                format!("under {name}, at 16 B, 256 B, 2 KiB and 8 KiB, a stack array is faster than a heap buffer of the same size, zeroed or not (S3's pairs)"),
                claim,
            );
        }
        if let Some(claim) = reuse_rows(allocator) {
            table.conclude(
                format!("under {name}, at 16 B, 256 B, 2 KiB and 8 KiB, a buffer the caller owns and reuses is faster than a fresh unzeroed one of the same size (S3-baselines' pairs)"),
                claim,
            );
        }
        if let Some(claim) = s12_rows(allocator) {
            table.conclude(
                format!("under {name}, above 128 items, the hybrid's warm pool is faster than a `SmallVec<[f64; 256]>` that allocates on every call"),
                claim,
            );
        }
    }
    let mimalloc = BySize::under(&s1, Allocator::Mimalloc).unwrap_or_default();
    let fitting: Vec<&BySize> = mimalloc
        .iter()
        .filter(|s| s.size <= MAX_STACK_ITEMS)
        .collect();
    if !fitting.is_empty() {
        table.conclude(
            "under mimalloc, the sizes at which the zeroed 2 KiB cap is faster than `vec![0.0; 2N]` (S2 gives the same under glibc)",
            BySize::sizes_where_faster(&fitting, STACK, HEAP, items),
        );
    }
    vec![table]
}
