#!/usr/bin/env python3
"""Runs every launch line of wave3d run that a user is shown, as shown, and checks that each run verified
and that its binding audit found the placement right (run.json: placement_audit.verdict == "ok").

  check_launch_lines.py --root SRC --wave3d BIN --work DIR

The lines are the README's (code blocks whose command starts wave3d run, under mpiexec or not) and the
mpirun lines `wave3d plan` prints for this machine with each layout of LAYOUTS, with and without
--reserve per-node:1 and --progress-thread (the combinations the plan refuses are listed as refused).
Each is run with only these changes: the program's path becomes the binary under test, a small run's
settings go after it (grid.n, run.steps, output.directory, output.name), and the README's restart line
names the checkpoints of the line before it. Nothing is added to the launcher's own words, and the
environment allows no oversubscription, so a line that does not fit the machine fails. srun lines need a
Slurm allocation: they are listed as skipped.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

LAYOUTS = ("rank-per-node", "rank-per-socket", "rank-per-core")
VARIANTS = ((), ("--reserve", "per-node:1"), ("--progress-thread",), ("--reserve", "per-node:1", "--progress-thread"))
SMALL_GRID = "48,48,48"
SMALL_STEPS = 4
RUN_TIMEOUT = 40  # seconds; a small run takes about one
README_CORES = 2  # the README's lines are written for a machine with at least this many cores


def user_environment():
    """A user's shell: no OpenMP settings, no test-wide oversubscription; Open MPI told that root is meant."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_") and k != "OMPI_MCA_rmaps_base_oversubscribe"}
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def program_index(words):
    """Where `wave3d run` starts in a command's words (the program may be a path), or None."""
    for i, word in enumerate(words[:-1]):
        if (word == "wave3d" or word.endswith("/wave3d")) and words[i + 1] == "run":
            return i
    return None


def readme_commands(text):
    """The commands of the README's code blocks (indented or fenced), continuation lines joined, as words."""
    commands, current, fenced = [], "", False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or line.startswith("    ")):
            current = ""
            continue
        current += line.strip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        try:
            words = shlex.split(current, comments=True)
        except ValueError:  # not a command (unbalanced quotes in an example of a file's text)
            words = []
        if words:
            commands.append(words)
        current = ""
    return [words for words in commands if program_index(words) is not None]


def setting(words, key):
    """The value of `--set key=value` in a command's words, or None."""
    for flag, word in zip(words, words[1:]):
        if flag == "--set" and word.startswith(key + "="):
            return word.split("=", 1)[1]
    return None


class Runner:
    def __init__(self, args):
        self.wave3d = str(Path(args.wave3d).resolve())
        self.root = Path(args.root)
        self.out = Path(args.work).resolve()
        self.env = user_environment()
        self.failures, self.count = [], 0

    def run(self, origin, words, steps=SMALL_STEPS, plan=None):
        """Runs a command as given but for the program's path and a small run's settings after it; returns
        the run's directory. With a plan (`wave3d plan --json`), the run must have placed itself by it."""
        self.count += 1
        name = f"line{self.count:02d}"
        words = list(words)
        words[program_index(words)] = self.wave3d
        words += ["--set", f"grid.n={SMALL_GRID}", "--set", f"run.steps={steps}",
                  "--set", f"output.directory={self.out}", "--set", f"output.name={name}"]
        print(f"\n[{name}] {origin}\n  {shlex.join(words)}", flush=True)
        try:
            done = subprocess.run(words, cwd=self.root, env=self.env, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.fail(name, origin, f"still running after {RUN_TIMEOUT} s")
            return self.out / name
        self.check(name, origin, done, plan)
        return self.out / name

    def check(self, name, origin, done, plan):
        run_json = self.out / name / "run.json"
        if done.returncode != 0 or not run_json.is_file():
            written = "written" if run_json.is_file() else "missing"
            self.fail(name, origin, f"exit status {done.returncode}, run.json {written}\n"
                                    f"{done.stdout[-1500:]}{done.stderr[-2500:]}")
            return
        result = json.loads(run_json.read_text())
        status = result.get("verification", {}).get("status")
        audit = result.get("placement_audit") or {}
        verdict = audit.get("verdict", "missing")
        if status != "VERIFIED":
            self.fail(name, origin, f"verification {status}")
        if verdict != "ok":
            problems = "".join(f"\n    {p.get('message', p)}" for p in audit.get("problems", []))
            self.fail(name, origin, f"placement audit {verdict}{problems}")
        planned = placed_as_planned(result, plan) if plan else []
        for problem in planned:
            self.fail(name, origin, problem)
        if status == "VERIFIED" and verdict == "ok" and not planned:
            print("  ok: VERIFIED, placement ok" + (", as planned" if plan else ""), flush=True)

    def fail(self, name, origin, why):
        print(f"  FAIL: {why}", flush=True)
        self.failures.append(f"[{name}] {origin}: {why.splitlines()[0]}")


def placed_as_planned(result, plan):
    """What differs between the plan and the placement the run made for itself (run.json: placement,
    binding): the layout, ranks, threads, rank 0's cores and every rank's progress thread."""
    want, rank0 = plan["plan"], plan["plan"]["ranks"][0]
    placement = result.get("placement", {})
    expected = {"layout": want["layout"], "ranks_per_node": want["ranks_per_node"],
                "threads_per_rank": want["threads_per_rank"], "rank0_cores": rank0["cores"],
                "rank0_progress_core": rank0["progress_core"]}
    problems = [f"run.json placement.{key} = {placement.get(key)!r}, planned {value!r}"
                for key, value in expected.items() if placement.get(key) != value]
    # A progress thread only wave3d starts: every rank must have one where the plan has one.
    with_progress = sum(1 for rank in result.get("binding", []) if rank.get("progress_thread"))
    if want["progress_thread"] and with_progress != want["ranks_per_node"]:
        problems.append(f"{with_progress} rank(s) with a progress thread, planned {want['ranks_per_node']}")
    return problems


def machine_cores(runner):
    plan = subprocess.run([runner.wave3d, "plan", "--layout", "rank-per-node", "--json"], capture_output=True,
                          text=True, env=runner.env, check=True)
    return json.loads(plan.stdout)["machine"]["cores"]


def check_readme(runner):
    commands = readme_commands((runner.root / "README.md").read_text())
    if not commands:
        runner.failures.append("README.md: no launch line of wave3d run found")
    if machine_cores(runner) < README_CORES:
        print(f"skipped: the README's {len(commands)} launch line(s), written for {README_CORES} or more cores")
        return
    previous, previous_steps = None, SMALL_STEPS
    for words in commands:
        origin = f"README.md: {shlex.join(words)}"
        if words[0] == "srun":
            print(f"skipped (needs a Slurm allocation): {origin}")
            continue
        steps = SMALL_STEPS
        every = setting(words, "checkpoint.every")
        if every:
            steps = int(every)  # the checkpoint the restart line names must exist
        if any("<run>" in w for w in words):
            # The restart line continues the run before it: its checkpoints stand in for results/runs/<run>.
            words = [re.sub(r"results/runs/<run>", str(previous), w) for w in words]
            steps = previous_steps + SMALL_STEPS
        if any("<" in w for w in words):
            runner.failures.append(f"{origin}: a placeholder this test cannot fill")
            continue
        previous, previous_steps = runner.run(origin, words, steps), steps


def check_plan_lines(runner):
    for layout in LAYOUTS:
        for variant in VARIANTS:
            options = ["--layout", layout, *variant]
            plan = subprocess.run([runner.wave3d, "plan", *options], capture_output=True, text=True, env=runner.env)
            what = f"wave3d plan {' '.join(options)}"
            if plan.returncode != 0:
                print(f"refused by the plan on this machine: {what}: {plan.stderr.strip().splitlines()[-1:]}")
                continue
            planned = json.loads(subprocess.run([runner.wave3d, "plan", *options, "--json"], capture_output=True,
                                                env=runner.env, check=True).stdout)
            lines = [line.strip() for line in plan.stdout.splitlines()
                     if line.strip().startswith(("mpirun ", "srun "))]
            if len(lines) != 2:
                runner.failures.append(f"{what}: {len(lines)} launcher line(s), expected an mpirun and an srun line")
            for line in lines:
                words = shlex.split(line)
                if program_index(words) is None:
                    runner.failures.append(f"{what}: the line does not start wave3d run: {line}")
                elif words[0] == "srun":
                    print(f"skipped (needs a Slurm allocation): {what}: {line}")
                else:
                    runner.run(what, words, plan=planned)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("--root", "--wave3d", "--work"):
        parser.add_argument(name, required=True)
    runner = Runner(parser.parse_args())
    shutil.rmtree(runner.out, ignore_errors=True)  # run names repeat from one test run to the next
    runner.out.mkdir(parents=True)
    check_readme(runner)
    check_plan_lines(runner)
    print(f"\n{runner.count} line(s) run")
    if runner.failures:
        print(f"FAIL: {len(runner.failures)} problem(s):\n  " + "\n  ".join(runner.failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
