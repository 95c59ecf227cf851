#!/usr/bin/env python3
"""A bounded fuzz test of the configuration and command-line front ends.

From a fixed seed, mutates the shipped configurations (configs/default.toml for `wave3d run --check`,
configs/studies/*.toml for `wave3d-study run --dry-run`) and the command lines of `wave3d run --check`
and `wave3d plan`, and runs each case. Every case must end by itself (no hang), without a signal and
without a sanitizer report, with exit status 0, 1 or 2; status 2 must come with a message of ours; and
nothing may be written. It stops after --cases cases or --budget-s seconds, whichever comes first, and
names the seed and case of every failure, with the input that caused it, so it can be replayed:
`fuzz_front_ends.py ... --seed S --first K --cases 1`.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

CASE_TIMEOUT_S = 60
SANITIZER_REPORT = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehavior")

# Values that are wrong in some way for almost every key, or right for a few.
VALUES = ["-1", "0", "1", "2", "1.5", "-0.0", "1e309", "-1e309", "nan", "inf", "9223372036854775807",
          "-9223372036854775808", "18446744073709551616", "99999999", '"x"', '""', '"auto"', '"rank-per-core"',
          '"/dev/null"', '"../x"', '"\u00e9\u00e8"', "[]", "[1, 2]", "[0, 0, 0]", "[-5, 4, 4]", "[1e9, 1, 1]",
          '["a", "b", "c"]', "[[1], [2], [3]]", "true", "false", "{ a = 1 }", "1979-05-27T07:32:00Z"]
GARBAGE = ["=", "[", "]", "[[", '"', "'''", "\\", "#", "\x00", "\x7f", "\ufffd", "= =", "[grid]", "a.b.c = 1", "\n"]
PLAN_OPTIONS = ["--layout", "--ranks-per-node", "--threads", "--reserve", "--synthetic", "--xml", "--machine",
                "--nodes", "--smt", "--progress-thread", "--json", "--print-argv", "--bogus"]
PLAN_VALUES = ["rank-per-core", "rank-per-socket", "rank-per-numa", "rank-per-node", "rank-per-moon", "0", "1", "3",
               "-2", "1000000", "per-socket:1", "per-node:99", "list:0,1", "list:", "none", "core:0", "numa:0",
               "pack:2 core:4", "pack:0", "pack:2 numa:2 core:3 pu:2", "x", "", "/nonexistent.xml", "/dev/null",
               "epyc-7763-nps4", "xeon-e5-2699v4", "srun", "mpirun"]


def toml_keys(text):
    """section.key for every key = value line of a TOML text, commented-out keys included."""
    keys, section = [], ""
    for line in text.splitlines():
        bare = line.lstrip("# ").strip()
        if re.match(r"^\[[a-z_]+\]$", bare):
            section = bare[1:-1]
        elif m := re.match(r"^([a-z_]+)\s*=", bare):
            keys.append(f"{section}.{m.group(1)}" if section else m.group(1))
    return keys


def mutate_toml(text, rng):
    """One to three mutations of a TOML text: lines deleted, duplicated, swapped; values replaced; keys
    misspelt; garbage inserted; the text truncated; a section turned into a scalar or an array."""
    lines = text.splitlines()
    for _ in range(rng.choice([1, 1, 2, 3])):
        if not lines:
            break
        i = rng.randrange(len(lines))
        kind = rng.randrange(8)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            value_lines = [k for k, line in enumerate(lines) if re.match(r"^\s*[a-z_]+\s*=", line)]
            if value_lines:
                k = rng.choice(value_lines)
                lines[k] = lines[k].split("=", 1)[0] + "= " + rng.choice(VALUES)
        elif kind == 4:
            line = lines[i]
            if line:
                p = rng.randrange(len(line))
                lines[i] = line[:p] + rng.choice(["", "x", "_", "."]) + line[p + 1:]
        elif kind == 5:
            p = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:p] + rng.choice(GARBAGE) + lines[i][p:]
        elif kind == 6:
            whole = "\n".join(lines)
            lines = whole[:rng.randrange(len(whole) + 1)].splitlines()
        else:
            sections = [k for k, line in enumerate(lines) if re.match(r"^\[[a-z_]+\]", line)]
            if sections:
                k = rng.choice(sections)
                name = lines[k].strip("[] ")
                lines[k] = rng.choice([f"[[{name}]]", f"{name} = 5", f"[{name}.inner]", "[]"])
    return "\n".join(lines) + "\n"


def random_sets(keys, rng):
    """A few --set KEY=VALUE options, keys sometimes misspelt or sections alone."""
    sets = []
    for _ in range(rng.randint(0, 3)):
        key = rng.choice(keys)
        if rng.random() < 0.15:
            key = rng.choice([key.split(".")[0], key + "x", key.replace(".", "..", 1), "." + key])
        value = rng.choice(VALUES).strip('"')
        sets += ["--set", f"{key}={value}" if rng.random() > 0.05 else key]
    return sets


def run_case(a, rng, configs, keys, case_dir):
    """Builds one case; returns (description, command, files written by the case itself)."""
    roll = rng.random()
    if roll < 0.6:
        text = mutate_toml(configs["default"], rng)
        (case_dir / "config.toml").write_text(text, errors="surrogateescape")
        command = [a.wave3d, "run", "--check", "config.toml", *random_sets(keys, rng)]
        extra = [] if rng.random() < 0.8 else rng.choice(
            [["--ranks", rng.choice(["1", "4", "0", "100000", "x"])], ["--nodes", rng.choice(["1", "2", "-1"])],
             ["--ranks", "64", "--nodes", "2"], ["--strict-placement"], ["--frobnicate"]])
        return "mutated default.toml", command + extra, {"config.toml"}
    if roll < 0.75:
        command = [a.wave3d, "run", "--check", *random_sets(keys, rng), *random_sets(keys, rng)]
        return "run --check command line", command, set()
    if roll < 0.9:
        command = [a.wave3d, "plan"]
        for _ in range(rng.randint(1, 4)):
            command.append(rng.choice(PLAN_OPTIONS))
            if rng.random() < 0.85:
                command.append(rng.choice(PLAN_VALUES))
        if not {"--synthetic", "--xml", "--machine"} & set(command):
            command += ["--synthetic", rng.choice(["pack:2 core:4", "pack:2 numa:2 core:3 pu:2", "core:2"])]
        return "plan command line", command, set()
    name = rng.choice(sorted(k for k in configs if k != "default"))
    (case_dir / "study.toml").write_text(mutate_toml(configs[name], rng), errors="surrogateescape")
    command = [sys.executable, a.study, "run", "study.toml", "--local", "--dry-run", "--root", a.root,
               "--results", str(case_dir / "results"), "--wave3d", a.wave3d, "--noise", a.noise]
    return f"mutated studies/{name}.toml", command, {"study.toml"}


def environment():
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    return env


def judge(proc, case_dir, own_files):
    """What is wrong with one case's outcome (empty if nothing)."""
    problems = []
    if proc.returncode < 0:
        problems.append(f"killed by signal {-proc.returncode}")
    elif proc.returncode not in (0, 1, 2):
        problems.append(f"exit {proc.returncode}, expected 0, 1 or 2")
    if SANITIZER_REPORT.search(proc.stderr):
        problems.append("a sanitizer report")
    if proc.returncode == 2 and not re.search(r"^wave3d[\w -]*: error", proc.stderr, re.MULTILINE):
        problems.append("exit 2 without an error message of ours")
    written = sorted(str(p.relative_to(case_dir)) for p in case_dir.rglob("*") if p.name not in own_files)
    if written:
        problems.append(f"wrote {written}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wave3d", required=True)
    ap.add_argument("--noise", required=True)
    ap.add_argument("--study", required=True, help="jobscripts/wave3d-study")
    ap.add_argument("--root", required=True, help="the source tree: configs/ and the study files")
    ap.add_argument("--work-dir", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=20261126)
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--first", type=int, default=0, help="skip the cases before this one (replay)")
    ap.add_argument("--budget-s", type=float, default=150.0)
    ap.add_argument("--verbose", action="store_true", help="print every case's exit status and first message")
    a = ap.parse_args()
    a.wave3d, a.noise, a.study = (str(Path(x).resolve()) for x in (a.wave3d, a.noise, a.study))
    root = Path(a.root)
    configs = {"default": (root / "configs/default.toml").read_text()}
    configs.update({p.stem: p.read_text() for p in sorted((root / "configs/studies").glob("*.toml"))})
    keys = toml_keys(configs["default"])
    shutil.rmtree(a.work_dir, ignore_errors=True)
    a.work_dir.mkdir(parents=True)

    rng = random.Random(a.seed)
    start, tried, failures, statuses = time.monotonic(), 0, [], {}
    for index in range(a.first + a.cases):
        case_dir = a.work_dir / f"case_{index:04d}"
        case_dir.mkdir()
        description, command, own_files = run_case(a, rng, configs, keys, case_dir)
        if index < a.first:
            shutil.rmtree(case_dir)
            continue
        if time.monotonic() - start > a.budget_s:
            shutil.rmtree(case_dir)
            break
        try:
            proc = subprocess.run(command, cwd=case_dir, capture_output=True, text=True, errors="replace",
                                  timeout=CASE_TIMEOUT_S, env=environment())
            problems = judge(proc, case_dir, own_files)
            statuses[proc.returncode] = statuses.get(proc.returncode, 0) + 1
        except subprocess.TimeoutExpired as e:
            proc, problems = None, [f"still running after {CASE_TIMEOUT_S} s"]
        tried += 1
        if a.verbose and proc is not None:
            first = next((line for line in proc.stderr.splitlines() if "error" in line), "")
            print(f"case {index} [{description}] exit {proc.returncode}: {first[:160]}")
        if problems:
            inputs = "".join(f"\n--- {name}\n{(case_dir / name).read_text(errors='replace')}" for name in own_files)
            failures.append(f"case {index} (seed {a.seed}, {description}): {'; '.join(problems)}\n"
                            f"command: {command}{inputs}\n--- stderr\n{proc.stderr if proc else ''}")
        else:
            shutil.rmtree(case_dir)
    elapsed = time.monotonic() - start
    print(f"seed {a.seed}: {tried} cases in {elapsed:.0f} s; exit statuses "
          + ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items())) + f"; {len(failures)} failed")
    for failure in failures:
        print("FAIL:", failure)
    if tried < 50:
        print(f"FAIL: only {tried} cases ran within {a.budget_s:.0f} s; the test proves too little")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
