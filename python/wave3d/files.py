"""What the wave3d executable writes, as Python reads it: the file names, the header every JSON file
carries (src/output/json_document.hpp) and the key paths read from run.json, written once here. A test
(tests/python/test_files_contract.py) checks every name and path below against the files of a real
run, so the C++ writer and the Python readers cannot drift apart unnoticed."""

import datetime
import json
import os
import platform
import socket
import sys
from pathlib import Path

RUN_JSON = "run.json"
STEPS_CSV = "steps.csv"
STUDY_JSON = "study.json"  # written by the study runner (wave3d.study), one per study directory
REPORT_JSON = "report.json"  # written by the study report beside report.md

# The header of every JSON document wave3d writes.
FORMAT = "format"
FORMAT_VERSION = "format_version"
COMMAND = "command"
PROVENANCE = "provenance"
RUN_FORMAT = ("wave3d-run", 3)  # run.json: (format, format_version)
# Documents of the executable's other subcommands that the plot tools read, and the oldest version whose
# keys they still understand.
IOBENCH_FORMAT = ("wave3d-iobench", 2)
IOBENCH_OLDEST = 2  # version 2 named its bandwidths best/median_gibytes_per_second (version 1: *_gibs)
ADVISE_FORMAT = ("wave3d-advise", 1)
STREAM_FORMAT = ("wave3d-stream", 2)  # wave3d stream --json, read by the comparison with YASK
# The documents this package writes carry the same header.
STUDY_FORMAT = ("wave3d-study", 2)  # study.json, by the study runner (version 1: "seconds" for duration_s)
EXTRAPOLATION_FORMAT = ("wave3d-extrapolation", 2)  # extrapolation.json (1: the same keys without a header or "tail")
REPORT_FORMAT = ("wave3d-study-report", 2)  # report.json, by the study report (2: bootstrap intervals, tail model)
YASK_COMPARISON_FORMAT = ("wave3d-yask-comparison", 1)  # compare_yask.py --json

# Key paths in run.json, dotted.
STATUS = "status"  # "completed"; "failed" when one rank ended the job (then FAILURE says where and why);
# "running" while the run is under way, and still in a run.json of a job that was killed outright
FAILURE = "failure"
MPOINTS_PER_SECOND = "metrics.mpoints_per_second"
SECONDS = "metrics.loop_s"  # durations end in _s (version 1 and headerless files: metrics.seconds)
FIELD_IO_SECONDS = "metrics.field_io_s"
VERIFICATION_STATUS = "verification.status"
PLACEMENT_AUDIT = "placement_audit"
PLACEMENT = "placement"
PARALLEL_RANKS = "parallel.ranks"
THREADS_PER_RANK = "parallel.threads_per_rank"
WORLD_SIZE = "provenance.mpi.world_size"
BATCH_JOB = "provenance.batch_job"
HOSTNAME = "provenance.hostname"
BINDING = "binding"
GRID_N = "config.grid.n"
CONFIG_LAYOUT = "config.placement.layout"
CONFIG_RESERVE = "config.placement.reserve"
HALO_MODE = "config.parallel.halo"
UPDATED_POINTS_PER_STEP = "metrics.updated_points_per_step"
BYTES_PER_POINT = "metrics.bytes_per_point"  # what the bandwidth bound assumes the kernel moves per point
# What a report names of the runs: the machine, the grid, the kernel and T (time steps per sweep). A run.json
# written before the "kernel" section has none of kernel.*; the report then says "not recorded".
MACHINE_SUMMARY = "provenance.machine.summary"
CPU_MODEL = "provenance.machine.cpu_model"
KERNEL_NAME = "kernel.name"
KERNEL_BLOCKS = "kernel.blocks"  # the block size [x, y, z] that ran
KERNEL_PREFETCH_ROWS = "kernel.prefetch_rows"  # how many rows ahead the columns kernel prefetched; null for the others
STEPS_PER_SWEEP = "kernel.steps_per_sweep"
CONFIG_KERNEL = "config.stencil.kernel"
CONFIG_SWEEP_STEPS = "config.blocking.steps"
STENCIL_RADIUS = "config.stencil.radius"
STENCIL_PRECISION = "config.stencil.precision"
HALO_EXPOSED_FRACTION = "decomposition.halo_exposed_fraction"
JITTER = "jitter"  # present when the run had at least 2 steps
NOISE_AMPLIFICATION = "jitter.noise_amplification"
PER_STEP_MAX = "jitter.per_step_max_s"
PER_STEP_MEDIAN = "jitter.per_step_median_s"
STEP_P50 = "jitter.step_time_p50_s"
STEP_P99 = "jitter.step_time_p99_s"
STEP_MAX = "jitter.step_time_max_s"

# The run.json values a study report tabulates, by the name it gives them.
RUN_VALUES = {
    "mpoints_per_second": MPOINTS_PER_SECOND,
    "seconds": SECONDS,
    "step_p50_s": STEP_P50,
    "step_p99_s": STEP_P99,
    "step_max_s": STEP_MAX,
    "noise_amplification": NOISE_AMPLIFICATION,
    "halo_exposed_fraction": HALO_EXPOSED_FRACTION,
    "ranks": PARALLEL_RANKS,
    "threads_per_rank": THREADS_PER_RANK,
}

# Every key path above, for the contract test.
RUN_KEY_PATHS = (STATUS, MPOINTS_PER_SECOND, SECONDS, VERIFICATION_STATUS, PLACEMENT_AUDIT, PLACEMENT, PARALLEL_RANKS,
                 THREADS_PER_RANK, WORLD_SIZE, BATCH_JOB, HOSTNAME, BINDING, GRID_N, CONFIG_LAYOUT, CONFIG_RESERVE,
                 HALO_MODE, HALO_EXPOSED_FRACTION, JITTER, NOISE_AMPLIFICATION, PER_STEP_MAX, PER_STEP_MEDIAN,
                 STEP_P50, STEP_P99, STEP_MAX, FIELD_IO_SECONDS, UPDATED_POINTS_PER_STEP, MACHINE_SUMMARY, CPU_MODEL,
                 KERNEL_NAME, STEPS_PER_SWEEP, CONFIG_KERNEL, CONFIG_SWEEP_STEPS, STENCIL_RADIUS, STENCIL_PRECISION,
                 BYTES_PER_POINT, KERNEL_BLOCKS, KERNEL_PREFETCH_ROWS)

MISSING = object()


def header(document_format, command):
    """The header of a JSON document this package writes: format, format_version, command and who wrote it."""
    name, version = document_format
    return {FORMAT: name, FORMAT_VERSION: version, COMMAND: command,
            PROVENANCE: {"python": platform.python_version(), "hostname": socket.gethostname(),
                         "written_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "command_line": list(sys.argv)}}


def write_json_atomically(path, document):
    """document to path through a temporary beside it, synced and renamed: a reader sees the old file or the
    new one, never half of one."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    try:
        with open(tmp, "w") as f:
            json.dump(document, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# Where run.json version 1 (and a run.json from before the header) kept what version 2 renamed.
RENAMED_IN_VERSION_2 = {SECONDS: "metrics.seconds", FIELD_IO_SECONDS: "metrics.field_io_seconds"}


def lookup(doc, dotted, default=None):
    """doc's value at a dotted key path, or default where any part is missing or not an object. A key
    run.json version 2 renamed is found under its old name in an older run.json."""
    found = _lookup(doc, dotted, MISSING)
    if found is MISSING and dotted in RENAMED_IN_VERSION_2 and isinstance(doc, dict) and doc.get(FORMAT_VERSION, 1) < 2:
        found = _lookup(doc, RENAMED_IN_VERSION_2[dotted], MISSING)
    return default if found is MISSING else found


def completion_problem(doc):
    """None when run.json is of a completed run (or predates the status key); else why it holds no results."""
    status = lookup(doc, STATUS)
    if status is None or status == "completed":
        return None
    if status == "running":
        return "status 'running': the job ended before the run did (killed, or out of time)"
    failure = lookup(doc, FAILURE) or {}
    if status == "failed" and isinstance(failure, dict):
        return (f"status 'failed': rank {failure.get('rank')} on {failure.get('host')}: "
                f"{failure.get('message')}")
    return f"status {status!r}, not 'completed'"


def _lookup(doc, dotted, default):
    node = doc
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def format_problem(doc, expected=RUN_FORMAT, oldest=1):
    """None when doc's header names the expected format at a version this package reads (from oldest up to
    the expected one; lookup() finds run.json keys that later versions renamed); else why not. A run.json
    without a header (written before there was one) is read as it is, and so is a header in the earlier
    one-word form "name/version"."""
    if not isinstance(doc, dict) or FORMAT not in doc:
        return None
    name, version = expected
    found_name, found = doc.get(FORMAT), doc.get(FORMAT_VERSION)
    one_word = str(found_name).partition("/")
    if one_word[0] == name and one_word[2] and FORMAT_VERSION not in doc:
        found_name, found = name, int(one_word[2]) if one_word[2].isdigit() else one_word[2]
    if found_name != name:
        return f"format '{found_name}', not '{name}'"
    if not isinstance(found, int) or isinstance(found, bool) or not oldest <= found <= version:
        known = f"version {version}" if oldest == version else f"versions {oldest} to {version}"
        return f"{name} format version {found}; this reader knows {known}"
    return None
