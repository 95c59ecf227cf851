"""Readers for the measurements the extrapolation starts from.

- A wave3d results directory: ``run.json`` (its ``jitter`` section and the run's shape) and
  ``steps.csv`` (one row per rank per step, phase times in seconds).
- Detour traces: text files with one detour per line, ``start_ns<TAB>duration_ns`` (LogGOPSim's noise
  format), as written by ``wave3d-noise --log`` and ``wave3d noise --trace-dir`` (one file per core).
  Blank lines, ``#`` comments, a ``start_ns duration_ns`` header and the daemon's own summary line
  (``wave3d-noise: ...``) are skipped; any other line that is not two non-negative integers is an error.

Every problem raises :class:`InputError` naming the file and, for a bad line, the line number.
"""

import csv
import json
import os
import re
from dataclasses import dataclass, field

import numpy as np

from .. import files
from ..files import lookup
from .errors import InputError

# Step time quantities a run can provide (see RunData.step_times).
STEP_QUANTITIES = ("busy", "total")


@dataclass(frozen=True)
class RunData:
    """One wave3d run: per-rank per-step phase times and the jitter figures wave3d reported."""

    path: str
    ranks: int
    threads_per_rank: int
    steps: np.ndarray  # step numbers kept (the first step, a warm-up, is dropped as wave3d's summary does)
    phases: dict  # phase name -> array (ranks, steps) in seconds
    noise_amplification: float
    per_step_max_s: np.ndarray
    per_step_median_s: np.ndarray
    summary: dict = field(default_factory=dict)  # a few facts to show: host, grid, layout, reserve

    def step_times(self, quantity="busy"):
        """Per-rank step times (ranks, steps) in seconds.

        ``total``: the step as wave3d recorded it (what run.json's jitter figures are computed from).
        ``busy``: the step minus ``wait`` (time blocked on neighbours' halo messages, which carries the
        other ranks' delays rather than this rank's own noise) and minus ``check`` (the NaN/Inf check,
        the same work on every rank in the same step, so not noise).
        """
        if quantity == "total":
            return self.phases["total"]
        if quantity == "busy":
            busy = self.phases["total"].copy()
            for name in ("wait", "check"):
                if name in self.phases:
                    busy -= self.phases[name]
            return busy
        raise ValueError(f"unknown step quantity '{quantity}'; allowed: {', '.join(STEP_QUANTITIES)}")


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except json.JSONDecodeError as e:
        raise InputError(path, f"not valid JSON ({e.msg})", line=e.lineno) from None
    except OSError as e:
        raise InputError(path, f"cannot read ({e.strerror})") from None


def _float_field(path, lineno, name, text):
    if text == "":
        return 0.0  # a phase that did not happen in this step (check on non-check steps)
    try:
        value = float(text)
    except ValueError:
        raise InputError(path, f"column '{name}': '{text}' is not a number", line=lineno) from None
    if not np.isfinite(value) or value < 0:
        raise InputError(path, f"column '{name}': '{text}' is not a non-negative time in seconds", line=lineno)
    return value


def _int_field(path, lineno, name, text):
    try:
        return int(text)
    except ValueError:
        raise InputError(path, f"column '{name}': '{text}' is not an integer", line=lineno) from None


def read_steps_csv(path):
    """steps.csv -> (ranks list, steps array, {phase: array (ranks, steps)}), first step dropped."""
    try:
        f = open(path, encoding="utf-8", newline="")
    except FileNotFoundError:
        raise InputError(path, "no such file (the run needs output.steps_csv = true)") from None
    except OSError as e:
        raise InputError(path, f"cannot read ({e.strerror})") from None
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            raise InputError(path, "empty file (expected a header 'rank,step,...,total,...')")
        header = [h.strip() for h in header]
        for required in ("rank", "step", "total"):
            if required not in header:
                raise InputError(path, f"header has no '{required}' column: {','.join(header)}", line=1)
        phase_names = [h for h in header if h not in ("rank", "step", "messages_done")]
        rows = {}
        for lineno, row in enumerate(reader, start=2):
            if not row or all(not cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(path, f"{len(row)} fields, the header has {len(header)}", line=lineno)
            cells = dict(zip(header, (c.strip() for c in row)))
            rank = _int_field(path, lineno, "rank", cells["rank"])
            step = _int_field(path, lineno, "step", cells["step"])
            if (rank, step) in rows:
                raise InputError(path, f"a second row for rank {rank} step {step}", line=lineno)
            rows[(rank, step)] = [_float_field(path, lineno, name, cells[name]) for name in phase_names]
    if not rows:
        raise InputError(path, "no step rows after the header")
    ranks = sorted({r for r, _ in rows})
    steps = sorted({s for _, s in rows})
    # The first step pays for first-touch page faults and cold caches; wave3d's jitter summary skips it too.
    steps = [s for s in steps if s != steps[0]]
    if not steps:
        raise InputError(path, "only one step recorded; the first step is a warm-up, so at least two are needed")
    data = np.empty((len(phase_names), len(ranks), len(steps)))
    for i, rank in enumerate(ranks):
        for j, step in enumerate(steps):
            values = rows.get((rank, step))
            if values is None:
                raise InputError(path, f"rank {rank} has no row for step {step}")
            data[:, i, j] = values
    phases = {name: data[k] for k, name in enumerate(phase_names)}
    return ranks, np.array(steps), phases


def load_run(directory):
    """A wave3d results directory -> RunData."""
    directory = str(directory)
    if not os.path.isdir(directory):
        raise InputError(directory, "not a directory (expected a wave3d results directory with run.json and steps.csv)")
    run_json_path = os.path.join(directory, files.RUN_JSON)
    doc = _read_json(run_json_path)
    for problem in (files.format_problem(doc), files.completion_problem(doc)):
        if problem:
            raise InputError(run_json_path, problem)
    jitter = lookup(doc, files.JITTER)
    if not isinstance(jitter, dict) or "noise_amplification" not in jitter:
        raise InputError(run_json_path,
                         "no 'jitter' section with 'noise_amplification' (the run needs at least 2 steps)")
    try:
        amplification = float(lookup(doc, files.NOISE_AMPLIFICATION))
        per_step_max = np.asarray(lookup(doc, files.PER_STEP_MAX, []), dtype=float)
        per_step_median = np.asarray(lookup(doc, files.PER_STEP_MEDIAN, []), dtype=float)
    except (TypeError, ValueError):
        raise InputError(run_json_path, "'jitter' holds values that are not numbers") from None
    steps_path = os.path.join(directory, files.STEPS_CSV)
    ranks, steps, phases = read_steps_csv(steps_path)
    declared_ranks = lookup(doc, files.PARALLEL_RANKS)
    if declared_ranks is not None and declared_ranks != len(ranks):
        raise InputError(steps_path,
                         f"has rows for {len(ranks)} ranks but run.json says parallel.ranks = {declared_ranks}")
    placement = lookup(doc, files.PLACEMENT, {})
    summary = {
        "host": lookup(doc, files.HOSTNAME),
        "grid": lookup(doc, files.GRID_N),
        "layout": placement.get("layout", lookup(doc, files.CONFIG_LAYOUT)),
        "reserve": placement.get("reserve", lookup(doc, files.CONFIG_RESERVE)),
        "halo": lookup(doc, files.HALO_MODE),
        "ranks_per_node": placement.get("ranks_per_node"),
        "points_per_step": lookup(doc, files.UPDATED_POINTS_PER_STEP),
    }
    return RunData(path=directory, ranks=len(ranks), threads_per_rank=int(lookup(doc, files.THREADS_PER_RANK, 1)),
                   steps=steps, phases=phases, noise_amplification=amplification, per_step_max_s=per_step_max,
                   per_step_median_s=per_step_median, summary=summary)


@dataclass(frozen=True)
class Trace:
    """The detours of one core: start times and durations in nanoseconds, sorted by start."""

    path: str
    starts_ns: np.ndarray
    durations_ns: np.ndarray

    @property
    def count(self):
        return len(self.starts_ns)


def _is_skipped_trace_line(text, seen_data):
    if not text or text.startswith("#") or text.startswith("wave3d-noise:"):
        return True
    # An optional header naming the two columns, before the first detour.
    return not seen_data and text.split() == ["start_ns", "duration_ns"]


def load_trace(path):
    """One detour trace file -> Trace."""
    path = str(path)
    starts, durations = [], []
    seen_data = False
    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory; pass it where a trace directory is accepted") from None
    except OSError as e:
        raise InputError(path, f"cannot read ({e.strerror})") from None
    with f:
        for lineno, raw in enumerate(f, start=1):
            text = raw.strip()
            if _is_skipped_trace_line(text, seen_data):
                continue
            seen_data = True
            fields = text.split()
            try:
                if len(fields) != 2:
                    raise ValueError
                start, duration = int(fields[0]), int(fields[1])
                if start < 0 or duration < 0:
                    raise ValueError
            except ValueError:
                raise InputError(path, f"expected 'start_ns<TAB>duration_ns' (two non-negative integers), got '{text}'",
                                 line=lineno) from None
            starts.append(start)
            durations.append(duration)
    if not starts:
        raise InputError(path, "no detours in the file (no 'start_ns<TAB>duration_ns' lines)")
    order = np.argsort(np.asarray(starts, dtype=np.int64), kind="stable")
    return Trace(path=path, starts_ns=np.asarray(starts, dtype=np.int64)[order],
                 durations_ns=np.asarray(durations, dtype=np.int64)[order])


def _natural_key(name):
    """'detours-n1-cpu10.tsv' after 'detours-n1-cpu2.tsv': digit runs compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def expand_trace_paths(paths):
    """Files stay as they are; a directory stands for the *.tsv files in it (as `wave3d noise --trace-dir`
    writes them, one per CPU), in natural name order so the CPUs of a host come together and in order."""
    files = []
    for path in paths:
        path = str(path)
        if os.path.isdir(path):
            inside = sorted((name for name in os.listdir(path)
                             if name.endswith(".tsv") and os.path.isfile(os.path.join(path, name))), key=_natural_key)
            if not inside:
                raise InputError(path, "trace directory holds no *.tsv files")
            files.extend(os.path.join(path, name) for name in inside)
        else:
            files.append(path)
    return files


def load_traces(paths):
    """Trace files and directories -> list of Trace (one per core), in the order given."""
    return [load_trace(p) for p in expand_trace_paths(paths)]
