#!/usr/bin/env python3
"""Submits a reduced `placement` study to the private test cluster with sbatch, waits for it by polling
squeue, and checks the results and the report.

  check_placement_study.py --cluster DIR --root SRC --wave3d BIN --noise BIN --work DIR [--timeout S]

The study is configs/studies/placement.toml with a small grid, few steps and 2 repetitions: 4 layouts x
first-touch/serial = 8 configurations, 16 runs, each an srun step of the one allocation.

Checked: the job completes with exit code 0; study.json names the Slurm job and holds 16 runs, all done
and VERIFIED, each with as many ranks as its srun line started and provenance.batch_job naming the job;
the job's output has one progress line per run; `jobscripts/wave3d-study report` writes report.md naming
every configuration, report.json whose medians are those of the run.json files, and the plots.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slurm_job import (cluster_environment, expect, job_exit_code, main_guard, option_value, run,  # noqa: E402
                       show_file, wait_for_job, write_toml)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def reduced_study(source, path):
    study = tomllib.loads(Path(source).read_text())
    study["study"]["repetitions"] = 2
    study["study"]["run_timeout_seconds"] = 120
    study["run"]["set"] = ["grid.n=32,32,32", "run.steps=10", 'run.progress="off"']
    write_toml(path, study)


def check_runs(study_dir, job_id):
    record = json.loads((study_dir / "study.json").read_text())
    expect(record["job"]["scheduler"] == "slurm" and record["job"]["job_id"] == job_id,
           f"study.json names Slurm job {job_id}")
    configurations = {c["id"]: c for c in record["configurations"]}
    layouts = sorted({c["parameters"]["placement.layout"] for c in configurations.values()})
    expect(len(configurations) == 8 and len(layouts) == 4, f"8 configurations over 4 layouts: {sorted(configurations)}")
    expect(len(record["runs"]) == 16, "16 runs")
    throughput = {}
    for entry in record["runs"]:
        configuration = configurations[entry["configuration"]]
        result = json.loads((study_dir / entry["dir"] / "run.json").read_text())
        expect(entry["status"] == "done" and result["verification"]["status"] == "VERIFIED",
               f"{entry['dir']}: done and VERIFIED")
        launcher = configuration["launcher"]
        expect(launcher[0] == "srun" and str(result["provenance"]["mpi"]["world_size"]) == option_value(launcher, "--ntasks"),
               f"{entry['dir']}: {result['provenance']['mpi']['world_size']} rank(s), as its srun line asked")
        expect(result["provenance"]["batch_job"] == {"scheduler": "slurm", "job_id": job_id},
               f"{entry['dir']}: provenance.batch_job names the job")
        throughput.setdefault(entry["configuration"], []).append(result["metrics"]["mpoints_per_second"])
    return configurations, throughput


def check_report(args, env, study_dir, configurations, throughput):
    done = subprocess.run([sys.executable, str(Path(args.root) / "jobscripts/wave3d-study"), "report", str(study_dir)],
                          capture_output=True, text=True, env=env, timeout=300)
    print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
    expect(done.returncode == 0, f"the report was written (exit {done.returncode})")
    report_dir = study_dir / "report"
    markdown = (report_dir / "report.md").read_text()
    expect(all(c in markdown for c in configurations), "report.md names every configuration")
    report = json.loads((report_dir / "report.json").read_text())
    for entry in report["configurations"]:
        median = statistics.median(throughput[entry["id"]])
        expect(abs(entry["mpoints_per_second"]["median"] - median) <= 1e-9 * median,
               f"{entry['id']}: report median {entry['mpoints_per_second']['median']:.2f} is the runs' median")
    plots = sorted(report_dir.glob("*.png"))
    expect(len(plots) >= 4 and all(p.read_bytes()[:8] == PNG_SIGNATURE for p in plots),
           f"plots written: {[p.name for p in plots]}")
    for plot in plots:
        expect(f"]({plot.name})" in markdown, f"report.md shows {plot.name}")


def check(args):
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    results = work / "results"
    subprocess.run(["rm", "-rf", str(results)], check=True)  # a restarted test cluster counts job ids from 1 again
    study = work / "placement-reduced.toml"
    reduced_study(Path(args.root) / "configs/studies/placement.toml", study)
    env = cluster_environment(args.cluster, {"WAVE3D_BIN": args.wave3d, "WAVE3D_NOISE_BIN": args.noise,
                                             "WAVE3D_RESULTS": str(results), "WAVE3D_PYTHON": sys.executable})
    env.pop("WAVE3D_ROOT", None)  # the script must find the repository from the submit directory
    out_file = work / "placement.out"
    out_file.unlink(missing_ok=True)
    done = run(["sbatch", "--parsable", f"--output={out_file}", "jobscripts/slurm/placement.sbatch", str(study)], env,
               cwd=args.root)
    job_id = done.stdout.strip().split(";")[0]
    print(f"submitted sbatch job {job_id}", flush=True)
    state = wait_for_job(job_id, env, args.timeout)
    show_file(out_file, "job output")
    expect(state == "COMPLETED", f"job {job_id} COMPLETED (state {state})")
    code = job_exit_code(job_id, env)
    expect(code == "0:0", f"job exit code 0:0 (got {code})")
    progress = re.findall(r"\[(\d+)/16 done, (\d+) to go\]", out_file.read_text())
    expect([(int(a), int(b)) for a, b in progress] == [(i, 16 - i) for i in range(1, 17)],
           "the job output has one progress line per run")
    study_dir = results / "placement" / job_id
    configurations, throughput = check_runs(study_dir, job_id)
    check_report(args, env, study_dir, configurations, throughput)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("--cluster", "--root", "--wave3d", "--noise", "--work"):
        parser.add_argument(name, required=True)
    parser.add_argument("--timeout", type=int, default=400)
    args = parser.parse_args()
    main_guard(lambda: check(args))


if __name__ == "__main__":
    main()
