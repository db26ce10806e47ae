//! `bplab run <experiment|all>`: validate everything first, then run, then
//! write all files through a staging folder.

use std::path::{Path, PathBuf};

use clap::ArgMatches;

use bplab_core::{Caps, ConfigError, EXPERIMENTS, Experiment, Scenario, parse_duration_ms};

use crate::manifest::{FileEntry, Manifest, sha256_hex};
use crate::output::Staging;
use crate::{Failure, png, report_html};

/// Parameter flags given on the command line, as (name, text), in the order typed.
fn given_params(m: &ArgMatches) -> Result<Vec<(&'static str, String)>, Failure> {
    let mut given: Vec<(usize, &'static str, String)> = crate::cli::all_param_specs()
        .into_iter()
        .filter_map(|s| Some((m.index_of(s.name)?, s.name, m.get_one::<String>(s.name)?.clone())))
        .collect();
    if let (Some(at), Some(d)) = (m.index_of("duration"), m.get_one::<String>("duration")) {
        given.push((at, "duration-ms", parse_duration_ms(d)?.to_string()));
    }
    given.sort_by_key(|g| g.0);
    Ok(given.into_iter().map(|(_, n, t)| (n, t)).collect())
}

/// Builds one checked scenario per selected experiment. A flag that the
/// (single) experiment does not use is an error; with `all`, each flag
/// applies to the experiments that use it.
fn scenarios(name: &str, given: &[(&'static str, String)]) -> Result<Vec<Scenario>, Failure> {
    let selected: Vec<&'static Experiment> =
        if name == "all" { EXPERIMENTS.iter().collect() } else { vec![Experiment::named(name)?] };
    for (param, _) in given {
        if !selected.iter().any(|e| e.param(param).is_some()) {
            return Err(ConfigError::NotUsed { param, experiment: selected[0].name }.into());
        }
    }
    selected
        .into_iter()
        .map(|exp| {
            let mine: Vec<&(&str, String)> = given.iter().filter(|(n, _)| exp.param(n).is_some()).collect();
            let mut params = exp.defaults();
            params.apply(&mine.iter().map(|(n, t)| (*n, t.as_str())).collect::<Vec<_>>())?;
            Ok(Scenario::new(params, Caps::CLI)?)
        })
        .collect()
}

struct Written {
    experiment: &'static str,
    files: Vec<FileEntry>,
}

fn write_experiment(stage: &Staging, sc: &Scenario, charts: bool) -> Result<Written, Failure> {
    let exp = sc.experiment();
    let at_defaults = *sc.params() == exp.defaults();
    let dir = Path::new(exp.dir);
    let report = sc.run_with(&crate::threads::Threads::all_cores());
    let tables = report.tables();
    let mut files = Vec::new();
    for t in &tables {
        let csv = t.csv();
        stage.write(&dir.join(t.spec.file), csv.as_bytes())?;
        let sha256 = sha256_hex(csv.as_bytes());
        files.push(FileEntry {
            file: t.spec.file.to_owned(),
            kind: "csv",
            bytes: csv.len(),
            golden_match: t.spec.golden_sha256.filter(|_| at_defaults).map(|g| sha256 == g),
            sha256,
            rows: Some(t.rows.len()),
        });
    }
    let mut pngs = Vec::new();
    if charts {
        let plots = report.plots(&bplab_core::plot::Focus::default());
        for (c, plot) in exp.charts.iter().zip(&plots) {
            let path = stage.path(&dir.join(c.file))?;
            png::write_chart(&path, c, plot)?;
            let bytes =
                std::fs::read(&path).map_err(|e| Failure::Runtime(format!("cannot read {}: {e}", path.display())))?;
            files.push(FileEntry {
                file: c.file.to_owned(),
                kind: "png",
                bytes: bytes.len(),
                sha256: sha256_hex(&bytes),
                golden_match: None,
                rows: None,
            });
            pngs.push((c.title, bytes));
        }
    }
    let html = report_html::render(sc, &report.explanations(), &tables, &pngs, &files);
    stage.write(&dir.join("report.html"), html.as_bytes())?;
    files.push(FileEntry {
        file: "report.html".into(),
        kind: "html",
        bytes: html.len(),
        sha256: sha256_hex(html.as_bytes()),
        golden_match: None,
        rows: None,
    });
    let manifest = Manifest::new(sc, files.clone()).to_json();
    stage.write(&dir.join("manifest.json"), manifest.as_bytes())?;
    Ok(Written { experiment: exp.name, files })
}

fn print_summary(out_dir: &Path, written: &[Written]) {
    println!("{:<10} {:<30} {:>5}  {:<12}  golden", "experiment", "file", "rows", "sha256");
    for w in written {
        for f in w.files.iter().filter(|f| f.kind == "csv") {
            let golden = match f.golden_match {
                Some(true) => "match",
                Some(false) => "DIFFERS",
                None => "-",
            };
            println!(
                "{:<10} {:<30} {:>5}  {:<12}  {golden}",
                w.experiment,
                f.file,
                f.rows.unwrap_or(0),
                &f.sha256[..12]
            );
        }
    }
    let count = |kind: &str| written.iter().flat_map(|w| &w.files).filter(|f| f.kind == kind).count();
    println!(
        "wrote {} CSVs, {} charts, {} reports and manifests under {}/",
        count("csv"),
        count("png"),
        count("html"),
        out_dir.display()
    );
}

/// `bplab run`.
pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let (name, m) = m.subcommand().unwrap_or(("all", m));
    let out_dir = PathBuf::from(m.get_one::<String>("output-dir").map_or("bplab-out", String::as_str));
    let given = given_params(m)?;
    let scenarios = scenarios(name, &given)?;
    let stage = Staging::new(&out_dir)?;
    let written = scenarios
        .iter()
        .map(|sc| write_experiment(&stage, sc, !m.get_flag("no-charts")))
        .collect::<Result<Vec<_>, _>>()?;
    stage.commit()?;
    if !m.get_flag("quiet") {
        print_summary(&out_dir, &written);
    }
    Ok(())
}
