"""The extrapolation as a PNG: slowdown against the number of ranks, both noise coordinations, every
scenario, the measured rank counts marked and the crossover where reserving a core starts to win."""

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

from .model import UNCOORDINATED  # noqa: E402

_COLOURS = ("tab:red", "tab:blue", "tab:green", "tab:purple")


def plot_extrapolation(result, path):
    fig, ax = plt.subplots(figsize=(9, 7), dpi=120)
    for colour, entry in zip(_COLOURS, result["scenarios"]):
        curve = entry["curve"]
        samples = entry["independent_steps"]
        ranks = curve["ranks"]
        # Solid where the measured distribution supports the maximum, dotted where it rests on its top samples.
        solid = [i for i, n in enumerate(ranks) if n <= samples]
        dotted = [i for i, n in enumerate(ranks) if n >= samples or i == len(solid) - 1]
        if solid:
            ax.plot([ranks[i] for i in solid], [curve["uncoordinated_slowdown"][i] for i in solid], color=colour,
                    label=f"{entry['label']}, uncoordinated")
        if dotted:
            ax.plot([ranks[i] for i in dotted], [curve["uncoordinated_slowdown"][i] for i in dotted], color=colour,
                    linestyle=":", label=None if solid else f"{entry['label']}, uncoordinated")
        ax.plot(ranks, curve["co_scheduled_slowdown"], color=colour, linestyle="--",
                label=f"{entry['label']}, co-scheduled")
        v = entry["validation"]
        if v is not None:
            row = next(r for r in entry["predictions"] if r["ranks"] == v["ranks"])
            ranks_text = f"{v['ranks']} rank{'' if v['ranks'] == 1 else 's'}"
            ax.plot([v["ranks"]], [row["uncoordinated_slowdown"]], marker="o", color=colour, linestyle="none",
                    label=f"{entry['label']} model at the run's {ranks_text} (amplification "
                          f"{v['predicted_amplification']:.3f})")
            if v["measured_step_s"] is not None:
                ax.plot([v["ranks"]], [v["measured_step_s"] / result["reference"]["step_s"]], marker="x",
                        color=colour, linestyle="none", markersize=9,
                        label=f"{entry['label']} run, {ranks_text}: measured mean step of the slowest rank "
                              f"(amplification {v['measured_amplification']:.3f})")
    comparison = result["comparison"]
    if comparison is not None:
        # Shade where the reserved-core run is faster with uncoordinated noise.
        for i, (first, last) in enumerate(comparison["reserved_wins_ranges"][UNCOORDINATED]):
            ax.axvspan(first, max(last, first + 0.5), color="grey", alpha=0.12, linewidth=0,
                       label=None if i else "reserving a core wins (uncoordinated)")
        n = comparison["crossover_ranks"][UNCOORDINATED]
        if n is not None and n > 1:
            ax.axvline(n, color="grey", linewidth=1)
            ax.annotate(f"reserving a core wins\nfrom {n} ranks ", xy=(n, 0.02), xycoords=("data", "axes fraction"),
                        ha="right", va="bottom", fontsize=8, color="dimgrey")
    ax.set_xscale("log")
    ax.set_xlabel("ranks N (bulk-synchronous: every step waits for the slowest)")
    ax.set_ylabel(f"expected step time / {result['reference']['scenario']}'s on one rank")
    ax.set_title("wave3d: predicted slowdown from noise (dotted: beyond the measured tail)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    # Below the axes, so it never hides a curve.
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")  # the legend below the axes included
    plt.close(fig)
