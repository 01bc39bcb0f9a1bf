"""What calling pliant from Python costs, in release builds
(`pip install ./python`), medians of several runs, both sides of each
ratio measured in the same run:

1. stepping from a Python loop (`sim.step()` K times) against the Rust loop
   (`sim.step(n=K)`), for a small scene (the 6-node hanging chain) and a
   large one (the Puppy's 486-node foam body dropping);
2. Ray's dispatch overhead per sweep point against calling the point
   directly (a 32-point sweep of 1-step simulations), one worker;
3. the wall time of a 16-point sweep (each point 40,000 steps of the
   chain) with 1 and 2 workers, on Ray and on local threads.

    python benches/python/overhead.py [--repeats 5] [--no-ray]
"""

import argparse
import pathlib
import statistics
import tempfile
import time

import pliant
from pliant import _native

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent

ap = argparse.ArgumentParser()
ap.add_argument("--repeats", type=int, default=5)
ap.add_argument("--no-ray", action="store_true")
args = ap.parse_args()


def median_time(f, repeats):
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), ts


print(f"pliant {pliant.__version__}, {args.repeats} repeats, medians\n")
print("1. stepping: Python loop vs Rust loop")
for label, scene, steps in [
    ("chain (18 DOFs)", ROOT / "examples/scenes/hanging_chain.json", 2000),
    ("puppy_drop (1458 DOFs)", ROOT / "examples/scenes/puppy_drop.json", 30),
]:
    sim = pliant.Scene.from_file(scene).simulator()
    py_t, rust_t = [], []
    for _ in range(args.repeats):  # interleaved, so both see the same machine
        sim.reset()
        t = time.perf_counter()
        for _ in range(steps):
            sim.step()
        py_t.append(time.perf_counter() - t)
        sim.reset()
        t = time.perf_counter()
        sim.step(steps)
        rust_t.append(time.perf_counter() - t)
    p, r = statistics.median(py_t) / steps, statistics.median(rust_t) / steps
    print(f"  {label:<24} {steps:5d} steps: Python loop {p * 1e6:9.2f} us/step, "
          f"Rust loop {r * 1e6:9.2f} us/step, overhead {(p - r) * 1e6:7.2f} us/step ({p / r:.3f}x)")

if args.no_ray:
    raise SystemExit
import ray  # noqa: E402

print("\n2. Ray dispatch per sweep point (32 one-step points, 1 worker)")
name, labels, points, text, spec_dir = _native.sweep_points(HERE / "dispatch.json")
n = len(points)
ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
direct, via_ray = [], []
for _ in range(args.repeats):
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        for k in range(n):
            _native.sweep_run_point(text, spec_dir, d, k)
        direct.append((time.perf_counter() - t) / n)
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        pliant.sweep(HERE / "dispatch.json", out=d, backend="ray")
        via_ray.append((time.perf_counter() - t) / n)
dm, rm = statistics.median(direct), statistics.median(via_ray)
print(f"  direct call {dm * 1e3:.2f} ms/point, Ray task {rm * 1e3:.2f} ms/point: "
      f"dispatch overhead {(rm - dm) * 1e3:.2f} ms/point (gather included)")
ray.shutdown()

print("\n3. a 16-point sweep (40,000 steps of the chain each)")
for workers in (1, 2):
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    ray_t, local_t = [], []
    for _ in range(max(1, args.repeats // 2)):
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            pliant.sweep(HERE / "sweep16.json", out=d, backend="ray")
            ray_t.append(time.perf_counter() - t)
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            pliant.sweep(HERE / "sweep16.json", out=d, backend="local", jobs=workers)
            local_t.append(time.perf_counter() - t)
    ray.shutdown()
    print(f"  {workers} worker(s): Ray {statistics.median(ray_t):6.2f} s, local threads {statistics.median(local_t):6.2f} s")
