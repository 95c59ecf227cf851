"""Percentile bootstrap intervals for the medians of a study's repetitions and for ratios of two
configurations' medians, and the rule that turns a ratio's interval into a statement.

Every interval is drawn from its own generator seeded with a fixed number, so a report made twice from
the same runs says the same thing, whatever else was computed before it.

Paired ratios: the study runner interleaves the repetitions (repetition-major: every configuration's
repetition 1, then every configuration's repetition 2, ...), so repetition k of two configurations ran
close together in time and share whatever the machine drifted through. When both configurations have
the same repetitions, a resample draws repetition indices once and uses them for both, so that drift
cancels in the ratio; otherwise the two are resampled independently.

With 3 repetitions a resampled median can only be one of the 3 measured values: the interval is coarse
(in practice the range of the repetitions) and every statement says how many repetitions it rests on.
"""

import numpy as np

from .. import paired_bootstrap

# One set of defaults with the study runner, which sizes adaptive studies by the same interval
# (wave3d/paired_bootstrap.py: the standard-library form of ratio_interval below).
DEFAULT_RESAMPLES = paired_bootstrap.RESAMPLES
DEFAULT_LEVEL = paired_bootstrap.LEVEL
DEFAULT_SEED = paired_bootstrap.SEED

FASTER = "faster"
SLOWER = "slower"
NOT_DISTINGUISHABLE = "not distinguishable"

DECISION_RULE = ("A is faster than B when the 95 % bootstrap interval of the ratio of their median throughputs "
                 "(A over B) lies above 1, slower when it lies below 1, and 'not distinguishable' when it covers 1")


def verdict(interval):
    """FASTER, SLOWER or NOT_DISTINGUISHABLE for a ratio interval {'low', 'high'} (None: no verdict)."""
    if interval is None or interval.get("low") is None:
        return None
    if interval["low"] > 1.0:
        return FASTER
    if interval["high"] < 1.0:
        return SLOWER
    return NOT_DISTINGUISHABLE


def _bounds(samples, level):
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def _resampled_medians(values, indices):
    return np.median(values[indices], axis=1)


def median_interval(values, *, resamples=DEFAULT_RESAMPLES, level=DEFAULT_LEVEL, seed=DEFAULT_SEED):
    """{'estimate', 'low', 'high', 'level', 'resamples', 'repetitions'} of the median of `values` (one per
    repetition); None for no values. A single value gives an interval of zero width: say so where shown."""
    values = np.asarray([v for v in values if v is not None], dtype=float)
    if values.size == 0:
        return None
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, values.size, size=(resamples, values.size))
    low, high = _bounds(_resampled_medians(values, indices), level)
    return {"estimate": float(np.median(values)), "low": low, "high": high, "level": level,
            "resamples": resamples, "repetitions": int(values.size)}


def ratio_interval(a, b, *, resamples=DEFAULT_RESAMPLES, level=DEFAULT_LEVEL, seed=DEFAULT_SEED):
    """The ratio median(a) / median(b) with its percentile bootstrap interval and verdict. a and b map
    repetition number -> value. Paired (one draw of repetition indices for both) when both have the same
    repetitions, independent resamples otherwise. None when either side has no value."""
    a = {k: v for k, v in a.items() if v is not None}
    b = {k: v for k, v in b.items() if v is not None}
    if not a or not b:
        return None
    rng = np.random.default_rng(seed)
    paired = sorted(a) == sorted(b) and len(a) > 1
    if paired:
        keys = sorted(a)
        va = np.array([a[k] for k in keys], dtype=float)
        vb = np.array([b[k] for k in keys], dtype=float)
        indices = rng.integers(0, len(keys), size=(resamples, len(keys)))
        ia = ib = indices
    else:
        va = np.array(list(a.values()), dtype=float)
        vb = np.array(list(b.values()), dtype=float)
        ia = rng.integers(0, va.size, size=(resamples, va.size))
        ib = rng.integers(0, vb.size, size=(resamples, vb.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = _resampled_medians(va, ia) / _resampled_medians(vb, ib)
    low, high = _bounds(ratios, level)
    result = {"estimate": float(np.median(va) / np.median(vb)), "low": low, "high": high, "level": level,
              "resamples": resamples, "paired": paired, "repetitions": [int(va.size), int(vb.size)]}
    result["verdict"] = verdict(result)
    return result


def interval_text(interval, digits=3):
    """'1.042 [0.981, 1.105]' or 'n/a'."""
    if interval is None:
        return "n/a"
    return f"{interval['estimate']:.{digits}f} [{interval['low']:.{digits}f}, {interval['high']:.{digits}f}]"


def repetitions_text(interval):
    """'3 paired repetitions', '3 and 2 repetitions': what an interval rests on."""
    if interval is None:
        return "no repetitions"
    counts = interval["repetitions"]
    if isinstance(counts, int):
        return f"{counts} repetition{'' if counts == 1 else 's'}"
    if interval.get("paired"):
        return f"{counts[0]} paired repetitions"
    return f"{counts[0]} and {counts[1]} unpaired repetitions"
