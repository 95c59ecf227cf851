"""The tail model of the per-step delays (gpd_tail.py, tail_check.py, tail_extrapolation.py): the GPD fit
recovers known parameters, the spliced model's expected maximum matches the exact one of a known
distribution, the held-out check passes a model of the right family and fails a wrong one, the supported N
follows its definition, and the reserved-core crossover comes with an interval that holds the known answer."""

import math
import unittest

import numpy as np

import analysis_support  # noqa: F401

from wave3d.analysis.gpd_tail import GeneralisedPareto, SplicedTail, fit_gpd
from wave3d.analysis.tail_check import MIN_EXPECTED, held_out_check, kolmogorov_p_value
from wave3d.analysis.tail_extrapolation import Measurement, TailFits, crossover, supported_ranks


def gpd_sample(shape, scale, size, seed):
    return GeneralisedPareto(shape, scale).excess_at(np.random.default_rng(seed).random(size))


class GpdFit(unittest.TestCase):
    def test_recovers_known_parameters(self):
        for shape, scale, seed in ((0.25, 1.0, 1), (0.0, 2.0, 2), (-0.2, 0.5, 3)):
            fit = fit_gpd(gpd_sample(shape, scale, 8000, seed))
            self.assertAlmostEqual(fit.shape, shape, delta=0.05, msg=(shape, scale))
            self.assertAlmostEqual(fit.scale / scale, 1.0, delta=0.06, msg=(shape, scale))

    def test_spliced_expected_maximum_of_exponential_delays(self):
        # E[max of n Exp(1)] = H_n, the n-th harmonic number; the tail above the 95th percentile of an
        # exponential is exactly a GPD of shape 0, so the spliced model holds it beyond the samples too
        samples = np.random.default_rng(7).exponential(1.0, 40_000)
        model = SplicedTail(samples)
        self.assertIsNotNone(model.gpd)
        for n in (1, 10, 1000, 100_000):
            harmonic = float(np.sum(1.0 / np.arange(1, n + 1)))
            self.assertAlmostEqual(model.expected_max(np.array([n]))[0], harmonic, delta=0.06 * harmonic, msg=n)
        self.assertAlmostEqual(float(model.exceedance_probability(model.upper_quantile(0.001))), 0.001, places=9)

    def test_too_few_excesses_stay_empirical(self):
        model = SplicedTail(np.arange(20.0))
        self.assertIsNone(model.gpd)
        self.assertAlmostEqual(model.expected_max(np.array([1]))[0], 9.5)


class HeldOutCheck(unittest.TestCase):
    def test_passes_the_right_family_and_fails_a_wrong_one(self):
        rng = np.random.default_rng(11)
        train, test = rng.exponential(1.0, 6000), rng.exponential(1.0, 6000)
        good = held_out_check([(train, test), (test, train)], 0.95)
        self.assertTrue(good["passed"], good)
        self.assertAlmostEqual(good["smallest_probability_checked"] * good["held_out_samples"], MIN_EXPECTED,
                               delta=MIN_EXPECTED)
        # held-out delays with a tail ten times heavier than the training ones
        heavy = np.concatenate([rng.exponential(1.0, 5400), 10 + rng.exponential(10.0, 600)])
        bad = held_out_check([(train, heavy)], 0.95)
        self.assertFalse(bad["passed"])
        self.assertTrue(any(abs(level["z"]) > 3 for level in bad["levels"]))

    def test_kolmogorov_p_value(self):
        self.assertAlmostEqual(kolmogorov_p_value(0.0, 100), 1.0)
        # the 5 % critical value of the KS statistic is about 1.358 / sqrt(n) for large n
        self.assertAlmostEqual(kolmogorov_p_value(1.358 / math.sqrt(10_000), 10_000), 0.05, delta=0.005)


def measurement(label, base, delays, ranks_per_node=1):
    return Measurement(label=label, delays=delays, bases_s=[base] * len(delays), repetitions=list(range(1, len(delays) + 1)),
                       ranks_per_node=ranks_per_node, points_per_node=1000.0)


class SupportedRanks(unittest.TestCase):
    def test_definition(self):
        rng = np.random.default_rng(5)
        model = SplicedTail(rng.exponential(1.0, 2000))
        self.assertEqual(supported_ranks({"passed": True, "smallest_probability_checked": 0.0025}, model), 400)
        self.assertEqual(supported_ranks({"passed": False}, model), 20)  # 1 / the threshold's 5 %
        self.assertEqual(supported_ranks(None, SplicedTail(np.arange(20.0))), 4)  # no tail: 20 samples / 5

    def test_from_repetitions(self):
        rng = np.random.default_rng(9)
        m = measurement("exp", 1.0, [rng.exponential(0.01, (4, 500)) for _ in range(3)])
        fits = TailFits(m, resamples=20)
        self.assertTrue(fits.check["passed"], fits.check)
        self.assertEqual(fits.check["folds"], 3)
        self.assertEqual(fits.supported_ranks, int(1 / fits.check["smallest_probability_checked"]))


class Crossover(unittest.TestCase):
    def test_interval_holds_the_known_crossover(self):
        # all cores: base 1.0 with exponential delays of mean 0.1; reserved: base 1.3, no delay to speak of.
        # E[step] = 1 + 0.1 H_N against 1.3: reserving wins from H_N > 3, N = 11 (H_11 = 3.02)
        rng = np.random.default_rng(3)
        all_cores = TailFits(measurement("all", 1.0, [rng.exponential(0.1, (8, 1000)) for _ in range(3)]),
                             resamples=40, seed=1)
        reserved = TailFits(measurement("reserved", 1.3, [np.full((8, 1000), 1e-9) for _ in range(3)]),
                            resamples=40, seed=2)
        c = crossover(all_cores, reserved, per_node=False)
        self.assertEqual(c["unit"], "ranks")
        self.assertIsNotNone(c["crossover"])
        self.assertLessEqual(c["low"], 11)
        self.assertGreaterEqual(c["high"], 11)
        self.assertLess(c["high"], 30)
        self.assertEqual(c["never_fraction"], 0.0)

    def test_never_when_reserving_is_always_slower(self):
        rng = np.random.default_rng(4)
        all_cores = TailFits(measurement("all", 1.0, [rng.exponential(0.001, (4, 300))]), resamples=20)
        reserved = TailFits(measurement("reserved", 2.0, [rng.exponential(0.001, (4, 300))]), resamples=20)
        for per_node in (False, True):
            c = crossover(all_cores, reserved, per_node=per_node)
            self.assertIsNone(c["crossover"])
            self.assertIsNone(c["low"])
            self.assertEqual(c["never_fraction"], 1.0)

    def test_equal_nodes_counts_ranks_per_node(self):
        # 2 ranks per node against 1, equal bases, no noise: per node the all-cores job does the same work in
        # the same step, so neither wins; at equal rank count neither does either
        quiet = [np.full((2, 200), 1e-9)]
        all_cores = TailFits(measurement("all", 1.0, quiet, ranks_per_node=2), resamples=10)
        reserved = TailFits(measurement("reserved", 1.0, quiet, ranks_per_node=1), resamples=10)
        c = crossover(all_cores, reserved, per_node=True)
        self.assertEqual(c["unit"], "nodes")
        self.assertEqual(c["searched_up_to"], 500_000)


if __name__ == "__main__":
    unittest.main()
