"""A tail model for the per-step delay distribution: the measured values below a high threshold, and a
generalised Pareto distribution (GPD) fitted to the excesses over it.

Why a GPD: for a wide class of distributions the excesses over a high enough threshold approach a GPD
(Pickands-Balkema-de Haan), so it is the one family that extrapolates the largest delays with a stated
assumption instead of repeating the largest value measured, which is what the plain empirical
distribution does for N beyond the number of samples.

    P(X > u + y | X > u) = (1 + shape y / scale)^(-1 / shape)      (exp(-y / scale) at shape 0)

The fit is maximum likelihood, profiled over theta = shape / scale: for a fixed theta the likelihood is
maximised by shape = mean(log(1 + theta y)), which leaves a 1-D search (a grid, then golden sections).
The shape is searched over [SHAPE_MIN, SHAPE_MAX]: below -0.5 the likelihood is irregular (it grows
without bound at the end of the support), and from 1 on the mean, and with it the expected maximum of N
draws, is infinite.
"""

import math
from dataclasses import dataclass

import numpy as np

SHAPE_MIN = -0.5
SHAPE_MAX = 0.95
DEFAULT_THRESHOLD_QUANTILE = 0.95
# Fewer excesses than this do not determine a shape; the distribution then stays empirical.
MIN_EXCEEDANCES = 10
_GRID = 241
_GOLDEN_STEPS = 60


@dataclass(frozen=True)
class GeneralisedPareto:
    shape: float
    scale: float

    def survival(self, y):
        """P(excess > y) for y >= 0."""
        y = np.maximum(np.asarray(y, dtype=float), 0.0)
        if abs(self.shape) < 1e-9:
            return np.exp(-y / self.scale)
        base = 1.0 + self.shape * y / self.scale
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(base > 0, np.maximum(base, 1e-300) ** (-1.0 / self.shape), 0.0)

    def excess_at(self, s):
        """The excess y with survival(y) = s, for 0 < s <= 1."""
        s = np.asarray(s, dtype=float)
        if abs(self.shape) < 1e-9:
            return -self.scale * np.log(s)
        return self.scale / self.shape * (s ** (-self.shape) - 1.0)


def _profile(theta, y):
    """Profile log-likelihood per excess and the shape, for an array of theta (0 excluded)."""
    logs = np.log1p(np.outer(theta, y))
    shape = logs.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = -np.log(shape / theta) - (1.0 + shape)
    return value, shape


def fit_gpd(excesses):
    """The maximum-likelihood GPD of non-negative excesses (at least 2 distinct values)."""
    y = np.asarray(excesses, dtype=float)
    if y.size < 2 or not np.all(np.isfinite(y)) or y.min() < 0:
        raise ValueError("a GPD fit needs at least 2 finite non-negative excesses")
    top, mean = float(y.max()), float(y.mean())
    if top <= 0 or mean <= 0:
        raise ValueError("a GPD fit needs excesses that are not all zero")
    # theta * top in (-1, 1e4]: negative (a bounded tail) up to the end of the support, positive (heavy).
    negative = np.expm1(-np.linspace(12.0, 0.05, _GRID // 2))  # e^-t - 1: from close to -1 up to -0.05
    positive = np.logspace(-4, 4, _GRID - _GRID // 2)
    theta = np.concatenate((negative, positive)) / top
    value, shape = _profile(theta, y)
    allowed = np.isfinite(value) & (shape >= SHAPE_MIN) & (shape <= SHAPE_MAX)
    exponential = -math.log(mean) - 1.0  # theta -> 0
    candidates = [(exponential, 0.0)]
    if allowed.any():
        best = int(np.argmax(np.where(allowed, value, -np.inf)))
        lo = theta[max(best - 1, 0)]
        hi = theta[min(best + 1, theta.size - 1)]
        candidates.append((float(value[best]), float(theta[best])))
        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(_GOLDEN_STEPS):  # golden sections between the grid neighbours of the best point
            a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            (fa, fb), (sa, sb) = _profile(np.array([a, b]), y)
            fa = fa if SHAPE_MIN <= sa <= SHAPE_MAX and a != 0 else -np.inf
            fb = fb if SHAPE_MIN <= sb <= SHAPE_MAX and b != 0 else -np.inf
            if fa >= fb:
                hi = b
            else:
                lo = a
        mid = 0.5 * (lo + hi)
        if mid != 0:
            (f,), (s,) = _profile(np.array([mid]), y)
            if np.isfinite(f) and SHAPE_MIN <= s <= SHAPE_MAX:
                candidates.append((float(f), float(mid)))
    _, theta_best = max(candidates)
    if theta_best == 0.0:
        return GeneralisedPareto(shape=0.0, scale=mean)
    shape = float(np.log1p(theta_best * y).mean())
    return GeneralisedPareto(shape=shape, scale=shape / theta_best)


class SplicedTail:
    """The empirical distribution of `samples` up to the nearest-rank `threshold_quantile` u, and above it a
    GPD fitted to the excesses, weighted by the fraction of samples above u. Without enough excesses
    (MIN_EXCEEDANCES) the whole distribution stays empirical (gpd is None)."""

    def __init__(self, samples, threshold_quantile=DEFAULT_THRESHOLD_QUANTILE):
        values = np.sort(np.asarray(samples, dtype=float).ravel())
        if values.size == 0 or not np.all(np.isfinite(values)):
            raise ValueError("a tail model needs finite samples")
        self.sorted = values
        self.threshold_quantile = threshold_quantile
        m = values.size
        k = max(1, min(m, math.ceil(threshold_quantile * m - 1e-9)))  # samples at or below u (nearest rank)
        self.threshold = float(values[k - 1])
        excesses = values[k:] - self.threshold
        self.gpd = None
        if excesses.size >= MIN_EXCEEDANCES and excesses.max() > 0:
            self.gpd = fit_gpd(excesses)
        self._below = k if self.gpd is not None else m
        self.exceedance = (m - k) / m if self.gpd is not None else 0.0
        self.exceedances = int(m - k)

    @property
    def size(self):
        return self.sorted.size

    def mean(self):
        return float(self.expected_max(np.array([1]))[0])

    def exceedance_probability(self, x):
        """P(X > x) under the spliced model."""
        x = np.asarray(x, dtype=float)
        empirical = 1.0 - np.searchsorted(self.sorted, x, side="right") / self.size
        if self.gpd is None:
            return empirical
        return np.where(x <= self.threshold, empirical, self.exceedance * self.gpd.survival(x - self.threshold))

    def upper_quantile(self, p):
        """The value exceeded with probability p (0 < p < 1) under the spliced model."""
        p = np.asarray(p, dtype=float)
        empirical = self.sorted[np.clip(np.ceil((1.0 - p) * self.size - 1e-9).astype(int) - 1, 0, self.size - 1)]
        if self.gpd is None:
            return empirical
        with np.errstate(divide="ignore", invalid="ignore"):
            tail = self.threshold + self.gpd.excess_at(np.minimum(p / self.exceedance, 1.0))
        return np.where(p < self.exceedance, tail, empirical)

    def expected_max(self, n):
        """E[max of n independent draws] for an array of n >= 1."""
        n = np.atleast_1d(np.asarray(n, dtype=float))
        m = self.size
        k = self._below
        levels = np.arange(k + 1) / m
        with np.errstate(divide="ignore"):
            log_levels = np.log(levels)
        weights = np.diff(np.exp(np.outer(n, log_levels)), axis=1)  # F_j^n - F_{j-1}^n, j = 1..k
        result = weights @ self.sorted[:k]
        if self.gpd is not None:
            result = result + self._tail_part(n)
        return result

    def _tail_part(self, n, points=400):
        """The integral of Q(1 - s) n (1 - s)^(n - 1) over the tail's exceedance probabilities s in (0, zeta]:
        a trapezoid on a log grid of s down to s0 = 1e-6 / n, and below s0 in closed form ((1 - s)^(n-1) = 1
        there to 1e-6)."""
        zeta, u = self.exceedance, self.threshold
        xi, sigma = self.gpd.shape, self.gpd.scale
        s0 = 1e-6 / n
        fractions = np.linspace(0.0, 1.0, points)
        log_s = np.log(s0)[:, None] * (1.0 - fractions) + math.log(zeta) * fractions  # (len(n), points)
        s = np.exp(log_s)
        quantile = u + self.gpd.excess_at(s / zeta)
        density = np.exp(np.log(n)[:, None] + (n[:, None] - 1.0) * np.log1p(-s))
        integrand = quantile * density * s  # ds = s d(log s)
        body = np.sum(0.5 * (integrand[:, 1:] + integrand[:, :-1]) * np.diff(log_s, axis=1), axis=1)
        if abs(xi) < 1e-9:
            below = n * (u * s0 - sigma * (s0 * np.log(s0 / zeta) - s0))
        else:
            below = n * ((u - sigma / xi) * s0 + sigma / xi * zeta**xi * s0 ** (1.0 - xi) / (1.0 - xi))
        return body + below

    def describe(self):
        """The fit as plain numbers (seconds for the threshold and scale)."""
        return {"threshold_quantile": self.threshold_quantile, "threshold_s": self.threshold,
                "samples": int(self.size), "exceedances": self.exceedances,
                "shape": None if self.gpd is None else self.gpd.shape,
                "scale_s": None if self.gpd is None else self.gpd.scale,
                "fitted": self.gpd is not None}
