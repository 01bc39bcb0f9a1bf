#!/usr/bin/env python3
"""NVIDIA Warp (warp.sim, CPU device) neo-Hookean tetrahedral FEM block dropped on the ground.

warp.sim was deprecated in warp-lang 1.8 and is gone from 1.10 on, so this
needs `pip install "warp-lang==1.9.1"` (the newest release that still has it).

Set-up: an n x n x n grid of hexahedral cells (cell = 1 cm, so a 10 cm cube
for n = 10), each split into 5 tetrahedra by ModelBuilder.add_soft_grid;
Warp's stable neo-Hookean (Smith et al. 2018) with E = 100 kPa, nu = 0.45,
rho = 1000 kg/m^3 (add_soft_grid gives every grid node the mass of one cell),
k_damp = 10; the surface-triangle membrane forces that add_soft_grid also
creates are switched off (tri_ke = tri_ka = tri_kd = 1e-9: exactly 0 gives
NaN, the defaults limit dt to ~1e-5 s) and particle-particle contact is off
(a single body).  The block
starts 2 cm above Warp's ground plane (penalty contact ke = 1e3 N/m per
node, kd = 1, friction mu = 0.5) and falls under gravity.
SemiImplicitIntegrator (symplectic Euler), explicit, so dt is bounded by
the pressure-wave speed: the largest stable dt is found by bisection (a
trial is stable if all positions stay finite and inside a 1 m box after
0.1 s), and the timed run uses dt = 0.5 * dt_max over 0.2 s of simulated
time (drop, impact, rebound).  All kernels run on Warp's "cpu" device (one
thread; kernels are compiled by Warp's bundled LLVM and cached in
~/.cache/warp on first use).

Run (from the repository root, after `bash benches/warp/setup.sh`):
      /tmp/warp-venv/bin/python benches/warp/warp_block.py --ns 5 10 20 --t-sim 0.99
It writes the final node positions to target/fem_block/warp_n{n}.csv in
pliant's frame and order (z up; x fastest, then y, then z), which
benches/warp/compare.py compares with pliant's (`cargo bench --bench fem_block`).
"""
import argparse
import math
import os
import platform
import time

import numpy as np
import warp as wp

wp.config.quiet = True
import warp.sim  # noqa: E402  (after wp.config)

E = 1.0e5  # Pa
NU = 0.45
RHO = 1000.0  # kg/m^3
CELL = 0.01  # m
K_DAMP = 10.0
DROP = 0.02  # m


def lame(E, nu):
    mu = E / (2.0 * (1.0 + nu))
    lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    return mu, lam


def build(n):
    mu, lam = lame(E, NU)
    builder = wp.sim.ModelBuilder()
    builder.default_particle_radius = 0.05 * CELL
    builder.add_soft_grid(
        pos=wp.vec3(0.0, DROP, 0.0), rot=wp.quat_identity(), vel=wp.vec3(0.0, 0.0, 0.0),
        dim_x=n, dim_y=n, dim_z=n, cell_x=CELL, cell_y=CELL, cell_z=CELL,
        density=RHO, k_mu=mu, k_lambda=lam, k_damp=K_DAMP,
        # surface-triangle membrane off: exactly 0 gives NaN (0/0 in the
        # triangle's Lame ratio), the defaults (100, 100, 10) limit dt to ~1e-5
        tri_ke=1e-9, tri_ka=1e-9, tri_kd=1e-9,
    )
    model = builder.finalize(device="cpu")
    model.ground = True
    model.soft_contact_ke = 1.0e3
    model.soft_contact_kd = 1.0
    model.soft_contact_kf = 1.0e3
    model.soft_contact_mu = 0.5
    model.particle_max_radius = 0.0  # no particle-particle contact (one body)
    return model


class Sim:
    def __init__(self, n, dt):
        self.model = build(n)
        self.dt = dt
        self.integrator = wp.sim.SemiImplicitIntegrator()
        self.s0 = self.model.state()
        self.s1 = self.model.state()

    def run(self, n_steps):
        for _ in range(n_steps):
            self.s0.clear_forces()
            self.integrator.simulate(self.model, self.s0, self.s1, self.dt)
            self.s0, self.s1 = self.s1, self.s0
        wp.synchronize_device("cpu")

    def positions(self):
        return self.s0.particle_q.numpy()


def stable(n, dt, t_trial=0.1):
    sim = Sim(n, dt)
    steps = int(math.ceil(t_trial / dt))
    chunk = max(1, steps // 10)
    done = 0
    while done < steps:
        sim.run(min(chunk, steps - done))
        done += chunk
        x = sim.positions()
        if not np.all(np.isfinite(x)) or np.abs(x).max() > 1.0:
            return False
    return True


def max_stable_dt(n, rel_tol=0.05):
    c = math.sqrt((lame(E, NU)[1] + 2 * lame(E, NU)[0]) / RHO)
    guess = CELL / c
    if stable(n, guess):
        lo, hi = guess, guess * 2.0
        while stable(n, hi):
            lo, hi = hi, hi * 2.0
            if hi > 1e3 * guess:
                raise RuntimeError("no instability found")
    else:
        lo, hi = guess / 2.0, guess
        while not stable(n, lo):
            lo, hi = lo / 2.0, lo
            if lo < 1e-3 * guess:
                raise RuntimeError("unstable even at 1e-3 * (cell / wave speed)")
    while hi / lo > 1.0 + rel_tol:
        mid = math.sqrt(lo * hi)
        if stable(n, mid):
            lo = mid
        else:
            hi = mid
    return lo


def write_final(out, n, x):
    """Final positions in pliant's frame and node order: Warp's y is up and
    its grid index is (iz * (n+1) + iy) * (n+1) + ix; pliant's z is up and
    its index is (k * (n+1) + j) * (n+1) + i with (i, j, k) = (ix, iz, iy)."""
    os.makedirs(out, exist_ok=True)
    m = n + 1
    with open(os.path.join(out, f"warp_n{n}.csv"), "w") as fh:
        fh.write("x,y,z\n")
        for k in range(m):
            for j in range(m):
                for i in range(m):
                    p = x[(j * m + k) * m + i]
                    fh.write(f"{p[0]:.9f},{p[2]:.9f},{p[1]:.9f}\n")


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"nproc={os.cpu_count()} cpu='{cpu}' python={platform.python_version()}"
            f" loadavg={os.getloadavg()[0]:.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ns", type=int, nargs="+", default=[5, 10, 20])
    ap.add_argument("--t-sim", type=float, default=0.2, help="simulated seconds in the timed run")
    ap.add_argument("--safety", type=float, default=0.5)
    ap.add_argument("--budget", type=float, default=1e9, help="wall seconds cap per timed run")
    ap.add_argument("--out", default="target/fem_block", help="where the final positions go")
    args = ap.parse_args()

    wp.init()
    print(f"# warp {wp.config.version} (warp.sim, device cpu), numpy {np.__version__}; {machine()}")
    mu, lam = lame(E, NU)
    print(f"# block n^3 cells of {CELL * 100:g} cm, 5 tets/cell, stable neo-Hookean E={E:g} Pa nu={NU} "
          f"(mu={mu:.4g}, lambda={lam:.4g}) rho={RHO:g} k_damp={K_DAMP:g}; dropped {DROP * 100:g} cm;"
          f" SemiImplicitIntegrator, dt = {args.safety} * dt_max")
    t0 = time.perf_counter()
    Sim(2, 1e-4).run(2)  # compile / load kernels
    print(f"# kernel compile/load: {time.perf_counter() - t0:.1f} s")
    print()
    print(f"{'n':>3} {'particles':>9} {'tets':>6} {'dt_max[s]':>10} {'dt[s]':>9} {'steps':>6} {'wall[s]':>8} "
          f"{'cpu[s]':>7} {'ms/step':>8} {'us/tet-step':>11} {'s/phys-s':>8} {'min y[mm]':>9} {'h/h0':>6}")
    rows = []
    for n in args.ns:
        dt_max = max_stable_dt(n)
        dt = args.safety * dt_max
        sim = Sim(n, dt)
        n_steps = int(math.ceil(args.t_sim / dt))
        h0 = n * CELL
        c0 = time.process_time()
        t0 = time.perf_counter()
        done = 0
        chunk = max(1, n_steps // 20)
        while done < n_steps and time.perf_counter() - t0 < args.budget:
            sim.run(min(chunk, n_steps - done))
            done += min(chunk, n_steps - done)
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        x = sim.positions()
        write_final(args.out, n, x)
        ms = wall / done * 1e3
        tets = sim.model.tet_count
        h = x[:, 1].max() - x[:, 1].min()
        rows.append((n, tets, dt_max, ms, ms * 1e3 / tets, cpu / done * 1e3))
        print(f"{n:3d} {sim.model.particle_count:9d} {tets:6d} {dt_max:10.3e} {dt:9.2e} {done:6d} {wall:8.2f} "
              f"{cpu:7.2f} {ms:8.3f} {ms * 1e3 / tets:11.4f} {ms * 1e-3 / dt:8.1f} "
              f"{x[:, 1].min() * 1e3:9.2f} {h / h0:6.3f}", flush=True)
    print("  wall/cpu over the timed run; s/phys-s = wall seconds per simulated second at dt;"
          " min y / h/h0 = lowest node and block height ratio at the end (t = steps*dt)")
    key = " ".join(f"n={n} ({t} tets): dt_max={d:.2e}s {ms:.3f}ms/step {us:.4f}us/tet-step (cpu {c:.3f}ms/step);"
                   for n, t, d, ms, us, c in rows)
    print(f"KEY warp_fem_block (warp {wp.config.version}, cpu): {key} loadavg_end={os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
