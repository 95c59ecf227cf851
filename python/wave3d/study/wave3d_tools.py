"""What the runner asks of the wave3d binary: placement plans (`wave3d plan`) and configuration checks
(`wave3d run --check`). Programs are always called with argument lists, never through a shell."""
import json
import subprocess
from pathlib import Path

from .settings import StudyError


def plan_options(placement, nodes):
    """The `wave3d plan` options for a placement (a dict of the [placement] keys)."""
    options = ["--layout", placement["layout"], "--ranks-per-node", str(placement["ranks_per_node"]),
               "--threads", str(placement["threads"]), "--reserve", placement["reserve"], "--nodes", str(nodes)]
    if placement["progress_thread"]:
        options.append("--progress-thread")
    if placement["smt"]:
        options.append("--smt")
    return options


class Wave3d:
    def __init__(self, binary, env):
        self.binary = str(Path(binary).resolve())
        self.env = env

    def _call(self, args, what):
        done = subprocess.run([self.binary, *args], capture_output=True, env=self.env)
        if done.returncode != 0:
            # One line: wave3d's own message, without CLI11's pointer to --help.
            lines = [line.strip() for line in done.stderr.decode(errors="replace").splitlines()
                     if line.strip() and not line.startswith("Run with --help")]
            reason = " ".join(lines) or f"exit status {done.returncode}"
            raise StudyError(f"{what}: {reason}")
        return done.stdout

    def plan_json(self, options, what):
        return json.loads(self._call(["plan", *options, "--json"], what))

    def plan_text(self, options, what):
        return self._call(["plan", *options], what).decode()

    def check_run(self, run_args, what):
        self._call(["run", *run_args, "--check"], what)
