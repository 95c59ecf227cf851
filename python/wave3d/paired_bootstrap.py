"""The paired percentile bootstrap of a ratio of two medians, with the standard library alone.

The study runner (wave3d.study) runs on cluster nodes with a bare Python 3.11 and must not need numpy,
so it cannot import the analysis package (wave3d.analysis.bootstrap, numpy). It still has to decide
whether the interval of a study's headline ratio is narrow enough by the same rule the report later
applies. This module is that rule in a form both can import: the resample count, level and seed (the
analysis package takes its defaults from here), and the paired interval itself for the runner.

The method is the report's: draw repetition indices with replacement, once for both configurations
(repetition k of both ran side by side, so drift of the machine cancels), take the ratio of the two
resampled medians, and read the interval off the percentiles of those ratios (linear interpolation, as
numpy's default). Only the random generator differs (Python's Mersenne Twister here, numpy's PCG64
there), so the two intervals agree to within resampling noise, not to the last digit."""

import random
import statistics

RESAMPLES = 10_000
LEVEL = 0.95
SEED = 20_240_517


def percentile(ordered, q):
    """The q-th percentile (0..100) of a sorted list, interpolating linearly between neighbours."""
    position = (len(ordered) - 1) * q / 100
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def paired_ratio_interval(a, b, *, resamples=RESAMPLES, level=LEVEL, seed=SEED):
    """median(a) / median(b) and its percentile bootstrap interval, a[k] and b[k] being repetition k of
    each: {'estimate', 'low', 'high', 'level', 'resamples', 'paired', 'repetitions'}, the keys of
    wave3d.analysis.bootstrap.ratio_interval. None for no repetitions, unequal lengths or a median of
    b that is not positive."""
    if not a or len(a) != len(b) or statistics.median(b) <= 0:
        return None
    rng = random.Random(seed)
    positions = range(len(a))
    ratios = []
    for _ in range(resamples):
        drawn = rng.choices(positions, k=len(a))
        denominator = statistics.median(b[i] for i in drawn)
        ratios.append(statistics.median(a[i] for i in drawn) / denominator if denominator > 0 else float("inf"))
    ratios.sort()
    tail = 100 * (1 - level) / 2
    return {"estimate": statistics.median(a) / statistics.median(b), "low": percentile(ratios, tail),
            "high": percentile(ratios, 100 - tail), "level": level, "resamples": resamples, "paired": True,
            "repetitions": [len(a), len(b)]}


def relative_width(interval):
    """(high - low) / estimate: the width of a ratio's interval as a share of the ratio."""
    return (interval["high"] - interval["low"]) / interval["estimate"]
