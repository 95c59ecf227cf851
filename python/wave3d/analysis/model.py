"""The bulk-synchronous jitter model.

Every rank's step takes T_i = base + D_i: the noise-free step time (computation and communication) plus
the delay noise caused that rank in that step. A bulk-synchronous step ends when its slowest rank does,
so with N ranks the step takes max_i T_i = base + max_i D_i.

- Uncoordinated noise: the D_i are independent draws from the per-rank delay distribution, so
  E[step] = base + E[max of N draws], computed exactly from the empirical distribution
  (order_statistics.py); it grows with N as the chance that some rank is hit grows.
- Co-scheduled noise: all ranks are delayed at the same time by the same amount, so the maximum over
  the ranks is one draw: E[step] = base + E[D], the same at every N.

A scenario is one way of running the node (all cores computing, or a core reserved): its own base
time and its own delay distribution, taken either from a measured run's per-rank step times or from
detour traces overlaid on the run's computation in each step (detours.py).
"""

from dataclasses import dataclass, field

import numpy as np

from .detours import RankNoise
from .order_statistics import EmpiricalDistribution, nearest_rank

UNCOORDINATED = "uncoordinated"
CO_SCHEDULED = "co-scheduled"
COORDINATIONS = (UNCOORDINATED, CO_SCHEDULED)


@dataclass
class Scenario:
    label: str
    base_s: float  # noise-free step time (s)
    delays: EmpiricalDistribution  # per-rank per-step delay (s) relative to base_s
    source: str  # where the delays come from, in words
    run: object = None  # the RunData the scenario was measured in, if any
    noise: RankNoise = None  # the trace model, when the delays come from traces
    delays_nonnegative: bool = False  # true for trace delays: "delayed" then means D > 0
    facts: dict = field(default_factory=dict)
    # How many independent steps the measurement holds: rank-steps of a run, or the disjoint step windows
    # the traces cover (phase points of one trace are not independent of each other).
    independent_steps: int = 0

    def expected_step_s(self, n, coordination=UNCOORDINATED):
        if coordination == UNCOORDINATED:
            return self.base_s + self.delays.expected_max(n)
        if coordination == CO_SCHEDULED:
            return self.base_s + self.delays.mean()
        raise ValueError(f"unknown coordination '{coordination}'; allowed: {', '.join(COORDINATIONS)}")

    def prob_any_delayed(self, n, coordination=UNCOORDINATED):
        """P(at least one of n ranks is delayed in a step); only defined for non-negative (trace) delays."""
        if not self.delays_nonnegative:
            return None
        if coordination == CO_SCHEDULED:
            return self.delays.prob_max_exceeds(1, 0.0)
        return self.delays.prob_max_exceeds(n, 0.0)

    def predicted_amplification(self, n):
        """What wave3d's noise_amplification would read with n uncoordinated ranks: E[max] / E[median]."""
        return (self.base_s + self.delays.expected_max(n)) / (self.base_s + self.delays.expected_median(n))

    def draw_delays_s(self, rng, shape):
        """Independent per-rank delays for a Monte Carlo check: random phases for traces, resampling otherwise."""
        if self.noise is not None:
            return self.noise.draw_delays_s(rng, shape)
        return self.delays.sorted[rng.integers(0, self.delays.size, size=shape)]

    def tail_limited(self, n):
        """True when the expected maximum rests on the largest few measured steps (n at or beyond the number of
        independent steps measured): the measurement then says little about how much worse the real tail is."""
        return n >= self.independent_steps


def _plural(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def rank_bases_s(run, quantity, base_quantile=0.5):
    """Each rank's base_quantile (the median by default) of its step times in `quantity`."""
    return nearest_rank(run.step_times(quantity), base_quantile, axis=1)


def run_base_s(run, base_quantile=0.5):
    """The step time a run gives without noise: the median over ranks of each rank's base_quantile of its
    total step time (communication included: it is part of every step, noise or not)."""
    return float(np.median(rank_bases_s(run, "total", base_quantile)))


def run_work_s(run, base_quantile=0.5):
    """The part of the step a rank computes, which is what detours can delay: as run_base_s, of busy time."""
    return float(np.median(rank_bases_s(run, "busy", base_quantile)))


def scenario_from_run(label, run, quantity="busy", base_quantile=0.5):
    """Delays from the run's own step times: in each rank, every step's time in `quantity` minus that rank's
    base_quantile of it, pooled over ranks and steps. Removing each rank's own level takes out load
    imbalance, which is not noise. The base is the run's total step time (run_base_s), so communication
    stays in the step even when the delays come from busy time."""
    times = run.step_times(quantity)
    levels = rank_bases_s(run, quantity, base_quantile)
    delays = (times - levels[:, None]).ravel()
    totals = rank_bases_s(run, "total", base_quantile)
    facts = {"rank_base_min_s": float(totals.min()), "rank_base_max_s": float(totals.max()),
             "samples": int(delays.size), "quantity": quantity, "base_quantile": base_quantile}
    source = (f"{run.path}/steps.csv ({quantity} step time, {_plural(run.ranks, 'rank')} x "
              f"{_plural(times.shape[1], 'step')})")
    return Scenario(label=label, base_s=float(np.median(totals)), delays=EmpiricalDistribution(delays),
                    source=source, run=run, facts=facts, independent_steps=int(delays.size))


def scenario_from_traces(label, traces, work_s, *, base_s=None, cores_per_rank=1, points_per_group=None, run=None):
    """Delays from detour traces overlaid on work_s of computation per step, at uniformly spread phases.
    The step takes base_s without noise (work_s when not given; longer when it also communicates, and
    detours that land while a rank waits for messages are taken to cost nothing)."""
    base_s = work_s if base_s is None else base_s
    noise = RankNoise(traces, work_s, cores_per_rank)
    if points_per_group is None:
        # Fine enough that each detour is resolved by many phase points (the error in a hit probability is
        # at most detours / points), without letting long traces cost too much.
        detours = max(t.count for t in traces)
        points_per_group = int(min(2_000_000, max(100_000, 200 * detours)))
    delays = noise.grid_delays_s(points_per_group)
    windows = noise.step_windows()
    facts = {"samples": int(delays.size), "step_windows": windows, "rank_groups": noise.rank_groups,
             "cores_per_rank": cores_per_rank, "work_s": float(work_s),
             "phase_points_per_group": points_per_group, "traces": noise.detour_summary()}
    source = f"{_plural(len(traces), 'detour trace file')} overlaid on {work_s * 1e3:.3f} ms of computation per step"
    return Scenario(label=label, base_s=float(base_s), delays=EmpiricalDistribution(delays), source=source,
                    run=run, noise=noise, delays_nonnegative=True, facts=facts, independent_steps=windows)


def monte_carlo_step_s(scenario, n, steps, rng, max_draws_per_chunk=4_000_000):
    """Simulated bulk-synchronous steps with n uncoordinated ranks: mean step time and its standard error."""
    chunk = max(1, min(steps, max_draws_per_chunk // n))
    maxima = []
    done = 0
    while done < steps:
        rows = min(chunk, steps - done)
        maxima.append(scenario.draw_delays_s(rng, (rows, n)).max(axis=1))
        done += rows
    maxima = np.concatenate(maxima)
    stderr = float(maxima.std(ddof=1) / np.sqrt(steps)) if steps > 1 else float("nan")
    return scenario.base_s + float(maxima.mean()), stderr


def reserved_wins_ranges(all_cores, reserved, coordination, n_max):
    """The ranges [first, last] of N (1 <= N <= n_max) at which the reserved-core scenario's expected step is
    shorter than the all-cores one's. The two curves can cross more than once (different tails), so every
    change is found: on a dense log grid of N, each change then located exactly by bisection."""
    def reserved_wins(n):
        return reserved.expected_step_s(n, coordination) < all_cores.expected_step_s(n, coordination)

    grid = [int(n) for n in np.unique(np.round(np.logspace(0, np.log10(n_max), 400)).astype(np.int64))]
    ranges = []
    winning = reserved_wins(grid[0])
    start = grid[0] if winning else None
    for previous, n in zip(grid, grid[1:]):
        if reserved_wins(n) == winning:
            continue
        lo, hi = previous, n  # the answer differs between lo and hi: find the first N that has hi's answer
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if reserved_wins(mid) == winning:
                lo = mid
            else:
                hi = mid
        if winning:
            ranges.append([start, hi - 1])
        else:
            start = hi
        winning = not winning
    if winning:
        ranges.append([start, n_max])
    return ranges


def crossover_ranks(ranges, n_max):
    """The N from which reserving a core wins up to n_max, or None when it does not win at n_max."""
    if ranges and ranges[-1][1] == n_max:
        return ranges[-1][0]
    return None
