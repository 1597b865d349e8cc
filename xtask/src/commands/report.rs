//! `cargo xtask report`: run the experiments in K processes, write the snapshots, regenerate the
//! docs; `--check`: verify all of it without writing.

use std::time::Instant;

use crate::data::files::ensure_file_contents;
use crate::data::workspace::Workspace;
use crate::data::{pins, provenance, snapshots};
use crate::work::render;
use crate::work::run::{self, Build};
use crate::{Common, Mode, REGENERATE};

/// What `cargo xtask report` was asked to do.
#[derive(Debug)]
pub struct Options {
    pub mode: Mode,
    pub common: Common,
    pub allow_dirty: bool,
}

/// Runs the report in the given mode.
pub fn run(ws: &Workspace, options: &Options) -> Result<(), String> {
    let started = Instant::now();
    let selected = ws.selected(options.common.only.as_deref())?;

    // Every committed snapshot: the docs are rendered from all of them.
    let (mut snapshots, unreadable) = snapshots::load_all(ws);
    let mut errors = Vec::new();
    match options.mode {
        Mode::Write => {
            provenance::ensure_clean(ws, &selected, options.allow_dirty)?;
            let fresh = run::measure(ws, &selected, &options.common)?;
            for (name, snapshot) in fresh {
                let path = ws.data_path(ws.chapter(&name)?);
                let json =
                    serde_json::to_string_pretty(&snapshot).map_err(|e| e.to_string())? + "\n";
                ensure_file_contents(&path, &json, Mode::Write)?;
                snapshots.insert(name, snapshot);
            }
        }
        Mode::Check => {
            errors.extend(unreadable);
            errors.extend(provenance::check_snapshots(ws, &snapshots));
            run::build(ws, &selected, Build::Counted)?;
            for chapter in &selected {
                let Some(committed) = snapshots.get(&chapter.name) else {
                    continue;
                };
                eprintln!("==> {}: re-running the counted experiments", chapter.name);
                if committed.quick {
                    errors.push(format!(
                        "{}: the committed snapshot came from a --quick run; its numbers are not the docs' figures",
                        ws.rel(&ws.data_path(chapter))
                    ));
                }
                let fresh = run::run_final(ws, chapter, &["--counted".to_owned()], &[])?;
                errors.extend(snapshots::compare_counts(ws, chapter, committed, &fresh));
            }
        }
    }

    errors.extend(pins::check(&ws.root, &snapshots));
    errors.extend(render::all(ws, &snapshots, options.mode));

    eprintln!(
        "==> report {} in {:.1} s",
        if options.mode == Mode::Check {
            "checked"
        } else {
            "written"
        },
        started.elapsed().as_secs_f64()
    );
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n\nTo fix: commit the code, then run `{REGENERATE} --only <chapter>` for each chapter named above (or `{REGENERATE}` for all) from the clean tree and commit docs/.",
            errors.join("\n\n")
        ))
    }
}
