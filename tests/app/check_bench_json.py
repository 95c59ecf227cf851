#!/usr/bin/env python3
"""`wave3d bench --json`: every case carries the triad measured just before the stencil and just after
it, the bound and the fraction against each, and whether the two triads agree within 10 %; the values
follow from one another as the header says, and a row that disagrees has its line on stdout. Each
case's speed-up, and the triad's beside it, are against the case of one thread, and the row prints
both. The RSS growth over the fields is the run's own, without the triad's arrays. Where the LLC's size
is known, each case is measured again on the largest grid (a multiple of 16, at most the bench's) whose
fields fit in half of it, and the row's line gives that rate. A case of T > 1 gives the kernel's time
per point of each level of its sweeps, and the rates of the first and the later levels on its threads.

usage: check_bench_json.py --wave3d BIN --work DIR
"""
import argparse
import json
import pathlib
import subprocess
import sys


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def check_cache_resident(doc, stdout):
    llc = doc["last_level_cache_bytes"]
    radius, grid = doc["radius"], doc["grid"]
    fields = lambda edge: 3 * 4 * (edge + 2 * radius) ** 3  # single precision, halos of R
    for c in doc["cases"]:
        in_cache = c["cache_resident"]
        if llc is None:
            if in_cache is not None or "in cache: not measured (the LLC's size is unknown here)" not in stdout:
                sys.exit(f"FAIL: LLC unknown, yet an in-cache rate {in_cache} or no line saying why not\n{stdout}")
            continue
        edge = in_cache["grid"]
        if not (edge <= grid and (edge == grid or edge % 16 == 0) and fields(edge) <= llc / 2):
            sys.exit(f"FAIL: in-cache grid {edge}^3 ({fields(edge)} B of fields) for a {grid}^3 bench, LLC {llc} B")
        if edge < grid and fields(edge + 16) <= llc / 2:
            sys.exit(f"FAIL: in-cache grid {edge}^3, though {edge + 16}^3 fits in half the LLC of {llc} B")
        rate = in_cache["stencil_mpoints_per_second"]
        if not 0 < rate["min"] <= rate["median"] <= rate["max"]:
            sys.exit(f"FAIL: in-cache rates {rate}")
        if not close(in_cache["fraction_of_bandwidth_bound"], rate["median"] / c["bandwidth_bound_mpoints_per_second"]):
            sys.exit(f"FAIL: in-cache fraction {in_cache['fraction_of_bandwidth_bound']} of the bound")
        if not close(in_cache["case_fraction_of_cache_resident"], c["stencil_mpoints_per_second"]["median"] / rate["median"]):
            sys.exit(f"FAIL: the case's fraction of its in-cache rate {in_cache['case_fraction_of_cache_resident']}")
        line = f"in cache: {rate['median']:.1f} MPoints/s"
        if line not in stdout:
            sys.exit(f"FAIL: no line '{line}' on stdout\n{stdout}")


def check_sweep_levels(doc, stdout):
    for c in doc["cases"]:
        levels = c["sweep_levels"]
        if c["steps_per_sweep"] == 1:
            if levels is not None:
                sys.exit(f"FAIL: sweep levels {levels} for a case of one step per sweep")
            continue
        threads = c["ranks"] * c["threads_per_rank"]
        per_level = levels["levels"]
        if levels["threads"] != threads or [l["level"] for l in per_level] != list(range(1, c["steps_per_sweep"] + 1)):
            sys.exit(f"FAIL: sweep levels {levels} for {threads} threads at T = {c['steps_per_sweep']}")
        # One rank, zero boundaries: every level of every sweep computes the same update region.
        if len({l["points"] for l in per_level}) != 1 or per_level[0]["points"] <= 0:
            sys.exit(f"FAIL: the levels computed different numbers of points: {per_level}")
        for l in per_level:
            if not (l["thread_seconds"] > 0 and close(l["ns_per_point"], 1e9 * l["thread_seconds"] / l["points"])):
                sys.exit(f"FAIL: level {l}")
        later_ns = 1e9 * sum(l["thread_seconds"] for l in per_level[1:]) / sum(l["points"] for l in per_level[1:])
        if not (close(levels["first_level_mpoints_per_second"], threads * 1e3 / per_level[0]["ns_per_point"]) and
                close(levels["later_levels_mpoints_per_second"], threads * 1e3 / later_ns)):
            sys.exit(f"FAIL: level rates {levels} from {per_level}")
        if not close(levels["later_levels_fraction_of_bandwidth_bound"],
                     levels["later_levels_mpoints_per_second"] / c["bandwidth_bound_mpoints_per_second"]):
            sys.exit(f"FAIL: the later levels' fraction of the bound {levels}")
        line = f"levels: kernel time per point on one thread: level 1 {per_level[0]['ns_per_point']:.2f} ns"
        if line not in stdout:
            sys.exit(f"FAIL: no line '{line}' on stdout\n{stdout}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wave3d", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    out = work / "bench.json"
    # Arrays of 32 MiB: by default the triad's arrays are 4x the LLC (test_stream checks that rule), on a
    # node with a 480 MiB L3 three arrays of 1.9 GiB, measured twice per case, for minutes under the
    # sanitizers.
    cmd = [args.wave3d, "bench", "--grid", "48", "--steps", "2", "--repetitions", "2", "--threads", "1,2",
           "--sweep-steps", "2", "--array-mib", "32", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    doc = json.loads(out.read_text())
    cases = doc["cases"]
    if len(cases) != 2:
        sys.exit(f"FAIL: {len(cases)} cases, expected 2")
    if doc["triad_array_bytes"] != 32 << 20:
        sys.exit(f"FAIL: triad arrays of {doc['triad_array_bytes']} B, not the 32 MiB asked for")
    moved_lines = proc.stdout.count("memory bandwidth moved during this case")
    moved_cases = 0
    for c in cases:
        before = c["triad_gbytes_per_second"]["median"]
        after = c["triad_after_gbytes_per_second"]["median"]
        stencil = c["stencil_mpoints_per_second"]["median"]
        bound_after = c["bandwidth_bound_after_mpoints_per_second"]
        if not (before > 0 and after > 0):
            sys.exit(f"FAIL: triad before {before}, after {after} GB/s")
        if not close(bound_after, after * 1e3 / c["bytes_per_point"]):
            sys.exit(f"FAIL: bound after {bound_after} is not {after} GB/s / {c['bytes_per_point']} B per point")
        if not close(c["fraction_of_bandwidth_bound_after"], stencil / bound_after):
            sys.exit(f"FAIL: fraction after {c['fraction_of_bandwidth_bound_after']} is not {stencil} / {bound_after}")
        agree = abs(after - before) <= 0.10 * before
        if c["triad_before_and_after_agree"] != agree:
            sys.exit(f"FAIL: triads {before} and {after} GB/s reported as agreeing: {c['triad_before_and_after_agree']}")
        moved_cases += 0 if agree else 1
    for c in cases:
        one = next(o for o in cases if o["threads_per_rank"] == 1 and o["steps_per_sweep"] == c["steps_per_sweep"])
        speedup = c["stencil_mpoints_per_second"]["median"] / one["stencil_mpoints_per_second"]["median"]
        triad = c["triad_gbytes_per_second"]["median"] / one["triad_gbytes_per_second"]["median"]
        if not (close(c["speedup"], speedup) and close(c["triad_speedup"], triad)):
            sys.exit(f"FAIL: speed-up {c['speedup']} and triad's {c['triad_speedup']}, expected {speedup} and {triad}")
        row = f" {speedup:.2f} ({triad:.2f}) "
        if row not in proc.stdout:
            sys.exit(f"FAIL: no row with the speed-up{row}on stdout\n{proc.stdout}")
    # The peak RSS is the run's: the fields and what the run allocates besides them (a few MiB more
    # under the sanitizers' allocator), not the STREAM arrays the triad uses before the first step and
    # frees (at least 64 MiB each against 3 MiB of fields here: a growth above 20).
    for c in cases:
        growth = c["rss_growth_over_fields"]
        if growth is not None and not growth < 10.0:
            sys.exit(f"FAIL: RSS grew by {growth} x the fields in the {c['threads_per_rank']}-thread case: "
                     "the triad's arrays counted as the run's")
        if growth is not None and f"RSS grew by {growth:.3f} x" not in proc.stdout:
            sys.exit(f"FAIL: no memory line with the RSS growth {growth:.3f} on stdout\n{proc.stdout}")
    check_cache_resident(doc, proc.stdout)
    check_sweep_levels(doc, proc.stdout)
    if moved_lines != moved_cases:
        sys.exit(f"FAIL: {moved_cases} cases whose triads disagree, {moved_lines} lines saying so\n{proc.stdout}")
    print(f"OK: {len(cases)} cases, {moved_cases} with the memory's pace moved")


if __name__ == "__main__":
    main()
