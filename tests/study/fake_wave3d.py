"""A stand-in for the wave3d binary that the study runner can drive without a build: one core, one rank,
`plan` (text and --json), `run --check` (accepts everything) and `run`, which writes a run.json whose
placement audit the configuration chooses with `--set fake.audit="<case>"`:

  ok        audited, nothing wrong
  wrong     audited, wrong: shared-cpus on two hosts and floating
  old       no placement_audit key (a run.json from a wave3d before the audit)
  garbled   a placement_audit whose verdict is neither ok nor wrong
  none      fails before writing run.json (exit status 2), as a strict run does on a wrong placement

`--set fake.mpoints=<n>` sets the throughput (default 100). `--set fake.noise=<s>` makes it noisy: each
run multiplies it by 1 + s x a standard normal number drawn from a generator seeded with the run's
configuration and repetition (its directory names) and `fake.seed` (default 1), so a study run twice
measures the same; without it every run measures exactly fake.mpoints. `--set fake.seconds=<t>` makes a
run take about t seconds."""
import json
import random
import sys
import time
from pathlib import Path

MACHINE = {"sockets": 1, "cores": 1, "cores_per_socket": 1, "pus_per_core": 1, "numa_nodes": 1}
PLAN = {"ranks_per_node": 1, "threads_per_rank": 1, "compute_cores_per_node": 1, "reserved_cores": [],
        "ranks": [{"cores": [0], "progress_core": None}]}
PROGRAM = ["--set", "placement.layout=rank-per-node", "--set", "run.threads=1"]

SHARED = {"kind": "shared-cpus", "cause": "launcher", "ranks": [0, 1],
          "message": "ranks 0 and 1 both run on CPU 0 while CPU 1 stays idle (mpirun --bind-to core)"}
FLOATING = {"kind": "floating", "cause": "unbound", "host": "node1", "ranks": [0],
            "message": "rank 0 thread 0 may run on CPUs 0-1: nothing binds it"}
AUDITS = {
    "ok": {"verdict": "ok", "problems": [], "strict": False},
    "wrong": {"verdict": "wrong", "problems": [dict(SHARED, host="node1"), FLOATING, dict(SHARED, host="node2")],
              "strict": False},
    "garbled": {"verdict": "maybe"},
}


def settings(args):
    """The --set key=value words as a dict of their TOML values: JSON here, or a bare word taken as a string
    (as wave3d takes the plan's placement.layout=rank-per-node)."""
    values = {}
    for flag, word in zip(args, args[1:]):
        if flag == "--set":
            key, _, value = word.partition("=")
            try:
                values[key] = json.loads(value)
            except json.JSONDecodeError:
                values[key] = value
    return values


def run(args):
    values = settings(args)
    case = values.get("fake.audit", "ok")
    if case == "none":
        print("fake wave3d: the placement is wrong (shared-cpus) and strict: nothing written", file=sys.stderr)
        return 2
    run_dir = Path(values["output.directory"]) / values["output.name"]
    mpoints = float(values.get("fake.mpoints", 100))
    if values.get("fake.noise"):
        draw = random.Random(f"{values.get('fake.seed', 1)}/{run_dir.parent.name}/{run_dir.name}")
        mpoints *= 1 + float(values["fake.noise"]) * draw.gauss(0.0, 1.0)
    time.sleep(float(values.get("fake.seconds", 0)))
    result = {"metrics": {"mpoints_per_second": mpoints},
              "verification": {"status": "VERIFIED"}, "parallel": {"ranks": 1, "threads_per_rank": 1}}
    if case in AUDITS:
        result["placement_audit"] = AUDITS[case]
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "run.json").write_text(json.dumps(result, indent=1))
    return 0


def main(args):
    if args[:1] == ["plan"]:
        if "--json" in args:
            print(json.dumps({"machine": MACHINE, "plan": PLAN,
                              "launchers": {"mpirun_argv": ["env"], "srun_argv": ["env"], "program_argv": PROGRAM}}))
        else:
            print("fake plan: 1 rank x 1 thread on core 0")
        return 0
    if args[:1] == ["run"]:
        return 0 if "--check" in args else run(args[1:])
    print(f"fake wave3d: unknown command {args}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
