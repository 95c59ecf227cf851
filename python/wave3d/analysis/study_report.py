"""A study directory -> report.md, report.csv, report.json and the PNGs (study_plots.py) in an output directory.

Everything is computed before the first file is written, so bad input writes nothing. Each file is
written under a temporary name and renamed into place, report.md last: a report that fails half-way
leaves the previous report.md as it was."""

import os

from .. import files
from .bootstrap import DECISION_RULE, DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from .errors import InputError
from .run_facts import combined_facts, facts_line
from .study_csv import format_csv
from .study_findings import DEFAULT_SATURATION_TOLERANCE, paired_findings, saturation, strip_private
from .study_jitter import configuration_extrapolations, reserved_comparisons
from . import study_plots
from .study_markdown import format_markdown
from .study_placement import run_counts as placement_counts, wrong_runs
from .study_stats import axis_short_names, best_configuration, configuration_rows, reference_configuration, short_labels

NUMBERED_PLOTS = ("step_heatmap", "step_histograms")


def _run_counts(study):
    runs = study.runs
    counts = {"total": len(runs), "counted": sum(r.counts for r in runs),
              "verification_failed": sum(r.status == "done" and not r.counts for r in runs)}
    for status in ("done", "failed", "timeout", "pending"):
        counts[status] = sum(r.status == status for r in runs)
    counts["placement"] = placement_counts(study)  # of the runs that count
    return counts


def build_report(study, tolerance=DEFAULT_SATURATION_TOLERANCE, resamples=None):
    """Everything the report shows, as a JSON-ready dict (report.json); keys starting with '_' are kept for the
    plots and left out of the file."""
    labels = short_labels(study)
    varying = study.varying_axes()
    short = axis_short_names(varying)
    rows = configuration_rows(study, labels)
    sat = saturation(study, tolerance)
    entries, scenarios = configuration_extrapolations(study, labels, resamples)
    count = len(study.configurations)
    reference = reference_configuration(study)
    return {
        **files.header(files.REPORT_FORMAT, "wave3d-study report"),
        "study_directory": study.directory,
        "study": {"name": study.name, "description": study.description, "file": _study_file(study)},
        "job": study.job, "machine": study.machine, "repetitions": study.repetitions,
        "adaptive": study.adaptive,
        "run_facts": combined_facts([r.facts for r in study.runs if r.counts]),
        "statistics": {"decision_rule": DECISION_RULE, "level_percent": 100 * DEFAULT_LEVEL,
                       "resamples": DEFAULT_RESAMPLES, "seed": DEFAULT_SEED, "paired_by": "repetition"},
        "reference_configuration": reference.id if reference else None,
        "axes": [{"name": n, "values": v, "varying": n in varying, "short_name": short.get(n)} for n, v in study.axes],
        "options": {"saturation_tolerance": tolerance},
        "runs": _run_counts(study),
        "configurations": rows,
        "best_configuration": best_configuration(rows),
        "left_out": [{"configuration": r.configuration, "repetition": r.repetition, "dir": r.dir, "status": r.status,
                      "reason": r.problem} for r in study.runs if not r.counts],
        "placement_wrong_runs": wrong_runs(study),
        "excluded_combinations": study.excluded,
        "saturation": strip_private(sat),
        "findings": paired_findings(study),
        "extrapolation": {"configurations": entries, "reserved": reserved_comparisons(study, labels, scenarios)},
        "plots": {"throughput": "throughput.png",
                  "saturation": None if sat["note"] else "saturation.png",
                  "heatmaps": study_plots.page_names("step_heatmap", count),
                  "histograms": study_plots.page_names("step_histograms", count),
                  "extrapolation": "extrapolation.png" if scenarios else None},
        "_saturation": sat,
        "_labels": labels,
    }


def _write_text(path, text):
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(path, f"cannot write ({e.strerror})") from None


def _remove_stale_pages(output_dir, plots):
    """Numbered pages of an earlier report of more configurations than this one has."""
    current = set(plots["heatmaps"]) | set(plots["histograms"])
    for name in os.listdir(output_dir):
        stem, _, rest = name.partition("-")
        if stem in NUMBERED_PLOTS and rest[:-4].isdigit() and name.endswith(".png") and name not in current:
            os.unlink(os.path.join(output_dir, name))


def _study_file(study):
    """The study file as run: the copy the runner keeps in the study directory, where there is one."""
    copy = os.path.join(study.directory, "study.toml")
    return copy if os.path.isfile(copy) else study.file


def _relative_paths(value, directory):
    """The report with the study directory's files named relative to it, and the directory by its own name,
    so that a report moved or committed with its study names no path of the machine that wrote it."""
    top = os.path.abspath(directory)
    if isinstance(value, dict):
        return {k: _relative_paths(v, directory) for k, v in value.items()}
    if isinstance(value, list):
        return [_relative_paths(v, directory) for v in value]
    if not isinstance(value, str) or not value.startswith(top):
        return value
    if value == top:
        return os.path.basename(top)
    if value.startswith(top + os.sep):
        return value[len(top) + 1:]
    return value


def write_report(study, report, output_dir):
    """The PNGs, report.json, report.csv, then report.md into output_dir (created if missing). Returns the paths written."""
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as e:
        raise InputError(output_dir, f"cannot create the output directory ({e.strerror})") from None
    plots, labels = report["plots"], report["_labels"]
    title = f"{study.name}\n{facts_line(report['run_facts'])}"
    written = []

    def at(name):
        path = os.path.join(output_dir, name)
        written.append(path)
        return path

    try:
        study_plots.plot_throughput(report["configurations"], at(plots["throughput"]), title)
        if plots["saturation"]:
            study_plots.plot_saturation(report["_saturation"], at(plots["saturation"]), title)
        study_plots.plot_heatmaps(study, labels, title, [at(p) for p in plots["heatmaps"]])
        study_plots.plot_histograms(study, labels, title, [at(p) for p in plots["histograms"]])
        if plots["extrapolation"]:
            study_plots.plot_extrapolation(report["extrapolation"]["configurations"], at(plots["extrapolation"]),
                                           title)
    except OSError as e:
        raise InputError(written[-1] if written else output_dir, f"cannot write ({e.strerror})") from None
    public = _relative_paths({k: v for k, v in report.items() if not k.startswith("_")}, study.directory)
    try:
        files.write_json_atomically(at(files.REPORT_JSON), public)
    except OSError as e:
        raise InputError(written[-1], f"cannot write ({e.strerror})") from None
    _write_text(at("report.csv"), format_csv(public))
    _write_text(at("report.md"), format_markdown(public))
    _remove_stale_pages(output_dir, plots)
    return written
