"""wave3d-noise on every node of the job for the length of one run.

Started once per node through the scheduler (srun --overlap, one task per node) or mpirun (one process
per node), or directly when the study runs locally. Each node runs a fixed wrapper script whose only
inputs are its positional arguments: it logs to <dir>/noise-<host>.tsv and ends the daemon with SIGTERM
(so it writes its log out) when <dir>/stop appears. A stop file works the same under srun and mpirun,
which both answer a SIGTERM of their own by killing their tasks outright."""
import os
import signal
import subprocess
import time
from pathlib import Path

from .settings import StudyError
from .stop_signals import stop_signals_held

WRAPPER = r'''log=$1/noise-$(hostname -s).tsv
"${@:2}" --log "$log" &
pid=$!
while [ ! -e "$1/stop" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
kill -TERM "$pid" 2>/dev/null
wait "$pid"'''

START_SECONDS = 60
STOP_SECONDS = 60


def per_node_launcher(launcher, nodes, hostfile_args):
    if launcher == "srun":
        # --overlap: the daemon shares the CPUs of the run's step instead of waiting for them.
        return ["srun", "--overlap", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1",
                "--cpu-bind=none", "--mpi=none", "--kill-on-bad-exit=0"]
    if launcher == "mpirun":
        return ["mpirun", "-n", str(nodes), "--map-by", "ppr:1:node", "--bind-to", "none", *hostfile_args]
    if launcher == "local":
        return []
    raise StudyError(f"no daemon launcher for {launcher!r}")


def daemon_arguments(noise_binary, settings):
    """The wave3d-noise command line of the [daemon] settings (without --log)."""
    args = [str(noise_binary), "--period", settings["period"], "--duration", settings["duration"],
            "--kind", settings["kind"], "--mib", str(settings["mib"])]
    if settings["cpus"]:
        args += ["--cpus", settings["cpus"]]
    return args


def check_daemon(noise_binary, settings, what):
    """wave3d-noise --check with the daemon's settings: a setting it refuses stops the study before its
    first run, with wave3d-noise's own message."""
    try:
        done = subprocess.run([*daemon_arguments(noise_binary, settings), "--check"], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise StudyError(f"{what}: cannot check the daemon settings with {noise_binary}: {e}")
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()] or [f"exit status {done.returncode}"]
        raise StudyError(f"{what}: the [daemon] settings are refused: {lines[0]}")


class Daemon:
    """A context manager: the daemon runs on every node inside the `with` block."""

    def __init__(self, noise_binary, settings, directory, launcher, nodes, hostfile_args, env):
        args = daemon_arguments(noise_binary, settings)
        self.directory = Path(directory)
        self.nodes = nodes
        self.env = env
        self.command = [*per_node_launcher(launcher, nodes, hostfile_args), "bash", "-c", WRAPPER, "wave3d-noise",
                        str(self.directory), *args]
        self.process = None
        self.exit_status = None

    def __enter__(self):
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "stop").unlink(missing_ok=True)
        self.output = open(self.directory / "output.txt", "wb")  # the daemons' summary lines
        try:
            with stop_signals_held():  # the handle first, so that a stop can end the daemon too
                self.process = subprocess.Popen(self.command, env=self.env, stdout=self.output,
                                                stderr=subprocess.STDOUT, start_new_session=True)
            self._wait_for_every_node()
        except BaseException:  # also the runner's own stop signal: never leave a daemon behind
            self._terminate()
            self.output.close()
            raise
        return self

    def _wait_for_every_node(self):
        deadline = time.monotonic() + START_SECONDS
        while len(list(self.directory.glob("noise-*.tsv"))) < self.nodes:
            problem = None
            if self.process.poll() is not None:
                problem = (f"the daemon ended (status {self.process.returncode}) before it ran on all {self.nodes} "
                           f"node(s); see {self.directory / 'output.txt'}")
            elif time.monotonic() > deadline:
                problem = f"the daemon did not start on all {self.nodes} node(s) within {START_SECONDS} s"
            if problem:
                raise StudyError(problem)
            time.sleep(0.1)

    def _terminate(self):
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def __exit__(self, *exc):
        (self.directory / "stop").touch()
        try:
            self.exit_status = self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._terminate()
            self.exit_status = self.process.returncode
        (self.directory / "stop").unlink(missing_ok=True)
        self.output.close()
        return False
