"""Submitting to the private test cluster (scripts/slurm/start-local-slurm.sh) and waiting for a job.

Shared by the Slurm test drivers. Waiting polls squeue with a bounded timeout; a job still in the queue
at the deadline is cancelled, so no test leaves work behind in the cluster.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import tomli_w  # Debian: python3-tomli-w

FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY",
                "BOOT_FAIL", "DEADLINE"}


class TestFailure(Exception):
    pass


def cluster_environment(cluster_dir, extra=None):
    conf = Path(cluster_dir) / "slurm.conf"
    if not conf.is_file():
        raise TestFailure(f"no test cluster in {cluster_dir} ({conf} missing): the fixture test that starts it "
                          "failed or did not run")
    env = dict(os.environ)
    env["SLURM_CONF"] = str(conf)
    env.update(extra or {})
    return env


def run(command, env, cwd=None, check=True):
    print("$ " + " ".join(str(c) for c in command), flush=True)
    done = subprocess.run([str(c) for c in command], env=env, cwd=cwd, capture_output=True, text=True)
    if done.stdout.strip():
        print(done.stdout.rstrip(), flush=True)
    if done.stderr.strip():
        print(done.stderr.rstrip(), file=sys.stderr, flush=True)
    if check and done.returncode != 0:
        raise TestFailure(f"{command[0]} exited with status {done.returncode}")
    return done


def job_state(job_id, env):
    """The job's state as squeue reports it, including finished jobs (kept for MinJobAge seconds)."""
    done = subprocess.run(["squeue", "--noheader", "--states=all", f"--jobs={job_id}", "--format=%T"], env=env,
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def wait_for_job(job_id, env, timeout):
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        state = job_state(job_id, env)
        if state in FINAL_STATES:
            print(f"job {job_id}: {state}", flush=True)
            return state
        time.sleep(1)
    subprocess.run(["scancel", str(job_id)], env=env)
    raise TestFailure(f"job {job_id} not finished after {timeout} s (last state '{state or 'unknown'}'); cancelled")


def job_exit_code(job_id, env):
    """ExitCode=status:signal from scontrol."""
    done = subprocess.run(["scontrol", "show", "job", str(job_id)], env=env, capture_output=True, text=True)
    for word in done.stdout.split():
        if word.startswith("ExitCode="):
            return word.split("=", 1)[1]
    return "unknown"


def show_file(path, title):
    path = Path(path)
    print(f"--- {title}: {path}")
    print(path.read_text(errors="replace").rstrip() if path.is_file() else "(missing)", flush=True)


def main_guard(body):
    """Runs body(); a TestFailure is one line on stderr and exit status 1."""
    try:
        body()
    except TestFailure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    print("PASS")


def write_toml(path, data):
    Path(path).write_text(tomli_w.dumps(data))


def expect(condition, what):
    if not condition:
        raise TestFailure(what)
    print(f"ok: {what}", flush=True)


def option_value(words, name):
    for word in words:
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    for i, word in enumerate(words[:-1]):
        if word == name:
            return words[i + 1]
    return None
