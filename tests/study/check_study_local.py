#!/usr/bin/env python3
"""The study runner end to end on this machine (`wave3d-study run --local`, mpirun), no scheduler:

  check_study_local.py --root SRC --wave3d BIN --noise BIN --work DIR --case sweep|failures|interrupt

sweep:     2 layouts x daemon off/on x 2 repetitions of a small grid. Every run is done and VERIFIED with
           the ranks and threads its plan promised; runs go repetition-major; the progress line counts
           runs done and to go and says the placement verdict, which study.json records as run.json
           has it (or "not audited"); daemon runs have a per-node burst log and leave no daemon behind; shell
           code in configuration strings stays data; study.json names the job and every configuration;
           a second study under the same job id is refused.
failures:  a configuration that fails at run time (injected failure) and one that runs past
           study.run_timeout_seconds: both are recorded (failed, timeout), the other runs still run,
           the runner exits 1 and no process of the stopped run is left.
interrupt: SIGTERM to the runner mid-study (a job's time limit): the running run is stopped and marked
           interrupted, the rest stay pending, study.json is complete JSON and the runner exits 143.
"""
import argparse
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from study_support import expect, main_guard, mpi_environment, study_runner, write_toml

SMALL = ["grid.n=32,32,32", "run.steps=8", "run.progress=\"off\""]


def load_record(results, name):
    [study_dir] = list((results / name).iterdir())
    return study_dir, json.loads((study_dir / "study.json").read_text())


def audit_verdict(result):
    """The verdict of run.json's placement audit; "not audited" for a wave3d without the audit."""
    return (result.get("placement_audit") or {}).get("verdict", "not audited")


def processes_matching(text):
    return subprocess.run(["pgrep", "-f", text], capture_output=True, text=True).stdout.split()


def gone_within(text, seconds):
    """Whether no process matches `text` within `seconds`: ranks a launcher has told to stop may take a
    moment to exit on a loaded machine."""
    deadline = time.monotonic() + seconds
    while processes_matching(text):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


def check_sweep(args, work):
    results = work / "results"
    canary = work / "PWNED"
    shell = f"$(touch {canary}) `touch {canary}`; touch {canary} '\"; \\"
    study = {"study": {"name": "sweep", "description": shell, "repetitions": 2, "run_timeout_seconds": 120},
             "run": {"set": SMALL + [f"output.name={shell}"]},
             "daemon": {"period": "50ms", "duration": "2ms", "mib": 4},
             "sweep": {"placement.layout": ["rank-per-node", "rank-per-core"], "daemon.enabled": [False, True]}}
    path = work / "sweep.toml"
    write_toml(path, study)
    done = study_runner(args, path, "--results", str(results), "--job-id", "4242")
    print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
    expect(done.returncode == 0, f"the study ran (exit {done.returncode})")
    study_dir, record = load_record(results, "sweep")
    expect(study_dir.name == "4242" and record["job"]["job_id"] == "4242" and record["job"]["scheduler"] == "local",
           "study.json names the job")
    expect(record["job"]["finished_utc"] is not None, "study.json says the study finished")
    configurations = {c["id"]: c for c in record["configurations"]}
    expect(len(configurations) == 4 and len(record["runs"]) == 8, "2 x 2 configurations x 2 repetitions")
    expect([r["repetition"] for r in record["runs"]] == [1] * 4 + [2] * 4, "runs go repetition-major")
    progress = re.findall(r"\[(\d+)/(\d+) done, (\d+) to go\]", done.stdout)
    expect([(int(a), int(b), int(c)) for a, b, c in progress] == [(i, 8, 8 - i) for i in range(1, 9)],
           "one progress line per run: done / to go")
    expect(len(re.findall(r"to go\] .*, placement (ok|wrong|not audited)", done.stdout)) == 8,
           "every progress line says how the run was placed")
    for configuration in configurations.values():
        placement = configuration["placement"]
        options = ["--layout", placement["layout"], "--ranks-per-node", str(placement["ranks_per_node"]),
                   "--threads", str(placement["threads"]), "--reserve", placement["reserve"]]
        plan = subprocess.run([args.wave3d, "plan", *options, "--json"], capture_output=True, env=mpi_environment(),
                              check=True)
        words = json.loads(plan.stdout)["launchers"]["program_argv"]
        expect(configuration["program"][3:3 + len(words)] == words,
               f"{configuration['id']}: wave3d run gets the plan's own settings ({' '.join(words)})")
    for run in record["runs"]:
        configuration = configurations[run["configuration"]]
        run_dir = study_dir / run["dir"]
        result = json.loads((run_dir / "run.json").read_text())
        expect(run["status"] == "done" and run["exit_status"] == 0 and result["verification"]["status"] == "VERIFIED",
               f"{run['dir']}: done and VERIFIED")
        expect(result["parallel"]["ranks"] == configuration["ranks"]
               and result["parallel"]["threads_per_rank"] == configuration["threads_per_rank"],
               f"{run['dir']}: {configuration['ranks']} rank(s) x {configuration['threads_per_rank']} thread(s) as planned")
        expect(run["mpoints_per_second"] == result["metrics"]["mpoints_per_second"], f"{run['dir']}: throughput recorded")
        expect(run["placement_verdict"] == audit_verdict(result),
               f"{run['dir']}: placement {run['placement_verdict']}, as its run.json says")
        logs = list((run_dir / "daemon").glob("noise-*.tsv"))
        if configuration["daemon"]:
            expect(len(logs) == 1 and logs[0].read_text().strip() and run["daemon_exit_status"] == 0,
                   f"{run['dir']}: the daemon ran on the node and logged its bursts")
        else:
            expect(not logs, f"{run['dir']}: no daemon")
        expect((study_dir / configuration["dir"] / "plan.txt").is_file(), f"{configuration['dir']}/plan.txt")
    expect(not canary.exists(), "no configuration string was executed")
    expect(gone_within(str(study_dir), 30), "no daemon or run left running after 30 s")
    again = study_runner(args, path, "--results", str(results), "--job-id", "4242")
    expect(again.returncode == 2 and "already holds a study" in again.stderr, "a job id is used once")


def check_failures(args, work):
    results = work / "results"
    # 32^3 runs its 400 steps in well under a second even on a loaded machine; failure injected on rank 1
    # at step 2; a 320^3 grid needs 13 GPoints of work, far beyond the 5 s limit on any node we know.
    study = {"study": {"name": "failures", "repetitions": 1, "run_timeout_seconds": 5},
             "run": {"set": ["run.steps=400", "debug.fail_step=2", "run.progress=\"off\""]},
             "placement": {"layout": "rank-per-core"},
             "sweep": {"run.debug.fail_rank": [-1, 1], "run.grid.n": [[32, 32, 32], [320, 320, 320]],
                       "exclude": [{"run.debug.fail_rank": 1, "run.grid.n": [320, 320, 320]}]}}
    path = work / "failures.toml"
    write_toml(path, study)
    done = study_runner(args, path, "--results", str(results), "--job-id", "1")
    print(done.stdout[-3000:], done.stderr[-2000:], sep="\n")
    expect(done.returncode == 1, f"the runner exits 1 when runs fail (exit {done.returncode})")
    study_dir, record = load_record(results, "failures")
    status = {r["configuration"]: r["status"] for r in record["runs"]}
    print(status)
    expect(list(status.values()) == ["done", "timeout", "failed"], f"done, timeout and failed recorded: {status}")
    timed_out = next(r for r in record["runs"] if r["status"] == "timeout")
    failed = next(r for r in record["runs"] if r["status"] == "failed")
    expect(failed["exit_status"] not in (0, None), f"the failed run's exit status {failed['exit_status']}")
    expect("injected failure" in (study_dir / failed["dir"] / "output.txt").read_text(),
           "the failed run's output is kept")
    # A run stopped outright leaves at most its run.json under way, which says it never completed.
    stopped_json = study_dir / timed_out["dir"] / "run.json"
    stopped = json.loads(stopped_json.read_text()) if stopped_json.exists() else {"status": "running"}
    expect(stopped.get("status") == "running" and "metrics" not in stopped,
           f"the stopped run left no result (run.json status {stopped.get('status')!r})")
    expect(gone_within(str(study_dir / timed_out["dir"]), 30), "nothing of the stopped run is left after 30 s")


def check_interrupt(args, work):
    results = work / "results"
    study = {"study": {"name": "interrupt", "repetitions": 3},
             "run": {"set": ["grid.n=256,256,256", "run.steps=100000", "run.progress=\"off\""]},
             "placement": {"layout": "rank-per-core"}}
    path = work / "interrupt.toml"
    write_toml(path, study)
    command = [sys.executable, str(Path(args.root) / "jobscripts/wave3d-study"), "run", "--local", "--wave3d",
               args.wave3d, "--noise", args.noise, "--results", str(results), "--job-id", "9", str(path)]
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=mpi_environment())
    study_json = results / "interrupt" / "9" / "study.json"
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        if study_json.exists() and '"running"' in study_json.read_text():
            break
        time.sleep(0.2)
    expect(study_json.exists(), "the first run started")
    runner.send_signal(signal.SIGTERM)
    output, _ = runner.communicate(timeout=120)
    print(output[-2000:])
    expect(runner.returncode == 143, f"the runner exits 143 after SIGTERM (exit {runner.returncode})")
    record = json.loads(study_json.read_text())
    statuses = [r["status"] for r in record["runs"]]
    expect(statuses == ["interrupted", "pending", "pending"], f"interrupted + pending recorded: {statuses}")
    expect(record["job"]["finished_utc"] is not None, "the record is closed")
    expect(gone_within(str(study_json.parent / "runs"), 30), "the interrupted run is gone within 30 s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("--root", "--wave3d", "--noise", "--work"):
        parser.add_argument(name, required=True)
    parser.add_argument("--case", choices=["sweep", "failures", "interrupt"], required=True)
    args = parser.parse_args()
    work = Path(args.work) / args.case
    subprocess.run(["rm", "-rf", str(work)], check=True)
    work.mkdir(parents=True)
    cases = {"sweep": check_sweep, "failures": check_failures, "interrupt": check_interrupt}
    main_guard(lambda: cases[args.case](args, work))


if __name__ == "__main__":
    main()
