"""Sweeps on a local Ray cluster: the same numbers as `--task-id`, and a
point whose worker is killed is retried and still equal."""

import json
import os
import signal
import threading
import time

import pytest

import pliant
from conftest import DATA, run_cli

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def results(out, name, n):
    return [
        json.loads((out / name / f"point_{k:04}" / "result.json").read_text())
        for k in range(n)
    ]


def test_ray_sweep_equals_task_ids(cluster, pliant_bin, tmp_path):
    spec = DATA / "chain_sweep.json"
    streamed = []
    r = pliant.sweep(spec, out=tmp_path / "ray", backend="ray", on_result=streamed.append)
    assert sorted(p["index"] for p in streamed) == [0, 1, 2, 3]
    assert all(p["error"] is None for p in r.points)
    for k in range(4):
        run_cli(pliant_bin, "sweep", spec, "--out", tmp_path / "tasks", "--task-id", k)
    assert results(tmp_path / "ray", "chain_sweep", 4) == results(tmp_path / "tasks", "chain_sweep", 4)


def _kill_first_point_worker(stop, killed):
    """SIGKILLs the first Ray worker seen running `_run_point`."""
    while not stop.is_set():
        for p in psutil.process_iter(["pid", "cmdline"]):
            cmd = " ".join(p.info["cmdline"] or [])
            if "ray::_run_point" in cmd:
                time.sleep(0.3)  # well inside the point's few seconds
                os.kill(p.info["pid"], signal.SIGKILL)
                killed.append(p.info["pid"])
                return
        time.sleep(0.02)


def test_killed_worker_point_is_retried_and_equal(cluster, pliant_bin, tmp_path):
    spec = DATA / "chain_slow.json"
    stop, killed = threading.Event(), []
    t = threading.Thread(target=_kill_first_point_worker, args=(stop, killed))
    t.start()
    try:
        r = pliant.sweep(spec, out=tmp_path / "ray", backend="ray", max_retries=2)
    finally:
        stop.set()
        t.join()
    assert killed, "the point's worker was never seen (it must run for seconds)"
    assert r.points[0]["error"] is None
    run_cli(pliant_bin, "sweep", spec, "--out", tmp_path / "task", "--task-id", 0)
    assert results(tmp_path / "ray", "chain_slow", 1) == results(tmp_path / "task", "chain_slow", 1)
