#!/usr/bin/env python3
"""Runs `wave3d advise` and checks what a user gets: exit code, messages, advise.json and advise.png.

usage: check_advise.py [--exit CODE] [--output-dir DIR] [--stdout REGEX]... [--stdout-once REGEX]...
                       [--stderr-once REGEX]... [--json KEY=VALUE]... [--no-json] [--measured]
                       [--png-written | --png-not-written] [--max-seconds S] -- command...

--output-dir DIR     where the command writes advise.json / advise.png; emptied before the run
--stdout REGEX       some line of stdout matches; --stdout-once: exactly one line does
--stderr-once REGEX  exactly one line of stderr matches (an error printed once for all ranks)
--json K=V           DIR/advise.json has K (dotted; list items by index) == V (V parsed as JSON when it
                     can be, else a string); K=? only requires K
--no-json            DIR/advise.json must not exist (nothing half-written after an error)
--measured           the JSON is a measured sweep: per NUMA domain, triad and stencil points for every
                     thread count 1..cores with positive values and min <= median <= max, saturation
                     points on the curves, the compute and surplus cores adding up
--png-written        DIR/advise.png is a PNG file and stdout says where it is
--png-not-written    there is no DIR/advise.png and stdout says why
"""
import argparse
import json
import os
import pathlib
import re
import signal
import subprocess
import sys


def lookup(doc, dotted):
    for part in dotted.split("."):
        if isinstance(doc, list):
            doc = doc[int(part)]
        elif isinstance(doc, dict) and part in doc:
            doc = doc[part]
        else:
            raise KeyError(dotted)
    return doc


def check_measured(doc, failures):
    domains = doc.get("domains", [])
    if not domains:
        failures.append("measured JSON has no domains")
    for d in domains:
        where = f"domain {d.get('numa')}"
        cores = len(d["cores"])
        for name in ("triad", "stencil"):
            points = d["curves"][name]["points"]
            if [p["threads"] for p in points] != list(range(1, cores + 1)):
                failures.append(f"{where}: {name} thread counts {[p['threads'] for p in points]}, expected 1..{cores}")
            for p in points:
                if not (0 < p["low"] <= p["value"] <= p["high"]):
                    failures.append(f"{where}: {name} point {p} is not 0 < low <= value <= high")
            sat = d["saturation"][name]
            if sat is None or sat["threads"] not in [p["threads"] for p in points]:
                failures.append(f"{where}: {name} saturation {sat} is not a point of the curve")
            elif sat["value"] < (1 - sat["tolerance"]) * sat["best_value"] * (1 - 1e-9):
                failures.append(f"{where}: {name} saturation {sat} is not within the tolerance")
        if d["basis"] != "stencil" or d["compute_cores"] != d["saturation"]["stencil"]["threads"]:
            failures.append(f"{where}: compute cores {d['compute_cores']} are not the stencil's saturation point")
        if d["compute_cores"] + d["surplus_cores"] != cores:
            failures.append(f"{where}: compute + surplus != {cores} cores")
    if len(doc.get("measurement", {}).get("domains", [])) != len(domains):
        failures.append("measurement.domains does not list every measured domain")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--output-dir")
    ap.add_argument("--stdout", action="append", default=[])
    ap.add_argument("--stdout-once", action="append", default=[])
    ap.add_argument("--stderr-once", action="append", default=[])
    ap.add_argument("--json", action="append", default=[])
    ap.add_argument("--no-json", action="store_true")
    ap.add_argument("--measured", action="store_true")
    png = ap.add_mutually_exclusive_group()
    png.add_argument("--png-written", action="store_true")
    png.add_argument("--png-not-written", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=280)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command and a.command[0] == "--" else a.command

    out_dir = pathlib.Path(a.output_dir) if a.output_dir else None
    if out_dir and out_dir.exists():
        for p in sorted(out_dir.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()

    failures = []
    # Its own session, so a hung mpiexec and its ranks can be killed together.
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=a.max_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        failures.append(f"still running after {a.max_seconds:g} s: killed")

    if proc.returncode != a.exit:
        failures.append(f"exit code {proc.returncode}, expected {a.exit}")
    out_lines = out.splitlines()
    for pattern in a.stdout:
        if not any(re.search(pattern, line) for line in out_lines):
            failures.append(f"no stdout line matches {pattern!r}")
    for pattern in a.stdout_once:
        n = sum(1 for line in out_lines if re.search(pattern, line))
        if n != 1:
            failures.append(f"{n} stdout lines match {pattern!r}, expected 1")
    for pattern in a.stderr_once:
        n = sum(1 for line in err.splitlines() if re.search(pattern, line))
        if n != 1:
            failures.append(f"{n} stderr lines match {pattern!r}, expected 1")

    json_path = out_dir / "advise.json" if out_dir else None
    png_path = out_dir / "advise.png" if out_dir else None
    if a.no_json and json_path and json_path.exists():
        failures.append(f"{json_path} exists after a failed run")
    if a.json or a.measured:
        try:
            doc = json.loads(json_path.read_text())
        except (OSError, ValueError) as e:
            failures.append(f"cannot read {json_path}: {e}")
            doc = None
        if doc is not None:
            for item in a.json:
                key, _, want = item.partition("=")
                try:
                    got = lookup(doc, key)
                except (KeyError, IndexError, ValueError):
                    failures.append(f"advise.json has no {key}")
                    continue
                if want == "?":
                    continue
                try:
                    expected = json.loads(want)
                except ValueError:
                    expected = want
                if got != expected:
                    failures.append(f"advise.json {key} = {json.dumps(got)}, expected {json.dumps(expected)}")
            if a.measured:
                check_measured(doc, failures)
    if a.png_written:
        if not png_path.exists() or png_path.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            failures.append(f"{png_path} is not a PNG file")
        if not any(line.startswith("png: ") and "not written" not in line for line in out_lines):
            failures.append("stdout does not say where the PNG is")
    if a.png_not_written:
        if png_path.exists():
            failures.append(f"{png_path} exists")
        if not any(line.startswith("png: not written: ") for line in out_lines):
            failures.append("stdout does not say why the PNG was not written")

    if failures:
        print("command:", " ".join(command))
        print("---- stdout ----\n" + out + "---- stderr ----\n" + err)
        for f in failures:
            print("FAILED:", f)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
