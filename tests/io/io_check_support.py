"""Shared by the HDF5 end-to-end checks: the command-line tools, running wave3d under mpiexec with a
time limit (killing mpiexec and its ranks on expiry), reading a run's results, collecting failures."""
import argparse
import json
import os
import pathlib
import signal
import subprocess
import sys


def arguments(description):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--wave3d", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--h5dump", required=True)
    ap.add_argument("--results-dir", required=True, type=pathlib.Path)
    return ap


def environment():
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OMP_WAIT_POLICY", "passive")
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def wave3d_command(a, ranks, sets, name, process_grid=None, threads=None):
    """`mpiexec -n ranks wave3d run` writing to results-dir/runs/name."""
    command = [a.mpiexec, "-n", str(ranks), "--oversubscribe", "--bind-to", "none", a.wave3d, "run"]
    settings = list(sets) + [f"output.directory={a.results_dir / 'runs'}", f"output.name={name}", "run.progress=off"]
    if process_grid:
        settings.append(f"parallel.process_grid={process_grid}")
    if threads:
        settings.append(f"run.threads={threads}")
    for s in settings:
        command += ["--set", s]
    return command


def children_of(pid):
    """Processes whose parent is pid (read from /proc), e.g. the ranks mpiexec started."""
    found = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def kill_job(proc):
    """SIGKILL mpiexec's ranks (by pid) and mpiexec's process group."""
    for child in children_of(proc.pid):
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(command, timeout=240):
    """Runs command in its own session; returns (exit code, stdout, stderr). Killed at timeout."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=environment())
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_job(proc)
        out, err = proc.communicate()
        err += f"\n[killed after {timeout} s]"
    return proc.returncode, out, err


def run_ok(command, failures, timeout=240):
    """Runs command; records a failure unless it exits 0. Returns the run directory's run.json (or None)."""
    code, out, err = run(command, timeout)
    if code != 0:
        failures.add(f"exit code {code} from: {' '.join(command)}\n--- stdout\n{out}\n--- stderr\n{err}")
        return None
    name = next(c.split("=", 1)[1] for c in command if c.startswith("output.name="))
    directory = next(c.split("=", 1)[1] for c in command if c.startswith("output.directory="))
    run_json = pathlib.Path(directory) / name / "run.json"
    doc = json.loads(run_json.read_text())
    doc["_directory"] = str(run_json.parent)
    doc["_stdout"] = out
    return doc


class Failures:
    def __init__(self):
        self.items = []

    def add(self, what):
        self.items.append(what)

    def check(self, condition, what):
        if not condition:
            self.add(what)
        return condition

    def finish(self):
        for item in self.items:
            print("FAIL:", item)
        if self.items:
            return 1
        print("passed")
        return 0


def text_attribute(value):
    """h5py gives fixed-length strings as bytes."""
    return value.decode() if isinstance(value, (bytes, bytearray)) else str(value)


def fresh_directory(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)


if __name__ == "__main__":
    sys.exit("a module for the checks in this directory")
