"""Per-step delays from detour traces.

A detour trace lists when a core was taken away from the application (start, duration). To turn it
into the delay of one compute step of length T (the noise-free step time):

- The trace is one period of a stationary process: it covers [first start, last start) and is repeated
  end to end (the last detour stands for the next repetition of the first). A strictly periodic daemon
  is then reproduced exactly, and a step that runs past the end of the measurement sees detours from
  its beginning rather than silence.
- A step that starts at t0 needs T of CPU time. Detours that fall inside it push its end out, and so
  can let more detours in: the step ends at the first f with (free time in [t0, f]) = T, and its delay
  is f - t0 - T (all detour time inside the step, including the rest of one already running at t0).
- A rank whose threads run on several cores finishes when its last thread does: its delay is the
  maximum over its cores, taken at the same instant on each core (the traces of one node are recorded
  together, so they share a time origin and their alignment is real).
- Uncoordinated noise: every rank sees the trace at its own random phase t0, uniform over the period.
  The per-rank delay distribution is therefore the delay as a function of t0 over a fine uniform grid
  of t0.
"""

import math

import numpy as np

from .errors import InputError, OptionError


class CoreTimeline:
    """The detours of one core on a repeating period [0, span_ns), ready to answer 'how late is a step'."""

    def __init__(self, trace, origin_ns, span_ns, step_ns):
        starts = trace.starts_ns.astype(np.float64) - origin_ns
        ends = starts + trace.durations_ns.astype(np.float64)
        inside = (starts >= 0) & (starts < span_ns)
        starts, ends = starts[inside], ends[inside]
        self.step_ns = float(step_ns)
        self.span_ns = float(span_ns)
        # A core of a multi-core rank can be quiet over the rank's span: nothing ever delays it.
        self._quiet = len(starts) == 0
        if self._quiet:
            return
        merged_busy = _merged_length(starts, ends, span_ns)
        free_per_period = span_ns - merged_busy
        if free_per_period <= 0:
            raise InputError(trace.path, "the detours cover the whole trace: no time is left to compute")
        # Enough repetitions that a step starting anywhere in period 0 ends inside them; one before 0 for a
        # detour that straddles the wrap-around into period 0.
        periods_after = 2 + math.ceil(step_ns / free_per_period)
        shifts = np.arange(-1, periods_after + 1) * span_ns
        rep_starts = (starts[None, :] + shifts[:, None]).ravel()
        rep_ends = (ends[None, :] + shifts[:, None]).ravel()
        self._starts, self._ends = _merge(rep_starts, rep_ends)
        busy_before = np.concatenate(([0.0], np.cumsum(self._ends - self._starts)[:-1]))
        self._free_at_start = self._starts - busy_before  # free time accumulated up to each detour (flat inside it)
        self._busy_before = busy_before

    def _free_time(self, t):
        """Free (non-detour) time on the unrolled timeline up to t."""
        k = np.searchsorted(self._starts, t, side="right") - 1
        kk = np.maximum(k, 0)
        inside = (k >= 0) & (t < self._ends[kk])
        busy = np.where(k < 0, 0.0, self._busy_before[kk] + np.where(inside, t - self._starts[kk],
                                                                      self._ends[kk] - self._starts[kk]))
        return t - busy

    def delays_ns(self, t0):
        """Delay of a step of step_ns starting at each t0 in [0, span_ns)."""
        t0 = np.asarray(t0, dtype=np.float64)
        if self._quiet:
            return np.zeros_like(t0)
        target = self._free_time(t0) + self.step_ns
        # The step ends in the free stretch before the first detour whose start has at least `target` free
        # time before it; at exactly `target` the step ends as that detour begins (no delay from it).
        k = np.searchsorted(self._free_at_start, target, side="left")
        if np.any(k >= len(self._starts)):
            raise AssertionError("timeline unrolled too short")  # guarded by periods_after
        finish = self._starts[k] - (self._free_at_start[k] - target)
        delay = finish - t0 - self.step_ns
        # Traces are in whole nanoseconds; what is left below half of one is rounding, not a detour.
        return np.where(delay < 0.5, 0.0, delay)


def _merge(starts, ends):
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    running_end = np.maximum.accumulate(ends)
    # A new merged interval begins where a start lies beyond every earlier end.
    new = np.ones(len(starts), dtype=bool)
    new[1:] = starts[1:] > running_end[:-1]
    group = np.cumsum(new) - 1
    merged_starts = starts[new]
    merged_ends = np.full(len(merged_starts), -np.inf)
    np.maximum.at(merged_ends, group, ends)
    return merged_starts, merged_ends


def _merged_length(starts, ends, span_ns):
    """Busy time per period, counting a detour that wraps past the period end once."""
    if len(starts) == 0:
        return 0.0
    shifts = np.array([-span_ns, 0.0, span_ns])
    s, e = _merge((starts[None, :] + shifts[:, None]).ravel(), (ends[None, :] + shifts[:, None]).ravel())
    return float(np.sum(np.clip(e, 0, span_ns) - np.clip(s, 0, span_ns)))


class RankNoise:
    """Per-step delays of ranks built from core traces: groups of cores_per_rank traces form one rank."""

    def __init__(self, traces, step_s, cores_per_rank=1):
        if cores_per_rank < 1:
            raise OptionError(f"--cores-per-rank {cores_per_rank}: must be at least 1")
        if len(traces) % cores_per_rank:
            raise OptionError(f"--cores-per-rank {cores_per_rank}: {len(traces)} trace files do not split into "
                             f"ranks of {cores_per_rank} cores each")
        if not step_s > 0:
            raise OptionError(f"step time {step_s} s: must be positive")
        self.step_s = float(step_s)
        self.cores_per_rank = cores_per_rank
        self.groups = []
        for g in range(0, len(traces), cores_per_rank):
            group = traces[g:g + cores_per_rank]
            origin = min(int(t.starts_ns[0]) for t in group)
            end = max(int(t.starts_ns[-1]) for t in group)
            if end <= origin:
                names = ", ".join(t.path for t in group)
                where = group[0].path if len(group) == 1 else names
                raise InputError(where, "needs at least two detours at different times: a trace covers the time "
                                        "from its first detour's start to its last's")
            span = end - origin
            self.groups.append([CoreTimeline(t, origin, span, self.step_s * 1e9) for t in group])
        self.traces = traces

    @property
    def rank_groups(self):
        return len(self.groups)

    def step_windows(self):
        """Disjoint steps the traces cover, over all rank groups: how many independent steps they measured."""
        return int(sum(group[0].span_ns // (self.step_s * 1e9) for group in self.groups))

    def _group_delays_ns(self, group, phase_fraction):
        span = group[0].span_ns
        return np.max([core.delays_ns(phase_fraction * span) for core in group], axis=0)

    def grid_delays_s(self, points_per_group):
        """Delays (s) at points_per_group evenly spaced phases of every rank group, pooled."""
        phases = (np.arange(points_per_group) + 0.5) / points_per_group
        return np.concatenate([self._group_delays_ns(g, phases) for g in self.groups]) * 1e-9

    def draw_delays_s(self, rng, shape):
        """Independent delays (s) at uniformly random phases and rank groups: uncoordinated ranks."""
        phases = rng.random(shape)
        which = rng.integers(0, len(self.groups), size=shape)
        out = np.empty(shape)
        for i, group in enumerate(self.groups):
            mask = which == i
            out[mask] = self._group_delays_ns(group, phases[mask])
        return out * 1e-9

    def detour_summary(self):
        """Per trace: detours, mean duration, mean gap (ns) - what the trace looks like."""
        rows = []
        for t in self.traces:
            gaps = np.diff(t.starts_ns)
            rows.append({"path": t.path, "detours": int(t.count), "mean_duration_ns": float(t.durations_ns.mean()),
                         "max_duration_ns": int(t.durations_ns.max()),
                         "mean_interval_ns": float(gaps.mean()) if len(gaps) else None})
        return rows
