#!/usr/bin/env python3
"""Runs a command inside a fresh cgroup v1 cpuset that allows only the given CPUs, as a batch system's
job container does, and removes the cpuset afterwards (also when the command fails or times out).

usage: in_cpuset.py CPUS -- command...

Needs root and a writable cpuset hierarchy at /sys/fs/cgroup/cpuset; without them it prints why and
exits 77, which the test registers as skipped, never as passed.
"""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path("/sys/fs/cgroup/cpuset")
SKIP = 77


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        sys.exit("usage: in_cpuset.py CPUS -- command...")
    cpus, command = args[0], args[2:]
    if os.geteuid() != 0 or not (ROOT / "cpuset.cpus").exists():
        print(f"skipped: needs root and a cgroup v1 cpuset hierarchy at {ROOT}")
        sys.exit(SKIP)
    group = ROOT / f"wave3d-test-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cpuset.mems").write_text((ROOT / "cpuset.mems").read_text())
        (group / "cpuset.cpus").write_text(cpus)
    except OSError as e:
        print(f"skipped: cannot create a cpuset under {ROOT}: {e}")
        if group.exists():
            group.rmdir()
        sys.exit(SKIP)
    try:
        # The child joins the cpuset before it starts the command, so every process it makes is inside.
        proc = subprocess.run(command, timeout=180,
                              preexec_fn=lambda: (group / "tasks").write_text(str(os.getpid())))
        returncode = proc.returncode
    except subprocess.TimeoutExpired:
        print("the command did not finish within 180 s")
        returncode = 1
    finally:
        group.rmdir()  # empty again: every task of the command has ended
    sys.exit(returncode)


if __name__ == "__main__":
    main()
