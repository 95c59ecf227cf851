#!/usr/bin/env python3
"""Runs a wave3d command and checks what a user would see: exit code, messages, result files.

usage: run_and_check.py [--exit CODE | --exit-nonzero] [--max-seconds S] [--stderr-once REGEX]
                        [--stdout REGEX]... [--run-json KEY=VALUE]... [--steps-csv] [--no-results]
                        [--results-dir DIR] -- command...

--exit CODE          the exit code the command must return (default 0)
--exit-nonzero       any non-zero exit code passes (a job killed by MPI_Abort: the code is mpiexec's choice)
--max-seconds S      the command must end within S seconds (wall clock); at S it is killed together with
                     its children (its own process group: mpiexec and the ranks) and the check fails

--stderr-once REGEX  the regex must match exactly one line of stderr (an error printed once for all ranks)
--run-json K=V       after the run, results-dir holds one run directory whose run.json has K (dotted) == V
                     (V is parsed as JSON when possible, else compared as a string); K=? only requires K
--steps-csv          that run directory has a steps.csv with a header and one row per rank per step
--rss-growth-max F   (peak RSS - RSS before the fields) / field bytes, from run.json, is at most F
--no-results         results-dir must hold no run.json at all (nothing half-written after a failure)
--no-run-directory   results-dir must hold nothing at all, not even an empty run directory (a refused run)
"""
import argparse
import json
import pathlib
import os
import re
import signal
import subprocess
import sys
import time


def lookup(doc, dotted):
    for part in dotted.split("."):
        if isinstance(doc, list):
            doc = doc[int(part)]
        elif isinstance(doc, dict) and part in doc:
            doc = doc[part]
        else:
            raise KeyError(dotted)
    return doc


def main():
    ap = argparse.ArgumentParser()
    exit_group = ap.add_mutually_exclusive_group()
    exit_group.add_argument("--exit", type=int, default=0)
    exit_group.add_argument("--exit-nonzero", action="store_true")
    ap.add_argument("--max-seconds", type=float)
    ap.add_argument("--stderr-once", action="append", default=[])
    ap.add_argument("--stderr-lines", type=int, help="exactly this many non-empty lines on stderr")
    ap.add_argument("--stdout", action="append", default=[])
    ap.add_argument("--stdout-not", action="append", default=[], help="a regular expression stdout must not match")
    ap.add_argument("--run-json", action="append", default=[])
    ap.add_argument("--steps-csv", action="store_true")
    ap.add_argument("--rss-growth-max", type=float,
                    help="(peak RSS - RSS before the fields) / field bytes in run.json must not exceed this")
    ap.add_argument("--no-results", action="store_true")
    ap.add_argument("--no-run-directory", action="store_true")
    ap.add_argument("--results-dir")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command and a.command[0] == "--" else a.command

    results = pathlib.Path(a.results_dir) if a.results_dir else None
    if results and results.exists():
        for p in sorted(results.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()

    failures = []
    started = time.monotonic()
    if a.max_seconds is None:
        proc = subprocess.run(command, capture_output=True, text=True)
        out, err, returncode = proc.stdout, proc.stderr, proc.returncode
    else:
        # Its own session, so a hung mpiexec and all of its ranks can be killed together.
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=a.max_seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            failures.append(f"still running after {a.max_seconds:g} s: killed (a hang?)")
        returncode = proc.returncode
    elapsed = time.monotonic() - started
    if a.max_seconds is not None and elapsed > a.max_seconds and not failures:
        failures.append(f"took {elapsed:.1f} s, more than {a.max_seconds:g} s")
    if a.exit_nonzero:
        if returncode == 0:
            failures.append("exit code 0, expected a non-zero exit")
    elif returncode != a.exit:
        failures.append(f"exit code {returncode}, expected {a.exit}")
    for rx in a.stderr_once:
        hits = [line for line in err.splitlines() if re.search(rx, line)]
        if len(hits) != 1:
            failures.append(f"stderr lines matching {rx!r}: {len(hits)}, expected exactly 1")
    if a.stderr_lines is not None:
        lines = [line for line in err.splitlines() if line.strip()]
        if len(lines) != a.stderr_lines:
            failures.append(f"{len(lines)} lines on stderr, expected {a.stderr_lines}: {lines[:5]}")
    for rx in a.stdout:
        if not re.search(rx, out, re.MULTILINE):
            failures.append(f"stdout does not match {rx!r}")
    for rx in a.stdout_not:
        if re.search(rx, out, re.MULTILINE):
            failures.append(f"stdout matches {rx!r}")

    run_jsons = sorted(results.rglob("run.json")) if results and results.exists() else []
    if a.no_results and run_jsons:
        failures.append(f"a failed run left results behind: {run_jsons}")
    left = sorted(results.iterdir()) if results and results.exists() else []
    if a.no_run_directory and left:
        failures.append(f"a refused run left something behind: {left}")
    if a.run_json or a.steps_csv or a.rss_growth_max:
        if len(run_jsons) != 1:
            failures.append(f"expected one run.json under {results}, found {len(run_jsons)}")
        else:
            doc = json.loads(run_jsons[0].read_text())
            for item in a.run_json:
                key, _, want = item.partition("=")
                try:
                    got = lookup(doc, key)
                except (KeyError, IndexError, ValueError):
                    failures.append(f"run.json has no {key}")
                    continue
                if want == "?":
                    continue
                try:
                    want_value = json.loads(want)
                except json.JSONDecodeError:
                    want_value = want
                if got != want_value:
                    failures.append(f"run.json {key} = {got!r}, expected {want_value!r}")
            if a.rss_growth_max:
                mem = doc["memory"]
                if mem["peak_rss_bytes"] is None or mem["rss_before_fields_bytes"] is None:
                    failures.append("run.json has no RSS figures")
                else:
                    growth = (mem["peak_rss_bytes"] - mem["rss_before_fields_bytes"]) / mem["field_bytes"]
                    print(f"RSS grew by {growth:.3f} x the field bytes")
                    if growth > a.rss_growth_max:
                        failures.append(f"RSS grew by {growth:.3f} x the fields, more than {a.rss_growth_max}")
            if a.steps_csv:
                csv = (run_jsons[0].parent / "steps.csv").read_text().splitlines()
                ranks = doc["parallel"]["ranks"]
                steps = doc["metrics"]["steps"]
                if not csv or not csv[0].startswith("rank,step,"):
                    failures.append("steps.csv has no rank,step header")
                elif len(csv) - 1 != ranks * steps:
                    failures.append(f"steps.csv has {len(csv) - 1} rows, expected {ranks} x {steps}")

    if failures:
        print("command:", " ".join(command))
        print(f"exit code {returncode} after {elapsed:.2f} s")
        print("--- stdout\n" + out + "--- stderr\n" + err)
        for f in failures:
            print("FAIL:", f)
        return 1
    print(out)
    if a.max_seconds is not None:
        print(f"elapsed: {elapsed:.2f} s (limit {a.max_seconds:g} s), exit code {returncode}")
    print("passed:", " ".join(command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
