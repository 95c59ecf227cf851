"""Predictions for a list of rank counts, the check against the measured run and the Monte Carlo check,
gathered into one plain dict (the JSON output; the text table and the plot are drawn from it)."""

import numpy as np

from .. import files
from .model import CO_SCHEDULED, UNCOORDINATED, crossover_ranks, monte_carlo_step_s, reserved_wins_ranges
from .tail_extrapolation import ASSUMPTIONS, TailFits, crossover, crossover_text, measurement_from_runs, predictions

DEFAULT_RANK_COUNTS = (100, 1_000, 10_000, 100_000, 1_000_000)

# A Monte Carlo mean within this many standard errors of the exact value agrees with it.
MONTE_CARLO_SIGMAS = 4.0

MODEL_DESCRIPTION = {
    "step": "per-rank step time = base (noise-free compute) + delay; a bulk-synchronous step takes the maximum "
            "over the N ranks",
    UNCOORDINATED: "ranks' delays are independent draws from the per-rank delay distribution: "
                   "E[step] = base + E[max of N draws], exact order statistics of the empirical distribution",
    CO_SCHEDULED: "all ranks are delayed at the same time by the same amount: E[step] = base + E[delay], "
                  "independent of N",
    "amplification": "E[max over N ranks] / E[median over N ranks] of the per-rank step time, as wave3d's "
                     "noise_amplification (mean per-step max over mean per-step median)",
    "slowdown": "expected step time over the reference: the first scenario's expected step time on one rank "
                "(base + mean delay), so the first scenario starts at 1 and a co-scheduled one stays there",
}


def _delay_summary(scenario):
    d = scenario.delays
    return {"samples": d.size, "mean_s": d.mean(), "p50_s": d.quantile(0.5), "p99_s": d.quantile(0.99),
            "max_s": float(d.sorted[-1]), "min_s": float(d.sorted[0])}


def run_check(scenario):
    """The model at the run's own rank count against what wave3d measured in that run: the amplification
    (run.json noise_amplification) and the mean step time of the slowest rank (mean of per_step_max_s)."""
    run = scenario.run
    if run is None:
        return None
    measured = run.noise_amplification
    result = {"ranks": run.ranks, "measured_amplification": measured,
              "measured_from": f"{run.path}/run.json jitter.noise_amplification",
              "predicted_step_s": scenario.expected_step_s(run.ranks),
              "measured_step_s": float(np.mean(run.per_step_max_s)) if len(run.per_step_max_s) else None}
    if run.ranks < 2:
        result.update(predicted_amplification=1.0, relative_difference=None,
                      note="one rank is its own maximum and median: a run needs at least 2 ranks to test the model")
        return result
    predicted = scenario.predicted_amplification(run.ranks)
    result.update(predicted_amplification=predicted,
                  relative_difference=(predicted - measured) / measured if measured else None)
    return result


def _monte_carlo(scenario, n, steps, rng):
    """Simulated steps against the exact expectation. The verdict uses the exact standard error of a mean of
    `steps` maxima: the sample's own spread misses rare late steps that a short simulation never draws."""
    exact = scenario.expected_step_s(n, UNCOORDINATED)
    mean, stderr = monte_carlo_step_s(scenario, n, steps, rng)
    exact_stderr = float(np.sqrt(scenario.delays.variance_of_max(n) / steps))
    agrees = abs(mean - exact) <= MONTE_CARLO_SIGMAS * exact_stderr + 1e-9 * abs(exact)  # plus rounding
    return {"steps": steps, "step_s": mean, "stderr_s": stderr, "exact_step_s": exact, "exact_stderr_s": exact_stderr,
            "agrees": bool(agrees)}


def _prediction_row(scenario, n, reference_s, mc_steps, mc_max_ranks, rng):
    uncoordinated = scenario.expected_step_s(n, UNCOORDINATED)
    co_scheduled = scenario.expected_step_s(n, CO_SCHEDULED)
    row = {"ranks": int(n),
           "uncoordinated_step_s": uncoordinated, "uncoordinated_slowdown": uncoordinated / reference_s,
           "co_scheduled_step_s": co_scheduled, "co_scheduled_slowdown": co_scheduled / reference_s,
           "uncoordinated_p_any_delayed": scenario.prob_any_delayed(n, UNCOORDINATED),
           "co_scheduled_p_any_delayed": scenario.prob_any_delayed(n, CO_SCHEDULED),
           "tail_limited": bool(scenario.tail_limited(n)),
           "monte_carlo": None}
    if mc_steps > 0 and n <= mc_max_ranks:
        row["monte_carlo"] = _monte_carlo(scenario, n, mc_steps, rng)
    return row


def _curve(scenario, reference_s, n_max, points=100):
    """Slowdown on a dense log grid of N, for the plot."""
    grid = np.unique(np.round(np.logspace(0, np.log10(n_max), points)).astype(np.int64))
    co_scheduled = scenario.expected_step_s(1, CO_SCHEDULED) / reference_s
    return {"ranks": [int(n) for n in grid],
            "uncoordinated_slowdown": [scenario.expected_step_s(int(n), UNCOORDINATED) / reference_s for n in grid],
            "co_scheduled_slowdown": [co_scheduled] * len(grid)}


def rank_counts_for(scenarios, extra=()):
    """10^2..10^6, the rank counts of the measured runs and any asked for, sorted."""
    counts = set(DEFAULT_RANK_COUNTS) | {int(n) for n in extra}
    counts |= {s.run.ranks for s in scenarios if s.run is not None}
    return sorted(counts)


def _tail_fits(scenario, resamples, seed):
    """The tail model of a scenario measured in a run (None for trace delays, whose samples are phase points of
    a few traces rather than measured steps, and when resamples is 0)."""
    if resamples <= 0 or scenario.run is None or scenario.noise is not None:
        return None
    measurement = measurement_from_runs(scenario.label, [scenario.run], [1], scenario.facts["quantity"],
                                        scenario.facts["base_quantile"])
    return TailFits(measurement, resamples=resamples, seed=seed)


def _tail_section(fits, rank_counts, reference):
    """The tail model's figures; slowdowns over the reference scenario's one-rank step under its own tail model,
    or over this scenario's own when the reference has none."""
    if fits is None:
        return None
    reference = reference or fits
    return {**fits.describe(), "slowdown_over": reference.measurement.label,
            "predictions": predictions(fits, rank_counts, reference=reference)}


def extrapolate(scenarios, rank_counts, mc_steps=1000, mc_max_ranks=10_000, seed=1, crossover_max=1_000_000,
                tail_resamples=200):
    """Everything the report shows, as a JSON-ready dict. scenarios[0] is the reference (all cores computing)."""
    rng = np.random.default_rng(seed)
    reference_s = scenarios[0].expected_step_s(1, UNCOORDINATED)
    fits = [_tail_fits(s, tail_resamples, seed + i) for i, s in enumerate(scenarios)]
    reference_fits = fits[0]
    result = {**files.header(files.EXTRAPOLATION_FORMAT, "extrapolate.py"), "model": MODEL_DESCRIPTION, "reference": {"scenario": scenarios[0].label, "step_s": reference_s},
              "rank_counts": [int(n) for n in rank_counts],
              "monte_carlo": {"steps": mc_steps, "max_ranks": mc_max_ranks, "seed": seed, "sigmas": MONTE_CARLO_SIGMAS},
              "scenarios": [], "comparison": None}
    for s in scenarios:
        entry = {"label": s.label, "source": s.source, "run": s.run.path if s.run is not None else None,
                 "run_summary": _run_summary(s.run), "base_s": s.base_s, "one_rank_step_s": s.expected_step_s(1),
                 "delay": _delay_summary(s), "independent_steps": s.independent_steps,
                 "delays_nonnegative": s.delays_nonnegative, "facts": s.facts, "validation": run_check(s),
                 "predictions": [_prediction_row(s, n, reference_s, mc_steps, mc_max_ranks, rng) for n in rank_counts],
                 "curve": _curve(s, reference_s, max(rank_counts)),
                 "tail": _tail_section(fits[len(result["scenarios"])], rank_counts, reference_fits)}
        result["scenarios"].append(entry)
    if len(scenarios) == 2:
        all_cores, reserved = scenarios
        ranges = {c: reserved_wins_ranges(all_cores, reserved, c, crossover_max) for c in (UNCOORDINATED, CO_SCHEDULED)}
        result["comparison"] = {
            "all_cores": all_cores.label, "reserved": reserved.label, "searched_up_to_ranks": crossover_max,
            "reserved_wins_ranges": ranges,
            "crossover_ranks": {c: crossover_ranks(r, crossover_max) for c, r in ranges.items()},
            "tail": None}
        if fits[0] is not None and fits[1] is not None:
            equal_ranks = crossover(fits[0], fits[1], per_node=False, n_max=crossover_max)
            equal_nodes = crossover(fits[0], fits[1], per_node=True, n_max=crossover_max)
            result["comparison"]["tail"] = {
                "assumptions": ASSUMPTIONS, "equal_ranks": equal_ranks, "equal_nodes": equal_nodes,
                "ranks_per_node": {"all_cores": fits[0].measurement.ranks_per_node,
                                   "reserved": fits[1].measurement.ranks_per_node},
                "verdict": {"equal_ranks": crossover_text(equal_ranks), "equal_nodes": crossover_text(equal_nodes)}}
    return result


def _run_summary(run):
    if run is None:
        return None
    return {"ranks": run.ranks, "threads_per_rank": run.threads_per_rank, "steps": int(len(run.steps)), **run.summary}
