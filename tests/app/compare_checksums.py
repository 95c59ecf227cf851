#!/usr/bin/env python3
"""Runs wave3d commands that must all produce the same field and compares the checksums in their run.json.

usage: compare_checksums.py [--require-sweeps] [--require-folded-route=ROUTE] RESULTS_DIR -- command A ... -- command B ... [-- command C ...]
Each command gets --set output.directory=RESULTS_DIR/a (or /b, /c, ...) appended; every checksum must
equal the first command's. With --require-sweeps, every command that sets blocking.steps=T must also
have run sweeps of T steps (run.json kernel.steps_per_sweep), not fallen back to single steps. With
--require-folded-route=ROUTE, every command that sets stencil.kernel=folded must have reached its halo
that way (run.json decomposition.halo_route: "folded" or "copied").
"""
import json
import pathlib
import shutil
import subprocess
import sys


def run(command, directory):
    shutil.rmtree(directory, ignore_errors=True)
    proc = subprocess.run(command + ["--set", f"output.directory={directory}"], capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        print("command failed:", " ".join(command), "\n", proc.stdout, proc.stderr)
        sys.exit(1)
    (run_json,) = pathlib.Path(directory).rglob("run.json")
    return json.loads(run_json.read_text())


def setting(command, key):
    """The value a command sets for `key` (as in --set key=value), or None."""
    for a in command:
        if a.startswith(key + "="):
            return a.split("=", 1)[1]
    return None


def steps_asked(command):
    """The blocking.steps a command sets, or None."""
    steps = setting(command, "blocking.steps")
    return int(steps) if steps is not None else None


def main():
    args = sys.argv[1:]
    require_sweeps = False
    folded_route = None
    while args and args[0].startswith("--require-"):
        if args[0] == "--require-sweeps":
            require_sweeps = True
        elif args[0].startswith("--require-folded-route="):
            folded_route = args[0].split("=", 1)[1]
        else:
            print(__doc__)
            return 2
        args = args[1:]
    if len(args) < 2 or args[1] != "--":
        print(__doc__)
        return 2
    results = pathlib.Path(args[0])
    commands = [[]]
    for a in args[2:]:
        if a == "--":
            commands.append([])
        else:
            commands[-1].append(a)
    if len(commands) < 2 or any(not c for c in commands):
        print(__doc__)
        return 2
    checksums = []
    fell_back = []
    off_route = []
    for i, command in enumerate(commands):
        name = chr(ord("a") + i)
        record = run(command, results / name)
        checksums.append(record["checksum"])
        swept = record["kernel"]["steps_per_sweep"]
        print(f"checksum {name.upper()} {checksums[-1]}  T = {swept}  {' '.join(command[-12:])}")
        asked = steps_asked(command)
        if require_sweeps and asked is not None and swept != asked:
            fell_back.append(f"{name.upper()} (asked for {asked} steps per sweep, ran {swept})")
        route = record["decomposition"]["halo_route"]
        if folded_route is not None and setting(command, "stencil.kernel") == "folded" and route != folded_route:
            off_route.append(f"{name.upper()} (halo route {route}, not {folded_route})")
    if off_route:
        print(f"FAIL: run(s) {', '.join(off_route)}")
        return 1
    if fell_back:
        print(f"FAIL: run(s) {', '.join(fell_back)} did not sweep as asked")
        return 1
    differing = [chr(ord("A") + i) for i, c in enumerate(checksums) if c != checksums[0]]
    if differing:
        print(f"FAIL: run(s) {', '.join(differing)} produced a different field from run A")
        return 1
    print(f"passed: {len(checksums)} bitwise identical fields")
    return 0


if __name__ == "__main__":
    sys.exit(main())
