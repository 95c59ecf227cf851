#!/usr/bin/env python3
"""wave3d across the nodes of the multi-node test cluster (start-local-slurm.sh --nodes 2).

  check_multinode.py --cluster DIR --wave3d PATH --work DIR --case NAME [--timeout S]

Cases:
  checksum   srun -N2 -n4 (2 ranks per node) gives the checksum of 1 rank, in bulk mode and in overlap
             mode with temporal blocking across the nodes; the binding in run.json puts ranks 0-1 on
             node1 and 2-3 on node2, and MPI_Comm_split_type groups them under node leaders 0 and 2.
  kill       a rank killed with SIGKILL on node2 ends the job on both nodes within 30 s (srun with
             --kill-on-bad-exit=1, as wave3d plan writes it), with a message
             that names the node and the task, and leaves no wave3d process behind.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slurm_job import TestFailure, cluster_environment, run  # noqa: E402

SMALL_RUN = ["--set", "grid.n=40,36,32", "--set", "run.steps=12", "--set", "blocking.cache=off",
             "--set", "run.progress=off"]


def run_json(directory):
    found = list(Path(directory).rglob("run.json"))
    if len(found) != 1:
        raise TestFailure(f"expected one run.json under {directory}, found {len(found)}")
    return json.loads(found[0].read_text())


def check_checksum(args, env):
    work = Path(args.work)
    reference = work / "one-rank"
    run([args.wave3d, "run", *SMALL_RUN, "--set", f"output.directory={reference}"], env)
    expected = run_json(reference)["checksum"]
    for name, extra in [("bulk", ["--set", "parallel.halo=bulk"]),
                        ("overlap-deep", ["--set", "parallel.halo=overlap", "--set", "blocking.steps=2"])]:
        out = work / name
        run(["timeout", str(args.timeout), "srun", "-N2", "-n4", "--ntasks-per-node=2", "--mpi=pmix",
             args.wave3d, "run", *SMALL_RUN, *extra, "--set", f"output.directory={out}"], env)
        doc = run_json(out)
        if doc["checksum"] != expected:
            raise TestFailure(f"{name}: checksum {doc['checksum']} on 2 nodes, {expected} on 1 rank")
        ranks = sorted(doc["binding"], key=lambda b: b["rank"])
        hosts = [b["host"] for b in ranks]
        groups = [b["node"] for b in ranks]
        # A node is named by its lowest rank (the leader of its MPI_Comm_split_type group).
        if hosts != ["node1", "node1", "node2", "node2"] or groups != [0, 0, 2, 2]:
            raise TestFailure(f"{name}: ranks on hosts {hosts} grouped under node leaders {groups}; expected "
                              "node1, node1, node2, node2 under leaders 0, 0, 2, 2")
        print(f"{name}: checksum {expected} as on 1 rank; hosts {hosts}, node groups {groups}")


def wave3d_processes(job_id):
    """PID -> SLURM_PROCID of the wave3d processes of a job, whichever node (namespace) they run on."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "comm").read_text().strip() != "wave3d":
                continue
            environ = dict(e.split("=", 1) for e in (proc / "environ").read_text().split("\0") if "=" in e)
        except OSError:
            continue
        if environ.get("SLURM_JOB_ID") == str(job_id):
            found[int(proc.name)] = int(environ.get("SLURM_PROCID", "-1"))
    return found


def check_kill(args, env):
    out = Path(args.work) / "killed"
    # --kill-on-bad-exit=1 as in the srun line wave3d plan prints (and the study runner uses).
    command = ["srun", "-N2", "-n2", "--mpi=pmix", "--kill-on-bad-exit=1", "--job-name=wave3d-kill", args.wave3d, "run",
               "--set", "grid.n=64,64,64", "--set", "run.steps=100000", "--set", "blocking.cache=off",
               "--set", "run.progress=off", "--set", f"output.directory={out}"]
    print("$ " + " ".join(command), flush=True)
    srun = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    job_id = None
    try:
        victims = {}
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline and not victims:
            time.sleep(0.5)
            if job_id is None:
                done = subprocess.run(["squeue", "--noheader", "--name=wave3d-kill", "--format=%A"], env=env,
                                      capture_output=True, text=True)
                job_id = done.stdout.split()[0] if done.stdout.split() else None
            if job_id is not None:
                ranks = wave3d_processes(job_id)
                if len(ranks) == 2:
                    victims = {pid: rank for pid, rank in ranks.items() if rank == 1}
        if not victims:
            raise TestFailure(f"the two ranks of job {job_id} were not seen running within {args.timeout} s")
        time.sleep(2)  # well into the time loop
        (pid,) = victims
        print(f"killing rank 1 (PID {pid}) of job {job_id} with SIGKILL", flush=True)
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        output, _ = srun.communicate(timeout=60)
        took = time.monotonic() - killed_at
    except subprocess.TimeoutExpired:
        raise TestFailure("srun was still running 60 s after a rank was killed")
    finally:
        if srun.poll() is None:
            srun.kill()
            srun.wait()
        if job_id is not None:
            subprocess.run(["scancel", str(job_id)], env=env, capture_output=True)
    print(output.rstrip())
    print(f"srun ended {took:.1f} s after the kill with status {srun.returncode}")
    if srun.returncode == 0:
        raise TestFailure("srun exited 0 although a rank was killed")
    if took > 30:
        raise TestFailure(f"the job took {took:.1f} s to end after a rank was killed (limit 30 s)")
    if "node2" not in output or "task 1" not in output:
        raise TestFailure("the output of srun does not name node2 and task 1")
    time.sleep(1)
    left = wave3d_processes(job_id)
    if left:
        raise TestFailure(f"wave3d processes of job {job_id} still running: {sorted(left)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cluster", required=True)
    ap.add_argument("--wave3d", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", required=True, choices=["checksum", "kill"])
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)  # results of an earlier attempt would be read as this one's
    Path(args.work).mkdir(parents=True)
    env = cluster_environment(args.cluster, {"OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "passive"})
    try:
        {"checksum": check_checksum, "kill": check_kill}[args.case](args, env)
    except TestFailure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
