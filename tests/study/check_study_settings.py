#!/usr/bin/env python3
"""The study runner before it runs anything: every study in configs/studies/ expands and checks, and a
study that cannot run as written is refused with one line that names the setting, and status 2.

  check_study_settings.py --root SRC --wave3d BIN --noise BIN --work DIR

- the four studies expand into the configurations they promise on this machine (placement: 4 layouts x
  2 initialisations; surplus: 1..all cores per socket x daemon off/on; jitter: the excluded combinations
  left out; single: one);
- refused: unknown section, key or axis, wrong types, an exclude naming no axis, a core count the
  sockets do not have, compute cores with a layout that cannot express them, a placement `wave3d plan`
  refuses, a run setting `wave3d run --check` refuses, everything excluded, bad names, NUL, broken TOML;
- a configuration needing more CPUs per node than the job has (SLURM_CPUS_ON_NODE, PBS_NUM_PPN, the
  process's affinity) is refused;
- one job template per scheduler, valid bash, for every study: without a study file it exits 2 with one line;
- `wave3d plan --print-argv srun|mpirun` and `--json` give exactly the words of the lines it prints: the
  launcher's before `wave3d run`, program_argv after it;
- a run setting the plan decides (run.threads, placement.*, the progress engine of a progress thread) is
  refused: the run would not bind to its launcher line's plan.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from study_support import expect, main_guard, mpi_environment, study_runner, write_toml


def dry_run(args, study):
    done = study_runner(args, study, "--dry-run")
    expect(done.returncode == 0, f"{Path(study).name} expands and checks ({done.stderr.strip()[-300:]})")
    total = re.search(r"(\d+) configuration\(s\) x (\d+) repetition\(s\)", done.stdout)
    return int(total[1]), done.stdout


def machine(args):
    plan = subprocess.run([args.wave3d, "plan", "--json"], capture_output=True, text=True, env=mpi_environment(),
                          check=True)
    return json.loads(plan.stdout)["machine"]


def check_shipped_studies(args):
    studies = Path(args.root) / "configs/studies"
    cores = machine(args)["cores_per_socket"]
    expected = {"single": 1, "placement": 8, "surplus": 2 * cores, "jitter": 10}
    for name, count in expected.items():
        configurations, listing = dry_run(args, studies / f"{name}.toml")
        expect(configurations == count, f"{name}: {configurations} configuration(s), expected {count}")
    _, listing = dry_run(args, studies / "jitter.toml")
    expect(listing.count("excluded:") == 6, "jitter: the 6 combinations its exclude rules name are left out")
    expect("progress_thread-on-halo-bulk" not in listing, "jitter: no progress thread with a bulk halo")
    expect(sorted(p.stem for p in studies.glob("*.toml")) == sorted(expected), "every shipped study is checked")


def expect_refused(args, work, name, study, fragment):
    path = work / f"{name}.toml"
    if isinstance(study, str):
        path.write_text(study)
    else:
        write_toml(path, study)
    done = study_runner(args, path, "--dry-run")
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    expect(done.returncode == 2 and len(errors) == 1 and fragment in errors[0] and "Traceback" not in done.stderr,
           f"{name}: refused with status 2 and one line naming '{fragment}' ({done.stderr.strip()[-400:]})")


def check_refusals(args, work):
    small = {"name": "x"}
    cases = [
        ("unknown-key", {"study": small, "placement": {"layot": "x"}}, "placement.layot"),
        ("unknown-section", {"study": small, "plcement": {"layout": "x"}}, "[plcement]"),
        ("wrong-type", {"study": small, "placement": {"threads": "2"}}, "placement.threads"),
        ("list-of-numbers", {"study": small, "run": {"set": [1]}}, "run.set"),
        ("set-without-value", {"study": small, "run": {"set": ["grid.n"]}}, "run.set entry 'grid.n'"),
        ("no-name", {"study": {"description": "x"}}, "study.name is required"),
        ("path-name", {"study": {"name": "../x"}}, "study.name"),
        ("zero-repetitions", {"study": {"name": "x", "repetitions": 0}}, "study.repetitions = 0"),
        ("unknown-axis", {"study": small, "sweep": {"placement.layot": ["a"]}}, "unknown sweep axis placement.layot"),
        ("empty-axis", {"study": small, "sweep": {"placement.layout": []}}, "placement.layout"),
        ("axis-type", {"study": small, "sweep": {"daemon.enabled": ["yes"]}}, "daemon.enabled: value 'yes'"),
        ("exclude-no-axis", {"study": small, "sweep": {"daemon.enabled": [True, False],
                                                       "exclude": [{"placement.smt": True}]}},
         "sweep.exclude names placement.smt"),
        ("all-excluded", {"study": small, "sweep": {"daemon.enabled": [True], "exclude": [{"daemon.enabled": True}]}},
         "every combination of the sweep is excluded"),
        ("too-many-cores", {"study": small, "sweep": {"placement.compute_cores_per_socket": [1, 4096]}},
         "4096 cores per socket"),
        ("cores-bad-range", {"study": small, "sweep": {"placement.compute_cores_per_socket": "1..many"}},
         "placement.compute_cores_per_socket: value '1..many'"),
        ("cores-layout", {"study": small, "placement": {"layout": "rank-per-node"},
                          "sweep": {"placement.compute_cores_per_socket": [1]}}, "needs placement.layout"),
        ("cores-and-threads", {"study": small, "placement": {"threads": 1},
                               "sweep": {"placement.compute_cores_per_socket": [1]}}, "also sets to 1"),
        ("threads-in-run-set", {"study": small, "run": {"set": ["run.threads=1"]}},
         "run.threads follows from the placement plan"),
        ("progress-engine-with-progress-thread",
         {"study": small, "placement": {"reserve": "per-node:1", "progress_thread": True},
          "sweep": {"run.parallel.progress": ["poll"]}}, "parallel.progress follows from the placement plan"),
        ("progress-with-bulk", {"study": small, "placement": {"reserve": "per-node:1", "progress_thread": True},
                                "sweep": {"run.parallel.halo": ["bulk"]}}, "requires parallel.halo = \"overlap\""),
        ("plan-refuses", {"study": small, "sweep": {"placement.threads": [1, 4096]}},
         "configuration threads=4096: wave3d plan refused the placement"),
        ("run-refuses", {"study": small, "sweep": {"run.stencil.radius": [4, 3]}},
         "configuration stencil.radius=3: wave3d run refused the configuration"),
        ("layout-refused", {"study": small, "sweep": {"placement.layout": ["rank-per-rack"]}}, "rank-per-rack"),
        ("daemon-kind", {"study": small, "daemon": {"enabled": True, "kind": "foo"}},
         "the [daemon] settings are refused: wave3d-noise: error: --kind: foo not in"),
        ("daemon-duration-axis", {"study": small, "daemon": {"enabled": True, "period": "1s"},
                                  "sweep": {"daemon.duration": ["5ms", "2s"]}},
         "configuration daemon.duration=2s: the [daemon] settings are refused: wave3d-noise: error: --duration '2s'"),
        ("nul", '[study]\nname = "x"\ndescription = "a\\u0000b"\n', "NUL"),
        ("not-toml", "[study\nname = 1\n", "not valid TOML"),
    ]
    for name, study, fragment in cases:
        expect_refused(args, work, name, study, fragment)
    done = study_runner(args, work / "no-such-study.toml", "--dry-run")
    expect(done.returncode == 2 and "no-such-study.toml" in done.stderr, "a missing study file is named")


def check_allocation(args):
    """A configuration needing more CPUs per node than the job has is refused, whatever says so."""
    single = Path(args.root) / "configs/studies/single.toml"
    needed = machine(args)["cores"]
    if needed < 2:
        print("skipped: the allocation check needs a machine with 2 or more cores")
        return
    command = [sys.executable, str(Path(args.root) / "jobscripts/wave3d-study"), "run", "--dry-run", "--wave3d",
               args.wave3d, "--noise", args.noise]
    slurm = subprocess.run(command + ["--scheduler", "slurm", "--job-id", "5", "--nodes", "1", "--launcher", "srun",
                                      "--", str(single)],
                           capture_output=True, text=True, env=mpi_environment({"SLURM_CPUS_ON_NODE": "1"}))
    expect(slurm.returncode == 2 and f"needs {needed} CPUs per node, but the job has 1 (SLURM_CPUS_ON_NODE)"
           in slurm.stderr, f"a Slurm job with 1 CPU on the node is refused ({slurm.stderr.strip()[-300:]})")
    pbs = subprocess.run(command + ["--scheduler", "pbs", "--job-id", "5.server", "--nodes", "1", "--", str(single)],
                         capture_output=True, text=True, env=mpi_environment({"PBS_NUM_PPN": "1"}))
    expect(pbs.returncode == 2 and "(PBS_NUM_PPN)" in pbs.stderr, "a PBS job with ppn=1 is refused")
    local = subprocess.run(["taskset", "-c", "0", *command, "--local", "--", str(single)], capture_output=True,
                           text=True, env=mpi_environment())
    expect(local.returncode == 2 and "(this process's CPU affinity)" in local.stderr,
           "a local study on fewer CPUs than its plan needs is refused")
    fits = subprocess.run(command + ["--scheduler", "slurm", "--job-id", "5", "--nodes", "1", "--", str(single)],
                          capture_output=True, text=True, env=mpi_environment({"SLURM_CPUS_ON_NODE": str(needed)}))
    expect(fits.returncode == 0, f"a job with the CPUs the plan needs is accepted ({fits.stderr.strip()[-300:]})")


def check_templates(args):
    """One job template per scheduler, valid bash, for any study: each names the study files it runs, and
    without a study file it stops with exit 2 and one line listing the project's studies."""
    root = Path(args.root)
    templates = {"slurm": (root / "jobscripts/slurm/study.sbatch", "SLURM_SUBMIT_DIR"),
                 "pbs": (root / "jobscripts/pbs/study.pbs", "PBS_O_WORKDIR")}
    expect(sorted(p.name for p in (root / "jobscripts/slurm").iterdir()) == ["study.sbatch"]
           and sorted(p.name for p in (root / "jobscripts/pbs").iterdir()) == ["study.pbs"],
           "one job template per scheduler")
    studies = sorted(f"configs/studies/{p.name}" for p in (root / "configs/studies").glob("*.toml"))
    for scheduler, (template, submit_dir) in templates.items():
        syntax = subprocess.run(["bash", "-n", str(template)], capture_output=True, text=True)
        expect(syntax.returncode == 0, f"{template.name} is valid bash {syntax.stderr.strip()}")
        env = {k: v for k, v in os.environ.items() if k != "WAVE3D_STUDY"}
        env[submit_dir] = str(root)
        done = subprocess.run(["bash", str(template)], capture_output=True, text=True, env=env, cwd=root, timeout=30)
        lines = done.stderr.strip().splitlines()
        expect(done.returncode == 2 and len(lines) == 1 and "no study file" in lines[0]
               and all(study in lines[0] for study in studies),
               f"{scheduler}: without a study file, exit 2 and one line naming {studies} ({done.returncode}: {done.stderr!r})")



def check_plan_words(args):
    env = mpi_environment()
    cases = [["--layout", "rank-per-socket"], ["--layout", "rank-per-core", "--nodes", "4"],
             ["--layout", "rank-per-socket", "--reserve", "per-socket:1", "--progress-thread"],
             ["--layout", "rank-per-numa", "--reserve", "list:0,5"]]
    for case in cases:
        plan = [args.wave3d, "plan", "--machine", "xeon-e5-2699v4", *case]
        text = subprocess.run(plan, capture_output=True, text=True, env=env, check=True).stdout.splitlines()
        document = json.loads(subprocess.run(plan + ["--json"], capture_output=True, env=env, check=True).stdout)
        program = document["launchers"]["program_argv"]
        for launcher in ("srun", "mpirun"):
            line = next(line.split() for line in text if line.strip().startswith(launcher + " "))
            argv = subprocess.run(plan + ["--print-argv", launcher], capture_output=True, env=env, check=True).stdout
            words = [w.decode() for w in argv.split(b"\0")[:-1]]
            expect(argv.endswith(b"\0") and line == [*words, "wave3d", "run", *program],
                   f"plan {' '.join(case)} --print-argv {launcher}: the words of the printed line before "
                   "wave3d run, program_argv after it")
            expect(document["launchers"][f"{launcher}_argv"] == words,
                   f"plan {' '.join(case)} --json: {launcher}_argv are the same words")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("--root", "--wave3d", "--noise", "--work"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    main_guard(lambda: (check_shipped_studies(args), check_refusals(args, work), check_allocation(args),
                        check_templates(args), check_plan_words(args)))


if __name__ == "__main__":
    main()
