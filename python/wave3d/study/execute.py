"""Runs one repetition of one configuration: the launcher line, the program, the daemon around it when
the configuration asks, a time limit, and the outcome read back from the run's own run.json."""
import contextlib
import json
import os
import signal
import subprocess
import time

from .. import files
from ..files import lookup
from .daemon import Daemon
from .record import utc_now
from .settings import StudyError
from .stop_signals import stop_signals_held

KILL_GRACE_SECONDS = 30
NOT_AUDITED = "not audited"
UNREADABLE = "unreadable"


class Interrupted(Exception):
    """The runner itself was told to stop (SIGTERM at the job's time limit, SIGINT)."""


def stop_process_group(process):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=KILL_GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


def placement_outcome(result):
    """The run's placement verdict ("ok" or "wrong") and the kinds of its problems, in the order wave3d found
    them. A run.json without an audit (written by a wave3d from before it) is "not audited": that says
    nothing either way, so it must never read as ok; an audit without a verdict of ok or wrong is
    "unreadable" (the report names the file)."""
    audit = lookup(result, files.PLACEMENT_AUDIT)
    if audit is None:
        return {"placement_verdict": NOT_AUDITED, "placement_problems": []}
    if not isinstance(audit, dict) or audit.get("verdict") not in ("ok", "wrong"):
        return {"placement_verdict": UNREADABLE, "placement_problems": []}
    problems = audit.get("problems") if isinstance(audit.get("problems"), list) else []
    kinds = [p.get("kind") for p in problems if isinstance(p, dict) and isinstance(p.get("kind"), str)]
    return {"placement_verdict": audit["verdict"], "placement_problems": list(dict.fromkeys(kinds))}


def read_outcome(run_dir):
    try:
        with open(run_dir / files.RUN_JSON) as f:
            result = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(result, dict):
        return None
    return {"mpoints_per_second": lookup(result, files.MPOINTS_PER_SECOND),
            "verification": lookup(result, files.VERIFICATION_STATUS),
            **placement_outcome(result)}


def wait_for_run(command, output, env, timeout):
    """(exit status, status) of the run's launcher; stops it at the time limit or when the runner is
    told to stop (Interrupted, passed on)."""
    process = None
    try:
        with stop_signals_held():
            process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env,
                                       start_new_session=True)
        exit_status = process.wait(timeout=timeout)
        return exit_status, "done" if exit_status == 0 else "failed"
    except subprocess.TimeoutExpired:
        stop_process_group(process)
        return process.returncode, "timeout"
    except Interrupted as stop:
        if process is not None:
            stop_process_group(process)
            stop.exit_status = process.returncode
        raise


def execute_run(context, configuration, run, started):
    """Fills `run` (a study.json runs entry) with what happened; calls started() once the run is marked
    running (the runner saves study.json then, so a look at it shows what is going on)."""
    run_dir = context.study_dir / run["dir"]
    run_dir.mkdir(parents=True, exist_ok=True)
    command = [*configuration["launcher"], *configuration["program"],
               "--set", f"output.directory={json.dumps(str(run_dir.parent))}",
               "--set", f"output.name={json.dumps(run_dir.name)}"]
    run.update({"command": command, "started_utc": utc_now(), "status": "running"})
    began = time.monotonic()
    daemon = contextlib.nullcontext()
    if configuration["daemon"]:
        daemon = Daemon(context.noise, configuration["daemon_settings"], run_dir / "daemon", context.daemon_launcher,
                        context.nodes, context.hostfile_args, context.env)
    timeout = context.run_timeout or None
    try:
        # From the moment the record says "running" on: a stop then is this run's.
        started()
        with open(run_dir / "output.txt", "wb") as output, daemon:
            exit_status, status = wait_for_run(command, output, context.env, timeout)
    except Interrupted as stop:
        run.update({"status": "interrupted", "exit_status": getattr(stop, "exit_status", None),
                    "duration_s": round(time.monotonic() - began, 3)})
        raise
    except StudyError as e:  # the daemon could not be started: this run has no valid result
        run.update({"status": "failed", "exit_status": None, "error": str(e), "duration_s": None})
        return run
    run.update({"status": status, "exit_status": exit_status, "duration_s": round(time.monotonic() - began, 3)})
    if isinstance(daemon, Daemon):
        run["daemon_exit_status"] = daemon.exit_status
    outcome = read_outcome(run_dir)
    if outcome:
        run.update(outcome)
    if status == "done" and not outcome:
        run["status"] = "failed"  # exit 0 without a result is not a result
    return run
