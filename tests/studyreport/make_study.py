#!/usr/bin/env python3
"""Builds small study directories for the report tests by running the real wave3d binary, laid out as the
study runner lays them out (python/tools/README.md, "study_report.py"), with study.json written here.

    make_study.py --wave3d BIN --noise BIN --mpiexec MPIEXEC --out DIR

DIR/surplus/1: axes placement.compute_cores_per_socket = 1, 2 and daemon.enabled = false, true, 2
  repetitions; the daemon runs (wave3d-noise, a short spin every few ms) beside the daemon-on runs; one
  run fails on purpose (debug.fail_rank) and one is left pending.
DIR/placement/2: axes placement.layout = rank-per-node (1 rank x 2 threads), rank-per-core (2 ranks x 1
  thread under mpiexec) and run.init.policy = first-touch, serial, 1 repetition; one combination excluded.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone

GRID = ["--set", "grid.n=32,32,32", "--set", "run.steps=12"]
DAEMON = ["--period", "3ms", "--duration", "300us", "--kind", "spin"]


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def recorded_placement(run_json):
    """The placement verdict and problem kinds as the study runner records them in study.json (from run.json's
    placement audit; "not audited" for a wave3d without it); nothing when the run left no run.json."""
    if not os.path.isfile(run_json):
        return {}
    with open(run_json, encoding="utf-8") as f:
        audit = json.load(f).get("placement_audit")
    if not isinstance(audit, dict):
        return {"placement_verdict": "not audited", "placement_problems": []}
    kinds = [p.get("kind") for p in audit.get("problems", [])]
    return {"placement_verdict": audit.get("verdict"), "placement_problems": list(dict.fromkeys(kinds))}


def configuration(cid, parameters, ranks, threads, compute, reserved, daemon, command):
    launcher, program = command
    return {"id": cid, "label": " ".join(f"{k}={json.dumps(v) if isinstance(v, bool) else v}"
                                         for k, v in parameters.items()),
            "parameters": parameters, "ranks_per_node": ranks, "ranks": ranks, "threads_per_rank": threads,
            "compute_cores_per_node": compute, "reserved_cores_per_node": reserved, "progress_thread": False,
            "daemon": daemon, "launcher": launcher, "program": program, "dir": f"runs/{cid}"}


class StudyWriter:
    """Runs the repetitions in the runner's order and keeps study.json current after every run."""

    def __init__(self, args, directory, name, description, axes, repetitions, job_id):
        self.args = args
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self.doc = {"format": "wave3d-study", "format_version": 2, "command": "wave3d-study run",
                    "study": {"name": name, "description": description,
                              "file": os.path.join(directory, "study.toml")},
                    "job": {"scheduler": "local", "job_id": job_id, "nodes": 1, "host": socket.gethostname(),
                            "launcher": "mpirun", "started_utc": utc_now(), "finished_utc": None},
                    "machine": {}, "axes": axes, "repetitions": repetitions, "configurations": [], "excluded": [],
                    "runs": []}
        with open(os.path.join(directory, "study.toml"), "w", encoding="utf-8") as f:
            f.write(f'[study]\nname = "{name}"\n')

    def add(self, config):
        self.doc["configurations"].append(config)
        for rep in range(1, self.doc["repetitions"] + 1):
            self.doc["runs"].append({"configuration": config["id"], "repetition": rep,
                                     "dir": f"{config['dir']}/rep{rep}", "status": "pending", "exit_status": None,
                                     "duration_s": None, "started_utc": None})
        self.save()

    def save(self):
        write_json(os.path.join(self.directory, "study.json"), self.doc)

    def run(self, cid, rep, extra=()):
        config = next(c for c in self.doc["configurations"] if c["id"] == cid)
        record = next(r for r in self.doc["runs"] if r["configuration"] == cid and r["repetition"] == rep)
        rep_dir = os.path.join(self.directory, record["dir"])
        parent, name = os.path.split(rep_dir)
        os.makedirs(parent, exist_ok=True)
        command = [*config["launcher"], *config["program"], "--set", f"output.directory={parent}",
                   "--set", f"output.name={name}", *extra]
        record["started_utc"] = utc_now()
        started = time.monotonic()
        daemon = None
        os.makedirs(rep_dir, exist_ok=True)
        if config["daemon"]:
            log_dir = os.path.join(rep_dir, "daemon")
            os.makedirs(log_dir, exist_ok=True)
            daemon = subprocess.Popen([self.args.noise, *DAEMON, "--log",
                                       os.path.join(log_dir, f"noise-{socket.gethostname()}.tsv")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with open(os.path.join(rep_dir, "output.txt"), "w", encoding="utf-8") as out:
                done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, timeout=120)
        finally:
            if daemon is not None:
                daemon.send_signal(signal.SIGTERM)
                daemon.wait(timeout=30)
        record.update(status="done" if done.returncode == 0 else "failed", exit_status=done.returncode,
                      duration_s=round(time.monotonic() - started, 3))
        record.update(recorded_placement(os.path.join(rep_dir, "run.json")))
        if not self.doc["machine"] and done.returncode == 0:
            with open(os.path.join(rep_dir, "run.json"), encoding="utf-8") as f:
                machine = json.load(f)["provenance"]["machine"]
            packages = machine.get("packages") or 1
            self.doc["machine"] = {"summary": machine.get("summary"), "sockets": packages,
                                   "numa_nodes": machine.get("numa_nodes"), "cores": machine.get("cores"),
                                   "cores_per_socket": machine.get("cores", 0) // packages, "pus": machine.get("pus")}
        self.save()
        return done.returncode

    def finish(self):
        self.doc["job"]["finished_utc"] = utc_now()
        self.save()


def command(args, ranks, threads, settings):
    """(launcher words, program words) of one configuration."""
    launcher = [args.mpiexec, "-n", str(ranks), "--oversubscribe", "--bind-to", "none"]
    return launcher, [args.wave3d, "run", *GRID, "--set", f"run.threads={threads}", *settings]


def surplus_study(args):
    axes = [{"name": "placement.compute_cores_per_socket", "values": [1, 2]},
            {"name": "daemon.enabled", "values": [False, True]}]
    study = StudyWriter(args, os.path.join(args.out, "surplus", "1"), "surplus",
                        "compute cores per socket against the noise daemon", axes, 2, "1")
    for cores in (1, 2):
        for daemon in (False, True):
            cid = f"0{2 * cores - 1 + daemon}-cores{cores}-daemon-{'on' if daemon else 'off'}"
            params = {"placement.compute_cores_per_socket": cores, "daemon.enabled": daemon}
            study.add(configuration(cid, params, 1, cores, cores, 2 - cores, daemon,
                                    command(args, 1, cores, [])))
    for cid in ("01-cores1-daemon-off", "02-cores1-daemon-on", "03-cores2-daemon-off", "04-cores2-daemon-on"):
        study.run(cid, 1)
    study.run("01-cores1-daemon-off", 2)
    # rank 0 fails in step 3 on purpose: a real failed run (exit status 1) for the report to leave out
    code = study.run("02-cores1-daemon-on", 2, ["--set", "debug.fail_rank=0", "--set", "debug.fail_step=3"])
    if code == 0:
        sys.exit("make_study.py: the run told to fail (debug.fail_rank) succeeded")
    study.run("03-cores2-daemon-off", 2)
    # 04 rep 2 stays pending: the job ended before it (finished_utc stays null)


def placement_study(args):
    axes = [{"name": "placement.layout", "values": ["rank-per-node", "rank-per-core"]},
            {"name": "run.init.policy", "values": ["first-touch", "serial"]},
            {"name": "run.stencil.radius", "values": [8]}]
    study = StudyWriter(args, os.path.join(args.out, "placement", "2"), "placement",
                        "ranks or threads, first-touch or serial", axes, 1, "2")
    shapes = {"rank-per-node": (1, 2), "rank-per-core": (2, 1)}
    index = 0
    for layout in ("rank-per-node", "rank-per-core"):
        for policy in ("first-touch", "serial"):
            index += 1
            ranks, threads = shapes[layout]
            cid = f"0{index}-{layout}-{policy}"
            params = {"placement.layout": layout, "run.init.policy": policy, "run.stencil.radius": 8}
            study.add(configuration(cid, params, ranks, threads, 2, 0, False,
                                    command(args, ranks, threads, ["--set", f"init.policy={policy}"])))
    study.doc["excluded"].append({"parameters": {"placement.layout": "rank-per-socket"},
                                  "reason": "the axis value was dropped from this study"})
    for c in study.doc["configurations"]:
        study.run(c["id"], 1)
    study.finish()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--wave3d", required=True)
    p.add_argument("--noise", required=True)
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    surplus_study(args)
    placement_study(args)


if __name__ == "__main__":
    main()
