#!/usr/bin/env python3
"""A file system that refuses the run's files part way.

--mode full: snapshots and checkpoints go to a small tmpfs (mounted here, so run this in a private mount
namespace: `unshare --mount --propagation private`). With a snapshot and a checkpoint every 2 steps, the
tmpfs holds those of step 2 but not those of step 4, and the run refuses the step-4 snapshot before
writing it (the error names the space).
--mode quota: every rank runs under a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) that a snapshot
fits and a checkpoint does not, so the checkpoint of step 2 fails in the middle of its writes, as a quota
or a file system that goes away does: no free-space check can see it coming.

Either way the run must end with one error line naming the file's step, exit status 1, no signal, no
hang and no `.tmp` file left; the complete files before it must be intact (h5py reads them); run.json
must say "failed" with the message; the xmf sidecar lists only complete files.
"""
import json
import subprocess
import sys

import h5py

from io_check_support import Failures, arguments, fresh_directory, run, text_attribute, wave3d_command

FULL = {"grid": (48, 48, 48), "steps": 8}
# A snapshot of 128^3 floats is 8 MiB, a checkpoint 16 MiB; the limit lies between them and above the
# 4 MiB shared-memory segments Open MPI creates for its ranks.
QUOTA = {"grid": (128, 128, 128), "steps": 4, "limit_kib": 12 * 1024}


def settings(case):
    return [f"grid.n={','.join(map(str, case['grid']))}", f"run.steps={case['steps']}", "output.snapshot_every=2",
            "checkpoint.every=2"]


def under_file_size_limit(command, limit_kib):
    """mpiexec ... wave3d run ...: every rank started by a shell that sets the limit first."""
    program = command.index("run") - 1
    limit = f'trap "" XFSZ; ulimit -f {limit_kib}; exec "$@"'
    return command[:program] + ["bash", "-c", limit, "limited"] + command[program:]


def check_outcome(failures, code, err, run_dir, grid, refused, complete):
    """The run stopped at `refused` ("snapshot of step 4") with the files in `complete` intact."""
    errors = [line for line in err.splitlines() if line.startswith("wave3d: error")]
    failures.check(code == 1, f"exit status {code}, expected 1")
    failures.check(len(errors) == 1 and refused in errors[0], f"error lines: {errors}")
    failures.check("signal" not in err.lower() and "segmentation" not in err.lower(), "a crash on the way out")
    failures.check(not list(run_dir.glob("*.tmp")), f"temporaries left: {list(run_dir.glob('*.tmp'))}")
    for name, dataset in complete:
        path = run_dir / name
        if failures.check(path.is_file(), f"{name} is missing"):
            with h5py.File(path, "r") as f:
                failures.check(int(f.attrs["step"]) == 2 and f[dataset].shape == grid[::-1],
                               f"{name}: step {f.attrs['step']}, {dataset} {f[dataset].shape}")
                failures.check(text_attribute(f.attrs["format"]).startswith("wave3d-"), f"{name}: format")
    doc = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").is_file() else {}
    failures.check(doc.get("status") == "failed" and refused in (doc.get("failure") or {}).get("message", ""),
                   f"run.json: status {doc.get('status')!r}, failure {doc.get('failure')}")
    xmf = (run_dir / "wavefield.xmf").read_text() if (run_dir / "wavefield.xmf").is_file() else ""
    failures.check("wavefield_000002.h5" in xmf and "wavefield_000004.h5" not in xmf, "wavefield.xmf frames")


def quota(a, failures):
    code, out, err = run(under_file_size_limit(wave3d_command(a, a.ranks, settings(QUOTA), "quota"),
                                               QUOTA["limit_kib"]), timeout=120)
    print(out, err, sep="\n")
    run_dir = a.results_dir / "runs" / "quota"
    check_outcome(failures, code, err, run_dir, QUOTA["grid"], "checkpoint of step 2",
                  [("wavefield_000002.h5", "wavefield")])
    failures.check(not (run_dir / "checkpoint_000002.h5").exists(), "a step-2 checkpoint appeared")
    return failures.finish()


def main():
    ap = arguments(__doc__)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--mode", choices=["full", "quota"], required=True)
    a = ap.parse_args()
    fresh_directory(a.results_dir)
    failures = Failures()
    if a.mode == "quota":
        return quota(a, failures)
    grid = FULL["grid"]
    # One snapshot (1 field) and one checkpoint (2 fields) of 48^3 floats with their metadata fit; a
    # second snapshot does not.
    size_kib = (3 * 4 * grid[0] * grid[1] * grid[2]) // 1024 + 300
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(a.results_dir)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        failures.add(f"cannot mount a tmpfs at {a.results_dir}: {mounted.stderr.strip()}")
        return failures.finish()
    try:
        code, out, err = run(wave3d_command(a, a.ranks, settings(FULL), "full"), timeout=120)
        print(out, err, sep="\n")
        run_dir = a.results_dir / "runs" / "full"
        check_outcome(failures, code, err, run_dir, grid, "snapshot of step 4",
                      [("wavefield_000002.h5", "wavefield"), ("checkpoint_000002.h5", "current")])
        errors = [line for line in err.splitlines() if line.startswith("wave3d: error")]
        failures.check(any("free" in line for line in errors), "the error does not name the free space")
        failures.check(not (run_dir / "wavefield_000004.h5").exists(), "a step-4 snapshot appeared")
    finally:
        subprocess.run(["umount", str(a.results_dir)], capture_output=True)
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
