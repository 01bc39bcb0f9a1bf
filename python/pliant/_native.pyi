"""Type stubs for ``pliant._native``, the Rust half of the ``pliant`` package.

Scenes, simulators, differentiable rollouts, gait optimization, hardware
export, runtime plugins and sweep points, with numpy arrays in and out.
SI units throughout (m, kg, s, N, J, Pa).
"""

from __future__ import annotations

import os
import pathlib
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy
import numpy.typing

_Array = numpy.typing.NDArray[numpy.float64]
_StrPath = Union[str, os.PathLike[str]]
_Spec = Union[str, os.PathLike[str], Dict[str, Any]]

__version__: str
"""The version of the pliant crate this module was built from."""

# ---------------------------------------------------------------- exceptions

class PliantError(Exception):
    """Base of every error pliant raises (also a Rust panic, reported as a bug)."""

class SceneError(PliantError):
    """A scene or spec that cannot be read."""

    origin: str
    """The file (or ``<dict>``, ``<json>``, ``rollout spec``, ``sweep spec``) it came from."""
    field: str
    """JSON path of the offending field, e.g. ``energies[1].stiffness``."""

class SimulationError(PliantError):
    """A step that failed; the simulator's state is the last converged step's."""

    step: int
    """The failed step, 1-based."""
    partial: Optional[Dict[str, Any]]
    """What was computed before the failed step: for ``Simulator.run`` the
    recorded rows (the same keys as its result); ``None`` for ``Simulator.step``."""

class PliantIOError(PliantError):
    """A file that cannot be read or written."""

# -------------------------------------------------------------------- scenes

class Scene:
    """A scene (the JSON schema of ``pliant simulate``), validated on creation.

    Create one with :meth:`from_file`, :meth:`from_dict` or :meth:`from_json`;
    errors raise :class:`SceneError` carrying the field path. Immutable.
    """

    @staticmethod
    def from_file(path: _StrPath) -> Scene:
        """Reads a scene file (JSON); relative paths inside it resolve against its directory.

        Raises :class:`SceneError` for an invalid scene, :class:`PliantIOError`
        for a file that cannot be read.
        """
    @staticmethod
    def from_dict(scene: Dict[str, Any], base_dir: Optional[_StrPath] = None) -> Scene:
        """A scene from a dict of the file's schema.

        Relative paths inside it resolve against ``base_dir`` (default: the
        working directory). Floats keep their shortest round-trip repr, so a
        dict gives the same numbers as a file.
        """
    @staticmethod
    def from_json(text: str, base_dir: Optional[_StrPath] = None) -> Scene:
        """A scene from JSON text; relative paths resolve against ``base_dir``
        (default: the working directory)."""
    def to_dict(self) -> Dict[str, Any]:
        """The scene as a dict (what :meth:`from_dict` takes)."""
    @property
    def name(self) -> Optional[str]:
        """Its name, if it has one."""
    @property
    def dim(self) -> int:
        """Spatial dimension: 2 or 3."""
    @property
    def steps(self) -> int:
        """The number of steps it asks for."""
    @property
    def dt(self) -> float:
        """Its step size, s."""
    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
    def simulator(self) -> Simulator:
        """Builds the model and a :class:`Simulator` at the initial state."""
    def __repr__(self) -> str: ...

# ---------------------------------------------------------------- simulation

class Simulator:
    """A simulator of one scene.

    Controls are set per call; states, velocities, observables and energies
    are read as numpy arrays. The GIL is released while it steps. While one
    thread steps it, reading it from another raises :class:`PliantError`
    (it never waits).
    """

    def __init__(self, scene: Scene) -> None:
        """A simulator of ``scene`` at its initial state."""
    @property
    def q(self) -> _Array:
        """Positions and extra DOFs ``q`` (m, rad), shape ``(DOFs,)``; a copy."""
    @property
    def v(self) -> _Array:
        """Velocities ``v`` (m/s, rad/s), shape ``(DOFs,)``; a copy."""
    @property
    def positions(self) -> _Array:
        """Node positions as an ``(n_nodes, dim)`` array, m; a copy."""
    @property
    def time(self) -> float:
        """Current time, s."""
    @property
    def step_count(self) -> int:
        """Steps taken."""
    @property
    def dt(self) -> float:
        """Step size, s."""
    @property
    def n_dofs(self) -> int:
        """Number of DOFs."""
    @property
    def scene_steps(self) -> int:
        """The number of steps the scene asks for."""
    @property
    def channels(self) -> List[str]:
        """The parameter channels' names (controls and design parameters)."""
    def params(self) -> Dict[str, float]:
        """The channels' values at the current time (the scene's schedules): name → value."""
    def observables(self) -> List[Tuple[str, float]]:
        """The observables now (cable tensions, output-group centroids, …) as ``(name, value)`` pairs."""
    def kinetic_energy(self) -> float:
        """Kinetic energy ``½ vᵀ M v``, J."""
    def potential_energy(self) -> float:
        """Potential energy of every energy term at the current state, J."""
    def step(self, n: int = 1, controls: Optional[Dict[str, float]] = None) -> int:
        """Takes ``n`` steps; returns the total Newton iterations.

        ``controls`` (channel name → finite value) hold over these steps in
        place of the scene's schedule; an unknown channel or a non-finite
        value raises :class:`PliantError`. A failed step raises
        :class:`SimulationError` (``partial`` is ``None``) and leaves the
        state at the last converged step.
        """
    def run(
        self,
        steps: Optional[int] = None,
        until: Optional[float] = None,
        controls: Optional[Dict[str, float]] = None,
    ) -> Dict[str, Any]:
        """Steps ``steps`` times (default: the scene's), or until time ``until`` (s,
        takes precedence over ``steps``), recording every state.

        ``controls`` (channel name → value) hold over the run in place of the
        scene's schedule. Returns a dict (K steps taken, row 0 is the state
        before the first step):

        - ``t``: times, s, shape ``(K+1,)``
        - ``q``: positions and extra DOFs (m, rad), shape ``(K+1, DOFs)``
        - ``v``: velocities (m/s, rad/s), shape ``(K+1, DOFs)``
        - ``com``: centre of mass, m, shape ``(K+1, dim)``
        - ``kinetic_energy``: J, shape ``(K+1,)``
        - ``potential_energy``: J, shape ``(K+1,)``
        - ``newton_iterations``: Newton iterations of each step (0 for row 0),
          shape ``(K+1,)``, float64
        - ``observables``: dict name → array ``(K+1,)``

        On a failed step raises :class:`SimulationError` whose ``partial``
        holds the rows computed before it. Ctrl-C stops it within about
        0.2 s with a ``KeyboardInterrupt`` carrying the same ``partial``.
        ``until`` must be finite.
        """
    def set_state(self, q: _Array, v: _Array, t: Optional[float] = None) -> None:
        """Sets the state: ``q`` (m, rad) and ``v`` (m/s, rad/s), DOFs each, and
        optionally the time ``t`` (s; default: unchanged)."""
    def reset(self) -> None:
        """Back to the scene's initial state at t = 0."""
    def __repr__(self) -> str: ...

# ------------------------------------------------------------------ rollouts

class Rollout:
    """A rollout spec built into a differentiable problem: the objective's
    value, its terms and their adjoint gradients with respect to control
    keyframes and design parameters ``z``."""

    def __init__(self, spec: _Spec, base_dir: Optional[_StrPath] = None) -> None:
        """A rollout from a spec: a dict (its ``scene`` a file path, a scene dict
        or a :class:`Scene`), or the path of a spec file.

        Relative paths in a dict resolve against ``base_dir`` (default: the
        working directory; a :class:`Scene` keeps its own directory). An
        invalid spec raises :class:`SceneError` with the field path.
        """
    @property
    def z0(self) -> _Array:
        """The variables' initial values (the scene's schedules and design values)."""
    @property
    def variables(self) -> List[str]:
        """One name per variable (``channel@t s`` or the design channel)."""
    @property
    def objectives(self) -> List[str]:
        """The objective terms' labels."""
    @property
    def weights(self) -> List[float]:
        """The terms' weights as the spec gives them."""
    @property
    def steps(self) -> int:
        """Steps K."""
    @property
    def dt(self) -> float:
        """Step size, s."""
    def evaluate(
        self,
        z: Optional[_Array] = None,
        gradient: bool = True,
        per_term: bool = False,
    ) -> Dict[str, Any]:
        """Rolls out with ``z`` (default ``z0``). Returns a dict:

        - ``value``: the objective ``O(z)`` (float)
        - ``terms``: each term's ``½ w Σ_k ‖r_k‖²``, spec order (they sum to ``value``)
        - ``gradient``: ``∇_z O`` by the adjoint (only if ``gradient`` or ``per_term``)
        - ``term_gradients``: each term's gradient, shape ``(terms, variables)``
          (only if ``per_term``; they sum to ``gradient``)
        - ``states``: positions ``q_0 … q_K``, shape ``(K+1, DOFs)``
        - ``newton_iterations``: Newton iterations of the rollout (int)
        """
    def value_and_gradient(
        self,
        z: Optional[_Array] = None,
        weights: Optional[Sequence[float]] = None,
    ) -> Tuple[float, _Array]:
        """``(O, ∇_z O)`` at ``z`` (default ``z0``).

        With ``weights`` (one finite number per term), the objective is
        ``Σ_i weights[i] · O_i`` over the spec's terms ``O_i`` (each already
        carrying its spec weight), and the gradient the same sum of the terms'
        adjoint gradients; a wrong count or a non-finite weight raises
        :class:`PliantError`.
        """
    def gradient_fd(self, z: Optional[_Array] = None, eps: float = 1e-6) -> _Array:
        """``∇_z O`` at ``z`` (default ``z0``) by central differences of whole
        rollouts (relative step ``eps``), to check the adjoint."""
    def __repr__(self) -> str: ...

# ------------------------------------------------- optimize, export, plugins

def optimize(
    spec: _Spec,
    out: _StrPath = "out",
    iterations: Optional[int] = None,
    fresh: bool = False,
    base_dir: Optional[_StrPath] = None,
) -> Dict[str, Any]:
    """Optimizes a gait spec (a dict or a spec file, the schema of ``pliant
    optimize``) into ``out/<name>/``, resuming a checkpoint there unless
    ``fresh``.

    ``iterations`` overrides the spec's iteration count (0: just evaluate and
    write the initial controls); relative paths in a dict resolve against
    ``base_dir``. Returns a dict:

    - ``name``: the problem's name (str)
    - ``objective``: objective ``½‖r‖²`` of the best controls
    - ``initial_objective``: objective at the start
    - ``iterations``: iterations done, those before a resume included (int)
    - ``termination``: why the solver stopped (str)
    - ``z``: the best controls found (array)
    - ``body_lengths_per_minute``: average speed over the cycles, body lengths
      per minute (straight-line start-to-end distance; negative if backwards)
    - ``displacement``: horizontal centre-of-mass displacement over the cycles,
      m (list of 2 floats)
    - ``heading_change_degrees``: change of heading over the cycles, degrees
      (negative: turned right)
    - ``dir``: the output directory ``out/<name>`` (pathlib.Path)
    - ``files``: files written (list of pathlib.Path)
    """

def export(
    run: _StrPath,
    profile: _StrPath,
    backend: str = "csv",
    rate: Optional[float] = None,
    out: Optional[_StrPath] = None,
    clip: bool = False,
) -> Dict[str, Any]:
    """Exports a run's optimized controls (``run``: an optimize output
    directory) through a hardware profile file and a backend.

    ``rate`` is the controller rate, Hz (default: the profile's ``rate_hz``);
    ``out`` the destination (default ``run/commands_<backend>.<ext>``; a
    streaming backend needs it, the port); ``clip`` saturates at the limits
    instead of failing. Returns a dict:

    - ``output``: where the commands went, a file or the port (pathlib.Path)
    - ``plot``: the plot of the commands over the run's controls (pathlib.Path)
    - ``channels``: channels exported (list of str)
    - ``samples``: samples per channel (int)
    - ``rate_hz``: the rate, Hz
    - ``violations``: limits broken and let through (saturated with ``clip``),
      one description each (list of str)
    """

def load_plugin(path: _StrPath) -> List[str]:
    """Loads a runtime energy plugin (a shared library built against this
    pliant's ABI); returns the energy types it registered."""

def energies() -> List[Tuple[str, str]]:
    """Every energy type a scene may use (built-in and from plugins): ``(name, summary)`` pairs."""

# -------------------------------------------------------------------- sweeps

def sweep_points(
    spec: _Spec,
    base_dir: Optional[_StrPath] = None,
) -> Tuple[str, List[str], List[List[float]], str, Optional[pathlib.Path]]:
    """``(name, parameter labels, points, spec text, spec directory)`` of a
    sweep spec (dict or path): what a scheduler needs to dispatch it.

    Relative paths in a dict resolve against ``base_dir``.
    """

def sweep_run_point(
    text: str,
    dir: Optional[_StrPath],
    out: _StrPath,
    k: int,
) -> Dict[str, Any]:
    """Runs point ``k`` of the sweep (spec ``text`` and ``dir`` as
    :func:`sweep_points` returns them) into ``out/<name>/point_KKKK/``, or
    reads it back if it finished there before. Returns a dict:

    - ``index``: the point's index in the design (int)
    - ``parameters``: ``(name, value)`` of each parameter, spec order
    - ``values``: what the point recorded, name → number (empty if it failed)
    - ``error``: why the point failed, or ``None`` (a later run retries it)
    - ``skipped``: the point had already finished and was not run again (bool)
    """

def sweep_gather(
    text: str,
    dir: Optional[_StrPath],
    out: _StrPath,
) -> Dict[str, Any]:
    """Gathers the points under ``out/<name>/`` into ``results.csv``,
    ``results.parquet`` and the plot. Returns a dict:

    - ``csv``: ``out/<name>/results.csv`` (pathlib.Path)
    - ``parquet``: ``out/<name>/results.parquet`` (pathlib.Path)
    - ``plot``: ``out/<name>/<objective>.svg``, or ``None`` if no point finished
      (pathlib.Path)
    - ``finished``: points finished without error (int)
    - ``points``: points in the design (int)
    """
