"""Whether a tail model (gpd_tail.SplicedTail) predicts delays it was not fitted to.

Each fold fits the model on some of the measured delays (the training repetitions, or one half of a
run's steps) and tests it on the rest. Two tests, on the held-out delays of all folds together:

- exceedance levels: at nominal exceedance probabilities p = (1 - threshold quantile) / 2^k, from the
  threshold down to the smallest p at which the held-out delays still expect MIN_EXPECTED exceedances,
  each fold's model gives the delay x_p it predicts to be exceeded with probability p; the held-out
  delays above x_p are counted and compared with p times their number (z = (observed - expected) /
  sqrt(expected (1 - p))). The check passes a level when |z| <= Z_LIMIT.
- shape of the tail: the held-out delays above each fold's threshold, mapped through that fold's fitted
  GPD, must look uniform; the Kolmogorov-Smirnov distance D of all of them together and its asymptotic
  p-value (KS_ALPHA: the smallest p-value that passes).

The check passes when every level and the KS test pass. Delays of the ranks of one step are not
independent of each other (a daemon burst can hit several), so both tests are somewhat optimistic.
"""

import math

import numpy as np

from .gpd_tail import SplicedTail

MIN_EXPECTED = 5.0
Z_LIMIT = 3.0
KS_ALPHA = 0.01


def kolmogorov_p_value(d, n):
    """Asymptotic P(D_n >= d) for the one-sample KS statistic (Kolmogorov's series, with Stephens's small-n
    correction of the argument)."""
    if n < 1:
        return None
    root = math.sqrt(n)
    x = (root + 0.12 + 0.11 / root) * d
    if x < 0.2:
        return 1.0
    total = sum((-1) ** (k - 1) * math.exp(-2.0 * k * k * x * x) for k in range(1, 101))
    return float(min(1.0, max(0.0, 2.0 * total)))


def ks_uniform(values):
    """KS distance of values in [0, 1] from the uniform distribution."""
    u = np.sort(np.asarray(values, dtype=float))
    n = u.size
    if n == 0:
        return None
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - u), np.max(u - (i - 1) / n)))


def held_out_check(folds, threshold_quantile):
    """folds: [(training delays, held-out delays)]. The result as plain numbers: levels, KS, pass/fail and
    the smallest exceedance probability tested (smallest_probability_checked)."""
    models = [SplicedTail(train, threshold_quantile) for train, _ in folds]
    tests = [np.asarray(test, dtype=float).ravel() for _, test in folds]
    held_out = int(sum(t.size for t in tests))
    result = {"folds": len(folds), "held_out_samples": held_out, "threshold_quantile": threshold_quantile,
              "min_expected": MIN_EXPECTED, "z_limit": Z_LIMIT, "ks_alpha": KS_ALPHA, "levels": [], "ks": None,
              "passed": None, "smallest_probability_checked": None, "note": None}
    if any(model.gpd is None for model in models):
        result["note"] = "a training set has too few delays above its threshold for a tail fit"
        return result
    p = 1.0 - threshold_quantile
    while p * held_out >= MIN_EXPECTED:
        observed = sum(int(np.count_nonzero(test > model.upper_quantile(p))) for model, test in zip(models, tests))
        expected = p * held_out
        z = (observed - expected) / math.sqrt(expected * (1.0 - p))
        result["levels"].append({"probability": p, "expected": expected, "observed": observed,
                                 "observed_probability": observed / held_out, "z": z, "passed": abs(z) <= Z_LIMIT})
        p /= 2.0
    if not result["levels"]:
        result["note"] = f"too few held-out delays ({held_out}) to expect {MIN_EXPECTED:g} above the threshold"
        return result
    result["smallest_probability_checked"] = result["levels"][-1]["probability"]
    uniform = []
    for model, test in zip(models, tests):
        above = test[test > model.threshold] - model.threshold
        uniform.append(1.0 - model.gpd.survival(above))
    uniform = np.concatenate(uniform)
    d = ks_uniform(uniform)
    if d is not None:
        p_value = kolmogorov_p_value(d, uniform.size)
        result["ks"] = {"samples": int(uniform.size), "distance": d, "p_value": p_value, "passed": p_value >= KS_ALPHA}
    result["passed"] = all(level["passed"] for level in result["levels"]) and (result["ks"] or {}).get("passed", True)
    return result


def check_text(check):
    """One sentence: pass/fail with the numbers."""
    if check is None:
        return "no held-out check"
    if check["passed"] is None:
        return f"held-out check not possible: {check['note']}"
    worst = max(check["levels"], key=lambda level: abs(level["z"]))
    ks = check["ks"]
    ks_text = "" if ks is None else f"; KS D = {ks['distance']:.3f} over {ks['samples']} exceedances, p = {ks['p_value']:.3f}"
    return (f"held-out check {'passed' if check['passed'] else 'FAILED'} ({check['folds']} folds, "
            f"{check['held_out_samples']} held-out delays; exceedance probability "
            f"{check['levels'][0]['probability']:.3g} down to {check['smallest_probability_checked']:.3g}: "
            f"worst level predicted {worst['probability']:.3g}, observed {worst['observed_probability']:.3g}, "
            f"z = {worst['z']:+.2f}{ks_text})")
