"""Sweeps: Python's local backend, `pliant sweep --jobs` and `--task-id`
give the same numbers; a re-run skips finished points."""

import csv
import json

import pliant
from conftest import DATA, run_cli

SPEC = DATA / "chain_sweep.json"


def results(out, name, n):
    return [
        json.loads((out / name / f"point_{k:04}" / "result.json").read_text())
        for k in range(n)
    ]


def test_backends_agree_bitwise_and_reruns_skip(pliant_bin, tmp_path):
    seen = []
    r = pliant.sweep(SPEC, out=tmp_path / "py", jobs=2, on_result=seen.append)
    assert len(r.points) == 4 and len(seen) == 4
    assert all(p["error"] is None and not p["skipped"] for p in r.points)
    assert r.plot is not None and r.plot.endswith("com.z.svg")
    run_cli(pliant_bin, "sweep", SPEC, "--out", tmp_path / "jobs", "--jobs", "2")
    for k in range(4):
        run_cli(pliant_bin, "sweep", SPEC, "--out", tmp_path / "tasks", "--task-id", k)
    py = results(tmp_path / "py", "chain_sweep", 4)
    assert py == results(tmp_path / "jobs", "chain_sweep", 4)
    assert py == results(tmp_path / "tasks", "chain_sweep", 4)
    # The parameters changed the physics: four different final heights.
    z = [dict(p["values"])["com.z"] for p in py]
    assert len(set(z)) == 4
    rows = list(csv.DictReader(open(r.csv)))
    assert [float(row["com.z"]) for row in rows] == z
    assert open(r.parquet, "rb").read(4) == b"PAR1"
    # A second run finds every point finished.
    again = pliant.sweep(SPEC, out=tmp_path / "py", jobs=2)
    assert all(p["skipped"] for p in again.points)
    assert again.column("com.z") == z


def test_sweep_errors_name_the_field(tmp_path):
    spec = json.loads(SPEC.read_text())
    spec["base"] = str((SPEC.parent / spec["base"]).resolve())
    spec["parameters"][0]["path"] = "/energies/9/stiffness"
    try:
        pliant.sweep(spec, out=tmp_path)
    except pliant.SceneError as e:
        assert e.field == "parameters[0].path"
        assert "no such field" in str(e)
    else:
        raise AssertionError("a pointer to nothing must be an error")
