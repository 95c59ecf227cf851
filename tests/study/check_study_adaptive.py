#!/usr/bin/env python3
"""An adaptive study (study.headline): rounds of the two headline configurations after the fixed
repetitions until the interval of their ratio is narrow enough, within max_repetitions and a time budget.
Driven with the stand-in wave3d (fake_wave3d.py, fake.noise for noisy throughput), so no build is needed:

  check_study_adaptive.py --root SRC --work DIR --case narrows|max|budget|failed|refused|dry-run

narrows:  2 % noise, target 5 %, a seed whose 3 repetitions are too few: extra rounds until the
          interval is narrow enough; only the headline pair runs again, A then B in each round; each
          round's interval in study.json is the one its runs give, every one but the last wider than the
          target; one progress line per round; exit 0.
max:      30 % noise, target 1 %: stops at max_repetitions with every interval too wide.
budget:   30 % noise, target 1 %, runs of 0.3 s and a budget of 1 s: stops with "budget", never starting
          a round the estimate said would not fit.
failed:   a headline configuration whose runs fail: stops with "a run failed", no extra round, exit 1.
refused:  bad adaptive settings stop the study before any run: exit 2, one line naming the key.
dry-run:  --dry-run says the study is adaptive, with its headline and bounds.
"""
import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from study_support import expect, main_guard, mpi_environment, study_runner, write_toml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
from wave3d.paired_bootstrap import paired_ratio_interval, relative_width  # noqa: E402

JOB = "7"


def fake_wave3d(work):
    """An executable that runs fake_wave3d.py with this interpreter (the runner calls wave3d directly)."""
    wrapper = work / "wave3d"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "fake_wave3d.py"}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def study(name, noise, target, max_repetitions, budget, sets=(), mpoints=(110, 100, 90)):
    return {"study": {"name": name, "repetitions": 3, "headline": ["fake.mpoints=110", "fake.mpoints=100"],
                      "target_relative_width": target, "max_repetitions": max_repetitions,
                      "adaptive_budget_seconds": budget},
            "run": {"set": [f"fake.noise={noise}", *sets]}, "placement": {"layout": "rank-per-node"},
            "sweep": {"run.fake.mpoints": list(mpoints)}}


def run_study(args, work, data, *options):
    path = work / f"{data['study']['name']}.toml"
    write_toml(path, data)
    runner = argparse.Namespace(root=args.root, wave3d=str(fake_wave3d(work)), noise=str(work / "no-noise"))
    done = study_runner(runner, path, "--results", str(work / "results"), "--job-id", JOB, *options,
                        env=mpi_environment())
    print(done.stdout[-6000:], done.stderr[-2000:], sep="\n")
    return done


def record(work, name):
    return json.loads((work / "results" / name / JOB / "study.json").read_text())


def round_lines(stdout):
    return re.findall(r"^wave3d study: \[headline round (\d+), (\d+) repetition\(s\)\] (.*)$", stdout, re.M)


def check_rounds_match_runs(document):
    """Each round's interval is the paired interval of the headline runs up to that round's repetitions."""
    adaptive = document["adaptive"]
    a, b = (h["configuration"] for h in adaptive["headline"])
    values = {(r["configuration"], r["repetition"]): r["mpoints_per_second"] for r in document["runs"]}
    for entry in adaptive["rounds"]:
        reps = range(1, entry["repetitions"] + 1)
        expected = paired_ratio_interval([values[(a, k)] for k in reps], [values[(b, k)] for k in reps])
        expect((entry["ratio"], entry["low"], entry["high"]) == (expected["estimate"], expected["low"],
                                                                 expected["high"])
               and entry["relative_width"] == relative_width(expected),
               f"round {entry['round']}: the recorded interval is that of its {entry['repetitions']} repetitions")


def check_narrows(args, work):
    # fake.seed 4: the first interval is about 13 % wide, and it narrows below 5 % in about 10 rounds
    done = run_study(args, work, study("narrows", 0.02, 0.05, 40, 600, sets=["fake.seed=4"]))
    expect(done.returncode == 0, f"the study ran (exit {done.returncode})")
    document = record(work, "narrows")
    adaptive = document["adaptive"]
    rounds = adaptive["rounds"]
    expect(adaptive["stopped"] == "narrow enough", f"stopped: narrow enough ({adaptive['stopped']})")
    expect(len(rounds) >= 2, f"at least one round after the fixed repetitions ({len(rounds)} evaluations)")
    expect(rounds[-1]["relative_width"] <= 0.05 and all(r["relative_width"] > 0.05 for r in rounds[:-1]),
           "every interval but the last is wider than the target: " + ", ".join(
               f"{r['relative_width']:.3f}" for r in rounds))
    expect([r["decision"] for r in rounds] == ["another round"] * (len(rounds) - 1) + ["narrow enough"],
           "each round's decision is recorded")
    check_rounds_match_runs(document)
    ids = [c["id"] for c in document["configurations"]]
    per_configuration = {cid: sorted(r["repetition"] for r in document["runs"] if r["configuration"] == cid)
                         for cid in ids}
    final = adaptive["repetitions"]
    expect(per_configuration[ids[0]] == per_configuration[ids[1]] == list(range(1, final + 1)),
           f"both headline configurations ran {final} repetitions")
    expect(per_configuration[ids[2]] == [1, 2, 3], "the third configuration kept its 3 fixed repetitions")
    extra = [(r["configuration"], r["repetition"], r["adaptive_round"]) for r in document["runs"][9:]]
    expect(extra == [(cid, 3 + k, k) for k in range(1, final - 2) for cid in ids[:2]],
           "the extra rounds run A then B, one repetition each per round")
    expect(all(r["status"] == "done" for r in document["runs"]), "every run done")
    lines = round_lines(done.stdout)
    expect([int(n) for n, _, _ in lines] == list(range(len(rounds))), "one progress line per round")
    expect(lines[-1][2].endswith("stop: narrow enough") and "another round" in lines[0][2],
           f"the lines say what was decided ({lines[0][2]} ... {lines[-1][2]})")
    expect(f"[{len(document['runs'])}/{len(document['runs'])} done, 0 to go]" in done.stdout,
           "the run progress lines count the extra runs")


def check_max(args, work):
    done = run_study(args, work, study("max", 0.3, 0.01, 5, 600))
    expect(done.returncode == 0, f"the study ran (exit {done.returncode})")
    document = record(work, "max")
    adaptive = document["adaptive"]
    expect(adaptive["stopped"] == "max_repetitions", f"stopped: max_repetitions ({adaptive['stopped']})")
    expect([r["repetitions"] for r in adaptive["rounds"]] == [3, 4, 5], "rounds at 3, 4 and 5 repetitions")
    expect(all(r["relative_width"] > 0.01 for r in adaptive["rounds"]), "every interval wider than the target")
    expect(len(document["runs"]) == 9 + 2 * 2, "9 fixed runs and 2 rounds of 2")
    check_rounds_match_runs(document)
    expect(round_lines(done.stdout)[-1][2].endswith("stop: max_repetitions"), "the last round line says why")


def check_budget(args, work):
    done = run_study(args, work, study("budget", 0.3, 0.01, 50, 1, sets=["fake.seconds=0.3"]))
    expect(done.returncode == 0, f"the study ran (exit {done.returncode})")
    adaptive = record(work, "budget")["adaptive"]
    rounds = adaptive["rounds"]
    expect(adaptive["stopped"] == "budget", f"stopped: budget ({adaptive['stopped']})")
    expect(adaptive["repetitions"] < 50, f"well before max_repetitions ({adaptive['repetitions']})")
    expect(all(r["spent_s"] + r["next_round_estimate_s"] <= 1 for r in rounds[:-1]),
           "every round started was estimated to end within the budget")
    expect(rounds[-1]["spent_s"] + rounds[-1]["next_round_estimate_s"] > 1
           and rounds[-1]["next_round_estimate_s"] >= 0.6, "the round not started would not have fit (2 runs of 0.3 s)")


def check_failed(args, work):
    data = study("failed", 0.0, 0.05, 6, 600)
    data["study"]["headline"] = ["fake.audit=ok", "fake.audit=none"]
    data["sweep"] = {"run.fake.audit": ["ok", "none"]}
    done = run_study(args, work, data)
    expect(done.returncode == 1, f"exit 1: headline runs failed (exit {done.returncode})")
    document = record(work, "failed")
    adaptive = document["adaptive"]
    expect(adaptive["stopped"] == "a run failed", f"stopped: a run failed ({adaptive['stopped']})")
    expect(len(adaptive["rounds"]) == 1 and adaptive["rounds"][0]["ratio"] is None, "no interval, no extra round")
    expect(len(document["runs"]) == 6, "only the fixed runs")


REFUSALS = [
    ("one-headline", {"headline": ["fake.mpoints=110"]}, "study.headline = ['fake.mpoints=110']: must be two"),
    ("empty-headline", {"headline": []}, "study.headline = []"),
    ("no-match", {"headline": ["fake.mpoints=120", "fake.mpoints=100"]},
     "study.headline[0] = 'fake.mpoints=120' matches no configuration"),
    ("several", {"headline": ["fake.noise=0.1", "fake.mpoints=100"]}, "fake.mpoints=110"),
    ("same-twice", {"headline": ["fake.mpoints=100", "02-mpoints-100"]}, "both pick 'fake.mpoints=100'"),
    ("zero-target", {"target_relative_width": 0}, "study.target_relative_width = 0"),
    ("text-target", {"target_relative_width": "5%"}, "study.target_relative_width = '5%': must be a number"),
    ("max-not-above", {"max_repetitions": 3}, "study.max_repetitions = 3: must be more than study.repetitions"),
    ("no-budget", {"adaptive_budget_seconds": 0}, "study.adaptive_budget_seconds = 0"),
    ("two-repetitions", {"repetitions": 2, "max_repetitions": 5}, "study.repetitions = 2 with study.headline"),
    ("missing-max", {"max_repetitions": None}, "study.max_repetitions is required"),
    ("bound-alone", {"headline": None}, "study.max_repetitions = 8 without study.headline"),
]


def check_refused(args, work):
    for name, change, fragment in REFUSALS:
        data = study(f"refused-{name}", 0.1, 0.05, 8, 60)
        data["study"]["name"] = f"refused-{name}"
        for key, value in change.items():
            if value is None:
                del data["study"][key]
            else:
                data["study"][key] = value
        if name == "bound-alone":
            del data["study"]["target_relative_width"]
        if name == "several":
            data["sweep"]["run.fake.noise"] = [0.1, 0.2]
            data["run"]["set"] = []
        done = run_study(args, work, data)
        errors = [line for line in done.stderr.splitlines() if "error" in line]
        expect(done.returncode == 2 and len(errors) == 1 and fragment in errors[0] and "Traceback" not in done.stderr,
               f"{name}: refused with status 2 and one line naming '{fragment}' ({done.stderr.strip()[-300:]})")
        expect(not (work / "results" / f"refused-{name}").exists(), f"{name}: nothing ran, nothing written")


def check_dry_run(args, work):
    done = run_study(args, work, study("dry", 0.1, 0.05, 12, 900), "--dry-run")
    expect(done.returncode == 0, f"the dry run checks (exit {done.returncode})")
    expect(re.search(r"^adaptive: headline 01-mpoints-110 / 02-mpoints-100; after 3 repetition\(s\), more rounds "
                     r"of these two while the 95% interval of the ratio is wider than 5\.0% of it, up to 12 "
                     r"repetitions each and 900 s$", done.stdout, re.M),
           "the dry run says it is adaptive, with its bounds")
    expect("01-mpoints-110 (fake.mpoints=110):" in done.stdout, "the listing names each configuration's label")
    expect(not (work / "results").exists(), "nothing written")


CASES = {"narrows": check_narrows, "max": check_max, "budget": check_budget, "failed": check_failed,
         "refused": check_refused, "dry-run": check_dry_run}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--case", choices=list(CASES), required=True)
    args = parser.parse_args()
    work = Path(args.work) / f"adaptive-{args.case}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    main_guard(lambda: CASES[args.case](args, work))


if __name__ == "__main__":
    main()
