"""study.json: the expansion of a study and the state of each of its runs, rewritten atomically after
every run so that a study cut short (time limit, node failure) can still be reported.

A run records its status, exit status and duration, and once its run.json exists its throughput,
verification and placement: `placement_verdict` ("ok", "wrong", "not audited" for a run.json from a
wave3d without the placement audit, "unreadable" for an audit without either verdict) and
`placement_problems` (the kinds of problem the audit found).

An adaptive study (adaptive.py) adds "adaptive": its headline, bounds, every round's interval and
decision, and why it stopped; its extra runs carry "adaptive_round". Readers that know neither key read
the runs as before (a configuration may simply have more repetitions than "repetitions", the fixed
count), so the format version stays 2."""
import datetime

from .. import files

# What a configuration records; the rest of the runner's working data stays out of the file.
CONFIGURATION_FIELDS = ("id", "label", "parameters", "dir", "ranks_per_node", "ranks", "threads_per_rank",
                        "compute_cores_per_node", "reserved_cores_per_node", "cpus_per_node", "progress_thread", "daemon",
                        "daemon_settings", "placement", "launcher", "program")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def planned_run(configuration, repetition):
    """A runs entry before the run starts."""
    return {"configuration": configuration["id"], "repetition": repetition,
            "dir": f"{configuration['dir']}/rep{repetition}", "status": "pending", "exit_status": None,
            "duration_s": None, "started_utc": None}


def study_document(study, job, machine, axes, configurations, excluded, runs, adaptive=None):
    document = {
        **files.header(files.STUDY_FORMAT, "wave3d-study run"),
        "study": {"name": study.settings["study.name"], "description": study.settings["study.description"],
                  "file": str(study.path)},
        "job": job,
        "machine": machine,
        "axes": [{"name": name, "values": values} for name, values in axes],
        "repetitions": study.settings["study.repetitions"],
        "run_timeout_s": study.settings["study.run_timeout_seconds"],
        "configurations": [{k: c[k] for k in CONFIGURATION_FIELDS} for c in configurations],
        "excluded": excluded,
        "runs": runs,
    }
    if adaptive is not None:
        document["adaptive"] = adaptive.record
    return document
