"""Exact order statistics of an empirical distribution.

An empirical distribution puts probability 1/m on each of m measured values. Its CDF at the k-th
smallest value is F_k = k/m (ties merge into one step). For N independent draws:

- the maximum is <= x_k with probability F_k^N, so E[max] = sum_k x_k (F_k^N - F_{k-1}^N);
- the j-th smallest is <= x_k with probability P(Binomial(N, F_k) >= j), which gives E[X_(j:N)] and
  with it E[median of N] (exact up to 10^4 draws, the normal approximation to the binomial beyond).

Both are exact for the distribution (no sampling), and E[max] costs O(m) for any N, so 10^6 ranks is
as cheap as 2. Powers are taken as exp(N log F) so F^N underflows cleanly to 0 instead of losing
precision.
"""

import math

import numpy as np


def nearest_rank(values, q, axis=None):
    """The q-quantile (0..1, or an array of them) by nearest rank: the smallest measured value with at
    least a fraction q of the values at or below it. wave3d's own p50/p99 (run.json's jitter section)
    are defined so; every percentile the analysis reports uses this one definition, and each is a
    value that was measured."""
    return np.quantile(values, q, axis=axis, method="inverted_cdf")


class EmpiricalDistribution:
    """Equal-weight empirical distribution of measured values (e.g. per-step delays in seconds)."""

    def __init__(self, values):
        values = np.asarray(values, dtype=float).ravel()
        if values.size == 0:
            raise ValueError("an empirical distribution needs at least one value")
        if not np.all(np.isfinite(values)):
            raise ValueError("an empirical distribution needs finite values")
        self.sorted = np.sort(values)

    @property
    def size(self):
        return self.sorted.size

    def mean(self):
        return float(self.sorted.mean())

    def quantile(self, q):
        return float(nearest_rank(self.sorted, q))

    def cdf(self, x):
        """P(X <= x)."""
        return np.searchsorted(self.sorted, x, side="right") / self.size

    def _cdf_levels(self):
        return np.arange(self.size + 1) / self.size

    def _max_weights(self, n):
        """P(max of n draws = k-th smallest value), for every k."""
        n = _check_count(n)
        with np.errstate(divide="ignore"):
            log_levels = np.log(self._cdf_levels())
        return np.diff(np.exp(n * log_levels))  # F_k^n - F_{k-1}^n, with F_0^n = exp(-inf) = 0

    def expected_max(self, n):
        """E[max of n independent draws]."""
        return float(self._max_weights(n) @ self.sorted)

    def variance_of_max(self, n):
        """Var[max of n independent draws]: the spread a Monte Carlo estimate of E[max] is judged against."""
        weights = self._max_weights(n)
        mean = weights @ self.sorted
        return float(max(weights @ (self.sorted - mean) ** 2, 0.0))

    def prob_max_exceeds(self, n, threshold):
        """P(max of n draws > threshold) = 1 - F(threshold)^n: the chance that at least one of n ranks is late."""
        n = _check_count(n)
        f = float(self.cdf(threshold))
        return 1.0 - f**n

    def expected_order_statistic(self, j, n):
        """E[j-th smallest of n independent draws], 1 <= j <= n."""
        n = _check_count(n)
        if not 1 <= j <= n:
            raise ValueError(f"order statistic {j} of {n} draws does not exist")
        levels = self._cdf_levels()
        cdf_of_order = _binomial_upper_tail(n, j, levels)
        return float(np.diff(cdf_of_order) @ self.sorted)

    def expected_median(self, n):
        """E[median of n draws], the median of an even count being the mean of the middle two (as wave3d's)."""
        n = _check_count(n)
        if n % 2:
            return self.expected_order_statistic(n // 2 + 1, n)
        return 0.5 * (self.expected_order_statistic(n // 2, n) + self.expected_order_statistic(n // 2 + 1, n))


def _check_count(n):
    if int(n) != n or n < 1:
        raise ValueError(f"the number of draws must be a positive integer, got {n}")
    return int(n)


# Up to this many draws the binomial tail is summed exactly; beyond, the normal approximation is used
# (its error in a probability is below 0.5 / sqrt(n p (1 - p)) by Berry-Esseen, and negligible for the
# median of so many draws, which sits at the distribution's median anyway).
EXACT_BINOMIAL_LIMIT = 10_000


def _binomial_upper_tail(n, j, p):
    """P(Binomial(n, p) >= j) for an array of p: summed term by term in log space (exact up to rounding) for
    n <= EXACT_BINOMIAL_LIMIT, else the normal approximation with continuity correction."""
    p = np.asarray(p, dtype=float)
    if n > EXACT_BINOMIAL_LIMIT:
        sd = np.sqrt(n * p * (1 - p))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (j - 0.5 - n * p) / (sd * math.sqrt(2))
        tail = 0.5 * np.vectorize(math.erfc, otypes=[float])(np.where(sd > 0, z, 0.0))
        # p = 0 or 1: no spread, the count is 0 or n.
        return np.where(sd > 0, tail, (n * p >= j).astype(float))
    with np.errstate(divide="ignore"):
        log_p = np.log(p)
        log_q = np.log1p(-p)
    total = np.zeros_like(p)
    for i in range(j, n + 1):  # i >= j >= 1, so p^i is exp(i log p), 0 at p = 0
        log_choose = math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
        log_q_power = (n - i) * log_q if i < n else 0.0  # q^0 = 1 even where q = 0
        total += np.exp(log_choose + i * log_p + log_q_power)
    return np.clip(total, 0.0, 1.0)
