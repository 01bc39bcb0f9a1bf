"""Scenes and simulators from Python against `pliant simulate`."""

import json

import numpy as np
import pytest

import pliant
from conftest import ROOT, run_cli

CHAIN = ROOT / "examples" / "scenes" / "hanging_chain.json"
PAIR = ROOT / "examples" / "scenes" / "pma_pair.json"


def cli_trajectory(pliant_bin, scene, out):
    run_cli(pliant_bin, "simulate", scene, "--out", out, "--no-vtk", "--no-replay")
    frames = json.loads((out / "trajectory.json").read_text())["frames"]
    return np.array([f["q"] for f in frames]), np.array([f["time"] for f in frames])


@pytest.mark.parametrize("scene", [CHAIN, PAIR], ids=["chain", "pma_pair"])
def test_file_and_dict_match_the_cli_bitwise(pliant_bin, tmp_path, scene):
    q_cli, t_cli = cli_trajectory(pliant_bin, scene, tmp_path / "cli")
    from_file = pliant.Scene.from_file(scene).simulator().run()
    doc = json.loads(scene.read_text())
    from_dict = pliant.Scene.from_dict(doc, base_dir=scene.parent).simulator().run()
    assert from_file["q"].shape == q_cli.shape
    # Bitwise: the same numbers, not close ones.
    assert np.array_equal(from_file["q"], q_cli)
    assert np.array_equal(from_dict["q"], q_cli)
    assert np.array_equal(from_file["t"], t_cli)


def test_stepping_with_controls_and_reset():
    sim = pliant.Scene.from_file(PAIR).simulator()
    assert sim.channels == ["p", "p_lower"]
    a = sim.run(steps=40)
    sim.reset()
    b = sim.run(steps=40)
    assert np.array_equal(a["q"], b["q"])
    sim.reset()
    sim.step(40, controls={"p": 0.0})
    # Holding the upper muscle at 0 Pa instead of the scheduled 0 -> 200 kPa
    # ramp (extension mode) leaves the load millimetres higher.
    assert sim.positions[2, 2] - a["q"][-1][-1] > 1e-3
    assert sim.step_count == 40 and abs(sim.time - 0.4) < 1e-12
    obs = dict(sim.observables())
    assert "load.z" in obs and obs["load.z"] == sim.positions[2, 2]
    assert sim.kinetic_energy() >= 0.0


def test_scene_errors_carry_the_field_path():
    doc = json.loads(CHAIN.read_text())
    doc["energies"][1]["springs"][0]["stiffness"] = "stiff"
    with pytest.raises(pliant.SceneError) as e:
        pliant.Scene.from_dict(doc).simulator()
    assert e.value.field.startswith("energies[1]")
    assert "springs" in e.value.field
    doc = json.loads(CHAIN.read_text())
    doc["dt"] = "fast"
    with pytest.raises(pliant.SceneError) as e:
        pliant.Scene.from_dict(doc)
    assert e.value.field == "dt"
    with pytest.raises(pliant.PliantIOError):
        pliant.Scene.from_file(ROOT / "no" / "such" / "scene.json")


def test_bad_input_raises_pliant_errors_not_panics():
    sim = pliant.Scene.from_file(CHAIN).simulator()
    with pytest.raises(pliant.PliantError, match="no channel `nope`"):
        sim.step(controls={"nope": 1.0})
    with pytest.raises(pliant.PliantError):
        sim.set_state(np.zeros(3), np.zeros(3))
    sim2 = pliant.Scene.from_file(PAIR).simulator()
    with pytest.raises(pliant.PliantError, match="finite"):
        sim2.step(controls={"p": float("nan")})


def test_a_failed_step_keeps_what_was_computed():
    doc = json.loads(CHAIN.read_text())
    # One Newton iteration per step cannot converge once the chain swings.
    doc["newton"] = {"max_iterations": 1}
    sim = pliant.Scene.from_dict(doc).simulator()
    with pytest.raises(pliant.SimulationError) as e:
        sim.run(steps=200)
    err = e.value
    assert err.step >= 1
    assert err.partial["q"].shape[0] == err.step  # rows 0 .. step-1
    assert sim.step_count == err.step - 1


def test_ctrl_c_stops_a_long_run_and_keeps_the_rows():
    import os
    import signal
    import threading

    sim = pliant.Scene.from_file(CHAIN).simulator()
    # Python's own Ctrl-C handler, whatever an earlier test left in place:
    # once in CI (2026-12-02, after the Ray tests) the interrupt never came
    # and the run recorded rows until the machine ran out of memory; the
    # cause was not found (Ray's init and shutdown alone leave the handler
    # as it was, in Python and in C). The run is long but bounded, should
    # the interrupt fail again.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            sim.run(steps=2_000_000)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    rows = e.value.partial["q"].shape[0]
    assert 1 < rows < 2_000_001
    assert sim.step_count == rows - 1
    sim.step()  # still usable
    assert sim.step_count == rows


def test_a_simulator_busy_in_another_thread_says_so():
    import threading
    import time

    sim = pliant.Scene.from_file(CHAIN).simulator()
    t = threading.Thread(target=lambda: sim.step(300_000))
    t.start()
    seen = False
    while t.is_alive() and not seen:
        try:
            sim.q
        except pliant.PliantError as err:
            assert "another thread" in str(err)
            seen = True
        time.sleep(0.005)
    t.join()
    assert seen
    assert sim.step_count == 300_000
