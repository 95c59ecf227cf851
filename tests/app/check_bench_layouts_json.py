#!/usr/bin/env python3
"""`wave3d bench --json` on several ranks: for each --sweep-steps entry the document's "layouts" holds
the ranks against the threads as the throughput ratio and as the ratio of each case's fraction of its
own bandwidth bound, with both cases' triads and whether they agree within 10 %; the values follow
from the two cases in "cases", and stdout has the layout line and the line with the bound ratio, which
says so where the triads disagree.

usage: check_bench_layouts_json.py --work DIR -- LAUNCHER... WAVE3D
"""
import sys

from bench_json_support import close, run_bench


def main():
    doc, proc = run_bench(["--grid", "48", "--steps", "2", "--repetitions", "2", "--threads", "2",
                           "--sweep-steps", "1,2", "--array-mib", "8"])
    layouts = doc["layouts"]
    if [l["steps_per_sweep_requested"] for l in layouts] != [1, 2]:
        sys.exit(f"FAIL: layouts for {[l['steps_per_sweep_requested'] for l in layouts]}, expected [1, 2]")
    disagreeing = 0
    for layout in layouts:
        steps = layout["steps_per_sweep_requested"]
        def case(ranks, threads):
            return next(c for c in doc["cases"] if c["ranks"] == ranks and c["threads_per_rank"] == threads
                        and c["steps_per_sweep_requested"] == steps)
        ranks, threads = case(2, 1), case(1, 2)
        rate = lambda c: c["stencil_mpoints_per_second"]["median"]
        if not close(layout["throughput_ratio"], rate(ranks) / rate(threads)):
            sys.exit(f"FAIL: T = {steps}: throughput ratio {layout['throughput_ratio']}")
        fractions = ranks["fraction_of_bandwidth_bound"] / threads["fraction_of_bandwidth_bound"]
        if not close(layout["bound_fraction_ratio"], fractions):
            sys.exit(f"FAIL: T = {steps}: bound ratio {layout['bound_fraction_ratio']}, expected {fractions}")
        triad_ranks = ranks["triad_gbytes_per_second"]["median"]
        triad_threads = threads["triad_gbytes_per_second"]["median"]
        if not (close(layout["triad_across_ranks_gbytes_per_second"], triad_ranks)
                and close(layout["triad_in_one_rank_gbytes_per_second"], triad_threads)):
            sys.exit(f"FAIL: T = {steps}: triads {layout}")
        agree = abs(triad_ranks - triad_threads) <= 0.10 * triad_threads
        if layout["triads_agree"] != agree:
            sys.exit(f"FAIL: T = {steps}: triads {triad_ranks} and {triad_threads} GB/s, agree {layout['triads_agree']}")
        disagreeing += 0 if agree else 1
        # The kernel's time per level: none at one step per sweep, every level over both layouts' 2 threads at T = 2.
        for c in (ranks, threads):
            levels = c["sweep_levels"]
            if steps == 1 and levels is not None:
                sys.exit(f"FAIL: sweep levels {levels} at one step per sweep")
            if steps == 2 and (levels is None or levels["threads"] != 2 or len(levels["levels"]) != 2
                               or not levels["later_levels_mpoints_per_second"] > 0):
                sys.exit(f"FAIL: T = 2, {c['ranks']} x {c['threads_per_rank']}: sweep levels {levels}")
        line = (f"reach {layout['throughput_ratio']:.3f} x the throughput of 1 rank x 2 threads at T = {steps};")
        bound_line = f"against each layout's own bandwidth bound: {layout['bound_fraction_ratio']:.3f} (triad {triad_ranks:.2f}"
        if line not in proc.stdout or bound_line not in proc.stdout:
            sys.exit(f"FAIL: T = {steps}: no '{line}' and '{bound_line}' on stdout\n{proc.stdout}")
    said = proc.stdout.count("the triads differ by more than 10 %")
    if said != disagreeing:
        sys.exit(f"FAIL: {disagreeing} layouts whose triads disagree, {said} lines saying so\n{proc.stdout}")
    print(f"OK: {len(layouts)} layouts, {disagreeing} with the triads apart")


if __name__ == "__main__":
    main()
