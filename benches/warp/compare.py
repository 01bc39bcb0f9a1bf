#!/usr/bin/env python3
"""Compares the block's final state in pliant and Warp.

Reads target/fem_block/{pliant,warp}_n{n}.csv (written by
`cargo bench --bench fem_block` and benches/warp/warp_block.py; same frame,
z up, same node order) and prints, per size, the largest and the mean
distance between corresponding nodes, and the difference of the centres of
mass (mm), as written and with Warp's nodes lowered by its contact offset:
Warp's ground pushes on a particle when its centre is within the particle
radius of the plane (0.05 cell = 0.5 mm here), pliant's when the node is
below it, so a resting Warp block stands 0.5 mm higher. Standard library
only.

Run: python3 benches/warp/compare.py [--ns 5 10 20] [--dir target/fem_block]
"""
import argparse
import csv
import math
import os


def read(path):
    with open(path) as fh:
        return [tuple(float(v) for v in row) for row in list(csv.reader(fh))[1:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ns", type=int, nargs="+", default=[5, 10, 20])
    ap.add_argument("--dir", default="target/fem_block")
    ap.add_argument("--warp-offset", type=float, default=0.0005, help="Warp's particle radius, m")
    args = ap.parse_args()
    for n in args.ns:
        paths = [os.path.join(args.dir, f"{who}_n{n}.csv") for who in ("pliant", "warp")]
        if not all(os.path.exists(p) for p in paths):
            print(f"n = {n}: missing {' or '.join(p for p in paths if not os.path.exists(p))}")
            continue
        a, b = (read(p) for p in paths)
        if len(a) != len(b):
            print(f"n = {n}: {len(a)} pliant nodes against {len(b)} Warp nodes")
            continue
        com = [sum(p[c] for p in a) / len(a) - sum(q[c] for q in b) / len(b) for c in range(3)]
        d = [math.dist(p, q) for p, q in zip(a, b)]
        lowered = [math.dist(p, (q[0], q[1], q[2] - args.warp_offset)) for p, q in zip(a, b)]
        print(f"n = {n:2d} ({len(a)} nodes): node distance max {max(d) * 1e3:.3f} mm, mean {sum(d) / len(d) * 1e3:.3f} mm; "
              f"centre of mass pliant - Warp = ({com[0] * 1e3:+.3f}, {com[1] * 1e3:+.3f}, {com[2] * 1e3:+.3f}) mm; "
              f"with Warp lowered by its {args.warp_offset * 1e3:g} mm contact offset: max {max(lowered) * 1e3:.3f} mm, "
              f"mean {sum(lowered) / len(lowered) * 1e3:.3f} mm")


if __name__ == "__main__":
    main()
