#!/usr/bin/env python3
"""compare_yask.py end to end with the real wave3d and a stand-in for YASK's kernel binary (which is not
installed here): a script that answers YASK's options with YASK's output lines and records how it was
called. Checks the rounds (triad, YASK, wave3d, triad), the blocks YASK's tuner chose being the ones the
rounds run, wave3d's grid of the same points, the table and JSON, both codes' temporal blocking where
asked for (YASK's wave-front options, wave3d's blocking.steps), and the errors: exit 2 for an option
naming what is not there, exit 1 naming the log for a process that fails or a YASK built for another case.

  check_compare_yask.py --wave3d BIN --work DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "python" / "tools" / "compare_yask.py"

# A stand-in for bin/yask_kernel.iso3dfd.avx512.exe: the lines compare_yask.py reads, its argv appended
# to calls.jsonl beside it. FAKE_YASK_RADIUS changes the radius it claims; FAKE_YASK_EXIT makes it fail.
FAKE_YASK = r'''#!PYTHON
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "calls.jsonl"), "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
if os.environ.get("FAKE_YASK_EXIT"):
    print("YASK error: something went wrong")
    sys.exit(int(os.environ["FAKE_YASK_EXIT"]))
print(" stencil-description:    iso3dfd radius " + os.environ.get("FAKE_YASK_RADIUS", "2"))
print(" element-size:           4B")
print(" vector-size:            x=4 * y=4 * z=1")
if "-pre_auto_tune" in sys.argv:
    print(" auto-tuner: block-size:             t=0 * x=24 * y=4 * z=16")
    print(" auto-tuner: block-size:             t=0 * x=16 * y=8 * z=12")
print(" mid-throughput (num-points/sec):  1.5G")
'''


def compare(work, wave3d, yask, *extra, env=None):
    args = [sys.executable, str(TOOL), "--yask-binary", str(yask), "--wave3d", wave3d, "--grid", "16", "--radius", "2",
            "--threads", "2", "--steps", "2", "--tune-seconds", "0.05", "--array-mib", "16", "--work-dir", str(work),
            *extra]
    return subprocess.run(args, capture_output=True, text=True, timeout=240, env=dict(os.environ, **(env or {})))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wave3d", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    bin_dir = work / "yask" / "bin"
    bin_dir.mkdir(parents=True)
    yask = bin_dir / "yask_kernel.iso3dfd.avx512.exe"
    yask.write_text(FAKE_YASK.replace("PYTHON", sys.executable))
    yask.chmod(0o755)
    problems = []

    def expect(condition, what):
        if not condition:
            problems.append(what)

    done = compare(work / "ok", args.wave3d, yask, "--rounds", "2", "--json", str(work / "c.json"))
    expect(done.returncode == 0, f"exit {done.returncode}, not 0:\n{done.stdout}\n{done.stderr}")
    if done.returncode == 0:
        doc = json.loads((work / "c.json").read_text())
        expect((doc["format"], doc["format_version"]) == ("wave3d-yask-comparison", 1), f"header {doc['format']}")
        expect(doc["case"]["yask_blocks"] == [16, 8, 12] and doc["case"]["yask_blocks_from"] == "its auto-tuner",
               f"YASK's blocks {doc['case']['yask_blocks']} from {doc['case']['yask_blocks_from']}, not its "
               "tuner's last")
        expect(doc["case"]["yask_arch"] == "avx512", f"arch {doc['case']['yask_arch']}")
        expect(doc["case"]["yask_fold"] == [4, 4, 1], f"YASK's fold {doc['case']['yask_fold']}, not [4, 4, 1]")
        expect("vectors of 4 x 4 x 1 points (x, y, z; YASK's z is wave3d's unit-stride x)" in done.stdout,
               f"the table's header names no fold:\n{done.stdout}")
        expect(len(doc["rounds"]) == 2, f"{len(doc['rounds'])} rounds, not 2")
        for i, r in enumerate(doc["rounds"], 1):
            expect(r["yask_mpoints_per_second"] == 1500.0, f"round {i}: YASK {r['yask_mpoints_per_second']}, not 1500")
            expect(r["wave3d_mpoints_per_second"] > 0 and r["triad_before_gbytes_per_second"] > 0,
                   f"round {i}: no rate measured: {r}")
            bound = (r["triad_before_gbytes_per_second"] + r["triad_after_gbytes_per_second"]) / 2 * 1e3 / 16
            expect(abs(r["bound_mpoints_per_second"] - bound) < 1e-6 * bound and r["bytes_per_point"] == 16,
                   f"round {i}: bound {r['bound_mpoints_per_second']}, not the mean triad / 16 B")
            run = json.loads((work / "ok" / "runs" / f"round-{i}" / "run.json").read_text())
            expect(run["config"]["grid"]["n"] == [20, 20, 20] and run["config"]["grid"]["boundary"] == "zero",
                   f"round {i}: wave3d ran {run['config']['grid']}, not 16 + 2R points with the zero boundary")
            tuned = (work / "ok" / "wave3d-tune.log").read_text()
            size = [int(v) for v in re.search(r"^size = \[(\d+), (\d+), (\d+)\]$", tuned, re.M).groups()]
            expect(run["kernel"]["blocks"] == size and run["kernel"]["tuning"]["source"] == "given",
                   f"round {i}: wave3d ran blocks {run['kernel']['blocks']} ({run['kernel']['tuning']['source']}), "
                   f"not the {size} wave3d tune printed")
            expect(r["wave3d_prefetch_rows"] == run["kernel"]["prefetch_rows"],
                   f"round {i}: prefetch rows {r['wave3d_prefetch_rows']}, run.json {run['kernel']['prefetch_rows']}")
        expect("median" in done.stdout and "wave3d/YASK" in done.stdout, f"no table:\n{done.stdout}")
        calls = [json.loads(line) for line in (bin_dir / "calls.jsonl").read_text().splitlines()]
        expect(len(calls) == 3, f"YASK ran {len(calls)} times, not 3 (its tuner, 2 rounds): {calls}")
        expect("-pre_auto_tune" in calls[0], f"YASK's first run was not its tuner's: {calls[0]}")
        for call in calls[1:]:
            text = " ".join(call)
            expect("-bx 16 -by 8 -bz 12" in text and "-no-auto_tune" in text and "-max_threads 2" in text
                   and "-g 16" in text, f"a round's YASK run was {text}")
        expect(all((work / "ok" / f"triad-{i}-{when}.json").is_file() for i in (1, 2) for when in ("before", "after")),
               "a triad measurement is missing from the work directory")
        triad_log = (work / "ok" / "triad-1-before.log").read_text()
        expect("16 MiB each" in triad_log, f"the triad did not run on the 16 MiB arrays asked for:\n{triad_log}")

    # Both codes with temporal blocking: YASK's wave-front options in its tuner's run and every round's,
    # wave3d's steps per sweep in its tuning and runs.
    temporal = compare(work / "temporal", args.wave3d, yask, "--rounds", "1", "--yask-wavefront", "4,8,8",
                       "--sweep-steps", "2", "--json", str(work / "t.json"))
    expect(temporal.returncode == 0, f"temporal: exit {temporal.returncode}:\n{temporal.stdout}\n{temporal.stderr}")
    if temporal.returncode == 0:
        doc = json.loads((work / "t.json").read_text())
        expect(doc["case"]["yask_wavefront"] == [4, 8, 8] and doc["case"]["wave3d_sweep_steps"] == "2",
               f"temporal: case {doc['case']}")
        calls = [json.loads(line) for line in (bin_dir / "calls.jsonl").read_text().splitlines()][-2:]
        for call in calls:
            expect("-Mbt 4 -Mbx 8 -Mby 8" in " ".join(call), f"temporal: a YASK run without its wave front: {call}")
        run = json.loads((work / "temporal" / "runs" / "round-1" / "run.json").read_text())
        expect(run["config"]["blocking"]["steps"] == 2 and doc["rounds"][0]["wave3d_steps_per_sweep"] == 2,
               f"temporal: wave3d ran blocking.steps {run['config']['blocking']['steps']}, "
               f"T {doc['rounds'][0]['wave3d_steps_per_sweep']}, not 2")
        expect("wave-front tiling of 4 steps over mega-blocks of 8x8 whole rows" in temporal.stdout
               and "blocking.steps 2" in temporal.stdout, f"temporal: the table's header:\n{temporal.stdout}")

    for option, value in (("--yask-wavefront", "1,8,8"), ("--yask-wavefront", "4,8"), ("--sweep-steps", "0")):
        bad = compare(work / "bad", args.wave3d, yask, option, value)
        expect(bad.returncode == 2 and option in bad.stderr, f"{option} {value}: exit {bad.returncode}, {bad.stderr!r}")
    bad = compare(work / "bad", args.wave3d, work / "no-such-yask")
    expect(bad.returncode == 2 and "--yask-binary" in bad.stderr, f"a missing --yask-binary: exit {bad.returncode}, "
           f"{bad.stderr!r}")
    bad = compare(work / "bad", args.wave3d, yask, "--yask-blocks", "16,8")
    expect(bad.returncode == 2 and "--yask-blocks" in bad.stderr,
           f"--yask-blocks 16,8: exit {bad.returncode}, {bad.stderr!r}")
    bad = subprocess.run([sys.executable, str(TOOL), "--yask", str(work), "--wave3d", args.wave3d, "--work-dir",
                          str(work / "bad")], capture_output=True, text=True, timeout=60)
    expect(bad.returncode == 2 and "not a YASK checkout" in bad.stderr,
           f"--yask of a non-checkout: exit {bad.returncode}, {bad.stderr!r}")
    bad = compare(work / "bad", args.wave3d, yask, "--yask-fold", "1,1,16")
    expect(bad.returncode == 2 and "--yask-fold" in bad.stderr and "--yask-binary" in bad.stderr,
           f"--yask-fold with a built binary: exit {bad.returncode}, {bad.stderr!r}")
    # A fold whose points fill no vector is refused before anything is built (27 lanes: no target has them).
    checkout = work / "checkout"
    (checkout / "src" / "stencils").mkdir(parents=True)
    bad = subprocess.run([sys.executable, str(TOOL), "--yask", str(checkout), "--yask-fold", "3,3,3", "--wave3d",
                          args.wave3d, "--work-dir", str(work / "bad")], capture_output=True, text=True, timeout=60)
    expect(bad.returncode == 2 and "--yask-fold 3,3,3: x * y * z must be" in bad.stderr,
           f"--yask-fold 3,3,3: exit {bad.returncode}, {bad.stderr!r}")
    other = compare(work / "other", args.wave3d, yask, "--yask-blocks", "16,8,12", "--rounds", "1",
                    env={"FAKE_YASK_RADIUS": "8"})
    expect(other.returncode == 1 and "not radius 2" in other.stderr,
           f"a YASK of radius 8 for --radius 2: exit {other.returncode}, {other.stderr!r}")
    failing = compare(work / "failing", args.wave3d, yask, env={"FAKE_YASK_EXIT": "3"})
    expect(failing.returncode == 1 and "exit status 3" in failing.stderr and "yask-tune.log" in failing.stderr
           and "something went wrong" in failing.stderr,
           f"a failing YASK: exit {failing.returncode}, {failing.stderr!r}")

    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        sys.exit(1)
    print("PASS: rounds, tuned blocks, same points, table and JSON; exit 2 for bad options, 1 for failing processes")


if __name__ == "__main__":
    main()
