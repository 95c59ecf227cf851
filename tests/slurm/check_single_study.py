#!/usr/bin/env python3
"""Submits the `single` study to the private test cluster and checks what the job left behind.

  check_single_study.py --cluster DIR --root SRC --wave3d BIN --noise BIN --work DIR
                        --submit sbatch|qsub [--variant plain|hostile] [--timeout S]

sbatch runs jobscripts/slurm/study.sbatch (srun line, PMIx); qsub runs jobscripts/pbs/study.pbs through
Slurm's PBS compatibility (slurm-wlm-torque's qsub, spank_pbs; mpirun line). Both submit from the
repository root as a user would. `plain` submits configs/studies/single.toml as it is. `hostile` submits a
copy with two ranks (rank-per-core), wave3d-noise on the node, and shell code in configuration strings,
which must arrive as data: nothing may execute it.

Checked: the job completes with exit code 0; <results>/single/<job id>/ holds study.toml, study.json
(scheduler, job id, launcher words, the run done with exit status 0), runs/single/plan.txt and
runs/single/rep1/run.json whose provenance.batch_job names the job; the run verified itself on as many
ranks as the launcher line started.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slurm_job import (expect, expect_job_completed, main_guard, option_value, study_job_environment,  # noqa: E402
                       submit_study, write_toml)

# What Slurm's PBS compatibility does not give a PBS job script, so this test cannot cover it.
PBS_NOT_COVERED = [
    "#PBS -o/-e/-j directives (slurm-wlm-torque's qsub ignores them; the test passes -o and -j oe on qsub's "
    "command line)",
    "$PBS_NODEFILE (Slurm writes none; the script takes the node count from SLURM_JOB_NUM_NODES and mpirun "
    "is not given --hostfile)",
    "Open MPI's PBS launcher (tm): mpirun starts its daemons through Slurm inside this job",
    "#PBS resource requests other than nodes/ppn/walltime, and PBS Pro's select/place syntax",
]


def hostile_study(source, path, canary):
    """The single study with two ranks, the daemon on, and shell code where strings go."""
    study = tomllib.loads(Path(source).read_text())
    shell = f"$(touch {canary}) `touch {canary}`; touch {canary} '\"; touch {canary}; \\"
    study["study"]["description"] = shell
    study["run"]["set"] = ["grid.n=48,48,48", "run.steps=12", f"output.name={shell}"]
    study["placement"]["layout"] = "rank-per-core"
    study["daemon"].update({"enabled": True, "period": "100ms", "duration": "5ms", "mib": 8})
    write_toml(path, study)


def check(args):
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    results = work / "results"
    shutil.rmtree(results, ignore_errors=True)  # a restarted test cluster counts job ids from 1 again
    source_study = Path(args.root) / "configs/studies/single.toml"
    canary = work / "PWNED"
    canary.unlink(missing_ok=True)
    if args.variant == "hostile":
        study = work / "single-hostile.toml"
        hostile_study(source_study, study, canary)
    else:
        study = source_study
    env = study_job_environment(args, results)
    out_file = work / f"{args.submit}-{args.variant}.out"
    out_file.unlink(missing_ok=True)

    job_id = submit_study(args.root, env, args.submit, "single", study, out_file)
    print(f"submitted {args.submit} job {job_id}", flush=True)
    expect_job_completed(job_id, env, args.timeout, out_file)

    study_dir = results / "single" / job_id
    record = json.loads((study_dir / "study.json").read_text())
    job = record["job"]
    expect(job["job_id"] == job_id, f"study.json job_id {job['job_id']} is the scheduler's {job_id}")
    expect(job["scheduler"] == ("slurm" if args.submit == "sbatch" else "pbs"), f"study.json scheduler {job['scheduler']}")
    expect(job["finished_utc"] is not None, "study.json says the study finished")
    [configuration] = record["configurations"]
    [run_record] = record["runs"]
    expect(run_record["status"] == "done" and run_record["exit_status"] == 0,
           f"the run is done with exit status 0 ({run_record['status']}, {run_record['exit_status']})")
    launcher = configuration["launcher"]
    expect(launcher[0] == ("srun" if args.submit == "sbatch" else "mpirun"), f"launcher {' '.join(launcher)}")
    expect((study_dir / "study.toml").read_bytes() == Path(study).read_bytes(), "study.toml is the submitted study")
    expect("Slurm" in (study_dir / configuration["dir"] / "plan.txt").read_text(), "plan.txt holds wave3d plan's output")

    run_dir = study_dir / run_record["dir"]
    run_json = json.loads((run_dir / "run.json").read_text())
    batch_job = run_json["provenance"]["batch_job"]
    expect(batch_job == {"scheduler": "slurm", "job_id": job_id},
           f"run.json provenance.batch_job {batch_job} names the Slurm job")
    if args.submit == "qsub":
        pbs_id = run_json["provenance"]["environment"].get("PBS_JOBID")
        expect(pbs_id == job_id, f"run.json records PBS_JOBID {pbs_id} (spank_pbs) for the PBS script")
    expect(run_json["verification"]["status"] == "VERIFIED", "the run VERIFIED")
    ranks = option_value(launcher, "--ntasks") or option_value(launcher, "-n")
    world = run_json["provenance"]["mpi"]["world_size"]
    expect(str(world) == ranks, f"the run had {world} rank(s), as the launcher line asked ({ranks})")

    if args.variant == "hostile":
        expect(not canary.exists(), f"no configuration string was executed ({canary} absent)")
        expect(run_json["config"]["output"]["name"] == "rep1", "the runner's output settings came last")
        logs = sorted((run_dir / "daemon").glob("noise-*.tsv"))
        expect(len(logs) == 1 and logs[0].read_text().strip(), f"the daemon logged bursts on the node: {logs}")
        expect(configuration["daemon"] and run_record.get("daemon_exit_status") == 0,
               f"study.json records the daemon and its exit status ({run_record.get('daemon_exit_status')})")
        leftovers = subprocess.run(["pgrep", "-f", str(run_dir / "daemon")], capture_output=True, text=True).stdout
        expect(not leftovers.strip(), "no daemon left running after the job")
    if args.submit == "qsub":
        print("not covered by Slurm's PBS compatibility:")
        for item in PBS_NOT_COVERED:
            print(f"  - {item}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--wave3d", required=True)
    parser.add_argument("--noise", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--submit", choices=["sbatch", "qsub"], required=True)
    parser.add_argument("--variant", choices=["plain", "hostile"], default="plain")
    parser.add_argument("--timeout", type=int, default=240)
    args = parser.parse_args()
    main_guard(lambda: check(args))


if __name__ == "__main__":
    main()
