#!/usr/bin/env python3
"""The job scripts' helpers without a scheduler: jobscripts/lib/study_config.py and
`wave3d plan --print-argv`.

  check_study_config.py --root SRC --wave3d BIN --work DIR

- every study in configs/studies/ is accepted and read back as NUL-separated key/value records, with the
  study directory, the absolute run configuration and the output overrides derived;
- strings full of shell syntax come back byte for byte; a NUL, an unknown key or section, a wrong type, a
  missing or path-like study name are refused with status 2 and a message naming the key;
- a PBS job id becomes a safe directory name;
- the words `wave3d plan --print-argv srun|mpirun` prints are exactly the words of the lines it prints
  for people, for several layouts of a built-in machine.
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slurm_job import TestFailure, expect, main_guard, write_toml  # noqa: E402


def read_study(args, path, job_id="7", env=None):
    helper = Path(args.root) / "jobscripts/lib/study_config.py"
    return subprocess.run([sys.executable, str(helper), "read", str(path), "--root", args.root, "--job-id", job_id],
                          capture_output=True, env=env)


def records(output):
    words = output.split(b"\0")
    if words[-1] != b"" or len(words) % 2 != 1:
        raise TestFailure(f"records not NUL-terminated pairs: {output!r}")
    pairs = [(words[i].decode(), words[i + 1].decode()) for i in range(0, len(words) - 1, 2)]
    return pairs


def expect_refused(args, work, name, study, fragment):
    path = work / f"{name}.toml"
    if isinstance(study, str):
        path.write_text(study)
    else:
        write_toml(path, study)
    done = read_study(args, path)
    message = done.stderr.decode()
    expect(done.returncode == 2 and fragment in message and not done.stdout,
           f"{name}: refused with status 2 naming '{fragment}' ({message.strip()})")


def check_configs(args, work):
    env = dict(os.environ)
    env.pop("WAVE3D_RESULTS", None)
    for study in sorted((Path(args.root) / "configs/studies").glob("*.toml")):
        done = read_study(args, study, env=env)
        expect(done.returncode == 0, f"{study.name} accepted {done.stderr.decode().strip()}".strip())
        values = dict(records(done.stdout))
        name = values["study.name"]
        expected_dir = os.path.join(args.root, values["study.results"], name, "7")
        expect(values["study.dir"] == os.path.normpath(expected_dir), f"{study.name}: study.dir {values['study.dir']}")
        expect(os.path.isabs(values["run.config"]) and Path(values["run.config"]).is_file(),
               f"{study.name}: run.config {values['run.config']} exists")

    shell = "$(touch x) `touch x`; 'a' \"b\" \\ | & > < * ? ~ {a,b} \n next line"
    study = {"study": {"name": "quoting", "description": shell},
             "run": {"set": [f"output.name={shell}", "run.steps=3"]},
             "daemon": {"cpus": shell}}
    path = work / "quoting.toml"
    write_toml(path, study)
    done = read_study(args, path, job_id="1234.pbs-server[5]")
    expect(done.returncode == 0, f"shell syntax in strings accepted as data {done.stderr.decode().strip()}".strip())
    pairs = records(done.stdout)
    values = dict(pairs)
    expect(values["study.description"] == shell and values["daemon.cpus"] == shell, "strings come back byte for byte")
    expect([v for k, v in pairs if k == "run.set"] == study["run"]["set"], "run.set comes back in order")
    expect(values["study.dir"].endswith("/quoting/1234.pbs-server_5_"), f"PBS job id made safe: {values['study.dir']}")
    outputs = [v for k, v in pairs if k == "run.output"]
    expect(outputs[0].startswith('output.directory="') and outputs[1] == 'output.name="run"',
           f"output overrides are TOML strings: {outputs}")

    expect_refused(args, work, "unknown-key", {"study": {"name": "x"}, "placement": {"layot": "x"}}, "placement.layot")
    expect_refused(args, work, "unknown-section", {"study": {"name": "x"}, "plcement": {"layout": "x"}}, "[plcement]")
    expect_refused(args, work, "wrong-type", {"study": {"name": "x"}, "placement": {"threads": "2"}},
                   "placement.threads")
    expect_refused(args, work, "list-of-numbers", {"study": {"name": "x"}, "run": {"set": [1]}}, "run.set")
    expect_refused(args, work, "no-name", {"study": {"description": "x"}}, "study.name is required")
    expect_refused(args, work, "path-name", {"study": {"name": "../x"}}, "study.name")
    expect_refused(args, work, "nul", '[study]\nname = "x"\ndescription = "a\\u0000b"\n', "NUL")
    expect_refused(args, work, "not-toml", "[study\nname = 1\n", "not valid TOML")


def check_plan_argv(args):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cases = [["--layout", "rank-per-socket"], ["--layout", "rank-per-core", "--nodes", "4"],
             ["--layout", "rank-per-socket", "--reserve", "per-socket:1", "--progress-thread"],
             ["--layout", "rank-per-numa", "--reserve", "list:0,5"]]
    for case in cases:
        plan = [args.wave3d, "plan", "--machine", "xeon-e5-2699v4", *case]
        text = subprocess.run(plan, capture_output=True, text=True, env=env, check=True).stdout.splitlines()
        for launcher in ("srun", "mpirun"):
            line = next(line.split() for line in text if line.strip().startswith(launcher + " "))
            argv = subprocess.run(plan + ["--print-argv", launcher], capture_output=True, env=env, check=True).stdout
            words = [w.decode() for w in argv.split(b"\0")[:-1]]
            expect(argv.endswith(b"\0") and words == line[:-2] and line[-2:] == ["wave3d", "run"],
                   f"plan {' '.join(case)} --print-argv {launcher}: the words of the printed line")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("--root", "--wave3d", "--work"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    main_guard(lambda: (check_configs(args, work), check_plan_argv(args)))


if __name__ == "__main__":
    main()
