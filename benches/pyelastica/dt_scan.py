#!/usr/bin/env python3
"""Quick stability scan: dt_scan.py ELEMENTS E T_END FACTOR...  (dt = FACTOR * dl / sqrt(E/rho)).

Prints: factor dt steps finite tip_z max|y,z| wall_s. A run is unstable when
max|y,z| is far above the static deflection (blow-up stays finite for a while).
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cantilever as c  # noqa: E402

n, E, t_end = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
cfl = (c.L / n) / math.sqrt(E / c.RHO)
for f in map(float, sys.argv[4:]):
    dt = f * cfl
    steps, wall, tip, fin, _, rod = c.run(n, dt, E, 20.0, t_end)
    maxdev = float(np.max(np.abs(rod.position_collection[1:, :])))
    print(f, dt, steps, fin, tip, maxdev, round(wall, 2), flush=True)
