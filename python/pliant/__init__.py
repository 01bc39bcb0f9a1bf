"""pliant: differentiable soft-robot physics from Python.

The engine is Rust (``pliant._native``); this package re-exports it and adds
sweeps that run locally or on Ray. SI units throughout (m, kg, s, N, J, Pa).

>>> import pliant
>>> sim = pliant.Scene.from_file("examples/scenes/hanging_chain.json").simulator()
>>> rec = sim.run(steps=10)          # dict of numpy arrays, row 0 = initial state
>>> rec["q"].shape                   # (11, DOFs)
(11, 18)

See docs/python.md ("from Python") and docs/sweeps.md ("sweeps on a cluster").
"""

from ._native import (
    PliantError,
    PliantIOError,
    Rollout,
    Scene,
    SceneError,
    SimulationError,
    Simulator,
    __version__,
    energies,
    export,
    load_plugin,
    optimize,
)
from .sweep import SweepResult, sweep

__all__ = [
    "PliantError",
    "PliantIOError",
    "Rollout",
    "Scene",
    "SceneError",
    "SimulationError",
    "Simulator",
    "SweepResult",
    "__version__",
    "energies",
    "export",
    "load_plugin",
    "optimize",
    "sweep",
]
