"""Shared by the analysis tests: makes python/tools importable and builds small inputs."""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
TOOLS = os.path.join(PYTHON, "tools")
DATA = os.path.join(HERE, "data")
EXTRAPOLATE = os.path.join(TOOLS, "extrapolate.py")

if PYTHON not in sys.path:
    sys.path.insert(0, PYTHON)

from wave3d.analysis.loaders import RunData, Trace  # noqa: E402


def synthetic_run(step_times, noise_amplification=1.0, path="synthetic"):
    """A RunData whose every phase but `total` is zero: busy and total step times are both step_times."""
    total = np.asarray(step_times, dtype=float)
    zeros = np.zeros_like(total)
    return RunData(path=path, ranks=total.shape[0], threads_per_rank=1, steps=np.arange(1, total.shape[1] + 1),
                   phases={"total": total, "wait": zeros, "check": zeros}, noise_amplification=noise_amplification,
                   per_step_max_s=total.max(axis=0), per_step_median_s=np.median(total, axis=0))


def periodic_trace(period_ns, duration_ns, bursts, offset_ns=0, path="periodic"):
    """A daemon that starts a burst of duration_ns every period_ns, bursts times."""
    starts = offset_ns + period_ns * np.arange(bursts, dtype=np.int64)
    return Trace(path=path, starts_ns=starts, durations_ns=np.full(bursts, duration_ns, dtype=np.int64))


def write_file(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path
