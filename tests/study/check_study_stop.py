#!/usr/bin/env python3
"""The study runner told to stop (SIGTERM) at the moments around a run's start: the run is recorded
"interrupted" and nothing it started keeps running.

  check_study_stop.py --root SRC --work DIR

- stopped while study.json is saved with the run just marked running (what a look at study.json first
  shows): "interrupted", and the program never started;
- stopped by the program itself as soon as it runs: "interrupted", and its process group is gone,
  ended by the runner's SIGTERM (not the SIGKILL after the grace period).
"""
import argparse
import os
import signal
import sys
import time
from pathlib import Path

from study_support import expect, main_guard


def setup(root):
    sys.path.insert(0, str(Path(root) / "python"))
    from wave3d.study import execute, runner  # noqa: E402  (the package of the source tree)
    return execute, runner


def stop_self(*_):
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(1)  # the handler raises here, as it would inside the save


def process_gone(pid, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def attempt(execute, runner, work, name, program, started):
    context = runner.RunContext(work, Path("/nonexistent"), 1, "local", [], 60, dict(os.environ))
    configuration = {"launcher": [], "program": program, "daemon": False}
    run = {"dir": f"runs/{name}", "configuration": name, "repetition": 1, "status": "pending"}
    previous = signal.signal(signal.SIGTERM, runner.raise_interrupted)
    try:
        execute.execute_run(context, configuration, run, started=started)
        interrupted = False
    except execute.Interrupted:
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, previous)
    return run, interrupted


def check(args):
    execute, runner = setup(args.root)
    work = Path(args.work) / "stop"
    work.mkdir(parents=True, exist_ok=True)

    marker = work / "started-marker"
    marker.unlink(missing_ok=True)
    run, interrupted = attempt(execute, runner, work, "while-saving",
                               ["bash", "-c", f"touch {marker}; sleep 60"], stop_self)
    expect(interrupted, "a stop while study.json is saved stops the runner")
    expect(run["status"] == "interrupted", f"the run is recorded interrupted (status {run['status']!r})")
    expect(not marker.exists(), "the program never started")

    pid_file = work / "program-pid"
    pid_file.unlink(missing_ok=True)
    # The program writes its pid, then stops the runner (its parent) at once.
    program = ["bash", "-c", f"echo $$ > {pid_file}; kill -TERM $PPID; sleep 60"]
    run, interrupted = attempt(execute, runner, work, "at-start", program, lambda: None)
    expect(interrupted, "a stop as the program starts stops the runner")
    expect(run["status"] == "interrupted", f"the run is recorded interrupted (status {run['status']!r})")
    pid = int(pid_file.read_text()) if pid_file.exists() else None
    expect(pid is not None and process_gone(pid, 30), "the program is gone within 30 s")
    # Ended by the runner's SIGTERM, not by the SIGKILL after the grace period: the program must not
    # start with the stop signals blocked.
    expect(run["duration_s"] < execute.KILL_GRACE_SECONDS / 3,
           f"the program ended at the runner's SIGTERM ({run['duration_s']} s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    main_guard(lambda: check(args))


if __name__ == "__main__":
    main()
