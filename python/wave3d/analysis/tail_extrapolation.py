"""The jitter extrapolation with a tail model and intervals.

A Measurement holds one configuration's per-rank per-step delays (each rank's step times minus that
rank's own level, as model.scenario_from_run) and noise-free base step, one entry per repetition. From
it:

- the tail model (gpd_tail.SplicedTail) of all repetitions' delays pooled, and its held-out check
  (tail_check.py): leave one repetition out, or with a single repetition fit one half of the steps and
  test the other (both ways);
- the expected step with N uncoordinated ranks, base + E[max of N delays] under the tail model, with a
  bootstrap interval: each resample draws repetitions with replacement and, inside each, moving blocks of
  BLOCK_STEPS steps (all ranks of a step together, so delays that hit several ranks at once and a daemon's
  period stay in the resample), refits the tail and takes the median of the drawn repetitions' bases;
- the largest N the data support (supported_ranks): 1 / p for the smallest exceedance probability p the
  measurement vouches for: the smallest level the held-out check tested when it passed; the threshold's
  exceedance probability when it failed or could not run (the maximum of more draws lies in the tail
  that is not validated). Figures beyond it are the tail model's extrapolation, shown but marked;
- reserving a core against using all of them, at equal rank count and at equal node count, with the
  crossover's interval over the same resamples.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .bootstrap import DEFAULT_LEVEL
from .gpd_tail import DEFAULT_THRESHOLD_QUANTILE, SplicedTail
from .model import rank_bases_s, run_base_s
from .tail_check import MIN_EXPECTED, held_out_check

DEFAULT_RESAMPLES = 200
DEFAULT_SEED = 4_711
BLOCK_STEPS = 20
# N searched for crossovers (and plotted): 1 .. CROSSOVER_MAX on this many log-spaced points.
CROSSOVER_MAX = 1_000_000
GRID_POINTS = 121

ASSUMPTIONS = {
    "equal_ranks": "both jobs have N ranks and every rank keeps the subdomain it had in the measured run; the "
                   "job with fewer ranks per node uses more nodes",
    "equal_nodes": "both jobs use M nodes, each node doing the work of the measured run's node (ranks per node "
                   "and points per node from run.json); the job with more ranks per node has more ranks, so its "
                   "slowest rank is drawn from more; compared by points per node per second",
}


@dataclass
class Measurement:
    label: str
    delays: list  # per repetition: array (ranks, steps) of delays in seconds
    bases_s: list  # per repetition: the noise-free step time
    repetitions: list  # repetition numbers
    ranks_per_node: int = None
    points_per_node: float = None  # grid points a node updates per step
    facts: dict = field(default_factory=dict)

    @property
    def base_s(self):
        return float(np.median(self.bases_s))

    def pooled(self):
        return np.concatenate([d.ravel() for d in self.delays])

    def folds(self):
        """[(training delays, held-out delays)] for the held-out check."""
        if len(self.delays) > 1:
            return [(np.concatenate([d.ravel() for j, d in enumerate(self.delays) if j != i]), held.ravel())
                    for i, held in enumerate(self.delays)]
        d = self.delays[0]
        half = d.shape[1] // 2
        first, second = d[:, :half].ravel(), d[:, half:].ravel()
        return [(first, second), (second, first)]

    def resample(self, rng):
        """(pooled delays, base) of one bootstrap resample."""
        chosen = rng.integers(0, len(self.delays), size=len(self.delays))
        parts = []
        for j in chosen:
            d = self.delays[j]
            steps = d.shape[1]
            block = min(BLOCK_STEPS, steps)
            starts = rng.integers(0, steps - block + 1, size=math.ceil(steps / block))
            columns = (starts[:, None] + np.arange(block)[None, :]).ravel()[:steps]
            parts.append(d[:, columns].ravel())
        return np.concatenate(parts), float(np.median([self.bases_s[j] for j in chosen]))


def measurement_from_runs(label, runs, repetitions, quantity="busy", base_quantile=0.5):
    """A Measurement from loaders.RunData of the repetitions of one configuration."""
    delays, bases = [], []
    for run in runs:
        times = run.step_times(quantity)
        delays.append(times - rank_bases_s(run, quantity, base_quantile)[:, None])
        bases.append(run_base_s(run, base_quantile))
    first = runs[0].summary
    rpn = first.get("ranks_per_node")
    ranks_per_node = int(rpn) if isinstance(rpn, (int, float)) and rpn >= 1 else runs[0].ranks
    points = first.get("points_per_step")
    points_per_node = float(points) * ranks_per_node / runs[0].ranks if isinstance(points, (int, float)) else None
    facts = {"ranks_per_node_from": "run.json placement.ranks_per_node" if rpn else "the run's rank count (one node)",
             "quantity": quantity, "base_quantile": base_quantile}
    return Measurement(label=label, delays=delays, bases_s=bases, repetitions=list(repetitions),
                       ranks_per_node=ranks_per_node, points_per_node=points_per_node, facts=facts)


def log_grid(n_max=CROSSOVER_MAX, points=GRID_POINTS):
    return np.unique(np.round(np.logspace(0, math.log10(n_max), points)).astype(np.int64))


class TailFits:
    """The tail model of a measurement and of each of its bootstrap resamples, ready to give expected steps."""

    def __init__(self, measurement, threshold_quantile=DEFAULT_THRESHOLD_QUANTILE, resamples=DEFAULT_RESAMPLES,
                 seed=DEFAULT_SEED):
        self.measurement = measurement
        self.threshold_quantile = threshold_quantile
        self.model = SplicedTail(measurement.pooled(), threshold_quantile)
        self.base_s = measurement.base_s
        rng = np.random.default_rng(seed)
        self.resampled = []
        for _ in range(resamples):
            delays, base = measurement.resample(rng)
            self.resampled.append((SplicedTail(delays, threshold_quantile), base))
        self.check = held_out_check(measurement.folds(), threshold_quantile)
        self.supported_ranks = supported_ranks(self.check, self.model)
        self.resamples = resamples
        self.seed = seed

    def step_s(self, n):
        return self.base_s + self.model.expected_max(n)

    def resampled_steps_s(self, n):
        """(resamples, len(n)) expected steps."""
        n = np.atleast_1d(n)
        return np.array([base + tail.expected_max(n) for tail, base in self.resampled]).reshape(len(self.resampled),
                                                                                                  n.size)

    def describe(self):
        return {"model": self.model.describe(), "held_out_check": self.check, "supported_ranks": self.supported_ranks,
                "bootstrap": {"resamples": self.resamples, "seed": self.seed, "block_steps": BLOCK_STEPS,
                              "repetitions": len(self.measurement.delays)}}


def supported_ranks(check, model):
    """The largest N the measurement supports (see the module's description)."""
    if check is not None and check.get("passed"):
        return int(math.floor(1.0 / check["smallest_probability_checked"]))
    if model.gpd is not None:
        return max(1, int(math.floor(1.0 / model.exceedance)))
    return max(1, int(math.floor(model.size / MIN_EXPECTED)))


def _interval(samples, level):
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0, method="inverted_cdf")
    return low, high


def predictions(fits, rank_counts, level=DEFAULT_LEVEL, reference=None):
    """Per N: expected step and slowdown with their intervals. Slowdown: over the reference's expected step on
    one rank (the measurement's own by default), taken resample by resample for the interval."""
    reference = reference or fits
    n = np.asarray(rank_counts)
    steps = fits.step_s(n)
    one = reference.step_s(np.array([1]))[0]
    resampled = fits.resampled_steps_s(n)
    ref_resampled = reference.resampled_steps_s(np.array([1]))
    step_low, step_high = _interval(resampled, level)
    slow_low, slow_high = _interval(resampled / ref_resampled, level)
    return [{"ranks": int(k), "step_s": float(s), "step_low_s": float(sl), "step_high_s": float(sh),
             "slowdown": float(s / one), "slowdown_low": float(dl), "slowdown_high": float(dh),
             "supported": bool(k <= fits.supported_ranks)}
            for k, s, sl, sh, dl, dh in zip(n, steps, step_low, step_high, slow_low, slow_high)]


def _crossover(wins):
    """Index from which `wins` (bool array over a grid) holds to the end, or None when it fails at the end."""
    if not wins[-1]:
        return None
    losses = np.flatnonzero(~wins)
    return 0 if losses.size == 0 else int(losses[-1] + 1)


def _compare(all_cores, reserved, counts, per_node, n_max):
    """Reserved-wins booleans on the grid, for the point estimates and each resample pair."""
    a, r = all_cores.measurement, reserved.measurement
    if per_node:
        ra, rr = a.ranks_per_node or 1, r.ranks_per_node or 1
        pa = a.points_per_node if a.points_per_node and r.points_per_node else 1.0
        pr = r.points_per_node if a.points_per_node and r.points_per_node else 1.0
        na, nr = counts * ra, counts * rr
        point = pr / reserved.step_s(nr) > pa / all_cores.step_s(na)
        resampled = pr / reserved.resampled_steps_s(nr) > pa / all_cores.resampled_steps_s(na)
    else:
        point = reserved.step_s(counts) < all_cores.step_s(counts)
        resampled = reserved.resampled_steps_s(counts) < all_cores.resampled_steps_s(counts)
    return point, resampled


def crossover(all_cores, reserved, per_node, n_max=CROSSOVER_MAX, level=DEFAULT_LEVEL):
    """Where reserving a core wins, at equal rank count (per_node False: N ranks) or equal node count (M
    nodes): the first N (or M) on the log grid from which it wins up to n_max, with its bootstrap interval
    (None for 'never within n_max'), and the largest N (or M) the two measurements support."""
    if per_node:
        most = max(all_cores.measurement.ranks_per_node or 1, reserved.measurement.ranks_per_node or 1)
        counts = log_grid(max(1, n_max // most))
        supported = min(all_cores.supported_ranks // (all_cores.measurement.ranks_per_node or 1),
                        reserved.supported_ranks // (reserved.measurement.ranks_per_node or 1))
    else:
        counts = log_grid(n_max)
        supported = min(all_cores.supported_ranks, reserved.supported_ranks)
    point, resampled = _compare(all_cores, reserved, counts, per_node, n_max)
    index = _crossover(point)
    found = [_crossover(row) for row in resampled]
    values = np.array([np.inf if i is None else counts[i] for i in found], dtype=float)
    low, high = _interval(values, level)
    never = float(np.mean(np.isinf(values)))
    unit = "nodes" if per_node else "ranks"
    return {"unit": unit, "searched_up_to": int(counts[-1]), "grid_points": int(counts.size),
            "crossover": None if index is None else int(counts[index]),
            "low": None if np.isinf(low) else int(low), "high": None if np.isinf(high) else int(high),
            "never_fraction": never, "supported_up_to": int(max(supported, 1)), "level": level,
            "resamples": len(found)}


def crossover_text(c):
    """'from 144 ranks (95 % interval 64 .. never within 10^6); the data support N <= 359'."""
    unit, limit = c["unit"], f"{c['searched_up_to']:,}".replace(",", " ")
    level = f"{100 * c['level']:g} %"

    def bound(v):
        return f"never within {limit}" if v is None else str(v)

    if c["crossover"] is None and c["low"] is None:
        head = f"never within {limit} {unit} ({level} interval: never)"
    elif c["crossover"] is None:
        head = f"never within {limit} {unit} ({level} interval {bound(c['low'])} .. {bound(c['high'])})"
    else:
        head = f"from {c['crossover']} {unit} ({level} interval {bound(c['low'])} .. {bound(c['high'])})"
    supported = c["supported_up_to"]
    if c["low"] is not None and c["low"] > supported:
        tail = f"; beyond the {supported} {unit} the data support: not a finding"
    elif c["crossover"] is not None and c["crossover"] > supported:
        tail = f"; the estimate lies beyond the {supported} {unit} the data support"
    else:
        tail = f"; the data support up to {supported} {unit}"
    return head + tail + f" ({100 * c['never_fraction']:.0f} % of {c['resamples']} resamples: never)"
