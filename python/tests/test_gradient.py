"""Rollout gradients from Python against the Rust CLI and finite differences."""

import json

import numpy as np
import pytest

import pliant
from conftest import ROOT, run_cli

SPEC = ROOT / "examples" / "rollouts" / "pma_reach.json"


def test_gradient_equals_the_rust_one_and_finite_differences(pliant_bin, tmp_path):
    out = tmp_path / "g.json"
    run_cli(pliant_bin, "gradient", SPEC, "--out", out)
    rust = json.loads(out.read_text())
    r = pliant.Rollout(SPEC)
    assert r.variables == rust["variables"]
    value, grad = r.value_and_gradient()
    assert value == rust["value"]
    assert np.array_equal(grad, np.array(rust["gradient"]))
    fd = r.gradient_fd(eps=1e-6)
    scale = np.max(np.abs(grad))
    assert np.max(np.abs(grad - fd)) < 1e-4 * scale, (grad, fd)
    # At another z, too (away from the scene's own schedule).
    z = r.z0 * 0.7 + 1e4
    _, g2 = r.value_and_gradient(z)
    fd2 = r.gradient_fd(z, eps=1e-6)
    assert np.max(np.abs(g2 - fd2)) < 1e-4 * np.max(np.abs(g2))


def test_python_side_weighted_sum_of_terms():
    r = pliant.Rollout(SPEC)
    e = r.evaluate(per_term=True)
    w = [0.3, 2.5]
    v, g = r.value_and_gradient(weights=w)
    assert v == pytest.approx(w[0] * e["terms"][0] + w[1] * e["terms"][1], rel=1e-14)
    assert np.allclose(g, w[0] * e["term_gradients"][0] + w[1] * e["term_gradients"][1], rtol=1e-13, atol=0)
    joint = r.evaluate(gradient=True)["gradient"]  # one adjoint pass over all terms
    assert np.allclose(e["term_gradients"].sum(axis=0), joint, rtol=1e-12, atol=0)
    # The weighted objective's gradient against central differences.
    z = r.z0
    fd = np.zeros_like(z)
    for j in range(len(z)):
        h = 1e-6 * max(1.0, abs(z[j]))
        zp, zm = z.copy(), z.copy()
        zp[j] += h
        zm[j] -= h
        fd[j] = (r.value_and_gradient(zp, weights=w)[0] - r.value_and_gradient(zm, weights=w)[0]) / (2 * h)
    assert np.max(np.abs(g - fd)) < 1e-4 * np.max(np.abs(g))


def test_spec_from_dict_with_inline_scene_or_scene_object_is_the_same_problem():
    spec = json.loads(SPEC.read_text())
    scene_path = (SPEC.parent / spec["scene"]).resolve()
    a = pliant.Rollout(SPEC).value_and_gradient()
    spec_path = dict(spec, scene=str(scene_path))
    b = pliant.Rollout(spec_path).value_and_gradient()
    spec_inline = dict(spec, scene=json.loads(scene_path.read_text()))
    c = pliant.Rollout(spec_inline).value_and_gradient()
    spec_obj = dict(spec, scene=pliant.Scene.from_file(scene_path))
    d = pliant.Rollout(spec_obj).value_and_gradient()
    for other in (b, c, d):
        assert other[0] == a[0]
        assert np.array_equal(other[1], a[1])


def test_rollout_errors_name_the_field():
    spec = json.loads(SPEC.read_text())
    spec["scene"] = str((SPEC.parent / spec["scene"]).resolve())
    bad = dict(spec, controls=[{"channel": "pressure", "keyframes": 4}])
    with pytest.raises(pliant.SceneError) as e:
        pliant.Rollout(bad)
    assert e.value.field == "controls[0].channel"
    assert "p_lower" in str(e.value)
    bad = dict(spec, objectives=[{"type": "observable", "name": "tip.z", "target": 0.0}])
    with pytest.raises(pliant.SceneError) as e:
        pliant.Rollout(bad)
    assert e.value.field == "objectives[0].name"
    bad = dict(spec, objectives=[{"type": "com", "axes": [2], "target": [0.0], "weight": -1}])
    with pytest.raises(pliant.SceneError) as e:
        pliant.Rollout(bad)
    assert e.value.field == "objectives[0].weight"
    bad = dict(spec, steps="many")
    with pytest.raises(pliant.SceneError) as e:
        pliant.Rollout(bad)
    assert e.value.field == "steps"
    r = pliant.Rollout(spec)
    with pytest.raises(pliant.PliantError, match="expected 5"):
        r.value_and_gradient(np.zeros(3))
    with pytest.raises(pliant.PliantError, match="finite"):
        r.value_and_gradient(np.full(5, np.nan))
    with pytest.raises(pliant.PliantError, match="2 objective terms"):
        r.value_and_gradient(weights=[1.0])


def test_a_failed_rollout_step_is_a_simulation_error():
    chain = json.loads((ROOT / "examples" / "scenes" / "hanging_chain.json").read_text())
    # One Newton iteration per step cannot converge once the chain swings.
    chain["newton"] = {"max_iterations": 1}
    spec = {"scene": chain, "steps": 200, "objectives": [{"type": "com", "axes": [2], "target": [0.0]}]}
    r = pliant.Rollout(spec)
    with pytest.raises(pliant.SimulationError) as e:
        r.value_and_gradient()
    assert e.value.step >= 1
