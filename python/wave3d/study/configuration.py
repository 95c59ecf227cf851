"""One configuration of a study: its placement, its daemon and the wave3d run arguments, resolved from
the study's settings and the configuration's axis values, and checked before anything runs."""
import json

from .allocation import cpus_needed
from .settings import StudyError
from .sweep import COMPUTE_CORES, is_run_axis
from .wave3d_tools import plan_options


def toml_value(value):
    """A value as `--set` takes it (a TOML value). JSON's strings, numbers, booleans and arrays of them are
    valid TOML."""
    return json.dumps(value)


def section_values(settings, section, parameters):
    values = {key.split(".", 1)[1]: v for key, v in settings.items() if key.startswith(section + ".")}
    for name, value in parameters.items():
        if name.startswith(section + ".") and name != COMPUTE_CORES:
            values[name.split(".", 1)[1]] = value
    return values


def placement_for(settings, parameters, sockets, path):
    """The [placement] options with the axes applied. Compute cores per socket become threads of a
    socket's rank or ranks of a socket; cores left over stay free."""
    placement = section_values(settings, "placement", parameters)
    cores = parameters.get(COMPUTE_CORES)
    if cores is not None:
        derived = {"rank-per-socket": "threads", "rank-per-core": "ranks_per_node"}.get(placement["layout"])
        if derived and placement[derived] != 0:
            raise StudyError(f"{path}: sweep axis {COMPUTE_CORES} sets placement.{derived}, which the study also sets "
                             f"to {placement[derived]}; allowed: placement.{derived} = 0 (or left out)")
        if placement["layout"] == "rank-per-socket":
            placement["threads"] = cores
        elif placement["layout"] == "rank-per-core":
            placement["ranks_per_node"] = cores * sockets
        else:
            raise StudyError(f"{path}: sweep axis {COMPUTE_CORES} needs placement.layout = \"rank-per-socket\" "
                             f"or \"rank-per-core\", not {placement['layout']!r}")
    return placement


# The run settings the plan decides, from [placement] and its axes: `wave3d plan` gives them as the words
# that make wave3d run bind to the plan, and a study setting them too would part the run from its
# launcher line. The halo stays the study's to choose: a bulk one with a progress thread is refused by
# wave3d run --check, never silently turned into overlap.
PLAN_KEYS = {"placement.layout", "placement.reserve", "placement.smt", "run.threads"}
STUDY_KEYS = {"parallel.halo"}


def setting_key(setting):
    return setting.split("=", 1)[0].strip()


def run_settings(settings, parameters, program_argv, what):
    """The wave3d run arguments after the configuration file, in the order they apply: the plan's own
    (`wave3d plan --json` -> launchers.program_argv, the words its printed lines end with), then the
    study's --set overrides and the axes'. Raises StudyError when the study sets what the plan decides."""
    sets = list(settings["run.set"])
    sets += [f"{name[len('run.'):]}={toml_value(v)}" for name, v in parameters.items() if is_run_axis(name)]
    planned = (PLAN_KEYS | {setting_key(w) for w in program_argv[1::2]}) - STUDY_KEYS
    for setting in sets:
        if setting_key(setting) in planned:
            raise StudyError(f"{what}: run setting {setting!r}: {setting_key(setting)} follows from the placement "
                             f"plan; allowed: choose it in [placement] (layout, threads, reserve, smt, "
                             f"progress_thread) or its sweep axes")
    return [*program_argv, *(a for s in sets for a in ("--set", s))]


def resolve(study, configuration, wave3d, nodes, launcher, sockets, study_dir):
    """Fills a configuration dict (id, label, parameters) with its plan, launcher words, run arguments and
    daemon; raises StudyError naming the configuration when wave3d refuses any of it. The run is checked
    for the job it will be (its ranks on `nodes` nodes, its run directory under study_dir) on this node."""
    settings, path = study.settings, study.path
    parameters = configuration["parameters"]
    what = f"{path}: configuration {configuration['label']}"
    placement = placement_for(settings, parameters, sockets, path)
    options = plan_options(placement, nodes)
    planned = wave3d.plan_json(options, f"{what}: wave3d plan refused the placement")
    plan = planned["plan"]
    program_argv = planned["launchers"]["program_argv"]
    run_args = [settings["run.config"], *run_settings(settings, parameters, program_argv, what)]
    # The runner names each run's output last (execute.py); the check sees the same last words.
    ranks = plan["ranks_per_node"] * nodes
    output = ["--set", f"output.directory={json.dumps(str(study_dir / 'runs' / configuration['id']))}",
              "--set", 'output.name="rep1"']
    wave3d.check_run([*run_args, *output, "--ranks", str(ranks), "--nodes", str(nodes)],
                     f"{what}: wave3d run refused the configuration")
    daemon = section_values(settings, "daemon", parameters)
    configuration.update({
        "dir": f"runs/{configuration['id']}",
        "placement": placement,
        "plan_options": options,
        "ranks_per_node": plan["ranks_per_node"],
        "ranks": plan["ranks_per_node"] * nodes,
        "threads_per_rank": plan["threads_per_rank"],
        "compute_cores_per_node": plan["compute_cores_per_node"],
        "reserved_cores_per_node": len(plan["reserved_cores"]),
        "cpus_per_node": cpus_needed(plan, planned["machine"]),
        "progress_thread": placement["progress_thread"],
        "daemon": daemon["enabled"],
        "daemon_settings": daemon,
        "launcher": planned["launchers"][f"{launcher}_argv"],
        "program": [wave3d.binary, "run", *run_args],
    })
    return configuration
