#!/usr/bin/env python3
"""Seed-cube runs verified against an independent implementation.

ISO3DFD's seed cube and its time steps, written here with NumPy from the textbook formulas (the
central-difference weights of order 2R from their closed form, ISO3DFD's initialisation loops, the
update next = 2 prev - next + (v dt / h)^2 lap(prev) on the points R away from every face, the rest held
at zero), against wave3d's snapshot of the same run in double precision on several rank counts and
radii. The two sum in different orders, so they agree to round-off, not bit for bit.
"""
import sys
from math import factorial

import h5py
import numpy as np

from io_check_support import Failures, arguments, fresh_directory, run_ok, wave3d_command

GRID = (40, 36, 32)  # n1 (x), n2 (y), n3 (z)
STEPS = 12
SPACING, VELOCITY, DT = 10.0, 1500.0, 0.001


def second_derivative_weights(radius):
    """c_0..c_R of the central second derivative of order 2R."""
    c = [0.0] * (radius + 1)
    for k in range(1, radius + 1):
        c[k] = 2.0 * (-1) ** (k + 1) * factorial(radius) ** 2 / (k * k * factorial(radius - k) * factorial(radius + k))
    c[0] = -2.0 * sum(c[1:])
    return c


def iso3dfd_seed(n1, n2, n3):
    """ISO3DFD's initialisation loops, indexed [z][y][x]."""
    prev = np.zeros((n3, n2, n1))
    val = 1.0
    for s in range(5, -1, -1):
        prev[n3 // 2 - s:n3 // 2 + s, n2 // 4 - s:n2 // 4 + s, n1 // 4 - s:n1 // 4 + s] = val
        val *= 10
    return prev


def evolve(radius, steps):
    n1, n2, n3 = GRID
    c = second_derivative_weights(radius)
    vel = (VELOCITY * DT / SPACING) ** 2
    prev, nxt = iso3dfd_seed(n1, n2, n3), np.zeros((n3, n2, n1))
    r = radius
    inner = (slice(r, n3 - r), slice(r, n2 - r), slice(r, n1 - r))
    for _ in range(steps):
        lap = 3 * c[0] * prev[inner]
        for k in range(1, r + 1):
            lap += c[k] * (prev[r:n3 - r, r:n2 - r, r - k:n1 - r - k] + prev[r:n3 - r, r:n2 - r, r + k:n1 - r + k]
                           + prev[r:n3 - r, r - k:n2 - r - k, r:n1 - r] + prev[r:n3 - r, r + k:n2 - r + k, r:n1 - r]
                           + prev[r - k:n3 - r - k, r:n2 - r, r:n1 - r] + prev[r + k:n3 - r + k, r:n2 - r, r:n1 - r])
        nxt[inner] = 2 * prev[inner] - nxt[inner] + vel * lap
        prev, nxt = nxt, prev
    return prev


def main():
    a = arguments(__doc__).parse_args()
    fresh_directory(a.results_dir)
    failures = Failures()
    for radius, ranks in ((2, 1), (4, 2), (8, 3)):
        expected = evolve(radius, STEPS)
        name = f"r{radius}_np{ranks}"
        settings = [f"grid.n={','.join(map(str, GRID))}", f"stencil.radius={radius}", "stencil.precision=double",
                    "grid.boundary=zero", "init.condition=seed-cube", f"run.steps={STEPS}",
                    f"output.snapshot_every={STEPS}", f"grid.spacing={SPACING}", f"physics.dt={DT}"]
        if run_ok(wave3d_command(a, ranks, settings, name), failures) is None:
            continue
        with h5py.File(a.results_dir / "runs" / name / f"wavefield_{STEPS:06d}.h5", "r") as f:
            field = f["wavefield"][...]
        error = float(np.max(np.abs(field - expected)))
        scale = float(np.max(np.abs(expected)))
        print(f"R = {radius} on {ranks} rank(s), {STEPS} steps: max |wave3d - NumPy| = {error:.3e} "
              f"(largest value {scale:.3e})")
        failures.check(field.shape == expected.shape, f"{name}: shape {field.shape}")
        failures.check(error <= 1e-12 * scale, f"{name}: wave3d and the independent implementation differ by {error}")
        failures.check(scale > 1.0 and np.count_nonzero(field) > 1000, f"{name}: the seed did not spread")
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
