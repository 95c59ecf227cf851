#!/usr/bin/env python3
"""A file system that fills up during a run: snapshots and checkpoints go to a small tmpfs (mounted
here, so run this in a private mount namespace: `unshare --mount --propagation private`).

With a snapshot and a checkpoint every 2 steps, the tmpfs holds those of step 2 but not those of step 4.
The run must end with one error line naming the snapshot of step 4 and the space, exit status 1, no
signal and no `.tmp` file left; the step-2 snapshot and checkpoint must be complete (h5py reads them,
step 2); run.json must say "failed" with the message; the xmf sidecar lists only complete files.
"""
import json
import subprocess
import sys

import h5py

from io_check_support import Failures, arguments, fresh_directory, run, text_attribute, wave3d_command

GRID = (48, 48, 48)
SETTINGS = [f"grid.n={','.join(map(str, GRID))}", "run.steps=8", "output.snapshot_every=2", "checkpoint.every=2"]


def main():
    ap = arguments(__doc__)
    ap.add_argument("--ranks", type=int, required=True)
    a = ap.parse_args()
    fresh_directory(a.results_dir)
    failures = Failures()
    # One snapshot (1 field) and one checkpoint (2 fields) of 48^3 floats with their metadata fit; a
    # second snapshot does not.
    size_kib = (3 * 4 * GRID[0] * GRID[1] * GRID[2]) // 1024 + 300
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(a.results_dir)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        failures.add(f"cannot mount a tmpfs at {a.results_dir}: {mounted.stderr.strip()}")
        return failures.finish()
    try:
        code, out, err = run(wave3d_command(a, a.ranks, SETTINGS, "full"), timeout=120)
        print(out, err, sep="\n")
        run_dir = a.results_dir / "runs" / "full"
        errors = [line for line in err.splitlines() if line.startswith("wave3d: error")]
        failures.check(code == 1, f"exit status {code}, expected 1")
        failures.check(len(errors) == 1 and "snapshot of step 4" in errors[0] and "free" in errors[0],
                       f"error lines: {errors}")
        failures.check("signal" not in err.lower() and "segmentation" not in err.lower(), "a crash on the way out")
        failures.check(not list(run_dir.glob("*.tmp")), f"temporaries left: {list(run_dir.glob('*.tmp'))}")
        for name, dataset in (("wavefield_000002.h5", "wavefield"), ("checkpoint_000002.h5", "current")):
            path = run_dir / name
            if failures.check(path.is_file(), f"{name} is missing"):
                with h5py.File(path, "r") as f:
                    failures.check(int(f.attrs["step"]) == 2 and f[dataset].shape == GRID[::-1],
                                   f"{name}: step {f.attrs['step']}, {dataset} {f[dataset].shape}")
                    failures.check(text_attribute(f.attrs["format"]).startswith("wave3d-"), f"{name}: format")
        failures.check(not (run_dir / "wavefield_000004.h5").exists(), "a step-4 snapshot appeared")
        doc = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").is_file() else {}
        failures.check(doc.get("status") == "failed" and "snapshot of step 4" in (doc.get("failure") or {}).get("message", ""),
                       f"run.json: status {doc.get('status')!r}, failure {doc.get('failure')}")
        xmf = (run_dir / "wavefield.xmf").read_text() if (run_dir / "wavefield.xmf").is_file() else ""
        failures.check("wavefield_000002.h5" in xmf and "wavefield_000004.h5" not in xmf, "wavefield.xmf frames")
    finally:
        subprocess.run(["umount", str(a.results_dir)], capture_output=True)
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
