"""The axes of a study ([sweep]) and the configurations they span.

An axis is a setting and the list of values it takes; the configurations are every combination of the
axes' values (in the order the axes are written), less those an `exclude` entry names. Axis names:

  placement.<key>, daemon.<key>     a study setting (see settings.SCHEMA), with values of its type
  run.<wave3d config key>           a `wave3d run --set` override, e.g. "run.init.policy" = ["first-touch", "serial"]
  placement.compute_cores_per_socket
                                    cores that compute on each socket: a list of numbers and "all", or a
                                    range "1..all" / "2..8"; rank-per-socket gets that many threads,
                                    rank-per-core that many ranks per socket. The other cores stay free.
"""
import itertools
import re

from .settings import SCHEMA, StudyError, has_type, type_name

COMPUTE_CORES = "placement.compute_cores_per_socket"
RANGE = re.compile(r"(\d+)\.\.(\d+|all)")


def is_run_axis(name):
    return name.startswith("run.") and len(name) > len("run.") and name != "run.config" and name != "run.set"


def check_axis_values(path, name, values):
    if not isinstance(values, list) or not values:
        raise StudyError(f"{path}: sweep axis {name} = {values!r}: must be a non-empty list of values")
    if name == COMPUTE_CORES:
        return
    if is_run_axis(name):
        for v in values:
            if isinstance(v, dict):
                raise StudyError(f"{path}: sweep axis {name}: value {v!r} is a table; allowed: TOML values")
        return
    section, _, key = name.partition(".")
    if section not in ("placement", "daemon") or key not in SCHEMA[section]:
        allowed = [f"placement.{k}" for k in SCHEMA["placement"]] + [f"daemon.{k}" for k in SCHEMA["daemon"]]
        raise StudyError(f"{path}: unknown sweep axis {name}; allowed: {', '.join(allowed)}, {COMPUTE_CORES}, "
                         "or run.<wave3d config key>")
    kind = SCHEMA[section][key][0]
    for v in values:
        if not has_type(v, kind):
            raise StudyError(f"{path}: sweep axis {name}: value {v!r} must be {type_name(kind)}")
    if len(set(map(repr, values))) != len(values):
        raise StudyError(f"{path}: sweep axis {name} = {values!r}: a value is listed twice")


def resolve_compute_cores(path, values, cores_per_socket):
    """The compute-core axis as numbers, for sockets of cores_per_socket cores."""
    if isinstance(values, str):
        values = [values]
    resolved = []
    for v in values:
        match = RANGE.fullmatch(v) if isinstance(v, str) else None
        if match:
            low = int(match[1])
            high = cores_per_socket if match[2] == "all" else int(match[2])
            resolved += list(range(low, high + 1))
        elif v == "all":
            resolved.append(cores_per_socket)
        elif isinstance(v, int) and not isinstance(v, bool):
            resolved.append(v)
        else:
            raise StudyError(f"{path}: sweep axis {COMPUTE_CORES}: value {v!r}; allowed: a number, \"all\", "
                             "or a range \"A..B\" / \"A..all\"")
    for v in resolved:
        if not 1 <= v <= cores_per_socket:
            raise StudyError(f"{path}: sweep axis {COMPUTE_CORES}: {v} cores per socket; this machine's sockets "
                             f"have {cores_per_socket} (allowed: 1..{cores_per_socket})")
    if not resolved or len(set(resolved)) != len(resolved):
        raise StudyError(f"{path}: sweep axis {COMPUTE_CORES} = {values!r}: must give distinct core counts")
    return resolved


def read_axes(path, sweep, cores_per_socket):
    """[(name, [values])] in the order written, and the exclude entries."""
    axes = []
    for name, values in sweep.items():
        if name == "exclude":
            continue
        if name == COMPUTE_CORES:
            values = resolve_compute_cores(path, values, cores_per_socket)
        check_axis_values(path, name, values)
        axes.append((name, values))
    excludes = sweep.get("exclude", [])
    if not isinstance(excludes, list) or not all(isinstance(e, dict) and e for e in excludes):
        raise StudyError(f"{path}: sweep.exclude must be a list of tables, e.g. "
                         "[{\"placement.progress_thread\" = true, \"placement.reserve\" = \"none\"}]")
    names = [name for name, _ in axes]
    for entry in excludes:
        for key in entry:
            if key not in names:
                raise StudyError(f"{path}: sweep.exclude names {key}, which is not an axis; axes: "
                                 f"{', '.join(names) or 'none'}")
    return axes, excludes


def value_word(name, value):
    """A configuration's value as a word of its directory name."""
    leaf = name.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        owner = name.split(".")[-2] if leaf == "enabled" else leaf
        return f"{owner}-{'on' if value else 'off'}"
    if isinstance(value, (int, float)):
        return f"{leaf}-{value}"
    text = value if isinstance(value, str) else repr(value)
    word = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"
    return word if name == "placement.layout" else f"{leaf}-{word}"  # layouts name themselves


def short_name(name):
    """An axis as people read it in labels: layout, init.policy, daemon, daemon.kind."""
    if name == "daemon.enabled":
        return "daemon"
    for prefix in ("placement.", "run."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def label_value(value):
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def configurations(study_name, axes, excludes):
    """Every combination of the axes' values, less the excluded ones, as dicts with id, label and
    parameters; and the excluded combinations with why."""
    kept, excluded = [], []
    names = [name for name, _ in axes]
    for combination in itertools.product(*[values for _, values in axes]):
        parameters = dict(zip(names, combination))
        if any(all(parameters[k] == v and type(parameters[k]) is type(v) for k, v in e.items()) for e in excludes):
            excluded.append({"parameters": parameters, "reason": "excluded by the study (sweep.exclude)"})
            continue
        kept.append(parameters)
    if not kept:
        raise StudyError("every combination of the sweep is excluded: nothing to run")
    result = []
    for index, parameters in enumerate(kept, start=1):
        if parameters:
            words = [value_word(name, value) for name, value in parameters.items()]
            config_id = f"{index:02d}-" + "-".join(words)
            label = " ".join(f"{short_name(k)}={label_value(v)}" for k, v in parameters.items())
        else:
            config_id, label = study_name, study_name
        result.append({"id": config_id, "label": label, "parameters": parameters})
    return result, excluded
