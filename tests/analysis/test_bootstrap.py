"""The bootstrap intervals of medians and ratios (python/wave3d/analysis/bootstrap.py) on known data: a
difference beyond the spread of the repetitions is a verdict, one within it is 'not distinguishable',
pairing by repetition takes out a drift shared by both configurations, and a fixed seed reproduces."""

import unittest

import analysis_support  # noqa: F401

from wave3d.analysis.bootstrap import (FASTER, NOT_DISTINGUISHABLE, SLOWER, median_interval, ratio_interval,
                                       repetitions_text)
from wave3d.paired_bootstrap import paired_ratio_interval, relative_width


class MedianInterval(unittest.TestCase):
    def test_three_repetitions_span_their_range(self):
        ci = median_interval([10.0, 12.0, 11.0])
        self.assertEqual(ci["estimate"], 11.0)
        # a resampled median of 3 is one of the 3 values; each extreme has probability 7/27 > 2.5 %
        self.assertEqual((ci["low"], ci["high"]), (10.0, 12.0))
        self.assertEqual(ci["repetitions"], 3)

    def test_many_repetitions_narrow_the_interval(self):
        values = [100.0 + (i % 7) for i in range(41)]
        ci = median_interval(values)
        self.assertLess(ci["high"] - ci["low"], max(values) - min(values))
        self.assertLessEqual(ci["low"], ci["estimate"])
        self.assertGreaterEqual(ci["high"], ci["estimate"])

    def test_fixed_seed_reproduces(self):
        values = [3.0, 5.0, 4.0, 8.0, 1.0]
        self.assertEqual(median_interval(values), median_interval(values))

    def test_no_values(self):
        self.assertIsNone(median_interval([]))


class RatioInterval(unittest.TestCase):
    def test_separated_repetitions_are_a_verdict(self):
        a = {1: 110.0, 2: 112.0, 3: 111.0}
        b = {1: 100.0, 2: 101.0, 3: 99.0}
        ratio = ratio_interval(a, b)
        self.assertTrue(ratio["paired"])
        self.assertEqual(ratio["verdict"], FASTER)
        self.assertGreater(ratio["low"], 1.0)
        self.assertEqual(ratio_interval(b, a)["verdict"], SLOWER)
        self.assertEqual(repetitions_text(ratio), "3 paired repetitions")

    def test_overlapping_repetitions_are_not_distinguishable(self):
        a = {1: 104.0, 2: 97.0, 3: 101.0}
        b = {1: 100.0, 2: 103.0, 3: 98.0}
        ratio = ratio_interval(a, b)
        self.assertEqual(ratio["verdict"], NOT_DISTINGUISHABLE)
        self.assertLessEqual(ratio["low"], 1.0)
        self.assertGreaterEqual(ratio["high"], 1.0)

    def test_pairing_cancels_a_shared_drift(self):
        # the machine slows down over the study; A is 3 % faster in every repetition
        drift = {1: 100.0, 2: 80.0, 3: 60.0}
        a = {k: 1.03 * v for k, v in drift.items()}
        paired = ratio_interval(a, drift)
        self.assertTrue(paired["paired"])
        self.assertEqual(paired["verdict"], FASTER)
        self.assertAlmostEqual(paired["low"], 1.03)
        self.assertAlmostEqual(paired["high"], 1.03)
        # the same values with repetitions that do not match are resampled independently: the drift swamps it
        unpaired = ratio_interval(a, {k + 10: v for k, v in drift.items()})
        self.assertFalse(unpaired["paired"])
        self.assertEqual(unpaired["verdict"], NOT_DISTINGUISHABLE)

    def test_missing_side(self):
        self.assertIsNone(ratio_interval({}, {1: 1.0}))


class StandardLibraryForm(unittest.TestCase):
    """The study runner's interval (wave3d/paired_bootstrap.py, no numpy) is the report's, but for the
    random generator: the same estimate, and bounds within resampling noise."""

    def test_agrees_with_the_report(self):
        a = [101.0, 97.5, 103.2, 99.1, 104.8, 98.3, 100.9, 102.2, 96.4, 101.7]
        b = [99.0, 98.1, 100.2, 97.7, 101.5, 99.9, 98.8, 100.4, 97.2, 99.6]
        report = ratio_interval(dict(enumerate(a, 1)), dict(enumerate(b, 1)))
        runner = paired_ratio_interval(a, b)
        self.assertTrue(runner["paired"])
        self.assertAlmostEqual(runner["estimate"], report["estimate"])
        self.assertAlmostEqual(runner["low"], report["low"], delta=0.003)
        self.assertAlmostEqual(runner["high"], report["high"], delta=0.003)
        self.assertEqual(runner["repetitions"], report["repetitions"])

    def test_three_repetitions_span_the_paired_ratios(self):
        # a resampled median of 3 is one of the 3 values (or, for the ratio, a mix of neighbours): as coarse
        # as the report's
        runner = paired_ratio_interval([110.0, 112.0, 111.0], [100.0, 101.0, 99.0])
        report = ratio_interval({1: 110.0, 2: 112.0, 3: 111.0}, {1: 100.0, 2: 101.0, 3: 99.0})
        self.assertEqual((runner["low"], runner["high"]), (report["low"], report["high"]))

    def test_steady_ratio_has_no_width(self):
        runner = paired_ratio_interval([110.0, 88.0, 66.0], [100.0, 80.0, 60.0])
        self.assertAlmostEqual(relative_width(runner), 0.0)

    def test_nothing_to_pair(self):
        self.assertIsNone(paired_ratio_interval([], []))
        self.assertIsNone(paired_ratio_interval([1.0, 2.0], [1.0]))


if __name__ == "__main__":
    unittest.main()
