//! Design sweeps: points written to their own directories, re-runs that
//! skip finished points, the gathered table, and pointer errors.

use pliant::sweep::{Sweep, SweepError};
use std::path::Path;

fn spec() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/python/tests/data/chain_sweep.json"
    ))
}

#[test]
fn points_run_rerun_skips_and_gather_writes_the_table() {
    pliant::init();
    let sweep = Sweep::from_file(spec()).unwrap();
    assert_eq!(sweep.points().len(), 4);
    assert_eq!(sweep.points()[1], vec![150.0, 0.004]);
    let out = tempdir("sweep_points");
    let first: Vec<_> = (0..4).map(|k| sweep.run_point(&out, k).unwrap()).collect();
    assert!(first.iter().all(|r| r.error.is_none() && !r.skipped));
    assert!(sweep.point_dir(&out, 2).join("run.json").exists());
    let again: Vec<_> = (0..4).map(|k| sweep.run_point(&out, k).unwrap()).collect();
    assert!(again.iter().all(|r| r.skipped));
    assert_eq!(
        first.iter().map(|r| &r.values).collect::<Vec<_>>(),
        again.iter().map(|r| &r.values).collect::<Vec<_>>()
    );
    let g = sweep.gather(&out).unwrap();
    assert_eq!(g.finished(), 4);
    let csv = std::fs::read_to_string(&g.csv).unwrap();
    assert_eq!(csv.lines().count(), 5);
    let z = first[3]
        .values
        .iter()
        .find(|(n, _)| n == "com.z")
        .unwrap()
        .1;
    assert!(csv.lines().nth(4).unwrap().contains(&z.to_string()));
    assert!(g.plot.unwrap().exists());
    // The Parquet table: typed columns, the same numbers.
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    let reader = SerializedFileReader::new(std::fs::File::open(&g.parquet).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    let col = |name: &str| {
        (0..schema.num_columns())
            .find(|&i| schema.column(i).name() == name)
            .unwrap()
    };
    let rows: Vec<_> = reader
        .get_row_iter(None)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[3].get_long(0).unwrap(), 3);
    assert_eq!(rows[1].get_double(col("damping (N s/m)")).unwrap(), 0.004);
    assert_eq!(rows[3].get_string(col("status")).unwrap(), "finished");
    assert_eq!(rows[3].get_double(col("com.z")).unwrap(), z);
    assert!(matches!(
        sweep.run_point(&out, 4),
        Err(SweepError::NoSuchPoint { points: 4, .. })
    ));
    // Changing what the points run makes their results stale: gathered as
    // not run, and run again rather than skipped.
    let text = std::fs::read_to_string(spec()).unwrap();
    let changed = Sweep::from_json(
        &text.replace("\"steps\": 200", "\"steps\": 150"),
        "test",
        spec().parent(),
    )
    .unwrap();
    assert_eq!(changed.gather(&out).unwrap().finished(), 0);
    let r = changed.run_point(&out, 0).unwrap();
    assert!(!r.skipped && r.error.is_none());
    assert_ne!(r.values, first[0].values);
    assert_eq!(changed.gather(&out).unwrap().finished(), 1);
}

#[test]
fn specs_that_cannot_work_are_refused_with_the_field() {
    pliant::init();
    let text = std::fs::read_to_string(spec()).unwrap();
    let dir = spec().parent();
    let field = |t: &str| match Sweep::from_json(t, "test", dir).unwrap_err() {
        SweepError::Spec { field, .. } => field,
        e => panic!("{e}"),
    };
    assert_eq!(
        field(&text.replace("damping (N s/m)", "stiffness (N/m)")),
        "parameters[1].name"
    );
    assert_eq!(
        field(&text.replace("damping (N s/m)", "status")),
        "parameters[1].name"
    );
    assert_eq!(
        field(&text.replace(
            "\"objective\": \"com.z\"",
            "\"objective\": \"com.z\", \"record\": [\"com.x\"]"
        )),
        "objective"
    );
    assert_eq!(
        field(&text.replace(
            "\"values\": [150, 250]",
            "\"range\": [1, 2], \"levels\": 2000000"
        )),
        "parameters[0]"
    );
}

#[test]
fn a_pointer_to_nothing_or_to_text_is_an_error_before_any_point() {
    pliant::init();
    let text = std::fs::read_to_string(spec()).unwrap();
    let dir = spec().parent();
    let bad = text.replace("/energies/2/coefficient", "/energies/2/type");
    let e = Sweep::from_json(&bad, "test", dir).unwrap_err();
    assert!(matches!(e, SweepError::Pointer { index: 1, .. }), "{e}");
    assert!(e.to_string().contains("not a number"), "{e}");
    let bad = text.replace("/energies/2/coefficient", "/energies/7/coefficient");
    let e = Sweep::from_json(&bad, "test", dir).unwrap_err();
    assert!(e.to_string().contains("no such field"), "{e}");
    let bad = text.replace("\"values\": [0.001, 0.004]", "\"values\": []");
    let e = Sweep::from_json(&bad, "test", dir).unwrap_err();
    assert!(matches!(e, SweepError::Spec { .. }), "{e}");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pliant_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
