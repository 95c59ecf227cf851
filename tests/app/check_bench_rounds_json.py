#!/usr/bin/env python3
"""`wave3d bench --rounds 3 --json` on several ranks: every case is measured once per round, the second
round in reverse order; each round's speed-ups (and the triad's beside them) and layout ratios come
from that round's cases only, and "over_rounds" gives, for every case and layout, the median, least
and largest of the rounds' values; stdout has each round's header and the summary lines.

usage: check_bench_rounds_json.py --work DIR -- LAUNCHER... WAVE3D
"""
import statistics
import sys

from bench_json_support import close, run_bench

ROUNDS = 3


def check_spread(spread, values, what):
    expected = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    for key, value in expected.items():
        if not close(spread[key], value):
            sys.exit(f"FAIL: {what}: {key} {spread[key]}, expected {value} from the rounds' {values}")


def main():
    doc, proc = run_bench(["--grid", "48", "--steps", "2", "--repetitions", "2", "--threads", "1,2",
                           "--array-mib", "8", "--rounds", str(ROUNDS)])
    if doc["rounds"] != ROUNDS:
        sys.exit(f"FAIL: rounds {doc['rounds']}")
    kinds = [(1, 1), (1, 2), (2, 1)]  # ranks x threads, in the first round's order
    cases = {}
    for r in range(1, ROUNDS + 1):
        in_round = [c for c in doc["cases"] if c["round"] == r]
        if sorted((c["ranks"], c["threads_per_rank"]) for c in in_round) != sorted(kinds):
            sys.exit(f"FAIL: round {r} measured {[(c['ranks'], c['threads_per_rank']) for c in in_round]}")
        for c in in_round:
            cases[(r, c["ranks"], c["threads_per_rank"])] = c
        order = [cases[(r,) + k]["order_in_round"] for k in kinds]
        expected = [2, 1, 0] if r % 2 == 0 else [0, 1, 2]
        if order != expected:
            sys.exit(f"FAIL: round {r} measured the cases {kinds} at {order}, expected {expected}")
    rate = lambda c: c["stencil_mpoints_per_second"]["median"]
    triad = lambda c: c["triad_gbytes_per_second"]["median"]
    for r in range(1, ROUNDS + 1):
        one = cases[(r, 1, 1)]
        for k in kinds[1:]:
            c = cases[(r,) + k]
            if not close(c["speedup"], rate(c) / rate(one)):
                sys.exit(f"FAIL: round {r}, {k}: speedup {c['speedup']}, not against round {r}'s 1 x 1")
            if not close(c["triad_speedup"], triad(c) / triad(one)):
                sys.exit(f"FAIL: round {r}, {k}: the triad's speedup {c['triad_speedup']}, not against round {r}'s 1 x 1")
        layout = next(l for l in doc["layouts"] if l["round"] == r)
        if not close(layout["throughput_ratio"], rate(cases[(r, 2, 1)]) / rate(cases[(r, 1, 2)])):
            sys.exit(f"FAIL: round {r}: layout ratio {layout['throughput_ratio']}, not from round {r}'s cases")
    if len(doc["layouts"]) != ROUNDS:
        sys.exit(f"FAIL: {len(doc['layouts'])} layouts for {ROUNDS} rounds")

    over = doc["over_rounds"]
    for summary in over["cases"]:
        k = (summary["ranks"], summary["threads_per_rank"])
        per_round = [cases[(r,) + k] for r in range(1, ROUNDS + 1)]
        check_spread(summary["stencil_mpoints_per_second"], [rate(c) for c in per_round], f"{k} MPoints/s")
        check_spread(summary["fraction_of_bandwidth_bound"], [c["fraction_of_bandwidth_bound"] for c in per_round],
                     f"{k} fraction of the bound")
        check_spread(summary["speedup"], [c["speedup"] for c in per_round], f"{k} speedup")
        check_spread(summary["triad_speedup"], [c["triad_speedup"] for c in per_round], f"{k} triad's speedup")
    if sorted((s["ranks"], s["threads_per_rank"]) for s in over["cases"]) != sorted(kinds):
        sys.exit(f"FAIL: over_rounds cases {over['cases']}")
    (layout_over,) = over["layouts"]
    check_spread(layout_over["throughput_ratio"], [l["throughput_ratio"] for l in doc["layouts"]], "layout ratio")
    check_spread(layout_over["bound_fraction_ratio"], [l["bound_fraction_ratio"] for l in doc["layouts"]],
                 "layout bound ratio")

    ratio = layout_over["throughput_ratio"]
    lines = ["round 1 of 3:", "round 2 of 3 (the cases in reverse order):", "round 3 of 3:",
             "over 3 rounds (the median of the rounds' values; in parentheses the least and the largest):",
             f"layout at T = 1: 2 ranks x 1 thread reach {ratio['median']:.3f} ({ratio['min']:.3f}-{ratio['max']:.3f}) "
             "x the throughput of 1 rank x 2 threads"]
    for line in lines:
        if line not in proc.stdout:
            sys.exit(f"FAIL: no '{line}' on stdout\n{proc.stdout}")
    print(f"OK: {ROUNDS} rounds, layout ratio {ratio['median']:.3f} ({ratio['min']:.3f}-{ratio['max']:.3f})")


if __name__ == "__main__":
    main()
