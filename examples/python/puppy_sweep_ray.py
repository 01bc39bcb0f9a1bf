"""The Puppy's trot optimized for a 4 x 4 grid of foam and platform Young's
moduli, each point a Ray task; prints each point as it finishes and writes
out/sweeps/puppy_stiffness/ (results.csv, body_lengths_per_minute.svg).

    python examples/python/puppy_sweep_ray.py [--workers N] [--out DIR]
"""

import argparse
import pathlib
import time

import ray

import pliant

ROOT = pathlib.Path(__file__).resolve().parents[2]

ap = argparse.ArgumentParser()
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--out", default=str(ROOT / "out" / "sweeps"))
args = ap.parse_args()

# One thread per point: the workers share the machine's cores (results do
# not depend on the thread count).
ray.init(
    num_cpus=args.workers,
    include_dashboard=False,
    runtime_env={"env_vars": {"RAYON_NUM_THREADS": "1"}},
)
t0 = time.perf_counter()


def show(p):
    e, v = p["error"], p["values"]
    what = f"failed: {e}" if e else f"{v['body_lengths_per_minute']:6.2f} body lengths/min"
    params = ", ".join(f"{n} = {x:.3g}" for n, x in p["parameters"])
    print(f"[{time.perf_counter() - t0:7.1f} s] point {p['index']:2d} ({params}): {what}", flush=True)


res = pliant.sweep(ROOT / "examples" / "sweeps" / "puppy_stiffness.json", out=args.out, backend="ray", on_result=show)
print(f"{len(res.points)} points in {time.perf_counter() - t0:.1f} s on {args.workers} workers")
print(f"table: {res.csv}\nheat map: {res.plot}")
