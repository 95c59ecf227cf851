"""Detour traces overlaid on steps: a periodic daemon has closed-form answers.

A daemon that works d every P hits a step of length T (T + d <= P) when a burst starts inside the step
or is running when it starts: for a uniformly random step start that is an interval of length T + d in
every period, so P(hit) = (T + d) / P, and the mean delay is (T d + d^2 / 2) / P (a full burst when it
starts inside the step, its remainder when it was already running).
"""

import unittest

import numpy as np

import analysis_support  # noqa: F401
from analysis_support import periodic_trace
from wave3d.analysis.detours import RankNoise
from wave3d.analysis.errors import InputError
from wave3d.analysis.loaders import Trace
from wave3d.analysis.model import CO_SCHEDULED, UNCOORDINATED, scenario_from_traces

MS = 1_000_000  # ns
POINTS = 200_000


class PeriodicDaemon(unittest.TestCase):
    period, burst, step = 10 * MS, 1 * MS, 3 * MS
    bursts = 41

    def scenario(self, traces=None, cores_per_rank=1):
        traces = traces or [periodic_trace(self.period, self.burst, self.bursts, offset_ns=123_456)]
        return scenario_from_traces("daemon", traces, self.step * 1e-9, cores_per_rank=cores_per_rank,
                                    points_per_group=POINTS)

    def test_hit_probability_per_step(self):
        s = self.scenario()
        p = (self.step + self.burst) / self.period
        # The phase grid resolves each burst's edges to one grid point: error at most bursts / points.
        self.assertAlmostEqual(s.prob_any_delayed(1), p, delta=self.bursts / POINTS)

    def test_probability_that_one_of_n_ranks_is_hit(self):
        s = self.scenario()
        p = (self.step + self.burst) / self.period
        for n in (2, 10, 100):
            with self.subTest(n=n):
                exact = 1 - (1 - p) ** n
                self.assertAlmostEqual(s.prob_any_delayed(n, UNCOORDINATED), exact, delta=n * self.bursts / POINTS)
                self.assertAlmostEqual(s.prob_any_delayed(n, CO_SCHEDULED), p, delta=self.bursts / POINTS)

    def test_mean_and_largest_delay(self):
        s = self.scenario()
        mean = (self.step * self.burst + self.burst**2 / 2) / self.period
        self.assertAlmostEqual(s.delays.mean() * 1e9, mean, delta=mean * 1e-3)
        self.assertAlmostEqual(s.delays.sorted[-1] * 1e9, self.burst, delta=1)
        # Many ranks: some rank is always hit by a whole burst.
        self.assertAlmostEqual((s.expected_step_s(1_000_000) - s.base_s) * 1e9, self.burst, delta=1)
        self.assertAlmostEqual(s.expected_step_s(10**6, CO_SCHEDULED), s.base_s + s.delays.mean(), delta=1e-15)

    def test_detours_delay_the_computation_not_the_communication(self):
        # 3 ms of computation in a 10 ms step: the hit probability is that of the 3 ms, the base all 10 ms.
        s = scenario_from_traces("daemon", [periodic_trace(self.period, self.burst, self.bursts)], self.step * 1e-9,
                                 base_s=10e-3, points_per_group=POINTS)
        self.assertAlmostEqual(s.prob_any_delayed(1), (self.step + self.burst) / self.period,
                               delta=self.bursts / POINTS)
        self.assertAlmostEqual(s.expected_step_s(1), 10e-3 + s.delays.mean(), delta=1e-15)

    def test_step_longer_than_the_gap_is_always_hit(self):
        s = scenario_from_traces("daemon", [periodic_trace(self.period, self.burst, self.bursts)],
                                 9.5 * MS * 1e-9, points_per_group=POINTS)
        self.assertEqual(s.prob_any_delayed(1), 1.0)

    def test_two_cores_of_one_rank_with_interleaved_daemons(self):
        # Bursts on core 1 half a period after core 0's; the hit windows (length T + d = 3 ms each) do not
        # overlap, so the rank (both cores) is hit with probability 2 (T + d) / P.
        step = 2 * MS
        cores = [periodic_trace(self.period, self.burst, self.bursts, path="cpu0"),
                 periodic_trace(self.period, self.burst, self.bursts, offset_ns=self.period // 2, path="cpu1")]
        s = scenario_from_traces("two-core rank", cores, step * 1e-9, cores_per_rank=2, points_per_group=POINTS)
        self.assertAlmostEqual(s.prob_any_delayed(1), 2 * (step + self.burst) / self.period,
                               delta=2 * self.bursts / POINTS)
        self.assertEqual(s.facts["rank_groups"], 1)

    def test_a_core_quiet_over_the_ranks_span_adds_nothing(self):
        busy = periodic_trace(self.period, self.burst, self.bursts, path="cpu0")
        end = int(busy.starts_ns[-1])
        quiet = Trace("cpu1", np.array([end, end], dtype=np.int64), np.array([10, 10], dtype=np.int64))
        alone = self.scenario([busy])
        both = self.scenario([busy, quiet], cores_per_rank=2)
        np.testing.assert_array_equal(both.delays.sorted, alone.delays.sorted)

    def test_monte_carlo_with_random_phases_agrees_with_the_phase_grid(self):
        s = self.scenario()
        rng = np.random.default_rng(7)
        for n in (1, 3, 30):
            with self.subTest(n=n):
                draws = s.draw_delays_s(rng, (20_000, n)).max(axis=1)
                stderr = np.sqrt(s.delays.variance_of_max(n) / len(draws))
                # The phase grid moves each burst edge by at most one grid step: a CDF error of bursts / points.
                grid_error = n * self.bursts / POINTS * self.burst * 1e-9
                self.assertLessEqual(abs(draws.mean() - s.delays.expected_max(n)), 4 * stderr + grid_error)


class StepArithmetic(unittest.TestCase):
    """Bursts at 0 and 10 ms of 1 ms each; the trace spans [0, 10 ms) and repeats; steps of 3 ms."""

    def core(self, durations=(MS, MS)):
        trace = Trace("two", np.array([0, 10 * MS], dtype=np.int64), np.array(durations, dtype=np.int64))
        return RankNoise([trace], 3e-3).groups[0][0]

    def test_delays_at_chosen_starts(self):
        core = self.core()
        starts = np.array([0.5, 1.0, 4.0, 7.0, 7.5, 9.5]) * MS
        # in a running burst: its remainder; just after it: none; the next burst at 10 ms: none if the step
        # ends exactly as it starts (7.0), the whole burst if it starts inside the step (7.5, 9.5).
        np.testing.assert_allclose(core.delays_ns(starts), np.array([0.5, 0.0, 0.0, 0.0, 1.0, 1.0]) * MS, atol=1e-3)

    def test_burst_crossing_the_end_of_the_trace_wraps_into_its_start(self):
        # A burst from 9.5 ms to 10.5 ms (before the last start, which stands for the first repeated) runs
        # into the next period: a step starting at 0.2 ms waits for it and the burst at 0 until 1 ms.
        trace = Trace("wrap", np.array([0, 9_500_000, 10 * MS], dtype=np.int64),
                      np.array([MS, MS, MS], dtype=np.int64))
        core = RankNoise([trace], 3e-3).groups[0][0]
        np.testing.assert_allclose(core.delays_ns(np.array([0.2 * MS])), [0.8 * MS], atol=1e-3)

    def test_detours_pushing_the_step_into_more_detours(self):
        # Bursts of 1 ms every 2 ms and a 3 ms step from 0: free 1-2, 3-4, 5-6 ms -> ends at 6 ms, 3 ms late.
        trace = periodic_trace(2 * MS, MS, 11)
        core = RankNoise([trace], 3e-3).groups[0][0]
        np.testing.assert_allclose(core.delays_ns(np.array([0.0])), [3 * MS], atol=1e-3)

    def test_a_trace_that_leaves_no_time_to_compute(self):
        trace = periodic_trace(2 * MS, 2 * MS, 5, path="busy.tsv")
        with self.assertRaisesRegex(InputError, "busy.tsv.*no time is left"):
            RankNoise([trace], 1e-3)

    def test_a_single_detour_has_no_span(self):
        trace = Trace("one.tsv", np.array([5], dtype=np.int64), np.array([1], dtype=np.int64))
        with self.assertRaisesRegex(InputError, "one.tsv.*at least two detours"):
            RankNoise([trace], 1e-3)

    def test_cores_per_rank_must_divide_the_traces(self):
        traces = [periodic_trace(MS, 1000, 5, path=f"cpu{i}") for i in range(3)]
        with self.assertRaisesRegex(ValueError, "--cores-per-rank 2.*3 trace files"):
            RankNoise(traces, 1e-3, cores_per_rank=2)


if __name__ == "__main__":
    unittest.main()
