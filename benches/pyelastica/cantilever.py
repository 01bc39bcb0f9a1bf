#!/usr/bin/env python3
"""PyElastica reference for the pliant cantilever benchmark (MAT-DiSMech §7.2, Fig. 11).

Rod along +x, gravity along -z, first node position + first element directors
clamped (OneEndFixedBC), tip free. Starts straight and at rest, is integrated
explicitly with PositionVerlet for --t-end seconds with uniform viscous damping
(AnalyticalLinearDamper, uniform_damping_constant=zeta): after every step
v <- v*exp(-zeta*dt) and omega <- omega*exp(-zeta*dt), i.e. a force per unit
length -rho*A*zeta*v (and a torque per unit length -rho*I*zeta*omega).

Prints one JSON line. wall_s times the time-stepping loop only; a short
warm-up simulation is run first so numba compilation is not timed.
Run with the venv made by setup.sh: /tmp/pyelastica-venv/bin/python cantilever.py
"""
import argparse
import json
import math
import sys
import time as wallclock

import numpy as np
import elastica as ea

L = 0.1  # m
RADIUS = 1e-3  # m
RHO = 1200.0  # kg/m^3
NU = 0.5
G_ACC = 9.81  # m/s^2


class Sim(ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping):
    pass


def build(n_elements, dt, E, zeta):
    sim = Sim()
    rod = ea.CosseratRod.straight_rod(
        n_elements,
        start=np.zeros(3),
        direction=np.array([1.0, 0.0, 0.0]),
        normal=np.array([0.0, 0.0, 1.0]),
        base_length=L,
        base_radius=RADIUS,
        density=RHO,
        youngs_modulus=E,
        shear_modulus=E / (2.0 * (1.0 + NU)),
    )
    sim.append(rod)
    sim.constrain(rod).using(
        ea.OneEndFixedBC, constrained_position_idx=(0,), constrained_director_idx=(0,)
    )
    sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.array([0.0, 0.0, -G_ACC]))
    if zeta > 0.0:
        sim.dampen(rod).using(
            ea.AnalyticalLinearDamper, uniform_damping_constant=zeta, time_step=dt
        )
    sim.finalize()
    return sim, rod


def run(n_elements, dt, E, zeta, t_end, csv_every=0):
    sim, rod = build(n_elements, dt, E, zeta)
    stepper = ea.PositionVerlet()
    steps = int(round(t_end / dt))
    z0 = float(rod.position_collection[2, -1])
    series = []
    t = np.float64(0.0)
    finite = True
    check_every = max(1, steps // 100)
    t0 = wallclock.perf_counter()
    for i in range(steps):
        t = stepper.step(sim, t, dt)
        if csv_every and (i + 1) % csv_every == 0:
            series.append((float(t), float(rod.position_collection[2, -1]) - z0))
        if (i + 1) % check_every == 0 and not np.isfinite(rod.position_collection[2, -1]):
            finite = False
            break
    wall = wallclock.perf_counter() - t0
    tip_z = float(rod.position_collection[2, -1]) - z0
    finite = finite and bool(np.all(np.isfinite(rod.position_collection)))
    return steps, wall, tip_z, finite, series, rod


def elastica_tip_z(E):
    """Inextensible, shear-rigid large-deflection (Kirchhoff elastica) static tip z.

    EI theta'' = -q (L - s) cos(theta), theta(0) = 0, theta'(L) = 0; tip z = -int_0^L sin(theta) ds.
    """
    from scipy.integrate import solve_bvp

    A = math.pi * RADIUS**2
    EI = E * math.pi * RADIUS**4 / 4.0
    q = RHO * A * G_ACC

    def f(s, y):  # y = [theta, theta', z]
        return np.vstack([y[1], -q * (L - s) * np.cos(y[0]) / EI, -np.sin(y[0])])

    def bc(ya, yb):
        return np.array([ya[0], yb[1], ya[2]])

    s = np.linspace(0.0, L, 401)
    sol = solve_bvp(f, bc, s, np.zeros((3, s.size)), tol=1e-10, max_nodes=100000)
    return float(sol.y[2, -1]) if sol.success else None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--elements", type=int, default=50)
    p.add_argument("--dt", type=float, default=None,
                   help="time step [s]; default 0.5*dl/sqrt(E/rho)")
    p.add_argument("--E", type=float, default=200e6, help="Young's modulus [Pa] (20e6, 200e6, 2e9, 20e9)")
    p.add_argument("--zeta", type=float, default=20.0,
                   help="damping constant [1/s]; force per length = -rho*A*zeta*v")
    p.add_argument("--t-end", type=float, default=1.0)
    p.add_argument("--csv", default=None, help="write tip z time series (t, tip_z) here")
    p.add_argument("--csv-samples", type=int, default=1000)
    p.add_argument("--no-warmup", action="store_true")
    p.add_argument("--repeat", type=int, default=1,
                   help="run the timed simulation N times; wall_s is the median")
    a = p.parse_args(argv)

    dl = L / a.elements
    c = math.sqrt(a.E / RHO)
    dt = a.dt if a.dt is not None else 0.5 * dl / c

    if not a.no_warmup:  # JIT-compile numba kernels outside the timed loop
        run(a.elements, dt, a.E, a.zeta, 50 * dt)

    steps = int(round(a.t_end / dt))
    csv_every = max(1, steps // a.csv_samples) if a.csv else 0
    walls = []
    for _ in range(max(1, a.repeat)):
        steps, wall, tip_z, finite, series, rod = run(a.elements, dt, a.E, a.zeta, a.t_end, csv_every)
        walls.append(wall)
    wall = float(np.median(walls))

    A = math.pi * RADIUS**2
    I = math.pi * RADIUS**4 / 4.0
    q = RHO * A * G_ACC
    w_eb = -q * L**4 / (8.0 * a.E * I)
    w_nl = elastica_tip_z(a.E)
    out = dict(
        elements=a.elements, dt=dt, steps=steps, E=a.E, zeta=a.zeta, t_end=a.t_end,
        wall_s=round(wall, 4), wall_all_s=[round(w, 4) for w in walls],
        us_per_step=round(1e6 * wall / max(steps, 1), 3),
        tip_z=tip_z, euler_bernoulli_z=w_eb,
        rel_err=(tip_z - w_eb) / abs(w_eb) if finite else None,
        elastica_nonlinear_z=w_nl,
        rel_err_nonlinear=(tip_z - w_nl) / abs(w_nl) if (finite and w_nl) else None,
        tip_speed=float(np.linalg.norm(rod.velocity_collection[:, -1])) if finite else None,
        finite=finite, dt_over_cfl=dt / (dl / c),
    )
    print(json.dumps(out), flush=True)
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("t,tip_z\n")
            for t, z in series:
                f.write(f"{t:.9g},{z:.9g}\n")
    return 0 if finite else 1


if __name__ == "__main__":
    sys.exit(main())
