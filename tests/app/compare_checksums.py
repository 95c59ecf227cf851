#!/usr/bin/env python3
"""Runs wave3d commands that must all produce the same field and compares the checksums in their run.json.

usage: compare_checksums.py RESULTS_DIR -- command A ... -- command B ... [-- command C ...]
Each command gets --set output.directory=RESULTS_DIR/a (or /b, /c, ...) appended; every checksum must
equal the first command's.
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
    return json.loads(run_json.read_text())["checksum"]


def main():
    args = sys.argv[1:]
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
    for i, command in enumerate(commands):
        name = chr(ord("a") + i)
        checksums.append(run(command, results / name))
        print(f"checksum {name.upper()} {checksums[-1]}  {' '.join(command[-12:])}")
    differing = [chr(ord("A") + i) for i, c in enumerate(checksums) if c != checksums[0]]
    if differing:
        print(f"FAIL: run(s) {', '.join(differing)} produced a different field from run A")
        return 1
    print(f"passed: {len(checksums)} bitwise identical fields")
    return 0


if __name__ == "__main__":
    sys.exit(main())
