"""Shared by the study runner's tests: calling jobscripts/wave3d-study and checking what it says."""
import os
import subprocess
import sys
from pathlib import Path

import tomli_w  # Debian: python3-tomli-w


class TestFailure(Exception):
    pass


def expect(condition, what):
    if not condition:
        raise TestFailure(what)
    print(f"ok: {what}", flush=True)


def main_guard(body):
    try:
        body()
    except TestFailure as e:
        print(f"FAIL: {e}", flush=True)
        sys.exit(1)
    print("PASS")


def write_toml(path, data):
    Path(path).write_text(tomli_w.dumps(data))


def mpi_environment(extra=None):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    for name in ("WAVE3D_RESULTS", "SLURM_JOB_ID", "PBS_JOBID"):
        env.pop(name, None)
    env.update(extra or {})
    return env


def study_runner(args, study, *options, env=None, timeout=600):
    """jobscripts/wave3d-study run --local ... STUDY, with the binaries under test."""
    command = [sys.executable, str(Path(args.root) / "jobscripts/wave3d-study"), "run", "--local",
               "--wave3d", args.wave3d, "--noise", args.noise, *options, "--", str(study)]
    return subprocess.run(command, capture_output=True, text=True, env=env or mpi_environment(), timeout=timeout)
