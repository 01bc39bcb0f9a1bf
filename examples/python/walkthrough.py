# %% [markdown]
# # pliant from Python: a walkthrough
#
# Notebook-style script (cells marked `# %%`, so editors run them one by
# one; `python examples/python/walkthrough.py` runs them all). Run it from
# the repository's root after `pip install ./python`. SI units throughout.

# %%
import json
import pathlib

import numpy as np

import pliant

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENE = ROOT / "examples" / "scenes" / "pma_pair.json"

# %% [markdown]
# ## 1. A scene and a simulator
# Two McKibben muscles in series hold 0.5 kg; the upper one's pressure `p`
# follows a schedule, the lower one's `p_lower` is a design parameter.

# %%
scene = pliant.Scene.from_file(SCENE)
print(scene)
sim = scene.simulator()
rec = sim.run()
print(f"{len(rec['t']) - 1} steps to t = {rec['t'][-1]:.2f} s; the load ends at z = "
      f"{rec['observables']['load.z'][-1] * 1e3:.1f} mm "
      f"(kinetic energy {rec['kinetic_energy'][-1]:.2e} J)")

# %% [markdown]
# ## 2. Controls from Python, step by step

# %%
sim.reset()
heights = []
for k in range(100):
    sim.step(controls={"p": 3e5 * min(1.0, k / 50)})  # Pa
    heights.append(sim.positions[2, 2])
print(f"ramping p to 300 kPa instead: the load ends at z = {heights[-1] * 1e3:.1f} mm")

# %% [markdown]
# ## 3. A scene changed in Python
# A dict of the file's schema; errors name the field.

# %%
doc = json.loads(SCENE.read_text())
doc["energies"][1]["stiffness"] = 2500.0  # N/m
stiffer = pliant.Scene.from_dict(doc, base_dir=SCENE.parent).simulator().run()
print(f"stiffer muscles: the load ends at z = {stiffer['observables']['load.z'][-1] * 1e3:.1f} mm")
doc["energies"][1]["stiffness"] = "very"
try:
    pliant.Scene.from_dict(doc).simulator()
except pliant.SceneError as e:
    print(f"SceneError at `{e.field}`")

# %% [markdown]
# ## 4. The gradient of a whole rollout
# Keyframes of `p` and the design value `p_lower` are the variables; the
# objective asks the load to reach z = −0.4 m at the end. The adjoint
# gradient against central differences of whole rollouts:

# %%
rollout = pliant.Rollout(ROOT / "examples" / "rollouts" / "pma_reach.json")
value, grad = rollout.value_and_gradient()
fd = rollout.gradient_fd(eps=1e-6)
for name, g, f in zip(rollout.variables, grad, fd):
    print(f"  dO/d{name:<10} adjoint {g: .6e}   central differences {f: .6e}")

# %% [markdown]
# ## 5. Your own weighting, your own optimizer
# `weights` scales the spec's terms on the Python side; the gradient stays
# exact. A few projected gradient steps on the pressures (kept in 0–400 kPa):

# %%
weights = [1.0, 0.1]
z = rollout.z0.copy()
lo, hi = 0.0, 4e5
for it in range(8):
    value, grad = rollout.value_and_gradient(z, weights=weights)
    step = 2e4 * grad / np.max(np.abs(grad))  # at most 20 kPa per variable
    trial = np.clip(z - step, lo, hi)
    while rollout.value_and_gradient(trial, weights=weights)[0] > value and np.max(np.abs(trial - z)) > 1.0:
        trial = z + 0.5 * (trial - z)
    z = trial
    print(f"  iteration {it}: objective {value:.4e}")
print("pressures (kPa):", np.round(z / 1e3, 1))

# %% [markdown]
# ## 6. A sweep
# Muscle stiffness × load over a 3 × 3 grid, each point a rollout with its
# gradient; `backend="ray"` would make each point a Ray task.

# %%
result = pliant.sweep(ROOT / "examples" / "sweeps" / "pma_pressure.json", out=ROOT / "out" / "sweeps", jobs=2)
print(f"{len(result.points)} points -> {result.csv}")
print("objective:", np.round(result.column("objective"), 3))
print("heat map:", result.plot)
