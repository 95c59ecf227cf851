"""Submitting to the private test cluster (scripts/slurm/start-local-slurm.sh) and waiting for a job.

Shared by the Slurm test drivers. Waiting polls squeue with a bounded timeout; a job still in the queue
at the deadline is cancelled, so no test leaves work behind in the cluster.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import tomli_w  # Debian: python3-tomli-w

FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY",
                "BOOT_FAIL", "DEADLINE"}


class TestFailure(Exception):
    pass


def cluster_environment(cluster_dir, extra=None):
    conf = Path(cluster_dir) / "slurm.conf"
    if not conf.is_file():
        raise TestFailure(f"no test cluster in {cluster_dir} ({conf} missing): the fixture test that starts it "
                          "failed or did not run")
    env = dict(os.environ)
    env["SLURM_CONF"] = str(conf)
    env.update(extra or {})
    return env


def run(command, env, cwd=None, check=True):
    print("$ " + " ".join(str(c) for c in command), flush=True)
    done = subprocess.run([str(c) for c in command], env=env, cwd=cwd, capture_output=True, text=True)
    if done.stdout.strip():
        print(done.stdout.rstrip(), flush=True)
    if done.stderr.strip():
        print(done.stderr.rstrip(), file=sys.stderr, flush=True)
    if check and done.returncode != 0:
        raise TestFailure(f"{command[0]} exited with status {done.returncode}")
    return done


def job_state(job_id, env):
    """The job's state as squeue reports it, including finished jobs (kept for MinJobAge seconds)."""
    done = subprocess.run(["squeue", "--noheader", "--states=all", f"--jobs={job_id}", "--format=%T"], env=env,
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def wait_for_job(job_id, env, timeout):
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        state = job_state(job_id, env)
        if state in FINAL_STATES:
            print(f"job {job_id}: {state}", flush=True)
            return state
        time.sleep(1)
    subprocess.run(["scancel", str(job_id)], env=env)
    raise TestFailure(f"job {job_id} not finished after {timeout} s (last state '{state or 'unknown'}'); cancelled")


def job_exit_code(job_id, env):
    """ExitCode=status:signal from scontrol."""
    done = subprocess.run(["scontrol", "show", "job", str(job_id)], env=env, capture_output=True, text=True)
    for word in done.stdout.split():
        if word.startswith("ExitCode="):
            return word.split("=", 1)[1]
    return "unknown"


def study_job_environment(args, results):
    """The test cluster's environment for a study job: the binaries under test, a private results
    directory, this interpreter; no WAVE3D_ROOT, so the script must find the repository itself."""
    env = cluster_environment(args.cluster, {"WAVE3D_BIN": args.wave3d, "WAVE3D_NOISE_BIN": args.noise,
                                             "WAVE3D_RESULTS": str(results), "WAVE3D_PYTHON": sys.executable})
    env.pop("WAVE3D_ROOT", None)
    if getattr(args, "nodes", 1) > 1:
        # Only the transports the cluster has are tried: ob1 over shared memory and TCP, not the
        # libfabric/verbs components Debian builds in.
        env.update({"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,vader,tcp", "OMPI_MCA_mtl": "^ofi,psm,psm2"})
    return env


def submit_study(root, env, submit, name, study, out_file, nodes=1):
    """Submits the study file `study` (study NAME) with jobscripts/slurm/study.sbatch or jobscripts/pbs/study.pbs
    from the repository root, as a user would, on `nodes` nodes, and returns the job id."""
    if submit == "sbatch":
        done = run(["sbatch", "--parsable", f"--nodes={nodes}", f"--output={out_file}", f"--job-name=wave3d-{name}",
                    "jobscripts/slurm/study.sbatch", str(study)], env, cwd=root)
        return done.stdout.strip().split(";")[0]
    # Whole node, as a PBS user asks with nodes=1:ppn=<cores>; -o and -j oe on the command line, as
    # slurm-wlm-torque's qsub ignores them in the script.
    cpus = run(["sinfo", "--noheader", "--format=%c"], env).stdout.split()[0]
    variables = f"WAVE3D_STUDY={study}"
    if "PBS_NODEFILE" in env:  # a node file the test wrote, where the PBS server would
        variables += f",PBS_NODEFILE={env['PBS_NODEFILE']}"
    done = run(["qsub", "-o", str(out_file), "-j", "oe", "-l", f"nodes={nodes}:ppn={cpus}", "-N", f"wave3d-{name}",
                "-V", "-v", variables, "jobscripts/pbs/study.pbs"], env, cwd=root)
    job_id = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if not job_id.isdigit():
        raise TestFailure(f"qsub printed no job id: {done.stdout!r}")
    return job_id


def expect_job_completed(job_id, env, timeout, out_file):
    """Waits for the job by polling squeue, shows its output, and checks it COMPLETED with exit code 0."""
    state = wait_for_job(job_id, env, timeout)
    show_file(out_file, "job output")
    expect(state == "COMPLETED", f"job {job_id} COMPLETED (state {state})")
    code = job_exit_code(job_id, env)
    expect(code == "0:0", f"job exit code 0:0 (got {code})")


def show_file(path, title):
    path = Path(path)
    print(f"--- {title}: {path}")
    print(path.read_text(errors="replace").rstrip() if path.is_file() else "(missing)", flush=True)


def main_guard(body):
    """Runs body(); a TestFailure is one line on stderr and exit status 1."""
    try:
        body()
    except TestFailure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    print("PASS")


def write_toml(path, data):
    Path(path).write_text(tomli_w.dumps(data))


def expect(condition, what):
    if not condition:
        raise TestFailure(what)
    print(f"ok: {what}", flush=True)


def option_value(words, name):
    for word in words:
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    for i, word in enumerate(words[:-1]):
        if word == name:
            return words[i + 1]
    return None
