#!/usr/bin/env python3
"""Core specialisation on the private test cluster started with --core-spec N (CoreSpecCount=N).

  check_core_spec.py --cluster DIR --root SRC --wave3d BIN --noise BIN --work DIR --core-spec N [--node NAME]
                     [--confined] [--timeout S]

On a cluster of several nodes, --node names the one with CoreSpecCount (every job goes there, in its
partition); on a one-node cluster it is that node.

Checked (the test fails otherwise):
- the node reports CoreSpecCount=N and the specialised CPUs;
- a whole-node job step (sbatch --exclusive, srun --cpu-bind=cores) may run only on the remaining CPUs;
- `wave3d plan --reserve per-node:N` inside a job reserves exactly the CPUs Slurm specialised and computes
  on all the others; under cgroups (--confined) it does so on the whole machine although the job's cpuset
  leaves the specialised cores out (the plan says reserved_by_cpu_set);
- the `single` study with placement.reserve = "per-node:N" (the cores --core-spec sets aside) runs
  wave3d on the remaining cores only: every OpenMP thread's affinity in run.json avoids them.
With --confined, a job process cannot widen its CPU mask onto the specialised CPUs and slurmd runs on them.
Without it, reported and not failed: what this cluster cannot enforce without cgroups (TaskPlugin=
task/affinity binds with sched_setaffinity, so a process may widen its own CPU mask; only task/cgroup with
ConstrainCores=yes and a cpuset cgroup stops that), and whether slurmd itself was moved onto the
specialised CPUs.
"""
import argparse
import json
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slurm_job import (TestFailure, cluster_environment, expect, job_exit_code, main_guard, run,  # noqa: E402
                       show_file, wait_for_job, write_toml)


def parse_cpu_list(text):
    """ "0-2,5" -> {0, 1, 2, 5}"""
    cpus = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def node_facts(env, node):
    line = run(["scontrol", "show", "node", "--oneliner", node], env).stdout
    facts = dict(re.findall(r"(\w+)=(\S*)", line))
    return facts


def specialised_machine_cpus(cluster, node, facts):
    """slurmd logs the OS CPU numbers it set aside; scontrol shows Slurm's abstract ones."""
    log = Path(cluster) / "log" / f"slurmd-{node}.log"
    matches = re.findall(r"Reserved machine CPU IDs: (\S+)", log.read_text()) if log.exists() else []
    return parse_cpu_list(matches[-1] if matches else facts.get("CPUSpecList", ""))


def slurmd_allowed_cpus(cluster, node):
    slurmd_pid = (Path(cluster) / f"slurmd-{node}.pid").read_text().split()[0]
    status = Path(f"/proc/{slurmd_pid}/status").read_text()
    return parse_cpu_list(re.search(r"Cpus_allowed_list:\s*(\S+)", status).group(1))


def last_json_line(path):
    for line in reversed(Path(path).read_text().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise TestFailure(f"no JSON line in {path}")


def check(args):
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(work / "results", ignore_errors=True)  # a restarted test cluster counts job ids from 1 again
    env = cluster_environment(args.cluster, {"WAVE3D_BIN": args.wave3d, "WAVE3D_NOISE_BIN": args.noise,
                                             "WAVE3D_RESULTS": str(work / "results")})
    env.pop("WAVE3D_ROOT", None)

    node = args.node or run(["sinfo", "--noheader", "--Node", "--format=%N"], env).stdout.split()[0]
    facts = node_facts(env, node)
    # Every job of the test runs on that node, in its partition.
    on_node = [f"--nodelist={node}", f"--partition={facts['Partitions'].split(',')[0]}"]
    expect(facts.get("CoreSpecCount") == str(args.core_spec), f"node CoreSpecCount={facts.get('CoreSpecCount')}")
    all_cpus = set(range(int(facts["CPUTot"])))
    spec = specialised_machine_cpus(args.cluster, node, facts)
    remaining = all_cpus - spec
    expect(len(spec) == args.core_spec and remaining, f"specialised CPUs {sorted(spec)}, remaining {sorted(remaining)}")

    # 1. A whole-node job step: Slurm must keep it off the specialised CPUs.
    probe = Path(__file__).resolve().parent / "core_spec_probe.py"
    out = work / "probe.out"
    out.unlink(missing_ok=True)
    step = ["srun", "--ntasks=1", "--cpu-bind=cores", sys.executable, str(probe), ",".join(map(str, sorted(spec)))]
    job_id = run(["sbatch", "--parsable", "--exclusive", *on_node, f"--output={out}", f"--wrap={shlex.join(step)}"], env,
                 cwd=work).stdout.strip().split(";")[0]
    state = wait_for_job(job_id, env, args.timeout)
    show_file(out, "probe job output")
    expect(state == "COMPLETED" and job_exit_code(job_id, env) == "0:0", f"probe job {job_id} completed")
    probe_result = last_json_line(out)
    expect(set(probe_result["allowed"]) == remaining,
           f"the job step ran on CPUs {probe_result['allowed']}, exactly the remaining ones {sorted(remaining)}")

    if args.confined:
        # A cluster with cgroups (start-local-slurm.sh --cgroups): confinement must hold.
        widened = probe_result["widened_to"]
        expect(isinstance(widened, list) and not spec & set(widened),
               f"a job process could not widen its CPU mask onto the specialised CPUs (it got {widened})")
        slurmd_cpus = slurmd_allowed_cpus(args.cluster, node)
        expect(slurmd_cpus <= spec, f"slurmd runs on the specialised CPUs only ({sorted(slurmd_cpus)})")

    # 2. wave3d plan inside a whole-node job: its reservation is Slurm's.
    out = work / "plan.out"
    out.unlink(missing_ok=True)
    plan_command = [args.wave3d, "plan", "--layout", "rank-per-node", "--reserve", f"per-node:{args.core_spec}", "--json"]
    job_id = run(["sbatch", "--parsable", "--exclusive", *on_node, f"--output={out}", f"--wrap={shlex.join(plan_command)}"], env,
                 cwd=work).stdout.strip().split(";")[0]
    state = wait_for_job(job_id, env, args.timeout)
    show_file(out, "plan job output")
    expect(state == "COMPLETED" and job_exit_code(job_id, env) == "0:0", f"plan job {job_id} completed")
    plan = json.loads(out.read_text())
    compute = {pu for rank in plan["plan"]["ranks"] for t in rank["threads"] for pu in t["pus"]}
    expect(plan["machine"]["pus"] == len(all_cpus) and compute == remaining,
           f"wave3d plan computes on CPUs {sorted(compute)} of the machine's {plan['machine']['pus']}: "
           f"exactly the ones Slurm left ({sorted(remaining)})")
    expect(len(plan["plan"]["reserved_cores"]) == args.core_spec and plan["plan"]["reserved_by_cpu_set"] == args.confined,
           f"wave3d plan reserves {plan['plan']['reserved_cores']} (reserved_by_cpu_set: "
           f"{plan['plan']['reserved_by_cpu_set']}, the job's cpuset {'does' if args.confined else 'does not'} "
           "leave the specialised cores out)")
    expect(any("--core-spec=" + str(args.core_spec) in word for word in plan["launchers"]["srun"].split()),
           f"the plan's srun line asks Slurm for the same cores: {plan['launchers']['srun']}")

    # 3. The single study, reserving the cores --core-spec sets aside: wave3d stays on the remaining ones.
    study = tomllib.loads((Path(args.root) / "configs/studies/single.toml").read_text())
    study["study"]["description"] = "single on a node with CoreSpecCount"
    study["run"]["set"] = ["grid.n=48,48,48", "run.steps=12"]
    study["placement"].update({"layout": "rank-per-node", "reserve": f"per-node:{args.core_spec}"})
    study_file = work / "single-core-spec.toml"
    write_toml(study_file, study)
    out = work / "single-core-spec.out"
    out.unlink(missing_ok=True)
    job_id = run(["sbatch", "--parsable", *on_node, f"--output={out}", "jobscripts/slurm/study.sbatch", study_file], env,
                 cwd=args.root).stdout.strip().split(";")[0]
    state = wait_for_job(job_id, env, args.timeout)
    show_file(out, "single study output")
    expect(state == "COMPLETED" and job_exit_code(job_id, env) == "0:0", f"single study job {job_id} completed")
    run_json = json.loads((work / "results" / "single" / job_id / "runs" / "single" / "rep1" / "run.json").read_text())
    expect(run_json["verification"]["status"] == "VERIFIED", "the run VERIFIED")
    threads = [t for rank in run_json["binding"] for t in rank["binding"]["threads"]]
    for t in threads:
        affinity = t["affinity"]
        cpus = set(affinity) if isinstance(affinity, list) else parse_cpu_list(str(affinity))
        expect(cpus and cpus <= remaining and t["cpu"] in remaining,
               f"thread {t['thread']} ran on CPU {t['cpu']}, allowed {sorted(cpus)}: remaining cores only")

    if args.confined:
        return
    # 4. What this cluster cannot enforce: say so instead of pretending.
    widened = probe_result["widened_to"]
    print("core specialisation, what is enforced here:")
    print(f"  - allocation: jobs get only CPUs {sorted(remaining)} (select/cons_tres): enforced")
    if isinstance(widened, list) and spec <= set(widened):
        print(f"  - NOT ENFORCED: a job process widened its own CPU mask to {widened}, onto the specialised "
              "CPUs; TaskPlugin=task/affinity binds with sched_setaffinity only. Confinement needs "
              "TaskPlugin=task/cgroup with ConstrainCores=yes and a cpuset cgroup the container may write.")
    else:
        print(f"  - confinement: a job process could not leave its CPUs ({widened}): enforced")
    slurmd_cpus = slurmd_allowed_cpus(args.cluster, node)
    where = "on the specialised CPUs only" if slurmd_cpus <= spec else "not confined to the specialised CPUs"
    print(f"  - slurmd runs on CPUs {sorted(slurmd_cpus)}: {where}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("--cluster", "--root", "--wave3d", "--noise", "--work"):
        parser.add_argument(name, required=True)
    parser.add_argument("--core-spec", type=int, required=True)
    parser.add_argument("--node", help="the node with CoreSpecCount (default: the cluster's only node)")
    parser.add_argument("--timeout", type=int, default=240)
    parser.add_argument("--confined", action="store_true",
                        help="the cluster confines jobs with cgroups: require it")
    args = parser.parse_args()
    main_guard(lambda: check(args))


if __name__ == "__main__":
    main()
