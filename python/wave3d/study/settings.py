"""Reads and checks a study configuration. Every setting has a type and a default; anything else is an
error that names the file, the key, the value and what is allowed. The values themselves are checked
where they are used (wave3d plan, wave3d run --check, wave3d-noise): one set of rules."""
import re

try:
    import tomllib  # Python 3.11
except ModuleNotFoundError:  # older Pythons with the tomli backport
    import tomli as tomllib


class StudyError(Exception):
    """A study that cannot run as written: the message says why; the runner exits with status 2."""


# section -> key -> (type, default). None as default: required.
SCHEMA = {
    "study": {
        "name": (str, None),  # names the results directory
        "description": (str, ""),
        "results": (str, "results/studies"),  # parent of <name>/<job id>, relative to the repository
        "repetitions": (int, 1),  # every configuration runs this many times
        "run_timeout_seconds": (int, 0),  # a run still going after this is stopped and marked; 0: no limit
        # An adaptive study (adaptive.py): more repetitions of the two headline configurations until the
        # interval of their ratio is narrow enough. The other three are required with a headline.
        "headline": (list, []),  # two configurations, A and B: an id or axis=value words picking one
        "target_relative_width": (float, 0.0),  # (high - low) / ratio of the 95 % interval, at most this
        "max_repetitions": (int, 0),  # of each headline configuration, the fixed repetitions included
        "adaptive_budget_seconds": (int, 0),  # time the extra rounds may take after the fixed repetitions
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
    "daemon": {  # wave3d-noise on every node of the job while a run goes
        "enabled": (bool, False),
        "period": (str, "1s"),
        "duration": (str, "50ms"),
        "kind": (str, "memscan"),
        "mib": (int, 256),
        "cpus": (str, ""),  # empty: the daemon floats over the node
    },
}

# [sweep] holds the axes (see sweep.py) and `exclude`, so it is checked there.
SECTIONS = list(SCHEMA) + ["sweep"]

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def type_name(kind):
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false",
            list: "a list of strings"}[kind]


def has_type(value, kind):
    # bool is an int in Python; TOML keeps them apart, and so does the schema.
    if kind in (int, float) and isinstance(value, bool):
        return False
    if kind is float:
        return isinstance(value, (int, float))
    if kind is list:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, kind)


def check_value(path, key, value, kind):
    if not has_type(value, kind):
        raise StudyError(f"{path}: {key} = {value!r}: must be {type_name(kind)}")


def load_toml(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise StudyError(f"{path}: cannot read the study configuration: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{path}: not valid TOML: {e}")


def load_study(path):
    """Returns (settings, sweep): settings maps "section.key" to its value, defaults filled in; sweep is
    the raw [sweep] table (empty when the study is a single configuration)."""
    data = load_toml(path)
    for section, value in data.items():
        if section not in SECTIONS:
            raise StudyError(f"{path}: unknown section [{section}]; allowed: {', '.join(SECTIONS)}")
        if not isinstance(value, dict):
            raise StudyError(f"{path}: {section} must be a table [{section}]")
        for key in value:
            if section != "sweep" and key not in SCHEMA[section]:
                raise StudyError(
                    f"{path}: unknown key {section}.{key}; allowed in [{section}]: {', '.join(SCHEMA[section])}")
    settings = {}
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
    if settings["study.repetitions"] < 1:
        raise StudyError(f"{path}: study.repetitions = {settings['study.repetitions']}: must be 1 or more")
    if settings["study.run_timeout_seconds"] < 0:
        raise StudyError(f"{path}: study.run_timeout_seconds = {settings['study.run_timeout_seconds']}: "
                         "must be 0 (no limit) or more")
    check_adaptive(path, settings, data.get("study", {}))
    for value in settings["run.set"]:
        if "=" not in value:
            raise StudyError(f"{path}: run.set entry {value!r}: must be \"key=value\"")
    for key, value in settings.items():
        for text in (value if isinstance(value, list) else [value]):
            if isinstance(text, str) and "\0" in text:
                raise StudyError(f"{path}: {key} contains a NUL character, which cannot be passed to a program")
    return settings, data.get("sweep", {})


ADAPTIVE_BOUNDS = ("study.target_relative_width", "study.max_repetitions", "study.adaptive_budget_seconds")
# Fewer repetitions than this give an interval that says nothing about the spread: two values that happen
# to be close would look narrow enough at once.
ADAPTIVE_MIN_REPETITIONS = 3


def check_adaptive(path, settings, study_table):
    """The headline and its bounds: all of them or none. Which configurations the headline names is
    checked once the sweep is expanded (adaptive.select_headline)."""
    headline = settings["study.headline"]
    given = [key for key in ADAPTIVE_BOUNDS if key.split(".", 1)[1] in study_table]
    if not headline:
        if "headline" in study_table:
            raise StudyError(f"{path}: study.headline = []: must name two configurations, A and B, or be left out")
        if given:
            raise StudyError(f"{path}: {given[0]} = {settings[given[0]]!r} without study.headline; allowed: "
                             "set study.headline = [\"<A>\", \"<B>\"] with it, or leave it out")
        return
    if len(headline) != 2:
        raise StudyError(f"{path}: study.headline = {headline!r}: must be two configurations, [\"<A>\", \"<B>\"] "
                         "(the ratio is A's median throughput over B's)")
    for key in ADAPTIVE_BOUNDS:
        if key not in given:
            raise StudyError(f"{path}: study.headline is set, so {key} is required")
    target = settings["study.target_relative_width"]
    if not 0 < target < 1:
        raise StudyError(f"{path}: study.target_relative_width = {target!r}: must be more than 0 and less than 1 "
                         "(0.05: the interval at most 5 % of the ratio)")
    repetitions = settings["study.repetitions"]
    if repetitions < ADAPTIVE_MIN_REPETITIONS:
        raise StudyError(f"{path}: study.repetitions = {repetitions} with study.headline: must be "
                         f"{ADAPTIVE_MIN_REPETITIONS} or more (the first interval rests on them)")
    if settings["study.max_repetitions"] <= repetitions:
        raise StudyError(f"{path}: study.max_repetitions = {settings['study.max_repetitions']}: must be more than "
                         f"study.repetitions ({repetitions}), where the adaptive rounds start")
    if settings["study.adaptive_budget_seconds"] < 1:
        raise StudyError(f"{path}: study.adaptive_budget_seconds = {settings['study.adaptive_budget_seconds']}: "
                         "must be 1 or more")


def safe_job_id(job_id):
    """The job id as a directory name: PBS ids carry the server name and array brackets."""
    if not job_id:
        raise StudyError("no job id: run the study through sbatch or qsub, or locally with --local")
    return re.sub(r"[^A-Za-z0-9._-]", "_", job_id)
