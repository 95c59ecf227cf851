"""What a study's axes let the report say beyond the table:

- the saturation curve: throughput against the number of computing cores, one line per combination of the
  other axes, and where each line saturates (the fewest cores within a tolerance of its best);
- the surplus-core finding: with the daemon running, whether fewer computing cores beat all of them (the
  cores left over absorb the daemon), and the same without it for contrast;
- paired ratios: configurations that differ in one axis only (first-touch / serial, daemon on / off,
  progress thread, halo mode), as the ratio of their median throughputs.

Every comparison carries the bootstrap interval of its ratio and the verdict of the decision rule
(bootstrap.py): a saturation point, a surplus core or a ratio is stated only where the interval allows.

Every number comes from the repetitions that count; a configuration without any shows no value. Each
point, line and ratio lists in "placement_wrong" the configurations behind it whose placement was wrong.
"""

from .bootstrap import FASTER
from .study import parameter_key
from .study_placement import merge_wrong, wrong_among
from .study_stats import (axis_short_names, determining_axes, group_by, parameters_label, ranges_overlap,
                          throughput, throughput_interval, throughput_ratio)

CORES_PER_SOCKET_AXIS = "placement.compute_cores_per_socket"
DEFAULT_SATURATION_TOLERANCE = 0.05

# (axis, the value the others are divided by, title). A baseline the study does not have falls back to
# the axis's first value.
PAIRED_COMPARISONS = (
    ("run.init.policy", "serial", "First-touch against serial page placement"),
    ("daemon.enabled", False, "Daemon on against off"),
    ("placement.progress_thread", False, "Progress thread on against off"),
    ("run.parallel.progress", "none", "Progress mode"),
    ("run.parallel.halo", "bulk", "Halo mode"),
)


def _int_or_none(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def core_axis(study):
    """(axis name or None, words, configuration -> number of computing cores): per socket when the study has
    the compute_cores_per_socket axis, else the planned computing cores per node."""
    if any(name == CORES_PER_SOCKET_AXIS for name, _ in study.axes):
        return CORES_PER_SOCKET_AXIS, "compute cores per socket", \
            lambda c: _int_or_none(c.parameters.get(CORES_PER_SOCKET_AXIS))
    return None, "compute cores per node", lambda c: _int_or_none(c.compute_cores_per_node)


def _machine_cores(study, axis):
    key = "cores_per_socket" if axis == CORES_PER_SOCKET_AXIS else "cores"
    return _int_or_none(study.machine.get(key))


def daemon_of(configuration):
    if isinstance(configuration.daemon, bool):
        return configuration.daemon
    value = configuration.parameters.get("daemon.enabled")
    return value if isinstance(value, bool) else None


def _has_two_at_one_core_count(groups, cores_of):
    return any(len({cores_of(c) for c in members}) < len(members) for _, members in groups)


def _line_axes(configurations, varying, axis, cores_of):
    """The axes that tell the lines apart: all varying axes but the core count. Without an explicit core axis,
    the axes that set the core count (e.g. placement.reserve) are left out too, unless a line would then hold
    two configurations at one core count."""
    if axis is not None:
        return [a for a in varying if a != axis]
    setting_cores = determining_axes(configurations, varying, cores_of)
    key = [a for a in varying if a not in setting_cores]
    for extra in setting_cores:
        if not _has_two_at_one_core_count(group_by(configurations, key), cores_of):
            break
        key = [a for a in varying if a in key or a == extra]
    return key


def _point(configuration, cores):
    t = throughput(configuration)
    return {"cores": cores, "configuration": configuration.id,
            "mpoints_per_second": t.as_dict() if t else None,
            "mpoints_per_second_interval": throughput_interval(configuration),
            "placement_wrong": wrong_among(configuration), "_summary": t, "_configuration": configuration}


def _saturation_point(points, tolerance):
    measured = [p for p in points if p["_summary"]]
    if not measured:
        return None, None
    best = max(measured, key=lambda p: p["_summary"].median)
    threshold = best["_summary"].median * (1.0 - tolerance)
    first = min((p for p in measured if p["_summary"].median >= threshold), key=lambda p: p["cores"])
    return ({"cores": best["cores"], "configuration": best["configuration"], "median": best["_summary"].median,
             "placement_wrong": best["placement_wrong"]},
            {"cores": first["cores"], "configuration": first["configuration"], "median": first["_summary"].median,
             "fraction_of_best": first["_summary"].median / best["_summary"].median,
             # measured against the best, so the best's placement is part of it too
             "placement_wrong": merge_wrong(first["placement_wrong"], best["placement_wrong"])})


def _saturation_verdict(points, saturation_point):
    """Whether the line still rises at its last point, by the decision rule (bootstrap.py): 'rising' when the
    most cores are faster than the next fewer; 'saturated' when no point with more cores than the saturation
    point is faster than it; otherwise 'not distinguishable'. With the ratios it rests on."""
    measured = [p for p in points if p["_summary"]]
    if len(measured) < 2 or saturation_point is None:
        return {"verdict": None, "last_step": None, "beyond_saturation": []}
    last, previous = measured[-1], measured[-2]
    step = {"from_cores": previous["cores"], "to_cores": last["cores"],
            "ratio": throughput_ratio(last["_configuration"], previous["_configuration"])}
    at = next(p for p in measured if p["configuration"] == saturation_point["configuration"])
    beyond = [{"cores": p["cores"], "ratio": throughput_ratio(p["_configuration"], at["_configuration"])}
              for p in measured if p["cores"] > at["cores"]]
    if step["ratio"]["verdict"] == FASTER:
        verdict = "rising"
    elif beyond and all(b["ratio"]["verdict"] != FASTER for b in beyond):
        verdict = "saturated"
    else:
        verdict = "not distinguishable"
    return {"verdict": verdict, "last_step": step, "beyond_saturation": beyond}


def _surplus(line, machine_cores):
    """Whether fewer computing cores beat the most cores measured on this line."""
    measured = [p for p in line["points"] if p["_summary"]]
    if len({p["cores"] for p in measured}) < 2:
        return None
    most = max(p["cores"] for p in measured)
    at_most = max((p for p in measured if p["cores"] == most), key=lambda p: p["_summary"].median)
    fewer = max((p for p in measured if p["cores"] < most), key=lambda p: p["_summary"].median)
    a, f = at_most["_summary"], fewer["_summary"]
    ratio = throughput_ratio(fewer["_configuration"], at_most["_configuration"])
    return {"ratio": ratio, "verdict": ratio["verdict"] if ratio else None,"daemon": line["daemon"], "all_cores": most, "all_cores_is_machine": most == machine_cores,
            "all_cores_configuration": at_most["configuration"], "all_cores_median": a.median,
            "fewer_cores": fewer["cores"], "fewer_cores_configuration": fewer["configuration"],
            "fewer_cores_median": f.median, "gain_percent": 100 * (f.median / a.median - 1),
            "fewer_beat_all": f.median > a.median, "within_spread": ranges_overlap(a, f),
            "placement_wrong": merge_wrong(fewer["placement_wrong"], at_most["placement_wrong"])}


def saturation(study, tolerance=DEFAULT_SATURATION_TOLERANCE):
    """The saturation curve's lines, each with its best point, its saturation point and (for studies with the
    daemon) the surplus-core finding. With fewer than two core counts, only a note."""
    axis, words, cores_of = core_axis(study)
    configurations = [c for c in study.configurations if cores_of(c) is not None]
    counts = sorted({cores_of(c) for c in configurations})
    machine_cores = _machine_cores(study, axis)
    result = {"axis": axis or "compute_cores_per_node", "words": words, "tolerance": tolerance,
              "core_counts": counts, "machine_cores": machine_cores, "lines": [], "note": None}
    if len(counts) < 2:
        shown = f"{counts[0]} {words.replace('cores', 'core') if counts[0] == 1 else words}" if counts else \
            f"no {words} recorded"
        result["note"] = f"The study has one core count ({shown}): no saturation curve."
        return result
    varying = study.varying_axes()
    key_axes = _line_axes(configurations, varying, axis, cores_of)
    names = axis_short_names(varying)
    with_daemon = any(daemon_of(c) for c in configurations)
    for parameters, members in group_by(configurations, key_axes):
        daemons = {daemon_of(c) for c in members}
        line = {"label": parameters_label(parameters, key_axes, names) or "all configurations",
                "parameters": parameters, "daemon": daemons.pop() if len(daemons) == 1 else None,
                "points": sorted((_point(c, cores_of(c)) for c in members), key=lambda p: p["cores"])}
        line["placement_wrong"] = merge_wrong(*(p["placement_wrong"] for p in line["points"]))
        line["best"], line["saturation"] = _saturation_point(line["points"], tolerance)
        line["saturation_verdict"] = _saturation_verdict(line["points"], line["saturation"])
        line["surplus"] = _surplus(line, machine_cores) if with_daemon and line["daemon"] is not None else None
        result["lines"].append(line)
    return result


def strip_private(value):
    """A finding without the Summary objects kept for the plots (keys starting with '_'), for JSON."""
    if isinstance(value, dict):
        return {k: strip_private(v) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, list):
        return [strip_private(v) for v in value]
    return value


def paired_ratios(study, axis, baseline, title):
    """Configurations that differ only in `axis`: each value's median throughput over the baseline value's."""
    varying = study.varying_axes()
    if axis not in varying:
        return None
    values = []
    for c in study.configurations:
        v = c.parameters.get(axis)
        if parameter_key(v) not in [parameter_key(x) for x in values]:
            values.append(v)
    axis_keys = [parameter_key(x) for x in dict(study.axes).get(axis, [])]
    values.sort(key=lambda v: axis_keys.index(parameter_key(v)) if parameter_key(v) in axis_keys else len(axis_keys))
    base = baseline if parameter_key(baseline) in [parameter_key(v) for v in values] else values[0]
    others = [a for a in varying if a != axis]
    names = axis_short_names(varying)
    rows = []
    for parameters, members in group_by(study.configurations, others):
        reference = next((c for c in members if parameter_key(c.parameters.get(axis)) == parameter_key(base)), None)
        if reference is None:
            continue
        for c in members:
            if c is reference:
                continue
            t, r = throughput(c), throughput(reference)
            rows.append({"label": parameters_label(parameters, others, names) or "(no other axis)",
                         "interval": throughput_ratio(c, reference) if t and r else None,
                         "parameters": parameters, "value": c.parameters.get(axis), "baseline": base,
                         "configuration": c.id, "baseline_configuration": reference.id,
                         "median": t.median if t else None, "baseline_median": r.median if r else None,
                         "ratio": t.median / r.median if t and r else None,
                         "within_spread": ranges_overlap(t, r) if t and r else None,
                         "placement_wrong": wrong_among(c, reference)})
    return {"axis": axis, "title": title, "short_name": names[axis], "baseline": base, "values": values,
            "rows": rows}


def paired_findings(study):
    return [f for f in (paired_ratios(study, axis, baseline, title) for axis, baseline, title in PAIRED_COMPARISONS)
            if f is not None]
