"""A study directory, as the study runner writes it (jobscripts/; the layout is described in
python/tools/README.md): study.json with the configurations and the state of every run, and for every
repetition a wave3d results directory (run.json, steps.csv).

Only runs the runner marked ``done`` count, and of those only the ones whose verification did not fail;
failed, timed-out and pending runs are kept with the reason they are left out, so the report can list
them. A run's placement audit (study_placement.py) is read with its values; a wrong placement does not
leave a run out. Every problem with the files raises :class:`InputError` naming the file.
"""

import json
import math
import os
from dataclasses import dataclass, field

import numpy as np

from .. import files
from ..files import lookup
from .errors import InputError
from .loaders import load_run
from .run_facts import run_facts
from .study_placement import read_audit

STUDY_FILE = files.STUDY_JSON
# The runner's states of a run, and why each is left out of the statistics. Only "done" can count. A status
# not listed here is kept and left out as well, with its name, so a report of a newer runner still works.
NOT_COUNTED = {
    "failed": ("failed", None),
    "timeout": ("timed out", "stopped at the run time limit"),
    "pending": ("pending", "not run: the job ended first or is still running"),
    "running": ("running", "the study was still running when the report was made"),
    "interrupted": ("interrupted", "the job was stopped while it ran"),
}

# What the report reads from every run.json: name -> dotted path. Only the throughput is required.


@dataclass
class RunResult:
    """One repetition of one configuration: the runner's record of it and, for a done run, its results."""

    configuration: str
    repetition: int
    dir: str  # relative to the study directory
    path: str  # absolute
    status: str  # the runner's: done, failed, timeout, pending
    exit_status: object = None
    duration_s: object = None
    error: str = None  # the runner's reason for a failure, when it gave one
    problem: str = None  # why the run is left out of the statistics; None when it counts
    values: dict = field(default_factory=dict)  # files.RUN_VALUES read from run.json (None where absent)
    verification: str = None
    placement: object = None  # the PlacementAudit of a done run; None when not audited (or not read)
    step_totals: np.ndarray = None  # total step time (s), ranks x steps after the first
    step_data: object = None  # the loaders.RunData of a counting run with step times
    facts: dict = None  # machine, grid, kernel and T of a done run (run_facts.py)
    steps_note: str = None  # why there are no step times

    @property
    def counts(self):
        return self.problem is None


@dataclass
class Configuration:
    id: str
    label: str
    parameters: dict
    ranks: object
    threads_per_rank: object
    compute_cores_per_node: object
    reserved_cores_per_node: object
    progress_thread: object
    daemon: object
    dir: str
    runs: list = field(default_factory=list)
    median_run: RunResult = None  # the counting repetition of median throughput (the lower one of an even count)

    @property
    def good_runs(self):
        return [r for r in self.runs if r.counts]

    @property
    def placement_wrong(self):
        """Whether a run behind this configuration's numbers ran with a wrong placement."""
        return any(r.placement is not None and r.placement.wrong for r in self.good_runs)


@dataclass
class Study:
    directory: str
    path: str  # study.json
    name: str
    description: str
    file: str
    job: dict
    machine: dict
    axes: list  # [(name, [values])]
    repetitions: object
    configurations: list
    excluded: list
    adaptive: dict = None  # study.json "adaptive": the headline pair's extra rounds, when the study had one

    @property
    def runs(self):
        return [r for c in self.configurations for r in c.runs]

    def varying_axes(self):
        """The axes whose value differs between the configurations, in the study's order."""
        names = [name for name, _ in self.axes]
        for c in self.configurations:  # a parameter that is not listed as an axis still tells configurations apart
            names += [n for n in c.parameters if n not in names]
        return [n for n in names if len({parameter_key(c.parameters.get(n)) for c in self.configurations}) > 1]

    def fixed_axes(self):
        varying = self.varying_axes()
        return [(name, values) for name, values in self.axes if name not in varying]


def parameter_key(value):
    """A parameter value as a key that compares and hashes equal for equal JSON values (lists included)."""
    return json.dumps(value, sort_keys=True)


def value_text(value):
    """A parameter value as the report writes it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, list):
        return ",".join(value_text(v) for v in value)
    return str(value)


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(path, f"no such file ({what})") from None
    except IsADirectoryError:
        raise InputError(path, f"is a directory ({what})") from None
    except json.JSONDecodeError as e:
        raise InputError(path, f"not valid JSON ({e.msg})", line=e.lineno) from None
    except UnicodeDecodeError:
        raise InputError(path, "not valid JSON (not UTF-8 text)") from None
    except OSError as e:
        raise InputError(path, f"cannot read ({e.strerror})") from None


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _require(path, doc, key, kind, what):
    value = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InputError(path, f"'{key}' is missing or not {what}")
    return value


def _configuration(path, index, doc):
    if not isinstance(doc, dict):
        raise InputError(path, f"configurations[{index}] is not an object")
    cid = _require(path, doc, "id", str, "a string")
    parameters = doc.get("parameters", {})
    if not isinstance(parameters, dict):
        raise InputError(path, f"configuration '{cid}': 'parameters' is not an object")
    return Configuration(id=cid, label=str(doc.get("label", cid)), parameters=parameters, ranks=doc.get("ranks"),
                         threads_per_rank=doc.get("threads_per_rank"),
                         compute_cores_per_node=doc.get("compute_cores_per_node"),
                         reserved_cores_per_node=doc.get("reserved_cores_per_node"),
                         progress_thread=doc.get("progress_thread"), daemon=doc.get("daemon"),
                         dir=str(doc.get("dir", "")))


def _run_record(path, directory, index, doc, configurations):
    if not isinstance(doc, dict):
        raise InputError(path, f"runs[{index}] is not an object")
    cid = _require(path, doc, "configuration", str, "a configuration id")
    if cid not in configurations:
        raise InputError(path, f"runs[{index}] names configuration '{cid}', which is not in 'configurations'")
    repetition = doc.get("repetition")
    if not isinstance(repetition, int) or isinstance(repetition, bool) or repetition < 1:
        raise InputError(path, f"runs[{index}] ({cid}): 'repetition' = {repetition!r} is not a number from 1")
    status = doc.get("status")
    if not isinstance(status, str) or not status:
        raise InputError(path, f"runs[{index}] ({cid} rep {repetition}): 'status' = {status!r} is not a run state "
                               f"(done, {', '.join(NOT_COUNTED)})")
    rel = doc.get("dir") or os.path.join(configurations[cid].dir, f"rep{repetition}")
    error = doc.get("error")
    return RunResult(configuration=cid, repetition=repetition, dir=rel, path=os.path.join(directory, rel),
                     status=status, exit_status=doc.get("exit_status"), duration_s=doc.get("duration_s", doc.get("seconds")),
                     error=error if isinstance(error, str) and error else None)


def _not_counted_reason(run):
    if run.status == "done":
        return None
    word, why = NOT_COUNTED.get(run.status, (f"status '{run.status}'", "not a state this report knows"))
    details = [d for d in (why, None if run.exit_status is None else f"exit status {run.exit_status}") if d]
    reason = word + (f" ({'; '.join(details)})" if details else "")
    return reason + (f": {run.error}" if run.error else "")


def _read_run_values(run):
    """run.json of a done run -> run.values, run.verification; a verification failure leaves the run out."""
    run_json = os.path.join(run.path, files.RUN_JSON)
    doc = _read_json(run_json, "the study runner marked this run done")
    if not isinstance(doc, dict):
        raise InputError(run_json, "not a JSON object (expected a wave3d run result)")
    for problem in (files.format_problem(doc), files.completion_problem(doc)):
        if problem:
            raise InputError(run_json, problem)
    run.values = {name: _number(lookup(doc, dotted)) for name, dotted in files.RUN_VALUES.items()}
    if run.values["mpoints_per_second"] is None:
        raise InputError(run_json, "metrics.mpoints_per_second is missing or not a number (not a wave3d run result?)")
    status = lookup(doc, files.VERIFICATION_STATUS)
    run.verification = status if isinstance(status, str) else None
    run.placement = read_audit(doc, run_json)
    run.facts = run_facts(doc)
    if run.verification == "FAILED":
        run.problem = "done, but its verification FAILED"
    return doc


def _read_step_times(run, doc):
    """steps.csv of a counting run -> run.step_totals and run.step_data, or run.steps_note."""
    if not isinstance(lookup(doc, files.NOISE_AMPLIFICATION), (int, float)):
        run.steps_note = "run.json has no jitter section (fewer than 2 steps)"
        return
    if not os.path.isfile(os.path.join(run.path, files.STEPS_CSV)):
        run.steps_note = "no steps.csv (the run had output.steps_csv = false)"
        return
    data = load_run(run.path)
    run.step_totals = data.phases["total"]
    run.step_data = data  # every repetition's: the tail model pools them and holds each out in turn


def median_repetition(runs):
    """The counting run of median throughput; with an even count the lower of the two middle ones, so the
    run shown is always one that was measured."""
    good = sorted((r for r in runs if r.counts), key=lambda r: (r.values["mpoints_per_second"], r.repetition))
    return good[(len(good) - 1) // 2] if good else None


def load_study(directory):
    """A study directory -> Study, with the values of every done run and the step times of every counting run."""
    directory = os.path.abspath(str(directory))
    if not os.path.isdir(directory):
        raise InputError(directory, "not a directory (expected a study directory with study.json)")
    path = os.path.join(directory, STUDY_FILE)
    if not os.path.exists(path):
        raise InputError(path, "no such file: not a study directory (the study runner writes study.json)")
    doc = _read_json(path, "the study description")
    if not isinstance(doc, dict):
        raise InputError(path, "not a JSON object")
    if files.FORMAT not in doc or files.format_problem(doc, files.STUDY_FORMAT):
        name, version = files.STUDY_FORMAT
        found = doc.get(files.FORMAT)
        found += "" if files.FORMAT_VERSION not in doc else f" version {doc[files.FORMAT_VERSION]}"
        raise InputError(path, f"format {found!r} is not '{name}' version {version}, the format this report reads")
    study_doc = doc.get("study") if isinstance(doc.get("study"), dict) else {}
    config_docs = _require(path, doc, "configurations", list, "a list")
    run_docs = _require(path, doc, "runs", list, "a list")
    axes = []
    for index, axis in enumerate(doc.get("axes") or []):
        if not (isinstance(axis, dict) and isinstance(axis.get("name"), str) and isinstance(axis.get("values"), list)):
            raise InputError(path, f"axes[{index}] is not an object with 'name' and a list 'values'")
        axes.append((axis["name"], axis["values"]))

    configurations = {}
    for index, c in enumerate(config_docs):
        configuration = _configuration(path, index, c)
        if configuration.id in configurations:
            raise InputError(path, f"configuration id '{configuration.id}' appears twice")
        configurations[configuration.id] = configuration
    seen = set()
    for index, r in enumerate(run_docs):
        run = _run_record(path, directory, index, r, configurations)
        if (run.configuration, run.repetition) in seen:
            raise InputError(path, f"a second entry for {run.configuration} rep {run.repetition}")
        seen.add((run.configuration, run.repetition))
        configurations[run.configuration].runs.append(run)

    for configuration in configurations.values():
        configuration.runs.sort(key=lambda r: r.repetition)
        documents = {}
        for run in configuration.runs:
            run.problem = _not_counted_reason(run)
            if run.status == "done":
                documents[run.repetition] = _read_run_values(run)
        configuration.median_run = median_repetition(configuration.runs)
        for run in configuration.good_runs:
            _read_step_times(run, documents[run.repetition])

    return Study(directory=directory, path=path, name=str(study_doc.get("name", os.path.basename(directory))),
                 description=str(study_doc.get("description") or ""), file=str(study_doc.get("file") or ""),
                 job=doc.get("job") if isinstance(doc.get("job"), dict) else {},
                 machine=doc.get("machine") if isinstance(doc.get("machine"), dict) else {},
                 axes=axes, repetitions=doc.get("repetitions"), configurations=list(configurations.values()),
                 excluded=[e for e in doc.get("excluded") or [] if isinstance(e, dict)],
                 adaptive=doc.get("adaptive") if isinstance(doc.get("adaptive"), dict) else None)
