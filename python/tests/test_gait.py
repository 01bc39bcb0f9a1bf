"""Gait optimization and hardware export from Python against the CLI."""

import pytest

import pliant
from conftest import ROOT, run_cli

SPEC = ROOT / "examples" / "tutorial" / "walker_gait.json"
PROFILE = ROOT / "examples" / "hardware" / "tripod_hobby_servos.json"


def test_optimize_equals_the_cli_and_exports(pliant_bin, tmp_path):
    run_cli(pliant_bin, "optimize", SPEC, "--iterations", 1, "--fresh", "--out", tmp_path / "cli")
    res = pliant.optimize(SPEC, out=tmp_path / "py", iterations=1, fresh=True)
    assert res["iterations"] == 1
    assert res["objective"] <= res["initial_objective"]
    name = res["name"]
    cli = (tmp_path / "cli" / name / "controls.csv").read_text()
    py = (tmp_path / "py" / name / "controls.csv").read_text()
    assert py == cli  # bitwise: the same decimals
    # The walker's two motors have the Tripod's channel names.
    e = pliant.export(res["dir"], PROFILE, backend="csv", clip=True)
    assert sorted(e["channels"]) == ["middle_leg_back", "middle_leg_front"]
    assert e["samples"] > 0 and e["output"].exists()
    with pytest.raises(pliant.PliantError, match="backend"):
        pliant.export(res["dir"], PROFILE, backend="no_such_backend")
