#!/usr/bin/env python3
"""Draws `wave3d iobench` results (its JSON) to a PNG: write bandwidth (GiB/s) against the number of
I/O threads, one curve per buffer placement (on-each-node, on-one-node) and file mode (shared file,
one file per thread), best of the repetitions with the median dashed; and, when the path matrix was
measured, a second panel with the best bandwidth of each path kind (local, pull, push, relay,
round-trip). When it was not, the panel says why (on one NUMA node only the local path exists).

usage: plot_iobench.py IOBENCH_JSON OUTPUT_PNG

Exit status 0 when the PNG was written; 2 for a bad input file; 3 when matplotlib is not available.
"""
import json
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # python/: the wave3d package
from wave3d import files  # noqa: E402
from wave3d.analysis.pyplot import load_pyplot  # noqa: E402

COLOURS = {"on-each-node": "tab:blue", "on-one-node": "tab:orange"}
MARKERS = {"shared": "o", "per-thread": "s"}
KIND_ORDER = ["local", "pull", "push", "relay", "round-trip"]


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        problem = files.format_problem(doc, files.IOBENCH_FORMAT, files.IOBENCH_OLDEST)
        if problem:
            raise ValueError(problem)
        sweep = doc["sweep"]
        for case in sweep:
            case["threads"], case["placement"], case["files"], case["bandwidth"]["best_gibytes_per_second"]
        return doc
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{path}: not a wave3d iobench JSON file: {e}", file=sys.stderr)
        sys.exit(2)


def draw_sweep(ax, doc):
    curves = {}
    for case in doc["sweep"]:
        curves.setdefault((case["placement"], case["files"]), []).append(case)
    for (placement, files), cases in sorted(curves.items()):
        cases.sort(key=lambda c: c["threads"])
        threads = [c["threads"] for c in cases]
        colour = COLOURS.get(placement, "tab:gray")
        marker = MARKERS.get(files, "^")
        ax.plot(threads, [c["bandwidth"]["best_gibytes_per_second"] for c in cases], marker=marker, color=colour,
                label=f"{placement}, {files} file{'s' if files == 'per-thread' else ''}")
        ax.plot(threads, [c["bandwidth"]["median_gibytes_per_second"] for c in cases], linestyle="--", color=colour, alpha=0.5)
    ax.set_xlabel("I/O threads")
    ax.set_ylabel("write bandwidth, GiB/s (best; median dashed)")
    all_threads = sorted({c["threads"] for c in doc["sweep"]})
    ax.set_xticks(all_threads)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fs = doc.get("file_system", {})
    size = doc.get("bytes", 0) / 2**20
    ax.set_title(f"{size:.0f} MiB buffer to {fs.get('path', '?')} ({fs.get('type') or 'unknown'})", fontsize=10)


def draw_paths(ax, doc):
    matrix = doc.get("path_matrix", {})
    if not matrix.get("measured"):
        ax.axis("off")
        note = textwrap.fill(matrix.get("note", "no reason recorded"), width=45)
        ax.text(0.5, 0.5, "path matrix not measured:\n" + note, ha="center", va="center", fontsize=9)
        return
    best = {}
    for case in matrix["cases"]:
        best[case["kind"]] = max(best.get(case["kind"], 0.0), case["bandwidth"]["best_gibytes_per_second"])
    kinds = [k for k in KIND_ORDER if k in best]
    ax.bar(kinds, [best[k] for k in kinds], color="tab:green")
    ax.set_ylabel("best GiB/s")
    ax.set_title(f"path kinds ({matrix.get('threads', 1)} I/O thread(s))", fontsize=10)
    ax.grid(axis="y", alpha=0.3)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    doc = load(sys.argv[1])
    plt = load_pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), gridspec_kw={"width_ratios": [2, 1]})
    draw_sweep(left, doc)
    draw_paths(right, doc)
    machine = doc.get("machine", {})
    fig.suptitle(f"wave3d iobench on {machine.get('hostname', '?')}: {machine.get('cpu_model') or ''}, "
                 f"{machine.get('numa_nodes', '?')} NUMA node(s)", fontsize=11)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
