#!/usr/bin/env python3
"""`wave3d bench --rounds 3 --json` on several ranks: every case is measured once per round, the second
round in reverse order; each round's speed-ups (and the triad's beside them) and layout ratios come
from that round's cases only, and "over_rounds" gives, for every case and layout, the median, least
and largest of the rounds' values (of the in-cache rate and the later levels' rate too, where every
round measured them). The later rounds run what the tuner chose in round 1 for each case
(kernel, blocks, prefetch distance, T, temporal halo) and say so. stdout has each round's header and the
summary lines.

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


def check_optional_spread(spread, values, what):
    """The summary of a value some rounds may lack: a spread where every round has it, else null."""
    if all(v is not None for v in values):
        if spread is None:
            sys.exit(f"FAIL: {what}: no summary of the rounds' {values}")
        check_spread(spread, values, what)
    elif spread is not None:
        sys.exit(f"FAIL: {what}: a summary {spread} of the rounds' {values}")


def in_cache(case, key):
    return case["cache_resident"][key] if case.get("cache_resident") else None


def in_cache_rate(case):
    rate = in_cache(case, "stencil_mpoints_per_second")
    return rate["median"] if rate else None


def later_levels(case, key):
    return case["sweep_levels"][key] if case.get("sweep_levels") else None


def main():
    doc, proc = run_bench(["--grid", "48", "--steps", "2", "--repetitions", "2", "--threads", "1,2",
                           "--sweep-steps", "1,auto", "--blocking", "auto", "--tune-seconds", "0.2",
                           "--array-mib", "8", "--rounds", str(ROUNDS)])
    if doc["rounds"] != ROUNDS:
        sys.exit(f"FAIL: rounds {doc['rounds']}")
    # ranks, threads and --sweep-steps entry of each case, in the first round's order
    kinds = [(1, 1, 1), (1, 2, 1), (1, 1, "auto"), (1, 2, "auto"), (2, 1, 1), (2, 1, "auto")]
    kind = lambda c: (c["ranks"], c["threads_per_rank"], c["steps_per_sweep_requested"])
    cases = {}
    for r in range(1, ROUNDS + 1):
        in_round = [c for c in doc["cases"] if c["round"] == r]
        if sorted(map(str, map(kind, in_round))) != sorted(map(str, kinds)):
            sys.exit(f"FAIL: round {r} measured {[kind(c) for c in in_round]}")
        for c in in_round:
            cases[(r,) + kind(c)] = c
        order = [cases[(r,) + k]["order_in_round"] for k in kinds]
        expected = list(range(len(kinds)))
        if order != (expected[::-1] if r % 2 == 0 else expected):
            sys.exit(f"FAIL: round {r} measured the cases {kinds} at {order}")
    for c in doc["cases"]:
        if c["denormals"] != "flush":
            sys.exit(f"FAIL: case {kind(c)} of round {c['round']} ran with denormals {c['denormals']!r}, not 'flush'")
    # The later rounds run what the tuner chose in round 1, not tuned again.
    choice = lambda c: (c["kernel"], c["blocks"], c["prefetch_rows"], c["steps_per_sweep"], c["temporal_halo"])
    for k in kinds:
        first = cases[(1,) + k]
        if first["tuning"] is None or first["tuning"].get("source") not in ("measured", "cache"):
            sys.exit(f"FAIL: round 1, {k}: tuning {first['tuning']}")
        for r in range(2, ROUNDS + 1):
            c = cases[(r,) + k]
            if choice(c) != choice(first) or c["tuning"] != {"source": "round 1"}:
                sys.exit(f"FAIL: round {r}, {k}: ran {choice(c)} ({c['tuning']}), round 1 {choice(first)}")
    rate = lambda c: c["stencil_mpoints_per_second"]["median"]
    triad = lambda c: c["triad_gbytes_per_second"]["median"]
    for r in range(1, ROUNDS + 1):
        for k in kinds:
            c, one = cases[(r,) + k], cases[(r, 1, 1, k[2])]
            if not close(c["speedup"], rate(c) / rate(one)):
                sys.exit(f"FAIL: round {r}, {k}: speedup {c['speedup']}, not against round {r}'s 1 x 1")
            if not close(c["triad_speedup"], triad(c) / triad(one)):
                sys.exit(f"FAIL: round {r}, {k}: the triad's speedup {c['triad_speedup']}, not against round {r}'s 1 x 1")
        for steps in (1, "auto"):
            layout = next(l for l in doc["layouts"] if l["round"] == r and l["steps_per_sweep_requested"] == steps)
            if not close(layout["throughput_ratio"], rate(cases[(r, 2, 1, steps)]) / rate(cases[(r, 1, 2, steps)])):
                sys.exit(f"FAIL: round {r}, T = {steps}: layout ratio {layout['throughput_ratio']}, not from round {r}'s cases")
    if len(doc["layouts"]) != 2 * ROUNDS:
        sys.exit(f"FAIL: {len(doc['layouts'])} layouts for {ROUNDS} rounds of 2 entries")

    over = doc["over_rounds"]
    for summary in over["cases"]:
        k = kind(summary)
        per_round = [cases[(r,) + k] for r in range(1, ROUNDS + 1)]
        check_spread(summary["stencil_mpoints_per_second"], [rate(c) for c in per_round], f"{k} MPoints/s")
        check_spread(summary["fraction_of_bandwidth_bound"], [c["fraction_of_bandwidth_bound"] for c in per_round],
                     f"{k} fraction of the bound")
        check_spread(summary["speedup"], [c["speedup"] for c in per_round], f"{k} speedup")
        check_spread(summary["triad_speedup"], [c["triad_speedup"] for c in per_round], f"{k} triad's speedup")
        check_optional_spread(summary["cache_resident_mpoints_per_second"],
                              [in_cache_rate(c) for c in per_round], f"{k} in-cache MPoints/s")
        check_optional_spread(summary["cache_resident_fraction_of_bandwidth_bound"],
                              [in_cache(c, "fraction_of_bandwidth_bound") for c in per_round], f"{k} in-cache fraction")
        check_optional_spread(summary["later_levels_mpoints_per_second"],
                              [later_levels(c, "later_levels_mpoints_per_second") for c in per_round],
                              f"{k} later levels' MPoints/s")
        check_optional_spread(summary["later_levels_fraction_of_bandwidth_bound"],
                              [later_levels(c, "later_levels_fraction_of_bandwidth_bound") for c in per_round],
                              f"{k} later levels' fraction")
        if k[2] == 1 and summary["later_levels_mpoints_per_second"] is not None:
            sys.exit(f"FAIL: {k}: later levels at one step per sweep")
    if [kind(s) for s in over["cases"]] != kinds:
        sys.exit(f"FAIL: over_rounds cases {over['cases']}")
    for layout_over in over["layouts"]:
        steps = layout_over["steps_per_sweep_requested"]
        per_round = [l for l in doc["layouts"] if l["steps_per_sweep_requested"] == steps]
        check_spread(layout_over["throughput_ratio"], [l["throughput_ratio"] for l in per_round], f"T = {steps} ratio")
        check_spread(layout_over["bound_fraction_ratio"], [l["bound_fraction_ratio"] for l in per_round],
                     f"T = {steps} bound ratio")

    ratio = over["layouts"][0]["throughput_ratio"]
    lines = ["round 1 of 3:", "round 2 of 3 (the cases in reverse order):", "round 3 of 3:",
             "(tuning: as chosen in round 1, not tuned again)",
             "over 3 rounds (the median of the rounds' values; in parentheses the least and the largest):",
             f"layout at T = 1: 2 ranks x 1 thread reach {ratio['median']:.3f} ({ratio['min']:.3f}-{ratio['max']:.3f}) "
             "x the throughput of 1 rank x 2 threads"]
    for line in lines:
        if line not in proc.stdout:
            sys.exit(f"FAIL: no '{line}' on stdout\n{proc.stdout}")
    # Under the summary line of a case, its in-cache rate and its later levels' rate where it has them.
    summary_lines = proc.stdout[proc.stdout.index("over 3 rounds"):].splitlines()
    for key, text in (("cache_resident_mpoints_per_second", "in cache: "),
                      ("later_levels_mpoints_per_second", "levels after the first: ")):
        expected = sum(s[key] is not None for s in over["cases"])
        printed = sum(l.strip().startswith(text) for l in summary_lines)
        if printed != expected:
            sys.exit(f"FAIL: {printed} summary lines '{text}', {expected} cases have it\n{proc.stdout}")
    # One memory line per case, over the rounds.
    memory = [l for l in proc.stdout.splitlines() if l.startswith("memory ")]
    if len(memory) != len(kinds) or not all(l.endswith(f" in {ROUNDS} rounds") or "unavailable" in l for l in memory):
        sys.exit(f"FAIL: memory lines {memory}")
    print(f"OK: {ROUNDS} rounds, layout ratio at T = 1 {ratio['median']:.3f} ({ratio['min']:.3f}-{ratio['max']:.3f})")


if __name__ == "__main__":
    main()
