#!/usr/bin/env python3
"""Reads a study configuration (configs/studies/*.toml) for the job scripts, and writes their job record.

The job scripts never parse TOML or build shell code from configuration strings. They ask this helper:

  study_config.py read STUDY.toml --root DIR --job-id ID
      checks the file against the schema below and prints every setting as NUL-terminated pairs
      "key\\0value\\0" (list settings repeat their key once per element), plus derived values:
        study.dir     the job's study directory, <results>/<name>/<job id>, absolute
        run.config    the wave3d run configuration, absolute
        run.output    --set overrides that put the run's results into the study directory
      A bash script reads them with `read -r -d ''` into arrays: values stay data, never code.

  study_config.py record OUT.json [--text=KEY=VALUE]... [--int=KEY=VALUE]... [--argv=KEY=FILE]...
      writes a JSON object: --text and --int set a field (KEY may be dotted, a.b), --argv sets a list read
      from FILE of NUL-terminated words (as `wave3d plan --print-argv` prints them). Written with "=" the
      value may start with "-".

Errors name the file, the key, the value and what is allowed, and exit with status 2.
"""
import argparse
import json
import os
import re
import sys

try:
    import tomllib  # Python 3.11
except ModuleNotFoundError:  # older Pythons with the tomli backport
    import tomli as tomllib

# section -> key -> (type, default). A setting not listed here is an error, as in wave3d's run configs.
# The values are checked where they are used (wave3d plan, wave3d run, wave3d-noise): one set of rules.
SCHEMA = {
    "study": {
        "name": (str, None),  # required: names the results directory
        "description": (str, ""),
        "results": (str, "results/studies"),  # parent of <name>/<job id>, relative to the repository
    },
    "run": {
        "config": (str, "configs/default.toml"),  # wave3d run configuration, relative to the repository
        "set": (list, []),  # wave3d run --set overrides, one "key=value" each
    },
    "placement": {  # the options of `wave3d plan` that choose the launcher line
        "layout": (str, "rank-per-socket"),
        "ranks_per_node": (int, 0),
        "threads": (int, 0),
        "reserve": (str, "none"),
        "progress_thread": (bool, False),
        "smt": (bool, False),
    },
    "daemon": {  # wave3d-noise on every node of the job while the run goes
        "enabled": (bool, False),
        "period": (str, "1s"),
        "duration": (str, "50ms"),
        "kind": (str, "memscan"),
        "mib": (int, 256),
        "cpus": (str, ""),  # empty: the daemon floats over the node
    },
}

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class StudyError(Exception):
    pass


def type_name(kind):
    return {str: "a string", int: "an integer", bool: "true or false", list: "a list of strings"}[kind]


def check_value(path, key, value, kind):
    # bool is an int in Python; TOML keeps them apart, and so does the schema.
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if kind is list:
        ok = ok and all(isinstance(v, str) for v in value)
    if not ok:
        raise StudyError(f"{path}: {key} = {value!r}: must be {type_name(kind)}")


def load_study(path):
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise StudyError(f"{path}: cannot read the study configuration: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{path}: not valid TOML: {e}")
    settings = {}
    for section, value in data.items():
        if section not in SCHEMA:
            raise StudyError(f"{path}: unknown section [{section}]; allowed: {', '.join(SCHEMA)}")
        if not isinstance(value, dict):
            raise StudyError(f"{path}: {section} must be a table [{section}]")
        for key in value:
            if key not in SCHEMA[section]:
                raise StudyError(
                    f"{path}: unknown key {section}.{key}; allowed in [{section}]: {', '.join(SCHEMA[section])}")
    for section, keys in SCHEMA.items():
        for key, (kind, default) in keys.items():
            value = data.get(section, {}).get(key, default)
            if value is None:
                raise StudyError(f"{path}: {section}.{key} is required")
            check_value(path, f"{section}.{key}", value, kind)
            settings[f"{section}.{key}"] = value
    name = settings["study.name"]
    if not NAME_PATTERN.fullmatch(name):
        raise StudyError(f"{path}: study.name = {name!r}: must be letters, digits, '.', '_' or '-' "
                         "(it names a directory)")
    return settings


def safe_job_id(job_id):
    """The job id as a directory name: PBS ids carry the server name and array brackets."""
    if not job_id:
        raise StudyError("no job id: run the job script through sbatch or qsub, or set the id explicitly")
    return re.sub(r"[^A-Za-z0-9._-]", "_", job_id)


def toml_string(text):
    # A JSON string is a valid TOML basic string for every character JSON escapes.
    return json.dumps(text)


def read_command(args):
    settings = load_study(args.study)
    root = os.path.abspath(args.root)
    results = os.path.join(root, os.environ.get("WAVE3D_RESULTS") or settings["study.results"])
    study_dir = os.path.join(os.path.abspath(results), settings["study.name"], safe_job_id(args.job_id))
    # Paths are given absolute; the rest as written.
    records = [(key, value) for key, value in settings.items() if not isinstance(value, list) and key != "run.config"]
    records += [(key, item) for key, value in settings.items() if isinstance(value, list) for item in value]
    records.append(("study.dir", study_dir))
    records.append(("run.config", os.path.join(root, settings["run.config"])))
    records.append(("run.output", f"output.directory={toml_string(study_dir)}"))
    records.append(("run.output", f"output.name={toml_string('run')}"))
    output = b""
    for key, value in records:
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if "\0" in text:
            raise StudyError(f"{args.study}: {key} contains a NUL character, which cannot be passed to a program")
        output += key.encode() + b"\0" + text.encode() + b"\0"
    sys.stdout.buffer.write(output)  # all or nothing: a refused file prints no records
    return 0


def record_command(args):
    record = {}

    def put(dotted, value):
        *parents, leaf = dotted.split(".")
        node = record
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value

    for key, value in args.text:
        put(key, value)
    for key, value in args.int:
        try:
            put(key, int(value))
        except ValueError:
            raise StudyError(f"record: {key} = {value!r}: not an integer")
    for key, path in args.argv:
        with open(path, "rb") as f:
            data = f.read()
        put(key, [w.decode() for w in data.split(b"\0")[:-1]] if data else [])
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    os.replace(tmp, args.out)
    return 0


def key_value(text):
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: expected KEY=VALUE")
    return key, value


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    read = sub.add_parser("read", help="check a study configuration and print its settings")
    read.add_argument("study")
    read.add_argument("--root", required=True, help="the repository: relative paths start here")
    read.add_argument("--job-id", required=True, help="the scheduler's job id")
    read.set_defaults(run=read_command)
    rec = sub.add_parser("record", help="write a job record")
    rec.add_argument("out")
    for option, meta in (("--text", "KEY=VALUE"), ("--int", "KEY=VALUE"), ("--argv", "KEY=FILE")):
        rec.add_argument(option, type=key_value, action="append", default=[], metavar=meta)
    rec.set_defaults(run=record_command)
    args = parser.parse_args()
    try:
        return args.run(args)
    except StudyError as e:
        print(f"study_config: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
