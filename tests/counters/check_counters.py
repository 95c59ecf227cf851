#!/usr/bin/env python3
"""Runs `wave3d run` and checks the counters it reports, on a machine with or without counters.

usage: check_counters.py --results-dir DIR --ranks N --threads T
                         (--events a,b,c | --default-events) [--unavailable NAME]... -- command...

Whatever the machine can count, the report must be consistent:
- the run succeeds and leaves one run.json with a "counters" section for every event asked for, in order;
- an event is "available" with counts or "unavailable" with a non-empty reason; each --unavailable NAME
  must be unavailable (a bogus name never stops the run);
- every unavailable event is named in exactly one "counters:" line on stderr (once for the job, not per
  rank or thread); when nothing at all can be counted, one line says so;
- each --counted NAME is available (the kernel's software events are counted on any Linux machine
  that lets a process watch itself, through PAPI or else straight through perf_event_open);
- available events: counts are integers >= 0; per rank and per thread as many entries as ranks and
  threads; a rank's total is the sum over its threads and the job's total the sum over ranks; compute +
  halo <= step for every thread (counters only grow and the regions lie inside the step); per_step and
  per_second are the total over the steps and the seconds; counted_by names PAPI or perf_event_open;
  perf::TASK-CLOCK, where counted, is > 0 and at most the loop's time on every thread;
- the summary on stdout has the counters block, and its DRAM line either gives a measured bandwidth
  (run.json dram available, bytes >= 0) or says the counters are not exposed, or not measured when no
  counter library works (run.json gives the reason and no bandwidth).
"""
import argparse
import json
import math
import pathlib
import re
import subprocess
import sys

REGIONS = ("compute", "halo", "step")
DEFAULT_EVENTS = ["PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L3_TCM", "perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES",
                  "perf::CPU-MIGRATIONS", "perf::PAGE-FAULTS"]


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def check_available(e, c, ranks, threads, fail):
    name = e["name"]
    if e["reason"] is not None:
        fail(f"{name}: available but has a reason")
    total = e["total"]
    if len(e["per_rank"]) != ranks:
        fail(f"{name}: {len(e['per_rank'])} ranks reported, expected {ranks}")
    summed = {r: 0 for r in REGIONS}
    for rank in e["per_rank"]:
        if len(rank["per_thread"]) != threads:
            fail(f"{name}: rank {rank['rank']} reports {len(rank['per_thread'])} threads, expected {threads}")
        rank_sum = {r: 0 for r in REGIONS}
        for t, counts in enumerate(rank["per_thread"]):
            for r in REGIONS:
                v = counts[r]
                if not isinstance(v, int) or v < 0:
                    fail(f"{name}: rank {rank['rank']} thread {t} {r} = {v!r}, expected an integer >= 0")
                rank_sum[r] += v
            if counts["compute"] + counts["halo"] > counts["step"]:
                fail(f"{name}: rank {rank['rank']} thread {t}: compute + halo > step: {counts}")
        for r in REGIONS:
            if rank["total"][r] != rank_sum[r]:
                fail(f"{name}: rank {rank['rank']} total {r} {rank['total'][r]} != sum over threads {rank_sum[r]}")
            summed[r] += rank_sum[r]
    for r in REGIONS:
        if total[r] != summed[r]:
            fail(f"{name}: total {r} {total[r]} != sum over ranks and threads {summed[r]}")
        if not close(e["per_step"][r], total[r] / c["steps"]):
            fail(f"{name}: per_step {r} {e['per_step'][r]} != total / steps")
        if not close(e["per_second"][r], total[r] / c["loop_s"]):
            fail(f"{name}: per_second {r} {e['per_second'][r]} != total / seconds")
    if e.get("counted_by") not in ("PAPI", "perf_event_open"):
        fail(f"{name}: counted_by = {e.get('counted_by')!r}, expected PAPI or perf_event_open")
    if name == "perf::TASK-CLOCK":
        # Nanoseconds of CPU time of the team's threads: more than none, and no thread has more CPU time
        # than the loop has wall time.
        if total["step"] <= 0:
            fail("perf::TASK-CLOCK is counted but the step took no task time")
        if total["step"] > ranks * threads * c["loop_s"] * 1e9 * 1.01:
            fail(f"perf::TASK-CLOCK: {total['step']} ns of task time in a loop of {c['loop_s']} s on "
                 f"{ranks} x {threads} threads")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results-dir", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--threads", type=int, required=True)
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--events")
    group.add_argument("--default-events", action="store_true")
    ap.add_argument("--unavailable", action="append", default=[])
    ap.add_argument("--counted", action="append", default=[],
                    help="an event that must be counted on this machine (the kernel's software events always are)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command and a.command[0] == "--" else a.command
    events = DEFAULT_EVENTS if a.default_events else a.events.split(",")

    results = pathlib.Path(a.results_dir)
    if results.exists():
        for p in sorted(results.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    failures = []
    fail = failures.append

    if proc.returncode != 0:
        fail(f"exit code {proc.returncode}, expected 0")
    runs = sorted(results.rglob("run.json")) if results.exists() else []
    notices = [line for line in proc.stderr.splitlines() if re.search(r"\bcounters: ", line)]
    if len(runs) != 1:
        fail(f"expected one run.json under {results}, found {len(runs)}")
    else:
        c = json.loads(runs[0].read_text()).get("counters")
        if c is None:
            fail("run.json has no counters section")
        else:
            if c.get("enabled") is not True:
                fail(f"counters.enabled = {c.get('enabled')!r}, expected true")
            if c["ranks"] != a.ranks or c["threads_per_rank"] != [a.threads] * a.ranks:
                fail(f"ranks {c['ranks']} x threads {c['threads_per_rank']}, expected {a.ranks} x {a.threads}")
            names = [e["name"] for e in c["events"]]
            if names != events:
                fail(f"events {names}, expected {events}")
            if c["unavailable"] is not None:
                nothing = [n for n in notices if "nothing is counted" in n]
                if len(nothing) != 1 or len(notices) != 1:
                    fail(f"nothing is counted, but stderr's counters lines are {notices}")
            for e in c["events"]:
                if e["status"] == "available":
                    check_available(e, c, a.ranks, a.threads, fail)
                elif e["status"] == "unavailable":
                    if not isinstance(e["reason"], str) or not e["reason"]:
                        fail(f"{e['name']}: unavailable without a reason")
                    if "total" in e:
                        fail(f"{e['name']}: unavailable but has totals")
                    if c["unavailable"] is None:
                        hits = [n for n in notices if re.search(rf"(: |, ){re.escape(e['name'])}(,| (is|are) )", n)]
                        if len(hits) != 1:
                            fail(f"{e['name']} is unavailable and named on {len(hits)} stderr lines, expected 1")
                else:
                    fail(f"{e['name']}: status {e['status']!r}")
            for name in a.counted:
                if not any(e["name"] == name and e["status"] == "available" for e in c["events"]):
                    fail(f"{name} should be counted (PAPI, or perf_event_open where PAPI cannot)")
            for name in a.unavailable:
                if any(e["name"] == name and e["status"] != "unavailable" for e in c["events"]):
                    fail(f"{name} should be unavailable")
            counted = [e["name"] for e in c["events"] if e["status"] == "available"]
            print(f"counted: {counted or 'nothing'}; not counted: "
                  f"{[e['name'] for e in c['events'] if e['status'] != 'available']}")
            dram = c["dram"]
            if dram["status"] == "available":
                if dram["bytes"] < 0 or not re.search(r"DRAM bandwidth: [0-9.]+ GB/s measured", proc.stdout):
                    fail(f"DRAM measured, but the summary or the bytes disagree: {dram}")
            else:
                if not dram["reason"] or "gbytes_per_second" in dram:
                    fail(f"DRAM not measured, but run.json says {dram}")
                said = "DRAM bandwidth counters: not measured ("
                if said not in proc.stdout:
                    fail(f"the summary does not say '{said}'")
            if not re.search(r"^counters: +\S", proc.stdout, re.MULTILINE):
                fail("the summary has no counters block")

    if failures:
        print("command:", " ".join(command))
        print("--- stdout\n" + proc.stdout + "--- stderr\n" + proc.stderr)
        for f in failures:
            print("FAIL:", f)
        return 1
    print(proc.stdout)
    print("--- stderr\n" + proc.stderr)
    print("passed:", " ".join(command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
