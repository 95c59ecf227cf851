#!/usr/bin/env python3
"""Every category of bad input, as a table: each case must end with exit status 2, one message on
stderr that names the setting and its value (printed once however many ranks run), and nothing
written, neither in the output directory the case names nor in its working directory.

A `wave3d run` case is tried twice, as `run --check` and as the run itself: the check must refuse
what the run refuses, with the same message. Every command has a time limit, so a hang fails the case.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT_S = 60


@dataclass
class Case:
    name: str
    message: str              # a regular expression the one message must match
    sets: list = field(default_factory=list)   # wave3d run --set KEY=VALUE
    ranks: int = 1
    toml: str = ""            # a config file to run, written into the case's directory
    command: list = field(default_factory=list)  # any other command line, {wave3d} etc. filled in


def run_cases(out):
    """Bad configurations of `wave3d run`; {out} is the case's own directory."""
    return [
        # The configuration file and --set.
        Case("malformed_toml", r"bad\.toml.*(TOML|parse)", toml="[grid]\nn = [32, 32,\n"),
        Case("section_as_scalar", r"grid is a section", toml="grid = 5\n"),
        Case("unknown_key", r"unknown key grid\.radius", sets=["grid.radius=4"]),
        Case("wrong_type", r"grid\.n.*abc", sets=["grid.n=abc"]),
        Case("absurd_steps", r"run\.steps = -5", sets=["run.steps=-5"]),
        Case("unstable_dt", r"physics\.dt = 0\.01 is unstable", sets=["physics.dt=0.01"]),
        Case("threads_impossible", r"run\.threads = 100000", sets=["run.threads=100000"], ranks=2),
        # Decompositions on 2 and 4 ranks, and memory.
        Case("process_grid_product", r"parallel\.process_grid = \[3, 1, 1\] does not fit 2 ranks",
             sets=["parallel.process_grid=3,1,1"], ranks=2),
        Case("subdomain_thinner_than_stencil", r"parallel\.process_grid = \[4, 1, 1\].*thinner than the stencil",
             sets=["grid.n=16,16,16", "stencil.radius=8", "parallel.process_grid=4,1,1"], ranks=4),
        Case("grid_exceeds_memory", r"grid\.n = \[20000, 20000, 20000\] does not fit in memory",
             sets=["grid.n=20000,20000,20000"], ranks=2),
        # Placement and memory policy.
        Case("layout_threads", r'placement\.layout = "rank-per-core", run\.threads = 64',
             sets=["placement.layout=rank-per-core", "run.threads=64"], ranks=2),
        Case("numa_node_missing", r"init\.numa_node = 99 .*does not exist",
             sets=["init.policy=node", "init.numa_node=99"], ranks=2),
        Case("progress_core_missing", r"parallel\.progress_core = 4096 is not a CPU",
             sets=["parallel.halo=overlap", "parallel.progress=thread", "parallel.progress_core=4096"]),
        # Output, checkpoint and restart settings.
        Case("output_directory_is_file", r"output\.directory = '.*a_file'.*not a directory",
             sets=[f"output.directory={out}/a_file"]),
        Case("output_name_with_slash", r"output\.name = 'a/b' is not allowed", sets=["output.name=a/b"]),
        Case("checkpoint_directory_under_file", r"checkpoint\.directory = '.*a_file/checkpoints'.*not a directory",
             sets=["checkpoint.every=2", f"checkpoint.directory={out}/a_file/checkpoints"]),
        Case("restart_missing", r"restart\.from = '.*missing\.h5': no such file",
             sets=[f"restart.from={out}/missing.h5"], ranks=2),
        Case("restart_not_hdf5", r"restart\.from = '.*a_file': not a readable HDF5 file",
             sets=[f"restart.from={out}/a_file"], ranks=2),
        Case("restart_other_grid", r"restart\.from = '.*checkpoint_000002\.h5'.*grid 24x24x24 does not match",
             sets=["restart.from={checkpoint}"], ranks=2),
    ]


def other_cases():
    """Bad command lines of every subcommand, the daemon and the study runner."""
    cases = [Case(f"{command}_unknown_option", rf"^wave3d {command}: error: .*--frobnicate",
                  command=["{wave3d}", command, "--frobnicate"])
             for command in ["run", "bench", "stream", "plan", "noise", "advise", "tune", "iobench"]]
    return cases + [
        Case("unknown_command", r"'bogus' is not a command", command=["{wave3d}", "bogus"]),
        Case("bench_bad_steps", r"--steps", command=["{wave3d}", "bench", "--steps", "0"]),
        Case("plan_bad_layout", r"--layout.*rank-per-moon", command=["{wave3d}", "plan", "--layout", "rank-per-moon"]),
        Case("check_ranks_without_check", r"--ranks requires --check", command=["{wave3d}", "run", "--ranks", "4"]),
        Case("daemon_bad_kind", r"--kind: foo", command=["{noise}", "--kind", "foo"]),
        Case("daemon_period_without_unit", r"--period '1'", command=["{noise}", "--period", "1"]),
        Case("study_broken_toml", r"study\.toml: not valid TOML",
             command=[sys.executable, "{study}", "run", "study.toml", "--local", "--dry-run"],
             toml="[study\nname = 'x'\n"),
        Case("study_unknown_key", r"unknown key study\.bogus",
             command=[sys.executable, "{study}", "run", "study.toml", "--local", "--dry-run"],
             toml="[study]\nname = 'x'\nbogus = 1\n"),
    ]


def make_checkpoint(a, directory):
    """A checkpoint of a 24^3 grid, for the restart whose grid differs."""
    command = [a.mpiexec, "-n", "1", "--oversubscribe", "--bind-to", "none", a.wave3d, "run",
               "--set", "grid.n=24,24,24", "--set", "run.steps=2", "--set", "checkpoint.every=2",
               "--set", f"output.directory={directory}", "--set", "output.name=source", "--set", "run.progress=off"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=TIMEOUT_S, env=environment())
    return directory / "source" / "checkpoint_000002.h5"


def environment():
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.pop("OMP_NUM_THREADS", None)
    return env


def written(directory, expected):
    """Files under directory other than the ones the case put there itself."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.name not in expected)


def try_command(command, cwd, case, label, expected_files):
    """Runs one command; returns a list of what is wrong with its outcome."""
    try:
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S, env=environment())
    except subprocess.TimeoutExpired:
        return [f"{label}: still running after {TIMEOUT_S} s"]
    problems = []
    # Launcher banners (mpiexec's "Primary job terminated ...") are not ours; our lines name the program.
    ours = [line for line in proc.stderr.splitlines() if line.startswith("wave3d")]
    errors = [line for line in ours if "error" in line]
    if proc.returncode != 2:
        problems.append(f"{label}: exit {proc.returncode}, expected 2")
    if len(errors) != 1:
        problems.append(f"{label}: {len(errors)} error lines, expected one")
    if not any(re.search(case.message, line) for line in errors):
        problems.append(f"{label}: no error line matches /{case.message}/")
    extra = written(cwd, expected_files)
    if extra:
        problems.append(f"{label}: wrote {extra}")
    if problems:
        problems.append(f"{label}: command {' '.join(map(str, command))}\n--- stderr\n{proc.stderr}---")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--wave3d", required=True)
    ap.add_argument("--noise", required=True)
    ap.add_argument("--study", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--work-dir", type=Path, required=True)
    ap.add_argument("--only", help="run the cases whose name contains this")
    a = ap.parse_args()
    a.wave3d, a.noise, a.study = (str(Path(x).resolve()) for x in (a.wave3d, a.noise, a.study))
    shutil.rmtree(a.work_dir, ignore_errors=True)
    a.work_dir.mkdir(parents=True)
    checkpoint = make_checkpoint(a, a.work_dir / "checkpoint_source")
    names = {"wave3d": a.wave3d, "noise": a.noise, "study": a.study, "checkpoint": str(checkpoint)}

    failures, tried = [], 0
    for kind, cases in (("run", run_cases), ("other", lambda out: other_cases())):
        for case in cases("{out}"):
            if a.only and a.only not in case.name:
                continue
            variants = [["run", "--check"], ["run"]] if kind == "run" else [None]
            for variant in variants:
                label = f"{case.name}" + (f" ({' '.join(variant)})" if variant else "")
                cwd = a.work_dir / (case.name + ("_check" if variant and "--check" in variant else ""))
                cwd.mkdir()
                (cwd / "a_file").write_text("not a directory\n")
                expected = {"a_file"}
                if case.toml:
                    file_name = "bad.toml" if kind == "run" else "study.toml"
                    (cwd / file_name).write_text(case.toml)
                    expected.add(file_name)
                fill = dict(names, out=str(cwd))
                if variant:
                    command = [a.mpiexec, "-n", str(case.ranks), "--oversubscribe", "--bind-to", "none", a.wave3d,
                               *variant]
                    if case.toml:
                        command.append("bad.toml")
                    for setting in case.sets:
                        command += ["--set", setting.format(**fill)]
                    if not any(s.startswith("output.directory=") for s in case.sets):
                        command += ["--set", f"output.directory={cwd}/results"]
                else:
                    command = [part.format(**fill) for part in case.command]
                tried += 1
                failures += try_command(command, cwd, case, label, expected)
    print(f"{tried} bad inputs tried, {len(failures)} problems")
    for problem in failures:
        print("FAIL:", problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
