#!/usr/bin/env python3
"""A job killed while writing a checkpoint leaves the previous checkpoint intact and usable.

--mode stall: the run stops deterministically halfway through writing its second checkpoint
(debug.stall_in_checkpoint: one time level written, the other not); every rank says so with its pid,
and this script kills the ranks and mpiexec with SIGKILL.
--mode external: a larger run writing a checkpoint every other step is killed with SIGKILL as soon
as a temporary checkpoint file appears next to a complete one.

Then: no checkpoint appears under its final name half-written; the temporary file, if any, is refused
as a restart file with one message and exit code 2; a restart from the checkpoint directory (its
newest complete checkpoint) on another rank count completes and ends with the checksum of the
uninterrupted run.
"""
import contextlib
import json
import pathlib
import re
import subprocess
import sys
import threading
import time

import h5py

from io_check_support import (Failures, arguments, environment, fresh_directory, kill_job, run, run_ok,
                              text_attribute, wave3d_command)

STALL = {"settings": ["grid.n=32,24,20", "stencil.radius=4", "run.steps=20"], "every": 5, "keep": 1, "stall": 10}
EXTERNAL = {"settings": ["grid.n=96,96,96", "stencil.radius=4", "stencil.precision=double", "run.steps=60"],
            "every": 2, "keep": 2}


def kill_when_stalled(command, ranks, failures):
    """Starts the run, waits until every rank reports its stall, kills the job. Returns the stall lines."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=environment())
    stalled, lines = [], []
    done = threading.Event()

    def read():
        for line in proc.stderr:
            lines.append(line)
            if "stalls halfway through writing" in line:
                stalled.append(line)
                if len(stalled) == ranks:
                    done.set()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(timeout=180)
    for line in stalled:
        pid = int(re.search(r"\(pid (\d+)\)", line).group(1))
        subprocess.run(["kill", "-KILL", str(pid)], check=False)
    kill_job(proc)
    proc.wait(timeout=60)
    failures.check(len(stalled) == ranks, f"{len(stalled)} of {ranks} ranks reported a stall; stderr:\n{''.join(lines)}")
    print("".join(stalled), end="")
    return stalled


def kill_during_a_write(command, directory, failures):
    """Starts the run and kills it the moment a temporary checkpoint exists beside a complete one."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            env=environment())
    deadline = time.monotonic() + 180
    caught = None
    while proc.poll() is None and time.monotonic() < deadline:
        temporaries = list(directory.glob("checkpoint_*.h5.tmp")) if directory.exists() else []
        complete = list(directory.glob("checkpoint_*.h5")) if directory.exists() else []
        if temporaries and complete:
            kill_job(proc)
            caught = temporaries[0]
            break
        time.sleep(0.001)
    if proc.poll() is None:
        kill_job(proc)
    proc.wait(timeout=60)
    failures.check(caught is not None, "the run ended before a checkpoint write could be caught in progress")
    print(f"killed while {caught} was being written")
    return caught


@contextlib.contextmanager
def stale_open_semaphore(path):
    """Leaves in /dev/shm the locked POSIX semaphore (value 0) that Open MPI's sharedfp/sm component
    names after a file's base name, as a job killed inside MPI_File_open leaves it, for as long as the
    block runs. A run that let sharedfp/sm open this file would wait on it forever."""
    semaphore = pathlib.Path("/dev/shm") / f"sem.OMPIO_{path.name}"
    planted = not semaphore.exists()
    if planted:
        semaphore.write_bytes(bytes(32))  # glibc's sem_t on x86-64: value 0, no waiters
    try:
        yield
    finally:
        if planted:
            semaphore.unlink(missing_ok=True)


def main():
    ap = arguments(__doc__)
    ap.add_argument("--mode", choices=["stall", "external"], required=True)
    a = ap.parse_args()
    fresh_directory(a.results_dir)
    failures = Failures()
    case = STALL if a.mode == "stall" else EXTERNAL
    checkpoints = a.results_dir / "checkpoints"
    writer = case["settings"] + [f"checkpoint.every={case['every']}", f"checkpoint.keep={case['keep']}",
                                 f"checkpoint.directory={checkpoints}"]

    if a.mode == "stall":
        kill_when_stalled(wave3d_command(a, 2, writer + [f"debug.stall_in_checkpoint={case['stall']}"], "killed"), 2,
                          failures)
        temporary = checkpoints / f"checkpoint_{case['stall']:06d}.h5.tmp"
        survivor = checkpoints / f"checkpoint_{case['stall'] - case['every']:06d}.h5"
        failures.check(temporary.exists(), f"{temporary} is not there")
        failures.check(not (checkpoints / f"checkpoint_{case['stall']:06d}.h5").exists(),
                       "the half-written checkpoint appeared under its final name")
        failures.check(sorted(p.name for p in checkpoints.glob("checkpoint_*.h5")) == [survivor.name],
                       f"complete checkpoints: {sorted(p.name for p in checkpoints.glob('checkpoint_*.h5'))}")
    else:
        temporary = kill_during_a_write(wave3d_command(a, 2, writer, "killed"), checkpoints, failures)
    # The killed run's directory says the run never completed: its run.json under way.
    killed_json = a.results_dir / "runs" / "killed" / "run.json"
    killed = json.loads(killed_json.read_text()) if killed_json.is_file() else {}
    failures.check(killed.get("status") == "running" and killed.get("host") and killed.get("config"),
                   f"{killed_json}: {killed.get('status')!r}, expected a run.json with status 'running', host, config")
    complete = sorted(checkpoints.glob("checkpoint_*.h5"))
    if not failures.check(bool(complete), "no complete checkpoint survived"):
        return failures.finish()
    for path in complete:
        with h5py.File(path, "r") as f:
            failures.check(text_attribute(f.attrs["format"]) == "wave3d-checkpoint" and "current" in f and
                           "previous" in f, f"{path} is not a complete checkpoint")
    newest = complete[-1]
    print("surviving checkpoints:", ", ".join(p.name for p in complete))

    if temporary is not None and temporary.exists():
        with stale_open_semaphore(temporary):
            code, _, err = run(wave3d_command(a, 2, case["settings"] + [f"restart.from={temporary}"],
                                              "from_temporary"), timeout=120)
        messages = [line for line in err.splitlines() if line.startswith("wave3d: error")]
        failures.check(code == 2 and len(messages) == 1 and str(temporary) in messages[0],
                       f"restart from the temporary: exit {code}, stderr:\n{err}")
        print("restart from the temporary file:", messages[0] if messages else err)

    reference = run_ok(wave3d_command(a, 2, case["settings"], "uninterrupted"), failures)
    restarted = run_ok(wave3d_command(a, 3, case["settings"] + [f"restart.from={checkpoints}"], "restarted"), failures)
    if reference is None or restarted is None:
        return failures.finish()
    failures.check(restarted["field_io"]["restarted_from"] == str(newest),
                   f"restarted from {restarted['field_io']['restarted_from']}, not the newest survivor {newest}")
    print(f"restarted on 3 ranks from {restarted['field_io']['restarted_from']} (step "
          f"{restarted['field_io']['first_step']}): checksum {restarted['checksum']}, "
          f"uninterrupted run: {reference['checksum']}")
    failures.check(restarted["checksum"] == reference["checksum"], "the restarted run's field differs")
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
