"""Design sweeps from Python: each point of a sweep spec (the schema of
``pliant sweep``) runs as one task, here in threads or on a Ray cluster,
into its own directory ``out/<name>/point_KKKK/`` (a re-run skips finished
points); the results are gathered into ``out/<name>/results.csv`` and a plot
by the same Rust code as ``pliant sweep``, so every backend gives the same
numbers bit for bit.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Union

from . import _native


@dataclass
class SweepResult:
    """What a sweep produced."""

    name: str
    """The sweep's name."""
    parameters: List[str]
    """The parameters' labels, in the spec's order."""
    points: List[Dict[str, Any]] = field(default_factory=list)
    """Per point, in design order: ``index``, ``parameters`` (label, value
    pairs), ``values`` (name -> number), ``error`` and ``skipped``."""
    csv: str = ""
    """The gathered table (CSV)."""
    parquet: str = ""
    """The same table as Parquet (typed columns; missing values are null)."""
    plot: Optional[str] = None
    """The objective's plot (SVG), if a point finished."""

    def column(self, name: str) -> List[float]:
        """One recorded value over the points (NaN where a point has none)."""
        return [p["values"].get(name, float("nan")) for p in self.points]


def _run_point(text: str, spec_dir: Optional[str], out: str, k: int) -> Dict[str, Any]:
    return _native.sweep_run_point(text, spec_dir, out, k)


def sweep(
    spec: Union[str, os.PathLike, dict],
    out: Union[str, os.PathLike] = "out",
    backend: str = "local",
    jobs: Optional[int] = None,
    on_result: Optional[Callable[[Dict[str, Any]], None]] = None,
    max_retries: int = 3,
    base_dir: Optional[Union[str, os.PathLike]] = None,
) -> SweepResult:
    """Runs every point of a sweep spec (a file path or a dict) and gathers them.

    ``backend="local"`` runs ``jobs`` points at a time in threads (the GIL is
    released while pliant computes). ``backend="ray"`` makes each point a Ray
    task (``ray.init()`` first, or this connects to/starts a local one):
    a task whose worker dies is retried up to ``max_retries`` times, and
    results stream back as they finish — ``on_result(point)`` is called for
    each in completion order. ``out`` must be a directory every worker can
    write (a shared file system on a cluster).
    """
    name, labels, points, text, spec_dir = _native.sweep_points(
        spec, None if base_dir is None else os.fspath(base_dir)
    )
    out = os.path.abspath(os.fspath(out))
    # Every worker resolves `base` the same way, whatever its working directory.
    spec_dir = os.path.abspath(os.fspath(spec_dir) if spec_dir is not None else os.getcwd())
    results: Dict[int, Dict[str, Any]] = {}

    def done(r: Dict[str, Any]) -> None:
        results[r["index"]] = r
        if on_result is not None:
            on_result(r)

    if backend == "local":
        workers = jobs or os.cpu_count() or 1
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [
                pool.submit(_run_point, text, spec_dir, out, k) for k in range(len(points))
            ]
            for f in as_completed(futures):
                done(f.result())
    elif backend == "ray":
        import ray

        if not ray.is_initialized():
            ray.init(num_cpus=jobs)
        task = ray.remote(max_retries=max_retries, retry_exceptions=False)(_run_point)
        pending = [task.remote(text, spec_dir, out, k) for k in range(len(points))]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                done(ray.get(ref))
    else:
        raise ValueError(f"backend {backend!r}: use 'local' or 'ray'")
    g = _native.sweep_gather(text, spec_dir, out)
    return SweepResult(
        name=name,
        parameters=labels,
        points=[results[k] for k in sorted(results)],
        csv=os.fspath(g["csv"]),
        parquet=os.fspath(g["parquet"]),
        plot=None if g["plot"] is None else os.fspath(g["plot"]),
    )
