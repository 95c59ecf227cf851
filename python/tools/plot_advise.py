#!/usr/bin/env python3
"""Draws the curves of `wave3d advise` (its JSON) to a PNG: for each NUMA domain, STREAM triad (GB/s,
left axis) and the stencil (MPoints/s, right axis) against the thread count, the saturation point of
each curve marked, the compute cores and the surplus cores shaded apart.

usage: plot_advise.py ADVISE_JSON OUTPUT_PNG

Exit status 0 when the PNG was written; 2 for a bad input file; 3 when matplotlib is not available.
"""
import json
import math
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # python/: the wave3d package
from wave3d import files  # noqa: E402
from wave3d.analysis.pyplot import load_pyplot  # noqa: E402


TRIAD_COLOUR = "tab:blue"
STENCIL_COLOUR = "tab:red"


def draw_curve(ax, curve, saturation, colour, label):
    points = curve["points"]
    threads = [p["threads"] for p in points]
    values = [p["value"] for p in points]
    ax.plot(threads, values, "o-", color=colour, label=label)
    lows = [p.get("low") for p in points]
    highs = [p.get("high") for p in points]
    if all(v is not None for v in lows + highs):
        ax.fill_between(threads, lows, highs, color=colour, alpha=0.15, linewidth=0)
    if saturation:
        ax.plot([saturation["threads"]], [saturation["value"]], marker="*", markersize=16, color=colour,
                markeredgecolor="black", linestyle="none",
                label=f"{label.split(' ')[0]} saturation point")
        ax.axhline((1 - saturation["tolerance"]) * saturation["best_value"], color=colour, linestyle=":",
                   linewidth=0.8)
    ax.set_ylim(bottom=0)
    ax.tick_params(axis="y", colors=colour)


def draw_domain(ax, domain, name):
    curves = domain["curves"]
    saturation = domain["saturation"]
    cores = len(domain["cores"])
    compute = domain["compute_cores"]
    ax.axvspan(0.5, compute + 0.5, color="tab:green", alpha=0.08, label="compute cores")
    if compute < cores:
        ax.axvspan(compute + 0.5, cores + 0.5, color="tab:grey", alpha=0.15, label="surplus cores")
    if "triad" in curves:
        draw_curve(ax, curves["triad"], saturation.get("triad"), TRIAD_COLOUR,
                   f"triad {curves['triad'].get('unit', '')}")
        ax.set_ylabel(f"STREAM triad {curves['triad'].get('unit', '')}", color=TRIAD_COLOUR)
    other = ax
    if "stencil" in curves:
        other = ax.twinx() if "triad" in curves else ax
        draw_curve(other, curves["stencil"], saturation.get("stencil"), STENCIL_COLOUR,
                   f"stencil {curves['stencil'].get('unit', '')}")
        other.set_ylabel(f"stencil {curves['stencil'].get('unit', '')}", color=STENCIL_COLOUR)
    ax.set_xlim(0.5, cores + 0.5)
    ax.set_xticks(range(1, cores + 1))
    ax.set_xlabel("threads (one per core)")
    ax.set_title(f"{name}: {compute} of {cores} cores compute", fontsize="medium")
    handles = []
    for a in dict.fromkeys([ax, other]):
        handles += a.get_legend_handles_labels()[0]
    return handles


def panels(domains):
    """Domains with the same curves and the same advice share one panel: (name, domain) pairs."""
    groups = []
    for d in domains:
        key = (json.dumps(d["curves"], sort_keys=True), d["compute_cores"], len(d["cores"]))
        if groups and groups[-1][0] == key:
            groups[-1][1].append(d)
        else:
            groups.append((key, [d]))
    named = []
    for _, members in groups:
        numbers = [str(m.get("numa", "?")) for m in members]
        if len(members) == 1:
            name = f"NUMA node {numbers[0]}"
        else:
            name = f"NUMA nodes {numbers[0]}-{numbers[-1]} (the same curves)"
        named.append((name, members[0]))
    return named


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    source, target = sys.argv[1], sys.argv[2]
    try:
        with open(source) as f:
            advice = json.load(f)
        problem = files.format_problem(advice, files.ADVISE_FORMAT)
        if problem:
            raise ValueError(problem)
        domains = advice["domains"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{source}: not an advise JSON file: {e}", file=sys.stderr)
        return 2
    plt = load_pyplot()
    shown = panels(domains)
    columns = min(4, len(shown))
    rows = math.ceil(len(shown) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(max(7.0, 5.5 * columns), 4.2 * rows + 1.4), squeeze=False)
    handles = []
    for ax, (name, domain) in zip(axes.flat, shown):
        handles = draw_domain(ax, domain, name)
    for ax in list(axes.flat)[len(shown):]:
        ax.set_visible(False)
    title = advice.get("description") or advice.get("source", "")
    tolerance = 100 * advice.get("tolerance", 0.05)
    wrapped = textwrap.fill(f"wave3d advise: {title}", width=int(11 * max(7.0, 5.5 * columns)))
    fig.suptitle(f"{wrapped}\nsaturation point (*): the fewest threads within {tolerance:g} % of the curve's best "
                 f"(dotted line)", fontsize="medium")
    fig.legend(handles=handles, loc="lower center", ncol=3 if columns == 1 else 6, fontsize="small")
    fig.tight_layout(rect=(0, 0.1 if columns == 1 else 0.08, 1, 1))
    fig.savefig(target, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
