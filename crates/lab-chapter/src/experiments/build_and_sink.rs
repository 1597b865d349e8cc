//! M6 and M7: the build mode first, and the sink discipline.

use std::hint::black_box;
use std::path::PathBuf;

use lab::protocol::{DEV_BINARY_VAR, Settings};
use lab::publish::{self, RATIO_PRECISION};
use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns, Kind, Table};
use lab::timing::{Measured, Schedule, Timing};

use crate::workloads;

pub(super) const M6: Function = lab::function!(m6_dev_vs_release);
pub(super) const M7: Function = lab::function!(m7_deleted_work);

const M6_WORKLOADS: [&str; 2] = [
    "200,000 × `Vec::<u64>::push`, no reserve",
    "`format!` of the order line",
];

fn m6_timing(settings: &Settings) -> Measured {
    let mut timing = Timing::new(lab::timing::Config::for_settings(settings));
    timing.method(M6_WORKLOADS[0], || {
        workloads::push_u64(black_box(workloads::PUSHES))
    });
    timing.method(M6_WORKLOADS[1], workloads::format_order_line);
    timing.run(Schedule::Interleaved)
}

fn m6_dev_vs_release(run: &Run) -> Vec<Table> {
    let release = m6_timing(&run.settings);
    if cfg!(debug_assertions) {
        // The dev build only measures; the release build assembles the table.
        return vec![release.table("M6", run.experiment.title)];
    }
    let dev = std::env::var_os(DEV_BINARY_VAR)
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!("the dev build was not given (run through `cargo xtask report`, which passes it in `{DEV_BINARY_VAR}`)")
        })
        .and_then(|path| {
            Measured::from_child(&path, "M6", &run.settings).map_err(|err| {
                // A dev run that fails in one process but not another would leave the processes
                // with different figures: fail the report instead of printing either.
                assert!(
                    lab::protocol::role() == lab::protocol::ProcessRole::Probe,
                    "M6: the dev-profile run failed: {err}"
                );
                err
            })
        });
    let mut table = Columns::new()
        .col("workload", |name: &&str| Cell::text(*name))
        .col("dev median", |name: &&str| {
            dev.as_ref()
                .map_or(Cell::Empty, |d| d.expect(name).median_cell())
        })
        .col("dev twin disagreement", |name: &&str| {
            dev.as_ref().map_or(Cell::Empty, |d| {
                Cell::Percent(d.expect(name).twin_disagreement_pct())
            })
        })
        .col("release median", |name: &&str| {
            release.expect(name).median_cell()
        })
        .col("release twin disagreement", |name: &&str| {
            Cell::Percent(release.expect(name).twin_disagreement_pct())
        })
        .col("dev / release", |name: &&str| {
            dev.as_ref().map_or(Cell::Empty, |d| {
                Cell::Claim(Claim::ratio(
                    publish::ratio(
                        &d.expect(name).figures(),
                        &release.expect(name).figures(),
                        RATIO_PRECISION,
                    ),
                    RATIO_PRECISION,
                ))
            })
        })
        .table("M6", Kind::Time, run.experiment.title, &M6_WORKLOADS);
    table.note(release.protocol_note());
    table.note("The dev column ran in the dev-profile build of the same binary, in processes of its own beside the release ones, so the two columns were not interleaved with each other.");
    if let Err(reason) = &dev {
        table.note(format!("No dev figures: {reason}."));
    }
    for name in M6_WORKLOADS {
        table.conclude(
            format!("{name}: the faster of the dev build and the release build"),
            dev.as_ref()
                .map_or(Claim::NotResolvable, |d| faster_build(d, &release, name)),
        );
        table.conclude(
            format!("{name}: the dev build / the release build"),
            dev.as_ref().map_or(Claim::NotResolvable, |d| {
                Claim::bound(publish::bound(
                    &d.expect(name).figures(),
                    &release.expect(name).figures(),
                    publish::TRANSFER_MARGIN,
                ))
            }),
        );
    }
    vec![table]
}

/// Which build ran `name` faster, judged in every process: the dev and the release figures of
/// process `p` (run beside each other) under the publish rule, as one process's difference.
fn faster_build(dev: &Measured, release: &Measured, name: &str) -> Claim {
    let (dev, release) = (dev.expect(name).figures(), release.expect(name).figures());
    lab::timing::agree(release.per_process.len(), |p| {
        let one = |f: &publish::Figures| publish::Figures {
            per_process: vec![f.per_process[p]],
        };
        match publish::difference(&one(&dev), &one(&release)) {
            publish::Verdict::Published(ns) if ns > 0.0 => Some("the release build".to_owned()),
            publish::Verdict::Published(_) => Some("the dev build".to_owned()),
            publish::Verdict::NotResolvable { .. } => None,
        }
    })
}

const EMPTY: &str = "empty closure";
const HONEST: &str = "honest: `checksum(black_box(&values))`, result kept";
const DELETED: &str = "deleted: `checksum(&values)`, result dropped";

fn m7_deleted_work(run: &Run) -> Vec<Table> {
    let values: Vec<u64> = (0..workloads::CHECKSUM_LEN as u64).collect();
    let mut timing = Timing::new(run.config());
    timing.floor(EMPTY, || ());
    let honest = values.clone();
    timing.method(HONEST, move || workloads::checksum(black_box(&honest)));
    let deleted = values;
    timing.method(DELETED, move || {
        let _ = workloads::checksum(&deleted);
    });
    let measured = timing.run(Schedule::Interleaved);
    let mut table =
        run.own(measured.table_with("M7", "", &super::noise::compact_columns(&measured)));
    table.note(format!(
        "Both closures call the same `checksum` over {} `u64`s; the deleted one drops the result.",
        workloads::CHECKSUM_LEN
    ));
    table.conclude(
        "the deleted benchmark cannot be told apart from the empty closure (the floor)",
        measured.verdict(|p| {
            Some(
                if p.faster(DELETED, EMPTY).is_none() {
                    "yes"
                } else {
                    "no"
                }
                .to_owned(),
            )
        }),
    );
    vec![table]
}
