"""The jitter model (model.py, extrapolation.py; see python/tools/README.md) applied to a study: every
configuration's median repetition extrapolated from its own step times to 10^2..10^6 ranks, and, where the
study has configurations with reserved cores and without that differ in nothing else, where reserving wins."""

from .extrapolation import extrapolate, rank_counts_for
from .model import COORDINATIONS, crossover_ranks, reserved_wins_ranges, scenario_from_run
from .report import _verdict as reserved_wins_verdict
from .study_placement import wrong_among
from .study_stats import axis_short_names, determining_axes, group_by, parameters_label

# The largest N searched for the rank count at which reserving starts to win (as extrapolate.py).
CROSSOVER_MAX_RANKS = 1_000_000


def _reserved_cores(configuration):
    value = configuration.reserved_cores_per_node
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _entry(configuration, label, run, scenario):
    """One configuration's extrapolation, reduced to what the report shows (uncoordinated noise, slowdown over
    the configuration's own expected step on one rank)."""
    result = extrapolate([scenario], rank_counts_for([scenario]), mc_steps=0)
    s = result["scenarios"][0]
    reference = result["reference"]["step_s"]
    return {"configuration": configuration.id, "label": label, "repetition": run.repetition, "run": run.dir,
            "ranks": run.step_data.ranks, "base_s": s["base_s"], "one_rank_step_s": s["one_rank_step_s"],
            "independent_steps": s["independent_steps"], "validation": s["validation"],
            "predictions": [{"ranks": p["ranks"], "step_s": p["uncoordinated_step_s"],
                             "slowdown": p["uncoordinated_slowdown"], "tail_limited": p["tail_limited"]}
                            for p in s["predictions"]],
            "curve": {"ranks": s["curve"]["ranks"], "slowdown": s["curve"]["uncoordinated_slowdown"],
                      "step_s": [x * reference for x in s["curve"]["uncoordinated_slowdown"]]},
            "placement_wrong": wrong_among(configuration), "note": None}


def configuration_extrapolations(study, labels):
    """[entry per configuration], {configuration id: Scenario} for the ones with step times."""
    entries, scenarios = [], {}
    for c in study.configurations:
        run = c.median_run
        if run is None or run.step_data is None:
            note = "no result" if run is None else run.steps_note
            entries.append({"configuration": c.id, "label": labels[c.id], "placement_wrong": wrong_among(c),
                            "note": note})
            continue
        scenarios[c.id] = scenario_from_run(labels[c.id], run.step_data)
        entries.append(_entry(c, labels[c.id], run, scenarios[c.id]))
    return entries, scenarios


def reserved_comparisons(study, labels, scenarios):
    """Every pair of configurations that differ only in the axes that set the reserved cores, one with none
    reserved and one with some: the ranges of N at which the reserved one's expected step is shorter.
    None when the study does not have both kinds."""
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
                        "reserved_cores_per_node": _reserved_cores(r), "searched_up_to_ranks": CROSSOVER_MAX_RANKS,
                        "reserved_wins_ranges": None, "crossover_ranks": None, "verdict": None,
                        "placement_wrong": wrong_among(a, r), "note": None}
                missing = [c.id for c in (a, r) if c.id not in scenarios]
                if missing:
                    pair["note"] = f"no step times for {', '.join(missing)}"
                else:
                    ranges = {k: reserved_wins_ranges(scenarios[a.id], scenarios[r.id], k, CROSSOVER_MAX_RANKS)
                              for k in COORDINATIONS}
                    pair["reserved_wins_ranges"] = ranges
                    pair["crossover_ranks"] = {k: crossover_ranks(v, CROSSOVER_MAX_RANKS) for k, v in ranges.items()}
                    pair["verdict"] = {k: reserved_wins_verdict(v, CROSSOVER_MAX_RANKS) for k, v in ranges.items()}
                pairs.append(pair)
    return {"pairs": pairs,
            "note": None if pairs else "no two configurations differ only in the cores they reserve"}
