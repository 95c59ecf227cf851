"""What the checks of `wave3d bench --json` on several ranks share: the command line (--work DIR --
LAUNCHER... WAVE3D), one bench run with its JSON document, and comparing the values it derives."""
import argparse
import json
import pathlib
import subprocess
import sys


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def run_bench(bench_args, timeout=200):
    """Runs LAUNCHER... WAVE3D bench `bench_args` --json FILE; returns the document and the process (exits
    with FAIL where the bench fails)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    out = work / "bench.json"
    cmd = command + ["bench"] + bench_args + ["--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return json.loads(out.read_text()), proc
