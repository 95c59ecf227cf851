#!/usr/bin/env python3
"""Runs direct_write_check under mpiexec, then reads every collective/direct pair of files with h5py:
the datasets must be bitwise equal, hold the expected values in [z][y][x] order, and the files must
carry the same attributes.

usage: check_direct_write.py --mpiexec MPIEXEC --ranks N --exe direct_write_check --dir DIR [--io-threads K]
"""
import argparse
import pathlib
import shutil
import subprocess
import sys

import h5py
import numpy as np


def expected(shape, dtype):
    nz, ny, nx = shape
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    v = ((x + 64 * y + 4096 * z) / 2).astype(dtype)
    v[1, 1, 1] = -0.0
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--exe", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--io-threads", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args()
    out = pathlib.Path(a.dir)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [a.mpiexec, "-n", str(a.ranks), "--oversubscribe", "--bind-to", "none", a.exe, "--dir", str(out),
           "--io-threads", str(a.io_threads)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited with {run.returncode}")
        return 1

    failures = []
    pairs = 0
    for collective in sorted(out.glob("*-collective-*.h5")):
        direct = collective.with_name(collective.name.replace("-collective-", "-direct-"))
        if not direct.exists():
            failures.append(f"{direct.name} missing")
            continue
        if list(out.glob(direct.name + ".tmp")):
            failures.append(f"{direct.name}.tmp left behind")
        with h5py.File(collective, "r") as c, h5py.File(direct, "r") as d:
            dc, dd = c["wavefield"], d["wavefield"]
            if dd.shape != (22, 30, 45) or dd.dtype != dc.dtype:
                failures.append(f"{direct.name}: shape {dd.shape} dtype {dd.dtype}, expected (22, 30, 45) {dc.dtype}")
                continue
            a_c, a_d = dc[...], dd[...]
            bits = np.uint32 if a_c.dtype == np.float32 else np.uint64
            if not np.array_equal(a_c.view(bits), a_d.view(bits)):
                failures.append(f"{direct.name}: not bitwise equal to {collective.name}")
            want = expected(a_d.shape, a_d.dtype)
            mask = np.ones(a_d.shape, bool)
            mask[2, 2, 2] = False
            if not np.array_equal(a_d[mask].view(bits), want[mask].view(bits)):
                failures.append(f"{direct.name}: values are not (x + 64 y + 4096 z) / 2 at [z][y][x]")
            if not np.isnan(a_d[2, 2, 2]) or not np.signbit(a_d[1, 1, 1]):
                failures.append(f"{direct.name}: the NaN or the -0 did not survive")
            for key in sorted(set(c.attrs) | set(d.attrs)):
                if key not in c.attrs or key not in d.attrs or np.any(c.attrs[key] != d.attrs[key]):
                    failures.append(f"{direct.name}: root attribute {key} differs")
            for key in ("time_level", "checksum"):
                if dc.attrs.get(key) != dd.attrs.get(key):
                    failures.append(f"{direct.name}: dataset attribute {key} differs")
        pairs += 1
    if pairs != 4:
        failures.append(f"expected 4 file pairs (2 process grids x float/double), found {pairs}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"h5py: {pairs} pairs of files read back, datasets bitwise equal, attributes equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
