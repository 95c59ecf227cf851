#!/usr/bin/env python3
"""The study runner records each run's placement audit (run.json "placement_audit") in study.json and says
it in the run's progress line. Driven with a stand-in wave3d (fake_wave3d.py), so no build is needed:

  check_study_placement.py --root SRC --work DIR --case ok|wrong|unaudited

ok:        every run audited ok: study.json says "ok" with no problems, every progress line
           "placement ok", no note of wrong placements, exit 0.
wrong:     one configuration ok, one wrong (shared-cpus on two hosts and floating), one that fails
           before writing run.json (as a strict run does): the wrong run is done and counts (a measured
           fact, not a failure) with its problem kinds once each; the failed run says nothing about
           placement; the runner names the wrong run and exits 1 for the failed one only.
unaudited: run.json from a wave3d before the audit (no placement_audit): "not audited", never ok or
           wrong, exit 0; an audit with neither verdict is "unreadable", not "not audited".
"""
import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from study_support import expect, main_guard, mpi_environment, study_runner, write_toml

HERE = Path(__file__).resolve().parent


def fake_wave3d(work):
    """An executable that runs fake_wave3d.py with this interpreter (the runner calls wave3d directly)."""
    wrapper = work / "wave3d"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "fake_wave3d.py"}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def run_study(args, work, name, audits, repetitions):
    study = {"study": {"name": name, "repetitions": repetitions}, "placement": {"layout": "rank-per-node"},
             "sweep": {"run.fake.audit": audits}}
    path = work / f"{name}.toml"
    write_toml(path, study)
    runner = argparse.Namespace(root=args.root, wave3d=str(fake_wave3d(work)), noise=str(work / "no-noise"))
    done = study_runner(runner, path, "--results", str(work / "results"), "--job-id", "7", env=mpi_environment())
    print(done.stdout[-4000:], done.stderr[-2000:], sep="\n")
    record = json.loads((work / "results" / name / "7" / "study.json").read_text())
    return done, record["runs"]


def progress(stdout, run):
    """The text after 'rep k: ' of the run's progress line."""
    pattern = rf"\[\d+/\d+ done, \d+ to go\] {re.escape(run['configuration'])} rep {run['repetition']}: (.*)"
    found = re.findall(pattern, stdout)
    expect(len(found) == 1, f"{run['dir']}: one progress line")
    return found[0]


def check_ok(args, work):
    done, runs = run_study(args, work, "all-ok", ["ok"], 3)
    expect(done.returncode == 0, f"the study ran (exit {done.returncode})")
    for run in runs:
        expect(run["status"] == "done" and run["placement_verdict"] == "ok" and run["placement_problems"] == [],
               f"{run['dir']}: done, placement ok, no problems")
        expect(re.fullmatch(r"done, 100\.0 MPoints/s, [\d.]+ s, placement ok", progress(done.stdout, run)),
               f"{run['dir']}: the progress line says placement ok")
    expect("wrong placement" not in done.stdout, "no wrong placement to name")


def check_wrong(args, work):
    done, runs = run_study(args, work, "some-wrong", ["ok", "wrong", "none"], 1)
    expect(done.returncode == 1, f"exit 1: the failing run did not finish (exit {done.returncode})")
    by_case = {run["configuration"].split("-")[-1]: run for run in runs}
    ok, wrong, none = (by_case[c] for c in ("ok", "wrong", "none"))
    expect(ok["placement_verdict"] == "ok", "the ok run: placement ok")
    expect(wrong["status"] == "done" and wrong["mpoints_per_second"] == 100.0,
           "the wrong run is done with its throughput: a wrong placement is a measurement, not a failure")
    expect(wrong["placement_verdict"] == "wrong" and wrong["placement_problems"] == ["shared-cpus", "floating"],
           f"the wrong run: its problem kinds once each, in order found ({wrong['placement_problems']})")
    expect(re.fullmatch(r"done, 100\.0 MPoints/s, [\d.]+ s, placement wrong: shared-cpus, floating",
                        progress(done.stdout, wrong)), "the wrong run's progress line names the kinds")
    expect(none["status"] == "failed" and "placement_verdict" not in none
           and "placement" not in progress(done.stdout, none),
           "a run without run.json says nothing about its placement")
    expect(re.search(r"1 of 3 run\(s\) had a wrong placement: runs/02-audit-wrong/rep1 \(shared-cpus, floating\)\n",
                     done.stdout), "the runner names the run with a wrong placement at the end")


def check_unaudited(args, work):
    done, runs = run_study(args, work, "not-audited", ["old", "garbled"], 2)
    expect(done.returncode == 0, f"the study ran (exit {done.returncode})")
    garbled = [run for run in runs if run["configuration"].endswith("garbled")]
    expect([run["placement_verdict"] for run in garbled] == ["unreadable"] * 2,
           "an audit without a verdict of ok or wrong is unreadable")
    for run in (run for run in runs if run not in garbled):
        expect(run["status"] == "done" and run["placement_verdict"] == "not audited"
               and run["placement_problems"] == [], f"{run['dir']}: not audited, neither ok nor wrong")
        expect(progress(done.stdout, run).endswith(", placement not audited"),
               f"{run['dir']}: the progress line says not audited")
    expect("wrong placement" not in done.stdout, "no wrong placement to name")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--case", choices=["ok", "wrong", "unaudited"], required=True)
    args = parser.parse_args()
    work = Path(args.work) / f"placement-{args.case}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    cases = {"ok": check_ok, "wrong": check_wrong, "unaudited": check_unaudited}
    main_guard(lambda: cases[args.case](args, work))


if __name__ == "__main__":
    main()
