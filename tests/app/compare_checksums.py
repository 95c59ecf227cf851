#!/usr/bin/env python3
"""Runs two wave3d commands that must produce the same field and compares the checksums in their run.json.

usage: compare_checksums.py RESULTS_DIR -- command A ... -- command B ...
Each command gets --set output.directory=RESULTS_DIR/a (or /b) appended.
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
    results = pathlib.Path(args[0])
    rest = args[1:]
    split = [i for i, a in enumerate(rest) if a == "--"]
    if len(split) != 2:
        print(__doc__)
        return 2
    first, second = rest[split[0] + 1:split[1]], rest[split[1] + 1:]
    a, b = run(first, results / "a"), run(second, results / "b")
    print(f"checksum A {a}\nchecksum B {b}")
    if a != b:
        print("FAIL: the two runs produced different fields")
        return 1
    print("passed: bitwise identical fields")
    return 0


if __name__ == "__main__":
    sys.exit(main())
