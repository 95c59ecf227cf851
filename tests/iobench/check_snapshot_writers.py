#!/usr/bin/env python3
"""Runs the same `wave3d run` twice with snapshots, once per output.snapshot_writer (collective and
io-threads), and checks with h5py that every snapshot of the two runs holds bitwise the same
wavefield and the same checksum attribute, and that run.json records the writer.

usage: check_snapshot_writers.py --mpiexec MPIEXEC --ranks N --wave3d WAVE3D --dir DIR -- --set k=v ...
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--wave3d", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--timeout", type=float, default=200)
    ap.add_argument("settings", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    settings = a.settings[1:] if a.settings and a.settings[0] == "--" else a.settings
    out = pathlib.Path(a.dir)
    shutil.rmtree(out, ignore_errors=True)
    runs = {}
    for writer in ("collective", "io-threads"):
        cmd = [a.mpiexec, "-n", str(a.ranks), "--oversubscribe", "--bind-to", "none", a.wave3d, "run", *settings,
               "--set", f"output.snapshot_writer={writer}", "--set", f"output.directory={out}",
               "--set", f"output.name={writer}"]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
        if run.returncode != 0:
            sys.stdout.write(run.stdout)
            sys.stderr.write(run.stderr)
            print(f"FAIL: {' '.join(cmd)} exited with {run.returncode}")
            return 1
        runs[writer] = out / writer

    failures = []
    for writer, directory in runs.items():
        config = json.loads((directory / "run.json").read_text())["config"]
        if config["output"]["snapshot_writer"] != writer:
            failures.append(f"run.json of the {writer} run says {config['output']['snapshot_writer']}")
    collective = sorted(runs["collective"].glob("wavefield_*.h5"))
    direct = sorted(runs["io-threads"].glob("wavefield_*.h5"))
    if not collective or [p.name for p in collective] != [p.name for p in direct]:
        failures.append(f"snapshots differ: {[p.name for p in collective]} vs {[p.name for p in direct]}")
    for c_path, d_path in zip(collective, direct):
        with h5py.File(c_path, "r") as c, h5py.File(d_path, "r") as d:
            a_c, a_d = c["wavefield"][...], d["wavefield"][...]
            bits = np.uint32 if a_c.dtype == np.float32 else np.uint64
            if a_c.shape != a_d.shape or not np.array_equal(a_c.view(bits), a_d.view(bits)):
                failures.append(f"{d_path.name}: the io-threads wavefield is not bitwise the collective one")
            if c["wavefield"].attrs["checksum"] != d["wavefield"].attrs["checksum"]:
                failures.append(f"{d_path.name}: checksum attributes differ")
            if not np.any(a_d):
                failures.append(f"{d_path.name}: the wavefield is all zero")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"{len(direct)} snapshots of the io-threads run are bitwise those of the collective run")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
