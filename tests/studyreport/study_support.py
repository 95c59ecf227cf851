"""Shared by the study report tests: where study_report.py is, how to run it, and a writer of small
synthetic study directories (study.json, run.json and steps.csv written here, with chosen numbers)."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.normpath(os.path.join(HERE, "..", "..", "python", "tools"))
STUDY_REPORT = os.path.join(TOOLS, "study_report.py")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
STEPS_HEADER = "rank,step,pack,wait,unpack,interior,shell,check,total,messages_done,io"


def report(*args):
    """Runs study_report.py with the interpreter of the test (CMake's, which has numpy and matplotlib)."""
    return subprocess.run([sys.executable, STUDY_REPORT, *args], capture_output=True, text=True, timeout=300)


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == PNG_SIGNATURE


def write_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)


def placement_ok():
    """run.json's placement_audit of a run placed as planned."""
    return {"verdict": "ok", "problems": [], "strict": False}


def placement_problem(kind, cause="launcher", host="node01", ranks=(0, 1), message=None):
    return {"kind": kind, "cause": cause, "host": host, "ranks": list(ranks),
            "message": message or f"ranks {', '.join(map(str, ranks))}: {kind} on {host} ({cause})"}


def placement_wrong(*problems, strict=False):
    """run.json's placement_audit of a run whose audit found the given problems (placement_problem dicts)."""
    return {"verdict": "wrong", "problems": list(problems), "strict": strict}


def write_run(rep_dir, mpoints, *, ranks=1, steps=6, step_s=1e-3, verification="VERIFIED", p99_s=None,
              amplification=1.0, halo_fraction=0.25, placement=None):
    """A results directory with the run.json fields the report reads and a steps.csv whose rank r, step s takes
    step_s * (1 + 0.01 s + 0.1 r) (step 0 is the warm-up the report leaves out). placement: run.json's
    placement_audit; None leaves it out, as in a run.json from before the audit."""
    totals = [[step_s * (1 + 0.01 * s + 0.1 * r) for s in range(steps)] for r in range(ranks)]
    per_step = list(zip(*[row[1:] for row in totals]))
    audit = {} if placement is None else {"placement_audit": placement}
    write_json(os.path.join(rep_dir, "run.json"), {**audit,
        "metrics": {"mpoints_per_second": mpoints, "loop_s": steps * step_s, "steps": steps},
        "jitter": {"noise_amplification": amplification, "step_time_p50_s": step_s,
                   "step_time_p99_s": p99_s if p99_s is not None else 2 * step_s, "step_time_max_s": 3 * step_s,
                   "per_step_max_s": [max(v) for v in per_step], "per_step_median_s": [sorted(v)[len(v) // 2]
                                                                                      for v in per_step]},
        "decomposition": {"halo_exposed_fraction": halo_fraction},
        "parallel": {"ranks": ranks, "threads_per_rank": 1},
        "verification": {"status": verification}})
    with open(os.path.join(rep_dir, "steps.csv"), "w", encoding="utf-8") as f:
        f.write(STEPS_HEADER + "\n")
        for r, row in enumerate(totals):
            for s, total in enumerate(row):
                f.write(f"{r},{s},0,0,0,{total},0,,{total},,\n")


class SyntheticStudy:
    """study.json plus run directories. Each configuration's runs are (status, MPoints/s or None, extra)
    tuples; extra is a dict of write_run keywords and 'exit_status'."""

    def __init__(self, directory, name, axes, repetitions, machine=None):
        self.directory = directory
        self.doc = {"format": "wave3d-study", "format_version": 2, "command": "wave3d-study run",
                    "study": {"name": name, "description": f"synthetic {name} study",
                              "file": os.path.join(directory, "study.toml")},
                    "job": {"scheduler": "slurm", "job_id": "4242", "nodes": 1, "host": "node01",
                            "launcher": "srun", "started_utc": "2026-01-02T03:04:05Z",
                            "finished_utc": "2026-01-02T04:00:00Z"},
                    "machine": machine or {"summary": "1 package, 1 NUMA node, 4 cores, 4 PUs", "sockets": 1,
                                           "numa_nodes": 1, "cores": 4, "cores_per_socket": 4, "pus": 4},
                    "axes": [{"name": n, "values": v} for n, v in axes], "repetitions": repetitions,
                    "configurations": [], "excluded": [], "runs": []}

    def add(self, cid, parameters, runs, *, ranks=1, threads=1, compute=None, reserved=0, daemon=False):
        self.doc["configurations"].append({
            "id": cid, "label": " ".join(f"{k}={v}" for k, v in parameters.items()), "parameters": parameters,
            "ranks_per_node": ranks, "ranks": ranks, "threads_per_rank": threads,
            "compute_cores_per_node": compute if compute is not None else ranks * threads,
            "reserved_cores_per_node": reserved, "progress_thread": False, "daemon": daemon,
            "launcher": ["srun"], "program": ["wave3d", "run"], "dir": f"runs/{cid}"})
        for rep, (status, mpoints, extra) in enumerate(runs, start=1):
            extra = dict(extra or {})
            exit_status = extra.pop("exit_status", 0 if status == "done" else None)
            rel = f"runs/{cid}/rep{rep}"
            record = {"configuration": cid, "repetition": rep, "dir": rel, "status": status,
                      "exit_status": exit_status, "duration_s": 1.0 if status != "pending" else None, "started_utc": None}
            self.doc["runs"].append(record)
            if mpoints is not None:
                write_run(os.path.join(self.directory, rel), mpoints, ranks=ranks, **extra)

    def write(self):
        write_json(os.path.join(self.directory, "study.json"), self.doc)
        return self.directory


def done(mpoints, **extra):
    return ("done", mpoints, extra)
