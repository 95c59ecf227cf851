#!/usr/bin/env python3
"""Bitwise decomposition invariance: the same physical run on N ranks gives the same field as on 1 rank.

usage: check_invariance.py --ranks N --mpiexec MPIEXEC --wave3d WAVE3D --results-dir DIR
                           [--timeout SECONDS] [--max-total-seconds SECONDS]

A run that does not end within --timeout seconds is killed with all its ranks and counts as hung;
no further runs are started after a hang, so a hang fails fast.

For every physical configuration below, one reference run on 1 rank (bulk halo, 1 thread, process
grid [1, 1, 1]) is compared with runs on N ranks under `mpiexec -n N --oversubscribe --bind-to none`
over a matrix of explicit process grids (uneven splits, splits along x, y and z, and [0, 0, 0] = auto).
The halo engine (bulk, overlap/none, overlap/thread, overlap/poll) and run.threads (1 or 2, with
OMP_NUM_THREADS set to match) rotate over the runs so that every rank count sees each engine.

run.json's checksum is an order-independent hash of global index + value bits, so equal checksums
mean bitwise-equal fields. Every run must exit 0, report N ranks and the requested process grid, and
match its reference; runs of the "mode" initial condition must also be VERIFIED. Prints a table and
exits 1 on any mismatch, failed or hung run (with its stderr), or unverified mode run.

As root, Open MPI needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment
(the ctest environment sets them).
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

# Physical configurations: grids with uneven extents, so most splits are uneven.
CONFIGS = {
    # A standing mode on a periodic grid: exact solution known, every run must be VERIFIED.
    "mode-r4-single": dict(condition="mode", verified=True, settings={
        "grid.n": "47,39,35", "grid.boundary": "periodic", "stencil.radius": "4",
        "stencil.precision": "single", "init.condition": "mode", "init.wave": "2,1,3", "run.steps": "12"}),
    # ISO3DFD seed cube with zero boundaries: no exact solution; the reference checksum is the check.
    "seed-r4-double": dict(condition="seed-cube", verified=False, settings={
        "grid.n": "45,41,37", "grid.boundary": "zero", "stencil.radius": "4",
        "stencil.precision": "double", "init.condition": "seed-cube", "run.steps": "10"}),
    # R = 8: halos of 8 planes; the grids stay >= 16 points per subdomain when split in two.
    "mode-r8-single": dict(condition="mode", verified=True, settings={
        "grid.n": "41,37,34", "grid.boundary": "periodic", "stencil.radius": "8",
        "stencil.precision": "single", "init.condition": "mode", "init.wave": "1,2,1", "run.steps": "8"}),
    "seed-r8-double": dict(condition="seed-cube", verified=False, settings={
        "grid.n": "40,38,36", "grid.boundary": "zero", "stencil.radius": "8",
        "stencil.precision": "double", "init.condition": "seed-cube", "run.steps": "8"}),
}

# Process grids per rank count. With R = 4: 47/8 = 5 and 35/8 = 4 (subdomains of 4 and 5 points, exactly
# the radius at the thinnest), 37/8 = 4 for the seed grid, so [8,1,1] and [1,1,8] stay >= R.
GRIDS = {
    1: [[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]],
    2: [[2, 1, 1], [1, 2, 1], [1, 1, 2], [0, 0, 0]],
    3: [[3, 1, 1], [1, 3, 1], [1, 1, 3], [0, 0, 0]],
    4: [[4, 1, 1], [1, 4, 1], [2, 2, 1], [1, 2, 2], [1, 1, 4], [0, 0, 0]],
    6: [[3, 2, 1], [1, 2, 3], [6, 1, 1], [2, 1, 3], [1, 6, 1], [0, 0, 0]],
    8: [[2, 2, 2], [8, 1, 1], [1, 2, 4], [1, 1, 8], [4, 2, 1], [0, 0, 0]],
}
# Which configurations run at which rank count (R = 8 only on 2 ranks, where it fits comfortably).
R8_GRIDS = {2: [[2, 1, 1], [1, 2, 1], [1, 1, 2]]}

# (parallel.halo, parallel.progress)
HALO_MODES = [("bulk", "none"), ("overlap", "none"), ("overlap", "thread"), ("overlap", "poll")]


def plan(ranks):
    """The list of runs for this rank count: (config name, process grid, halo mode, threads)."""
    blocks = [("mode-r4-single", GRIDS[ranks]), ("seed-r4-double", GRIDS[ranks])]
    if ranks in R8_GRIDS:
        blocks += [("mode-r8-single", R8_GRIDS[ranks]), ("seed-r8-double", R8_GRIDS[ranks])]
    runs = []
    for c, (name, grids) in enumerate(blocks):
        for k, grid in enumerate(grids):
            # The engine rotates with the grid, shifted by one per configuration, while the thread count
            # alternates with the grid: so a grid meets different engines, and an engine both thread
            # counts, across the configurations.
            halo = HALO_MODES[(k + c) % len(HALO_MODES)]
            threads = 1 + k % 2
            runs.append((name, grid, halo, threads))
    return runs


def grid_text(g):
    return "x".join(str(v) for v in g)


def run_wave3d(command, env, timeout):
    """Runs command in its own process group; on timeout kills the whole group (mpiexec and ranks)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out, err, True


def one_run(args, label, ranks, config, grid, halo, threads, out_dir):
    settings = dict(CONFIGS[config]["settings"])
    settings.update({
        "parallel.process_grid": ",".join(str(v) for v in grid),
        "parallel.halo": halo[0],
        "parallel.progress": halo[1],
        "run.threads": str(threads),
        "run.progress": "off",
        "output.steps_csv": "false",
        "output.directory": str(out_dir),
        "output.name": label,
    })
    command = [args.mpiexec, "-n", str(ranks), "--oversubscribe", "--bind-to", "none", args.wave3d, "run"]
    for k, v in settings.items():
        command += ["--set", f"{k}={v}"]
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    env["OMP_WAIT_POLICY"] = "passive"
    t0 = time.monotonic()
    code, out, err, timed_out = run_wave3d(command, env, args.timeout)
    seconds = time.monotonic() - t0

    result = dict(label=label, config=config, grid=grid, halo=halo, threads=threads, seconds=seconds,
                  command=command, stdout=out, stderr=err, problems=[], checksum=None, actual_grid=None,
                  status=None)
    problems = result["problems"]
    if timed_out:
        problems.append(f"timed out after {args.timeout} s (hang?)")
        return result
    if code != 0:
        problems.append(f"exit code {code}")
        return result
    run_json = out_dir / label / "run.json"
    if not run_json.is_file():
        problems.append(f"no {run_json}")
        return result
    doc = json.loads(run_json.read_text())
    result["checksum"] = doc.get("checksum")
    result["status"] = doc.get("verification", {}).get("status")
    actual = doc.get("decomposition", {}).get("process_grid")
    result["actual_grid"] = actual
    if result["checksum"] is None:
        problems.append("run.json has no checksum")
    if doc.get("parallel", {}).get("ranks") != ranks:
        problems.append(f"run.json parallel.ranks = {doc.get('parallel', {}).get('ranks')}, expected {ranks}")
    if not actual or len(actual) != 3 or actual[0] * actual[1] * actual[2] != ranks or any(
            g != 0 and g != a for g, a in zip(grid, actual)):
        problems.append(f"decomposition.process_grid = {actual}, requested {grid}")
    par = doc.get("config", {}).get("parallel", {})
    if par.get("halo") != halo[0] or par.get("progress") != halo[1]:
        problems.append(f"run.json config.parallel halo/progress = {par.get('halo')}/{par.get('progress')}, "
                        f"expected {halo[0]}/{halo[1]}")
    if doc.get("parallel", {}).get("threads_per_rank") not in (None, threads):
        problems.append(f"threads_per_rank = {doc['parallel']['threads_per_rank']}, expected {threads}")
    if CONFIGS[config]["verified"]:
        if result["status"] != "VERIFIED":
            problems.append(f"verification.status = {result['status']!r}, expected 'VERIFIED'")
    elif result["status"] == "FAILED":
        problems.append("verification.status = 'FAILED'")
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, required=True, choices=sorted(GRIDS))
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--wave3d", required=True)
    ap.add_argument("--results-dir", required=True)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run before it counts as hung")
    ap.add_argument("--max-total-seconds", type=float, default=0.0,
                    help="fail if all runs together take longer (0 = no limit)")
    args = ap.parse_args()
    ranks = args.ranks

    out_dir = pathlib.Path(args.results_dir).resolve() / f"np{ranks}"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)

    runs = plan(ranks)
    started = time.monotonic()
    results = []

    # References: 1 rank, bulk, 1 thread, for each configuration used at this rank count.
    references = {}
    for config in dict.fromkeys(name for name, *_ in runs):
        r = one_run(args, f"ref-{config}", 1, config, [1, 1, 1], HALO_MODES[0], 1, out_dir)
        r["reference"] = True
        references[config] = r
        results.append(r)

    hung = any(any("timed out" in p for p in r["problems"]) for r in results)
    for name, grid, halo, threads in runs:
        if hung:
            break  # fail fast: after a hang, the remaining runs would only add timeouts
        label = f"np{ranks}-{name}-{grid_text(grid)}-{halo[0]}-{halo[1]}-t{threads}"
        r = one_run(args, label, ranks, name, grid, halo, threads, out_dir)
        hung = any("timed out" in p for p in r["problems"])
        r["reference"] = False
        ref = references[name]
        if not r["problems"]:
            if ref["checksum"] is None:
                r["problems"].append("no reference checksum to compare with")
            elif r["checksum"] != ref["checksum"]:
                r["problems"].append(f"CHECKSUM MISMATCH: {r['checksum']} != reference {ref['checksum']}")
        results.append(r)
    total = time.monotonic() - started

    header = f"{'config':16} {'ranks':>5} {'grid':>7} {'used':>7} {'halo/progress':16} {'thr':>3} " \
             f"{'checksum':20} {'status':13} {'match':8} {'s':>6}"
    print(f"decomposition invariance on {ranks} rank(s): {len(runs)} runs + {len(references)} reference runs")
    print(header)
    print("-" * len(header))
    for r in results:
        n = 1 if r["reference"] else ranks
        used = grid_text(r["actual_grid"]) if r["actual_grid"] else "-"
        if r["reference"]:
            match = "ref" if not r["problems"] else "FAIL"
        else:
            match = "yes" if not r["problems"] else (
                "NO" if any("MISMATCH" in p for p in r["problems"]) else "FAIL")
        print(f"{r['config']:16} {n:>5} {grid_text(r['grid']):>7} {used:>7} {'/'.join(r['halo']):16} "
              f"{r['threads']:>3} {str(r['checksum']):20} {str(r['status']):13} {match:8} {r['seconds']:6.2f}")
    print(f"total {total:.1f} s")
    if hung:
        print(f"stopped after a hang: {len(runs) + len(references) - len(results)} planned run(s) not started")

    failed = [r for r in results if r["problems"]]
    for r in failed:
        print(f"\nFAIL: {r['label']}")
        for p in r["problems"]:
            print("  " + p)
        print("  command: " + " ".join(r["command"]))
        if r["stderr"].strip() and not any("MISMATCH" in p for p in r["problems"]):
            print("  --- stderr\n" + r["stderr"])
            if r["stdout"].strip():
                print("  --- stdout (tail)\n" + "\n".join(r["stdout"].splitlines()[-15:]))
    coverage = {h for _, _, h, _ in runs}
    if len(coverage) != len(HALO_MODES):
        print(f"\nFAIL: the plan covers only halo modes {sorted(coverage)}")
        failed.append(None)
    if args.max_total_seconds and total > args.max_total_seconds:
        print(f"\nFAIL: the runs took {total:.1f} s, more than --max-total-seconds {args.max_total_seconds}")
        failed.append(None)
    if failed:
        print(f"\n{len(failed)} problem(s)")
        return 1
    print("all checksums equal the 1-rank references")
    return 0


if __name__ == "__main__":
    sys.exit(main())
