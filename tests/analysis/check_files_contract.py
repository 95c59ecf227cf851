#!/usr/bin/env python3
"""The Python side's names for wave3d's files and keys (python/wave3d/files.py) against a real run:
the run writes run.json and steps.csv under those names, run.json's header names the format and
version files.py reads, and every key path files.py lists is present.

  check_files_contract.py --wave3d BIN --work DIR
"""
import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from wave3d import files  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wave3d", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    done = subprocess.run([args.wave3d, "run", "--set", "grid.n=24,24,24", "--set", "run.steps=4",
                           "--set", f"output.directory={json.dumps(str(work))}", "--set", 'output.name="contract"',
                           "--set", 'run.progress="off"'], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"FAIL: the run exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    run_dir = work / "contract"
    problems = [f"no {name} in {run_dir}" for name in (files.RUN_JSON, files.STEPS_CSV) if not (run_dir / name).is_file()]
    if not problems:
        doc = json.loads((run_dir / files.RUN_JSON).read_text())
        if files.FORMAT not in doc:
            problems.append(f"run.json has no '{files.FORMAT}' header key")
        elif files.format_problem(doc):
            problems.append(f"run.json: {files.format_problem(doc)}")
        for key in (files.FORMAT_VERSION, files.COMMAND, files.PROVENANCE):
            if key not in doc:
                problems.append(f"run.json has no '{key}' header key")
        if files.lookup(doc, files.STATUS) != "completed":
            problems.append(f"run.json {files.STATUS} = {files.lookup(doc, files.STATUS)!r}, not 'completed'")
        for path in files.RUN_KEY_PATHS:
            if files.lookup(doc, path, files.MISSING) is files.MISSING:
                problems.append(f"run.json has no {path}")
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        sys.exit(1)
    print(f"PASS: {files.RUN_JSON} and {files.STEPS_CSV} as named, {files.RUN_FORMAT}, "
          f"{len(files.RUN_KEY_PATHS)} key paths present")


if __name__ == "__main__":
    main()
