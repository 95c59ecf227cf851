"""The jitter model (model.py, tail_extrapolation.py; see python/tools/README.md) applied to a study: every
configuration's per-rank step times of all its counting repetitions, with a tail model fitted over them and
checked on held-out repetitions, extrapolated to 10^2..10^6 ranks with bootstrap intervals; and, where the
study has configurations with reserved cores and without that differ in nothing else, where reserving wins
at equal rank count and at equal node count, with the crossover's interval."""

import numpy as np

from .bootstrap import DEFAULT_LEVEL, verdict
from .extrapolation import DEFAULT_RANK_COUNTS, run_check
from .model import scenario_from_run
from .study_placement import wrong_among
from .study_stats import axis_short_names, determining_axes, group_by, parameters_label
from .tail_extrapolation import (ASSUMPTIONS, CROSSOVER_MAX, TailFits, crossover, crossover_text, log_grid,
                                 measurement_from_runs, predictions)


def _reserved_cores(configuration):
    value = configuration.reserved_cores_per_node
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _curve(fits, n_max):
    rows = predictions(fits, log_grid(n_max, 61))
    return {"ranks": [r["ranks"] for r in rows], "slowdown": [r["slowdown"] for r in rows],
            "slowdown_low": [r["slowdown_low"] for r in rows], "slowdown_high": [r["slowdown_high"] for r in rows],
            "step_s": [r["step_s"] for r in rows], "step_low_s": [r["step_low_s"] for r in rows],
            "step_high_s": [r["step_high_s"] for r in rows]}


def _entry(configuration, label, runs, fits):
    """One configuration's extrapolation: uncoordinated noise, slowdown over the configuration's own expected
    step on one rank, each figure with its bootstrap interval and whether the data support its N."""
    median = configuration.median_run
    scenario = scenario_from_run(label, median.step_data)
    counts = sorted({1, *DEFAULT_RANK_COUNTS, median.step_data.ranks})
    rows = predictions(fits, counts)
    for row in rows:
        row["tail_limited"] = not row["supported"]
    return {"configuration": configuration.id, "label": label, "repetition": median.repetition, "run": median.dir,
            "repetitions": [r.repetition for r in runs], "ranks": median.step_data.ranks,
            "ranks_per_node": fits.measurement.ranks_per_node, "base_s": fits.base_s,
            "one_rank_step_s": rows[0]["step_s"], "independent_steps": int(fits.model.size),
            "supported_ranks": fits.supported_ranks, "tail": fits.describe(),
            "validation": run_check(scenario), "predictions": rows, "curve": _curve(fits, max(counts)),
            "placement_wrong": wrong_among(configuration), "note": None}


def configuration_extrapolations(study, labels, resamples=None):
    """[entry per configuration], {configuration id: TailFits} for the ones with step times."""
    entries, fitted = [], {}
    for i, c in enumerate(study.configurations):
        runs = [r for r in c.good_runs if r.step_data is not None]
        if c.median_run is None or not runs:
            note = "no result" if c.median_run is None else c.median_run.steps_note
            entries.append({"configuration": c.id, "label": labels[c.id], "placement_wrong": wrong_among(c),
                            "note": note})
            continue
        measurement = measurement_from_runs(labels[c.id], [r.step_data for r in runs], [r.repetition for r in runs])
        options = {} if resamples is None else {"resamples": resamples}
        fitted[c.id] = TailFits(measurement, seed=1000 + i, **options)
        entries.append(_entry(c, labels[c.id], runs, fitted[c.id]))
    return entries, fitted


def _co_scheduled(all_cores, reserved, level=DEFAULT_LEVEL):
    """Co-scheduled noise (every rank delayed together): the step is base + mean delay at any N, so reserving
    wins at every N or at none; the ratio of the two one-rank steps with its interval (equal rank count)."""
    one = np.array([1])
    ratios = (all_cores.resampled_steps_s(one) / reserved.resampled_steps_s(one)).ravel()
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(ratios, [tail, 100 - tail])
    result = {"estimate": float(all_cores.step_s(one)[0] / reserved.step_s(one)[0]), "low": float(low),
              "high": float(high), "level": level, "what": "all-cores expected step over reserved, one rank"}
    result["verdict"] = {"faster": "reserved wins at every N", "slower": "reserved never wins",
                         "not distinguishable": "not distinguishable"}[verdict(result)]
    return result


def reserved_comparisons(study, labels, fitted):
    """Every pair of configurations that differ only in the axes that set the reserved cores, one with none
    reserved and one with some: where the reserved one wins, at equal rank and at equal node count, with the
    crossover's interval. None when the study does not have both kinds."""
    configurations = [c for c in study.configurations if _reserved_cores(c) is not None]
    if not any(_reserved_cores(c) == 0 for c in configurations) or not any(_reserved_cores(c) for c in configurations):
        return None
    varying = study.varying_axes()
    key = [a for a in varying if a not in determining_axes(configurations, varying, _reserved_cores)]
    names = axis_short_names(varying)
    pairs = []
    for parameters, members in group_by(configurations, key):
        for a in (c for c in members if _reserved_cores(c) == 0):
            for r in (c for c in members if _reserved_cores(c)):
                pair = {"group": parameters_label(parameters, key, names), "all_cores": a.id, "reserved": r.id,
                        "all_cores_label": labels[a.id], "reserved_label": labels[r.id],
                        "reserved_cores_per_node": _reserved_cores(r), "searched_up_to_ranks": CROSSOVER_MAX,
                        "equal_ranks": None, "equal_nodes": None, "co_scheduled": None, "verdict": None,
                        "placement_wrong": wrong_among(a, r), "note": None}
                missing = [c.id for c in (a, r) if c.id not in fitted]
                if missing:
                    pair["note"] = f"no step times for {', '.join(missing)}"
                else:
                    A, R = fitted[a.id], fitted[r.id]
                    pair["ranks_per_node"] = {"all_cores": A.measurement.ranks_per_node,
                                              "reserved": R.measurement.ranks_per_node}
                    pair["equal_ranks"] = crossover(A, R, per_node=False)
                    pair["equal_nodes"] = crossover(A, R, per_node=True)
                    pair["co_scheduled"] = _co_scheduled(A, R)
                    pair["verdict"] = {"equal_ranks": crossover_text(pair["equal_ranks"]),
                                       "equal_nodes": crossover_text(pair["equal_nodes"]),
                                       "co_scheduled": pair["co_scheduled"]["verdict"]}
                pairs.append(pair)
    return {"pairs": pairs, "assumptions": ASSUMPTIONS,
            "note": None if pairs else "no two configurations differ only in the cores they reserve"}
