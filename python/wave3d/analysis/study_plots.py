"""The PNGs of a study report: throughput per configuration, the saturation curve, per-rank step-time
heatmaps, step-time histograms and the jitter extrapolation. Heatmaps and histograms put one panel per
configuration on a page of at most PANELS_PER_PAGE; a larger study gets several numbered pages.

Every file is written under a temporary name and renamed into place, so a reader never sees half a PNG."""

import math
import os

import numpy as np

from .order_statistics import nearest_rank
from .pyplot import load_pyplot

PANELS_PER_PAGE = 12
_COLUMNS = 3


def _colour(i):
    return f"C{i}" if i < 10 else _plt().get_cmap("tab20")(i % 20)


def _plt():
    return load_pyplot()


def save_figure(fig, path):
    tmp = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        fig.savefig(tmp, format="png", bbox_inches="tight")
        os.replace(tmp, path)
    finally:
        _plt().close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)


def page_names(stem, count):
    """File names of `count` configurations' panels: stem.png, stem-2.png, ... one per PANELS_PER_PAGE."""
    pages = math.ceil(count / PANELS_PER_PAGE)
    return [f"{stem}.png" if i == 0 else f"{stem}-{i + 1}.png" for i in range(pages)]


def plot_throughput(rows, path, study_name):
    plt = _plt()
    n = len(rows)
    fig, ax = plt.subplots(figsize=(9, 1.5 + 0.42 * n), dpi=110)
    y = np.arange(n)[::-1]
    for yi, row in zip(y, rows):
        t = row["mpoints_per_second"]
        if t is None:
            ax.text(0, yi, "  no result", va="center", fontsize=8, color="dimgrey")
            continue
        wrong = row["placement"]["wrong"]
        ax.barh(yi, t["median"], color="tab:orange" if wrong else "tab:blue", alpha=0.75, height=0.6,
                hatch="//" if wrong else None)
        ax.errorbar(t["median"], yi, xerr=[[t["median"] - t["min"]], [t["max"] - t["median"]]], color="black",
                    capsize=3, linewidth=1)
        ax.text(t["max"], yi, f"  {t['median']:.1f}", va="center", fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels([row["short_label"] + (" (placement wrong)" if row["placement"]["wrong"] else "")
                        for row in rows], fontsize=8)
    ax.set_xlabel("MPoints/s (bar: median of the repetitions; whiskers: min and max)")
    ax.set_title(f"{study_name}\nthroughput per configuration", fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)
    ax.margins(x=0.12)
    fig.tight_layout()
    save_figure(fig, path)


def plot_saturation(saturation, path, study_name):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=110)
    for i, line in enumerate(saturation["lines"]):
        points = [p for p in line["points"] if p["mpoints_per_second"]]
        if not points:
            continue
        colour = _colour(i)
        cores = [p["cores"] for p in points]
        median = [p["mpoints_per_second"]["median"] for p in points]
        low = [p["mpoints_per_second"]["min"] for p in points]
        high = [p["mpoints_per_second"]["max"] for p in points]
        ax.fill_between(cores, low, high, color=colour, alpha=0.15, linewidth=0)
        ax.errorbar(cores, median, yerr=[np.subtract(median, low), np.subtract(high, median)], color=colour,
                    marker="o", capsize=3, label=line["label"])
        sat = line["saturation"]
        if sat is not None:
            ax.plot([sat["cores"]], [sat["median"]], marker="o", markersize=14, markerfacecolor="none",
                    markeredgecolor=colour, linestyle="none")
    ax.set_xticks(saturation["core_counts"])
    ax.set_xlabel(saturation["words"])
    ax.set_ylabel("MPoints/s (median; band and bars: min-max)")
    ax.set_ylim(bottom=0)
    tolerance = 100 * saturation["tolerance"]
    ax.set_title(f"{study_name}\nsaturation (circled: fewest cores within {tolerance:g} % of the line's best)",
                 fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def _page_axes(count):
    plt = _plt()
    columns = min(_COLUMNS, count)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.6 * rows), dpi=100, squeeze=False)
    for extra in axes.flat[count:]:
        extra.set_visible(False)
    return fig, list(axes.flat[:count])


def _no_data(ax, title, text):
    ax.set_title(title, fontsize=8)
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=8, color="dimgrey", wrap=True,
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _pages(items):
    return [items[i:i + PANELS_PER_PAGE] for i in range(0, len(items), PANELS_PER_PAGE)]


def plot_heatmaps(study, labels, title, paths):
    """Per configuration, the median repetition's total step time per rank and step."""
    for path, page in zip(paths, _pages(study.configurations)):
        fig, axes = _page_axes(len(page))
        for ax, c in zip(axes, page):
            run = c.median_run
            title = labels[c.id]
            if run is None or run.step_data is None:
                _no_data(ax, title, "no result" if run is None else run.steps_note)
                continue
            totals = run.step_data.phases["total"] * 1e3
            steps = run.step_data.steps
            image = ax.imshow(totals, aspect="auto", interpolation="nearest", cmap="viridis",
                              extent=(steps[0] - 0.5, steps[-1] + 0.5, totals.shape[0] - 0.5, -0.5))
            fig.colorbar(image, ax=ax, label="step time (ms)")
            ax.set_title(f"{title}\nrep {run.repetition} (median throughput)", fontsize=8)
            ax.set_xlabel("step (the first, a warm-up, left out)", fontsize=8)
            ax.set_ylabel("rank", fontsize=8)
            if totals.shape[0] <= 16:
                ax.set_yticks(range(totals.shape[0]))
            ax.tick_params(labelsize=7)
        fig.suptitle(f"{title}\ntotal step time per rank and step", fontsize=10)
        fig.tight_layout()
        save_figure(fig, path)


def _bins(values):
    """Log-spaced bins when the slowest step is several times the fastest (a tail worth seeing), else even ones."""
    low, high = float(values.min()), float(values.max())
    if low > 0 and high / low > 3:
        return np.logspace(np.log10(low), np.log10(high), 60), True
    return 60, False


def _plain_numbers(axis):
    """Tick labels as plain numbers (0.2, 0.5, 1, 2) on a log axis, without labelled minor ticks."""
    import matplotlib.ticker as ticker

    axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def step_time_samples(configuration):
    """All ranks' total step times (s) of every counting repetition, steps after the first."""
    parts = [r.step_totals.ravel() for r in configuration.good_runs if r.step_totals is not None]
    return np.concatenate(parts) if parts else None


def plot_histograms(study, labels, title, paths):
    for path, page in zip(paths, _pages(study.configurations)):
        fig, axes = _page_axes(len(page))
        for ax, c in zip(axes, page):
            samples = step_time_samples(c)
            if samples is None:
                _no_data(ax, labels[c.id], "no result" if not c.good_runs else "no step times")
                continue
            ms = samples * 1e3
            bins, log_x = _bins(ms)
            ax.hist(ms, bins=bins, color="tab:blue", alpha=0.75)
            if log_x:
                ax.set_xscale("log")
                _plain_numbers(ax.xaxis)
            ax.set_yscale("log")  # the tail: a few slow rank-steps beside thousands of ordinary ones
            ax.set_ylim(bottom=0.7)
            _plain_numbers(ax.yaxis)
            p50, p99 = nearest_rank(ms, [0.50, 0.99])
            ax.axvline(p50, color="black", linewidth=1, label=f"p50 {p50:.3g} ms")
            ax.axvline(p99, color="tab:red", linewidth=1, linestyle="--", label=f"p99 {p99:.3g} ms")
            reps = sum(1 for r in c.good_runs if r.step_totals is not None)
            ax.set_title(f"{labels[c.id]}\n{reps} rep{'s' if reps != 1 else ''}, {ms.size} rank-steps", fontsize=8)
            ax.set_xlabel("total step time (ms)", fontsize=8)
            ax.set_ylabel("rank-steps", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.legend(fontsize=7)
        fig.suptitle(f"{title}\nstep times of all ranks and repetitions (steps after the first)", fontsize=10)
        fig.tight_layout()
        save_figure(fig, path)


def plot_extrapolation(entries, path, study_name):
    """Expected step time and slowdown against N, uncoordinated noise, one line per configuration with its 95 %
    bootstrap band; dotted beyond the largest N the configuration's data support."""
    plt = _plt()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 6), dpi=110)
    for i, e in enumerate(x for x in entries if x.get("curve")):
        colour = _colour(i)
        curve = e["curve"]
        ranks = np.asarray(curve["ranks"])
        supported = ranks <= e["supported_ranks"]
        for ax, key, scale in ((left, "step", 1e3), (right, "slowdown", 1.0)):
            suffix = "_s" if key == "step" else ""
            y = np.asarray(curve[key + suffix]) * scale
            low = np.asarray(curve[key + "_low" + suffix]) * scale
            high = np.asarray(curve[key + "_high" + suffix]) * scale
            ax.fill_between(ranks, low, high, color=colour, alpha=0.12, linewidth=0)
            solid = np.flatnonzero(supported)
            if solid.size:
                ax.plot(ranks[: solid[-1] + 1], y[: solid[-1] + 1], color=colour, label=e["label"])
            start = solid[-1] if solid.size else 0
            ax.plot(ranks[start:], y[start:], color=colour, linestyle=":", label=None if solid.size else e["label"])
            measured = next((p for p in e["predictions"] if p["ranks"] == e["ranks"]), None)
            if measured is not None:
                value = measured["step_s"] * 1e3 if ax is left else measured["slowdown"]
                ax.plot([e["ranks"]], [value], marker="o", color=colour, linestyle="none")
    for ax, label in ((left, "expected step time (ms)"),
                      (right, "slowdown: expected step / the configuration's own on one rank")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ranks N (bulk-synchronous: every step waits for the slowest)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    left.set_title("uncoordinated noise, all repetitions, GPD tail over the 95th percentile (dot: measured ranks)",
                   fontsize=8)
    right.set_title("dotted: beyond the largest N the data support (held-out check)", fontsize=8)
    handles, names = left.get_legend_handles_labels()
    fig.legend(handles, names, fontsize=7, loc="lower center", ncol=3, frameon=False)
    fig.suptitle(f"{study_name}\npredicted effect of the measured jitter at scale (bands: 95 % bootstrap intervals)",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.04 + 0.025 * math.ceil(len(names) / 3), 1, 1))
    save_figure(fig, path)
