"""A whole study: read, expand, check every configuration, then run them all with repetitions, one line
of progress per run, and keep study.json current."""
import dataclasses
import os
import shutil
import signal
import socket
import sys
from pathlib import Path

from .. import files
from .adaptive import INTERRUPTED, describe_adaptive, plan_adaptive, run_rounds
from .allocation import check_fits, cpus_per_node
from .configuration import resolve
from .daemon import check_daemon
from .execute import Interrupted, execute_run
from .record import planned_run, study_document, utc_now
from .settings import StudyError, load_study, safe_job_id
from .sweep import configurations, read_axes
from .wave3d_tools import Wave3d


@dataclasses.dataclass
class Study:
    path: Path
    settings: dict
    sweep: dict


@dataclasses.dataclass
class RunContext:
    study_dir: Path
    noise: Path
    nodes: int
    daemon_launcher: str  # srun, mpirun or local
    hostfile_args: list
    run_timeout: int
    env: dict


def note(text):
    print(f"wave3d study: {text}", flush=True)


def load(path, root):
    settings, sweep = load_study(path)
    settings["run.config"] = str(root / settings["run.config"])
    return Study(Path(path).resolve(), settings, sweep)


def study_directory(study, root, job_id, results_override):
    """<results>/<study name>/<job id>. A relative study.results starts at the root when that is a source
    tree, and at the current directory when it is an installation (<prefix>/share/wave3d is not a place
    to write results)."""
    results = Path(results_override or os.environ.get("WAVE3D_RESULTS") or study.settings["study.results"])
    if not results.is_absolute():
        results = (root if (root / "CMakeLists.txt").exists() else Path.cwd()) / results
    return results.resolve() / study.settings["study.name"] / safe_job_id(job_id)


def expand(study, wave3d, nodes, launcher, allocation, study_dir):
    """The machine, the axes, every configuration resolved and checked, and the adaptive plan (None
    without a headline); a refusal stops the study before anything runs."""
    machine = wave3d.plan_json(["--layout", "rank-per-node", "--nodes", str(nodes)],
                               "wave3d plan could not describe this machine")["machine"]
    axes, excludes = read_axes(study.path, study.sweep, machine["cores_per_socket"])
    configs, excluded = configurations(study.settings["study.name"], axes, excludes)
    adaptive = plan_adaptive(study, configs)
    for index, configuration in enumerate(configs, start=1):
        note(f"checking configuration {index}/{len(configs)}: {configuration['label']}")
        resolve(study, configuration, wave3d, nodes, launcher, machine["sockets"], study_dir)
    check_fits(configs, *allocation)
    return machine, axes, configs, excluded, adaptive


def check_daemons(study, configs, noise):
    """wave3d-noise --check on every configuration's daemon settings, before anything runs."""
    for c in configs:
        if c["daemon"]:
            check_daemon(noise, c["daemon_settings"], f"{study.path}: configuration {c['label']}")


def describe(configs, excluded, repetitions, adaptive):
    for c in configs:
        print(f"{c['id']} ({c['label']}): {c['ranks']} rank(s) x {c['threads_per_rank']} thread(s), "
              f"{c['compute_cores_per_node']} compute core(s) per node, daemon {'on' if c['daemon'] else 'off'}")
        print(f"  {' '.join(c['launcher'])} {' '.join(c['program'])}")
    for e in excluded:
        print(f"excluded: {e['parameters']}")
    print(f"{len(configs)} configuration(s) x {repetitions} repetition(s) = {len(configs) * repetitions} run(s)")
    if adaptive:
        print(describe_adaptive(adaptive, repetitions))


def check_study_directory_unused(study_dir):
    if (study_dir / files.STUDY_JSON).exists():
        raise StudyError(f"{study_dir} already holds a study; a job id is used once")


def prepare_study_directory(study_dir, study, configs, wave3d, hostfile_args):
    """The study directory with the submitted study and each configuration's plan; the launcher words
    gain the job's host file (PBS) after the launcher's name."""
    check_study_directory_unused(study_dir)
    study_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(study.path, study_dir / "study.toml")
    for c in configs:
        c["launcher"] = [c["launcher"][0], *hostfile_args, *c["launcher"][1:]]
        (study_dir / c["dir"]).mkdir(parents=True, exist_ok=True)
        (study_dir / c["dir"] / "plan.txt").write_text(wave3d.plan_text(c["plan_options"], f"{c['label']}: wave3d plan"))


def planned_runs(configs, repetitions):
    """Repetition-major: every configuration once, then again, so drift of the machine spreads evenly."""
    return [planned_run(c, rep) for rep in range(1, repetitions + 1) for c in configs]


def placement_text(run):
    """'placement wrong: shared-cpus, floating', 'placement ok', 'placement not audited'; None when the run
    left no run.json to say anything."""
    verdict = run.get("placement_verdict")
    if verdict is None:
        return None
    kinds = run.get("placement_problems") or []
    return f"placement {verdict}" + (f": {', '.join(kinds)}" if kinds else "")


def progress_line(run, index, total):
    details = [f"{run['mpoints_per_second']:.1f} MPoints/s"] if run.get("mpoints_per_second") else []
    details += [f"{run['duration_s']:.1f} s"] if run["duration_s"] is not None else []
    placement = placement_text(run)
    details += [placement] if placement else []
    details += [run["error"]] if run.get("error") else []
    return (f"[{index}/{total} done, {total - index} to go] {run['configuration']} rep {run['repetition']}: "
            f"{', '.join([run['status'], *details])}")


def raise_interrupted(signum, _frame):
    raise Interrupted(signal.Signals(signum).name)


def run_study(options):
    """Returns the exit status: 0 when every run finished and verified, 1 when some did not, 143 when
    the runner was stopped. StudyError (status 2) before anything ran."""
    root = Path(options.root).resolve()
    study = load(options.study, root)
    env = dict(os.environ)
    wave3d = Wave3d(options.wave3d, env)
    launcher = "mpirun" if options.launcher == "local" else options.launcher
    hostfile_args = ["--hostfile", options.hostfile] if options.hostfile else []
    allocation = cpus_per_node(options.scheduler, env)
    study_dir = study_directory(study, root, options.job_id, options.results)
    if not options.dry_run:
        check_study_directory_unused(study_dir)
    machine, axes, configs, excluded, adaptive = expand(study, wave3d, options.nodes, launcher, allocation, study_dir)
    repetitions = study.settings["study.repetitions"]
    if options.dry_run:
        if Path(options.noise).is_file():
            check_daemons(study, configs, options.noise)
        describe(configs, excluded, repetitions, adaptive)
        return 0
    if any(c["daemon"] for c in configs) and not Path(options.noise).is_file():
        raise StudyError(f"wave3d-noise binary '{options.noise}' not found: build it or set WAVE3D_NOISE_BIN")
    check_daemons(study, configs, options.noise)

    prepare_study_directory(study_dir, study, configs, wave3d, hostfile_args)

    job = {"scheduler": options.scheduler, "job_id": options.job_id, "nodes": options.nodes,
           "cpus_per_node": allocation[0], "cpus_per_node_source": allocation[1],
           "host": socket.gethostname(), "launcher": launcher, "started_utc": utc_now(), "finished_utc": None,
           "runner": sys.argv}
    runs = planned_runs(configs, repetitions)
    by_id = {c["id"]: c for c in configs}

    def save():
        files.write_json_atomically(study_dir / files.STUDY_JSON,
                              study_document(study, job, machine, axes, configs, excluded, runs, adaptive))

    save()
    note(f"study {study.settings['study.name']}, {options.scheduler} job {options.job_id} on {options.nodes} "
         f"node(s): {len(configs)} configuration(s) x {repetitions} repetition(s) = {len(runs)} run(s) "
         f"in {study_dir}" + (f"; then {describe_adaptive(adaptive, repetitions)}" if adaptive else ""))
    context = RunContext(study_dir, Path(options.noise), options.nodes,
                         "local" if options.launcher == "local" else launcher, hostfile_args,
                         study.settings["study.run_timeout_seconds"], env)
    previous = {s: signal.signal(s, raise_interrupted) for s in (signal.SIGTERM, signal.SIGINT)}
    status = 0
    finished = 0

    def run_one(run):
        nonlocal finished
        execute_run(context, by_id[run["configuration"]], run, started=save)
        save()
        finished += 1
        note(progress_line(run, finished, len(runs)))

    try:
        for run in list(runs):
            run_one(run)
        if adaptive:
            run_rounds(adaptive, runs, run_one, save, note)
    except Interrupted as stop:
        note(f"stopped by {stop}: {sum(r['status'] == 'pending' for r in runs)} run(s) not started")
        if adaptive:
            adaptive.record["stopped"] = INTERRUPTED
        status = 143
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        job["finished_utc"] = utc_now()
        save()
    wrong = [r for r in runs if r.get("placement_verdict") == "wrong"]
    if wrong:
        # Not a failure: the run measured what that placement gives; the report marks it.
        note(f"{len(wrong)} of {len(runs)} run(s) had a wrong placement: "
             + ", ".join(f"{r['dir']} ({', '.join(r['placement_problems']) or 'no problem named'})"
                         for r in wrong[:10]))
    bad = [r for r in runs if r["status"] != "done" or r.get("verification") == "FAILED"]
    if status == 0 and bad:
        note(f"{len(bad)} of {len(runs)} run(s) did not finish and verify: "
             + ", ".join(f"{r['dir']} ({r['status']})" for r in bad[:10]))
        status = 1
    note(f"results in {study_dir}; report: jobscripts/wave3d-study report {study_dir}")
    return status
