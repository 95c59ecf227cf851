"""Per-configuration statistics of a study: medians over the repetitions that count, with their minimum and
maximum; short labels that name only the axes that vary; and the grouping of configurations that differ in
one respect, which the findings, the saturation curve and the reserved-core comparison are built on."""

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .bootstrap import median_interval, ratio_interval
from .study import parameter_key, value_text
from .study_placement import NOT_AUDITED, configuration_placement, wrong_among

# Short names for the axes studies usually have; any other axis is named by its last component.
_SHORT_NAMES = {
    "placement.compute_cores_per_socket": "cores/socket",
    "placement.compute_cores_per_node": "cores/node",
    "placement.ranks_per_node": "ranks/node",
    "placement.progress_thread": "progress thread",
    "daemon.enabled": "daemon",
    "run.init.policy": "init",
    "run.parallel.halo": "halo",
    "run.parallel.progress": "progress",
}


@dataclass(frozen=True)
class Summary:
    """Median, minimum and maximum of the values of the repetitions that count."""

    median: float
    minimum: float
    maximum: float
    count: int

    @property
    def spread(self):
        """(max - min) / median: how far apart the repetitions were; None for a single run, which has no spread."""
        if self.count < 2 or not self.median:
            return None
        return (self.maximum - self.minimum) / self.median

    def as_dict(self, scale=1.0):
        spread = self.spread
        return {"median": self.median * scale, "min": self.minimum * scale, "max": self.maximum * scale,
                "count": self.count, "spread_percent": None if spread is None else 100 * spread}


def summarise(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return Summary(median=float(np.median(values)), minimum=float(min(values)), maximum=float(max(values)),
                   count=len(values))


def run_summary(configuration, name):
    return summarise([r.values.get(name) for r in configuration.good_runs])


def throughput(configuration):
    return run_summary(configuration, "mpoints_per_second")


def repetition_values(configuration, name="mpoints_per_second"):
    """Repetition number -> value, of the repetitions that count: what the bootstrap pairs ratios by."""
    return {r.repetition: r.values.get(name) for r in configuration.good_runs if r.values.get(name) is not None}


def throughput_interval(configuration):
    return median_interval(list(repetition_values(configuration).values()))


def throughput_ratio(a, b):
    """Median throughput of a over b's, with its bootstrap interval and verdict (bootstrap.py)."""
    return ratio_interval(repetition_values(a), repetition_values(b))


def reference_configuration(study):
    """The configuration every other is compared with in report.csv: the study's first one with a result."""
    return next((c for c in study.configurations if c.good_runs), None)


def axis_short_names(names):
    """Axis name -> short name, unique among `names` (the full name where two would read the same)."""
    short = {n: _SHORT_NAMES.get(n, n.split(".")[-1] if n.split(".")[-1] != "enabled" else n.split(".")[-2])
             for n in names}
    taken = [s for s in short.values()]
    return {n: (s if taken.count(s) == 1 else n) for n, s in short.items()}


def parameters_label(parameters, names, short_names=None):
    short_names = short_names or axis_short_names(names)
    return " ".join(f"{short_names[n]}={value_text(parameters.get(n))}" for n in names)


def short_labels(study):
    """Configuration id -> a label naming the values of the varying axes only (the id when none varies)."""
    varying = study.varying_axes()
    if not varying:
        return {c.id: c.id for c in study.configurations}
    names = axis_short_names(varying)
    return {c.id: parameters_label(c.parameters, varying, names) for c in study.configurations}


def verification_text(configuration):
    statuses = [r.verification or "not recorded" for r in configuration.good_runs]
    if not statuses:
        return "no result"
    distinct = sorted(set(statuses), key=statuses.index)
    if len(distinct) == 1:
        return distinct[0]
    return ", ".join(f"{s} x{statuses.count(s)}" for s in distinct)


def _actual_shape(configuration):
    """ranks x threads as the counting runs report them, when all agree."""
    shapes = {(r.values.get("ranks"), r.values.get("threads_per_rank")) for r in configuration.good_runs}
    if len(shapes) == 1:
        ranks, threads = next(iter(shapes))
        if ranks is not None and threads is not None:
            return int(ranks), int(threads)
    return None


def shape_text(configuration):
    planned = f"{value_text(configuration.ranks)} x {value_text(configuration.threads_per_rank)}"
    actual = _actual_shape(configuration)
    if actual is not None and (actual[0] != configuration.ranks or actual[1] != configuration.threads_per_rank):
        return f"{planned} (ran {actual[0]} x {actual[1]})"
    return planned


def _run_placement(run):
    """A run's placement verdict and problem kinds for report.json; None for a run whose run.json was not read."""
    if run.status != "done":
        return None, []
    if run.placement is None:
        return NOT_AUDITED, []
    return run.placement.verdict, run.placement.kinds


def configuration_rows(study, labels):
    """One plain dict per configuration: the numbers of the report's table (report.json 'configurations')."""
    rows = []
    for c in study.configurations:
        t = throughput(c)
        p99 = run_summary(c, "step_p99_s")
        amplification = run_summary(c, "noise_amplification")
        halo = run_summary(c, "halo_exposed_fraction")
        rows.append({
            "id": c.id, "label": c.label, "short_label": labels[c.id], "parameters": c.parameters,
            "ranks": c.ranks, "threads_per_rank": c.threads_per_rank, "shape": shape_text(c),
            "compute_cores_per_node": c.compute_cores_per_node, "reserved_cores_per_node": c.reserved_cores_per_node,
            "progress_thread": c.progress_thread, "daemon": c.daemon,
            "runs_total": len(c.runs), "runs_ok": len(c.good_runs),
            "runs": [{"repetition": r.repetition, "dir": r.dir, "status": r.status, "counts": r.counts,
                      "problem": r.problem, "mpoints_per_second": r.values.get("mpoints_per_second"),
                      "placement_verdict": _run_placement(r)[0], "placement_problems": _run_placement(r)[1]}
                     for r in c.runs],
            "mpoints_per_second": t.as_dict() if t else None,
            "mpoints_per_second_interval": throughput_interval(c),
            "ratio_to_reference": None,
            "ratio_to_best": None,
            "ratio_to_best_placement_wrong": [],
            "step_p99_ms_median": p99.median * 1e3 if p99 else None,
            "noise_amplification_median": amplification.median if amplification else None,
            "halo_exposed_percent_median": halo.median * 100 if halo else None,
            "verification": verification_text(c),
            "placement": configuration_placement(c),
            "median_repetition": c.median_run.repetition if c.median_run else None,
        })
    measured = [r for r in rows if r["mpoints_per_second"]]
    reference = reference_configuration(study)
    if reference is not None:
        for c, row in zip(study.configurations, rows):
            row["ratio_to_reference"] = throughput_ratio(c, reference) if c.good_runs else None
    if measured:
        best = max(measured, key=lambda r: r["mpoints_per_second"]["median"])
        by_id = {c.id: c for c in study.configurations}
        for r in measured:
            r["ratio_to_best"] = r["mpoints_per_second"]["median"] / best["mpoints_per_second"]["median"]
            r["ratio_to_best_placement_wrong"] = wrong_among(by_id[r["id"]], by_id[best["id"]])
    return rows


def best_configuration(rows):
    measured = [r for r in rows if r["mpoints_per_second"]]
    return max(measured, key=lambda r: r["mpoints_per_second"]["median"])["id"] if measured else None


def differ_only_in(a, b, axis, names):
    """True when configurations a and b have the same value on every axis of `names` but `axis`, and differ on it."""
    same = all(parameter_key(a.parameters.get(n)) == parameter_key(b.parameters.get(n)) for n in names if n != axis)
    return same and parameter_key(a.parameters.get(axis)) != parameter_key(b.parameters.get(axis))


def determining_axes(configurations, names, quantity):
    """The axes that change `quantity` (a function of a configuration): some two configurations differing only
    in that axis have a different quantity. E.g. the axes that set the number of computing cores."""
    return [axis for axis in names
            if any(differ_only_in(a, b, axis, names) and quantity(a) != quantity(b)
                   for a, b in combinations(configurations, 2))]


def group_by(configurations, names):
    """Configurations with equal values on `names` -> [(key parameters, [configurations])], in first-seen order."""
    groups = {}
    for c in configurations:
        key = tuple(parameter_key(c.parameters.get(n)) for n in names)
        groups.setdefault(key, ({n: c.parameters.get(n) for n in names}, []))[1].append(c)
    return list(groups.values())


def ranges_overlap(a, b):
    """Whether two Summaries' [min, max] ranges overlap: if they do, the difference of the medians is within the
    spread of the repetitions. None when either is a single run: one run has no spread to judge by."""
    if a.count < 2 or b.count < 2:
        return None
    return a.minimum <= b.maximum and b.minimum <= a.maximum
