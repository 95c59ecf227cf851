"""The bulk-synchronous jitter model on cases whose answer is known in closed form."""

import itertools
import unittest

import numpy as np

import analysis_support  # noqa: F401  (puts the wave3d package on the path)
from analysis_support import synthetic_run
from wave3d.analysis.model import (CO_SCHEDULED, UNCOORDINATED, Scenario, crossover_ranks, monte_carlo_step_s,
                                   reserved_wins_ranges, scenario_from_run)
from wave3d.analysis.order_statistics import EmpiricalDistribution, nearest_rank

RANKS = (1, 2, 7, 100, 10_000, 1_000_000)


def bernoulli(p_numerator, p_denominator, delay):
    """Delay `delay` with probability p_numerator / p_denominator exactly, else 0."""
    return EmpiricalDistribution([delay] * p_numerator + [0.0] * (p_denominator - p_numerator))


def bernoulli_scenario(base, p_numerator, p_denominator, delay, label="bernoulli"):
    delays = bernoulli(p_numerator, p_denominator, delay)
    return Scenario(label=label, base_s=base, delays=delays, source="test", delays_nonnegative=True,
                    independent_steps=delays.size)


class BernoulliNoise(unittest.TestCase):
    """A rank is delayed by d with probability p: E[step with N ranks] = base + d (1 - (1 - p)^N)."""

    def test_expected_step_is_base_plus_d_times_probability_some_rank_is_hit(self):
        base, d, p = 0.010, 0.003, 3 / 1000
        s = bernoulli_scenario(base, 3, 1000, d)
        for n in RANKS:
            with self.subTest(n=n):
                self.assertAlmostEqual(s.expected_step_s(n, UNCOORDINATED), base + d * (1 - (1 - p) ** n), delta=1e-15)

    def test_probability_at_least_one_rank_is_hit(self):
        s = bernoulli_scenario(1.0, 1, 50, 0.5)
        for n in RANKS:
            with self.subTest(n=n):
                self.assertAlmostEqual(s.prob_any_delayed(n, UNCOORDINATED), 1 - (49 / 50) ** n, delta=1e-12)

    def test_co_scheduled_noise_does_not_grow_with_ranks(self):
        base, d, p = 0.010, 0.003, 3 / 1000
        s = bernoulli_scenario(base, 3, 1000, d)
        for n in RANKS:
            with self.subTest(n=n):
                self.assertAlmostEqual(s.expected_step_s(n, CO_SCHEDULED), base + p * d, delta=1e-15)
                self.assertAlmostEqual(s.prob_any_delayed(n, CO_SCHEDULED), p, delta=1e-15)

    def test_one_rank_uncoordinated_equals_co_scheduled(self):
        s = bernoulli_scenario(0.01, 7, 100, 0.002)
        self.assertAlmostEqual(s.expected_step_s(1, UNCOORDINATED), s.expected_step_s(1, CO_SCHEDULED), delta=1e-15)

    def test_certain_and_impossible_delays(self):
        always = bernoulli_scenario(1.0, 10, 10, 0.25)
        never = bernoulli_scenario(1.0, 0, 10, 0.25)
        for n in RANKS:
            self.assertAlmostEqual(always.expected_step_s(n), 1.25, delta=1e-15)
            self.assertEqual(never.expected_step_s(n), 1.0)


class OrderStatistics(unittest.TestCase):
    """Exact expectations against brute-force enumeration of every equally likely outcome."""

    values = [0.5, 1.0, 1.0, 2.0, 7.0]

    def enumerate_outcomes(self, n):
        return np.array(list(itertools.product(self.values, repeat=n)))

    def test_expected_max_matches_enumeration(self):
        dist = EmpiricalDistribution(self.values)
        for n in (1, 2, 3, 4):
            with self.subTest(n=n):
                self.assertAlmostEqual(dist.expected_max(n), self.enumerate_outcomes(n).max(axis=1).mean(), delta=1e-12)

    def test_variance_of_max_matches_enumeration(self):
        dist = EmpiricalDistribution(self.values)
        for n in (1, 2, 3):
            with self.subTest(n=n):
                self.assertAlmostEqual(dist.variance_of_max(n), self.enumerate_outcomes(n).max(axis=1).var(),
                                       delta=1e-12)

    def test_every_order_statistic_matches_enumeration(self):
        dist = EmpiricalDistribution(self.values)
        for n in (1, 2, 3, 4):
            outcomes = np.sort(self.enumerate_outcomes(n), axis=1)
            for j in range(1, n + 1):
                with self.subTest(n=n, j=j):
                    self.assertAlmostEqual(dist.expected_order_statistic(j, n), outcomes[:, j - 1].mean(), delta=1e-12)

    def test_median_of_even_count_is_mean_of_middle_two(self):
        dist = EmpiricalDistribution(self.values)
        for n in (1, 2, 3, 4):
            with self.subTest(n=n):
                self.assertAlmostEqual(dist.expected_median(n), np.median(self.enumerate_outcomes(n), axis=1).mean(),
                                       delta=1e-12)

    def test_median_of_many_draws_continues_the_exact_values(self):
        """Beyond 10^4 draws the binomial tail is approximated: it must join the exact values smoothly."""
        dist = EmpiricalDistribution(np.random.default_rng(3).exponential(1.0, 500))
        exact, approximated = dist.expected_median(9_999), dist.expected_median(10_001)
        self.assertAlmostEqual(approximated, exact, delta=1e-3 * exact)
        self.assertAlmostEqual(dist.expected_median(1_000_001), np.median(dist.sorted), delta=0.01)

    def test_maximum_grows_with_n_and_stops_at_the_largest_value(self):
        dist = EmpiricalDistribution(np.linspace(0, 1, 1001))
        maxima = [dist.expected_max(n) for n in (1, 10, 100, 10_000, 1_000_000)]
        self.assertTrue(all(a < b for a, b in zip(maxima, maxima[1:-1])))
        self.assertLessEqual(maxima[-1], 1.0)
        self.assertAlmostEqual(maxima[-1], 1.0, delta=1e-12)

    def test_bad_counts_are_refused(self):
        dist = EmpiricalDistribution([1.0])
        for n in (0, -1, 2.5):
            with self.assertRaises(ValueError):
                dist.expected_max(n)
        with self.assertRaises(ValueError):
            dist.expected_order_statistic(3, 2)
        with self.assertRaises(ValueError):
            EmpiricalDistribution([])


class Percentiles(unittest.TestCase):
    def test_nearest_rank_is_wave3ds_one_definition(self):
        # The cases of tests/probe/test_noise_analysis.cpp (percentile_nearest_rank): the same answers.
        hundred = list(range(100, 0, -1))
        self.assertEqual(nearest_rank(hundred, 0.50), 50)
        self.assertEqual(nearest_rank(hundred, 0.99), 99)
        self.assertEqual(nearest_rank(hundred, 1.0), 100)
        self.assertEqual(nearest_rank(hundred, 0.005), 1)
        self.assertEqual(nearest_rank([1, 2, 3, 4], 0.50), 2)
        self.assertEqual(nearest_rank([1, 2, 3, 4], 0.51), 3)
        self.assertEqual(EmpiricalDistribution([0.4, 0.1, 0.3, 0.2]).quantile(0.5), 0.2)


class DegenerateInputs(unittest.TestCase):
    def test_constant_step_times_give_amplification_one_at_every_n(self):
        run = synthetic_run(np.full((4, 30), 0.0125))
        s = scenario_from_run("constant", run)
        self.assertEqual(s.base_s, 0.0125)
        for n in RANKS:
            with self.subTest(n=n):
                self.assertEqual(s.predicted_amplification(n), 1.0)
                self.assertEqual(s.expected_step_s(n), 0.0125)
                self.assertEqual(s.expected_step_s(n, CO_SCHEDULED), 0.0125)

    def test_load_imbalance_is_not_noise(self):
        """Each rank constant but at its own level: the per-rank base takes the imbalance out."""
        run = synthetic_run([[0.010] * 20, [0.012] * 20])
        s = scenario_from_run("imbalanced", run)
        self.assertEqual(s.delays.sorted.max(), 0.0)
        self.assertEqual(s.predicted_amplification(1000), 1.0)
        self.assertEqual(s.facts["rank_base_min_s"], 0.010)
        self.assertEqual(s.facts["rank_base_max_s"], 0.012)


class MonteCarloAgreesWithExact(unittest.TestCase):
    def test_within_statistical_error(self):
        rng = np.random.default_rng(12345)
        # A skewed, heavy-ish tail: most steps on time, a few late by varying amounts.
        delays = np.concatenate([np.zeros(900), rng.exponential(0.002, 100)])
        s = Scenario(label="skewed", base_s=0.01, delays=EmpiricalDistribution(delays), source="test",
                     independent_steps=delays.size)
        for n in (1, 2, 10, 100, 1000):
            with self.subTest(n=n):
                steps = 4000
                mean, stderr = monte_carlo_step_s(s, n, steps, np.random.default_rng(n))
                exact_stderr = np.sqrt(s.delays.variance_of_max(n) / steps)
                self.assertAlmostEqual(stderr, exact_stderr, delta=0.2 * exact_stderr)
                self.assertLessEqual(abs(mean - s.expected_step_s(n)), 4 * exact_stderr)


class Crossover(unittest.TestCase):
    def test_reserving_a_core_wins_once_some_rank_is_likely_hit(self):
        # All cores: 1.0 + 1.0 with probability 1/100. Reserved: a constant 1.2 (fewer cores, no noise).
        # Reserved wins once 1 - 0.99^N > 0.2, i.e. N > ln 0.8 / ln 0.99 = 22.2.
        all_cores = bernoulli_scenario(1.0, 1, 100, 1.0, "all-cores")
        reserved = bernoulli_scenario(1.2, 0, 100, 1.0, "reserved")
        ranges = reserved_wins_ranges(all_cores, reserved, UNCOORDINATED, 1_000_000)
        self.assertEqual(ranges, [[23, 1_000_000]])
        self.assertEqual(crossover_ranks(ranges, 1_000_000), 23)
        # Co-scheduled noise costs all cores only 1.01 at any N: reserving never wins.
        ranges = reserved_wins_ranges(all_cores, reserved, CO_SCHEDULED, 1_000_000)
        self.assertEqual(ranges, [])
        self.assertIsNone(crossover_ranks(ranges, 1_000_000))

    def test_reserved_faster_from_the_start(self):
        all_cores = bernoulli_scenario(1.0, 1, 2, 1.0, "all-cores")
        reserved = bernoulli_scenario(1.1, 0, 2, 1.0, "reserved")
        self.assertEqual(reserved_wins_ranges(all_cores, reserved, UNCOORDINATED, 1000), [[1, 1000]])

    def test_curves_that_cross_twice(self):
        # All cores: 1 + 1 (1 - 0.99^N), rising slowly to 2. Reserved: 0.6 + 1.3 (1 - 0.9^N), rising fast to 1.9.
        # Reserved wins at few ranks, loses in between, and wins again at many: every N checked by closed form.
        all_cores = bernoulli_scenario(1.0, 1, 100, 1.0, "all-cores")
        reserved = bernoulli_scenario(0.6, 1, 10, 1.3, "reserved")
        n_max = 20_000
        wins = [0.6 + 1.3 * (1 - 0.9**n) < 1 + (1 - 0.99**n) for n in range(1, n_max + 1)]
        expected, start = [], None
        for n, win in enumerate(wins, start=1):
            if win and start is None:
                start = n
            if not win and start is not None:
                expected.append([start, n - 1])
                start = None
        if start is not None:
            expected.append([start, n_max])
        self.assertEqual(len(expected), 2)
        ranges = reserved_wins_ranges(all_cores, reserved, UNCOORDINATED, n_max)
        self.assertEqual(ranges, expected)
        self.assertEqual(crossover_ranks(ranges, n_max), expected[-1][0])


if __name__ == "__main__":
    unittest.main()
