#!/usr/bin/env python3
"""Submits a reduced study to the private test cluster, waits for it by polling squeue, and checks the
results and the report.

  check_study_job.py --cluster DIR --root SRC --wave3d BIN --noise BIN --work DIR --study NAME
                     --submit sbatch|qsub [--nodes N] [--repetitions K] [--timeout S]

The study is configs/studies/NAME.toml with a small grid and few steps: `single` is one run; `placement` is 4 layouts x
first-touch/serial = 8 configurations; `surplus` is 1..all compute cores per socket x the daemon off/on;
`jitter` is reserved cores x daemon x progress thread x halo mode = 10 configurations.
sbatch runs jobscripts/slurm/study.sbatch (every run an srun step of the one allocation, the daemon with
srun --overlap); qsub runs jobscripts/pbs/study.pbs through Slurm's PBS compatibility (every run an
mpirun, the daemon an mpirun of one process per node).

Checked: the job completes with exit code 0; study.json names the job and holds every configuration x
repetition, all done and VERIFIED, each with as many ranks as its launcher line started and
provenance.batch_job naming the job; runs with the daemon have its burst log; the job's output has one
progress line per run; on N nodes every run spans them all and the daemon leaves one log per node;
`jobscripts/wave3d-study report` writes report.md naming every configuration,
report.json whose medians are those of the run.json files, and the plots.
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
from slurm_job import (TestFailure, expect, expect_job_completed, main_guard, option_value, show_file,  # noqa: E402
                       study_job_environment, submit_study, write_toml)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def reduced_study(source, path, repetitions):
    study = tomllib.loads(Path(source).read_text())
    study["study"]["repetitions"] = repetitions
    study["study"]["run_timeout_seconds"] = 120
    study["run"]["set"] = ["grid.n=32,32,32", "run.steps=10", 'run.progress="off"']
    if "daemon" in study:
        study["daemon"].update({"period": "50ms", "duration": "2ms", "mib": 4})
    write_toml(path, study)


def expected_configurations(name, machine):
    if name == "single":
        return 1
    if name == "placement":
        return 8  # 4 layouts x 2 initialisations
    if name == "surplus":
        return 2 * machine["cores_per_socket"]  # 1..all compute cores x daemon off/on
    if name == "jitter":
        return 10  # reserve x daemon x progress thread x halo mode, less the excluded pairings
    raise ValueError(name)


def check_runs(args, study_dir, job_id):
    record = json.loads((study_dir / "study.json").read_text())
    scheduler = "slurm" if args.submit == "sbatch" else "pbs"
    expect(record["job"]["scheduler"] == scheduler and record["job"]["job_id"] == job_id,
           f"study.json names {scheduler} job {job_id}")
    configurations = {c["id"]: c for c in record["configurations"]}
    count = expected_configurations(args.study, record["machine"])
    expect(len(configurations) == count, f"{count} configurations: {sorted(configurations)}")
    expect(len(record["runs"]) == count * args.repetitions, f"{count * args.repetitions} runs")
    throughput = {}
    for entry in record["runs"]:
        configuration = configurations[entry["configuration"]]
        result = json.loads((study_dir / entry["dir"] / "run.json").read_text())
        expect(entry["status"] == "done" and result["verification"]["status"] == "VERIFIED",
               f"{entry['dir']}: done and VERIFIED")
        launcher = configuration["launcher"]
        if args.submit == "qsub" and args.nodes > 1:
            expect("--hostfile" in launcher, f"{entry['dir']}: mpirun was given the job's $PBS_NODEFILE")
        ranks = option_value(launcher, "--ntasks") or option_value(launcher, "-n")
        expect(launcher[0] == ("srun" if args.submit == "sbatch" else "mpirun")
               and str(result["provenance"]["mpi"]["world_size"]) == ranks,
               f"{entry['dir']}: {result['provenance']['mpi']['world_size']} rank(s), as its {launcher[0]} line asked")
        audit = result["placement_audit"]
        expect(audit["verdict"] != "wrong", f"{entry['dir']}: placement {audit['verdict']}"
               + "".join(f"; {problem['message']}" for problem in audit["problems"]))
        hosts = {b["host"] for b in result["binding"]}
        expect(len(hosts) == args.nodes, f"{entry['dir']}: ranks on {args.nodes} node(s): {sorted(hosts)}")
        if configuration["daemon"]:
            logs = list((study_dir / entry["dir"] / "daemon").glob("noise-*.tsv"))
            expect(len(logs) == args.nodes and all(log.read_text().strip() for log in logs)
                   and entry["daemon_exit_status"] == 0,
                   f"{entry['dir']}: the daemon ran on each of the {args.nodes} node(s) and logged its bursts")
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


def show_failed_runs(study_dir):
    """The output of every run the study did not count as done, and of its daemon: what a failed job
    needs to be understood from the test log alone."""
    try:
        runs = json.loads((study_dir / "study.json").read_text())["runs"]
    except (OSError, ValueError, KeyError):
        return
    for entry in runs:
        if entry.get("status") != "done":
            print(f"--- run {entry.get('dir')}: {json.dumps({k: entry.get(k) for k in ('status', 'exit_status', 'error')})}")
            for name in ("output.txt", "daemon/output.txt"):
                show_file(study_dir / entry["dir"] / name, name)


def check(args):
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    results = work / "results"
    subprocess.run(["rm", "-rf", str(results)], check=True)  # a restarted test cluster counts job ids from 1 again
    study = work / f"{args.study}-reduced.toml"
    reduced_study(Path(args.root) / f"configs/studies/{args.study}.toml", study, args.repetitions)
    env = study_job_environment(args, results)
    if args.submit == "qsub" and args.nodes > 1:
        # As on a PBS cluster: the job's $PBS_NODEFILE (one line per slot; Slurm's PBS compatibility writes
        # none, so the test does), handed to mpirun as --hostfile, and mpirun reaching the other nodes
        # through a remote shell (here one that enters the node's namespaces), not through Slurm.
        cpus = int(subprocess.run(["sinfo", "--noheader", "--format=%c"], env=env, capture_output=True,
                                  text=True).stdout.split()[0])
        nodefile = work / "pbs_nodefile"
        nodefile.write_text("".join(f"node{k}\n" * cpus for k in range(1, args.nodes + 1)))
        env.update({"PBS_NODEFILE": str(nodefile), "OMPI_MCA_plm": "rsh",
                    "OMPI_MCA_plm_rsh_agent": str(Path(args.root) / "scripts/slurm/node-rsh.sh")})
    out_file = work / f"{args.study}.out"
    out_file.unlink(missing_ok=True)
    job_id = submit_study(args.root, env, args.submit, args.study, study, out_file, args.nodes)
    print(f"submitted {args.submit} job {job_id}", flush=True)
    study_dir = results / args.study / job_id
    try:
        expect_job_completed(job_id, env, args.timeout, out_file)
    except TestFailure:
        show_failed_runs(study_dir)
        raise
    progress = [(int(a), int(b), int(c)) for a, b, c in re.findall(r"\[(\d+)/(\d+) done, (\d+) to go\]",
                                                                   out_file.read_text())]
    total = progress[-1][1] if progress else 0
    expect(total > 0 and progress == [(i, total, total - i) for i in range(1, total + 1)],
           "the job output has one progress line per run")
    configurations, throughput = check_runs(args, study_dir, job_id)
    check_report(args, env, study_dir, configurations, throughput)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("--cluster", "--root", "--wave3d", "--noise", "--work"):
        parser.add_argument(name, required=True)
    parser.add_argument("--study", choices=["single", "placement", "surplus", "jitter"], required=True)
    parser.add_argument("--submit", choices=["sbatch", "qsub"], required=True)
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--repetitions", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=400)
    args = parser.parse_args()
    main_guard(lambda: check(args))


if __name__ == "__main__":
    main()
