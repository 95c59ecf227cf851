"""wave3d-study: run a study (configs/studies/*.toml) in a batch job or locally, and report on it."""
import argparse
import os
import subprocess
import sys
from pathlib import Path

from .record import utc_now
from .runner import run_study
from .settings import StudyError

ROOT = Path(__file__).resolve().parents[3]  # python/wave3d/study -> the repository, or <prefix>/share/wave3d


def default_binary(variable, relative):
    """The environment's choice, else the release build of this source tree, else, in an installed tree
    (<prefix>/share/wave3d), the binary installed beside it in <prefix>/bin."""
    if os.environ.get(variable):
        return os.environ[variable]
    built = ROOT / "build/release" / relative
    installed = ROOT.parent.parent / "bin" / Path(relative).name
    return str(installed if not built.exists() and installed.exists() else built)


def local_job_id():
    return "local-" + utc_now().replace(":", "").replace("-", "")


def run_command(options):
    if options.local:
        options.scheduler, options.launcher = "local", "local"
        options.job_id = options.job_id or local_job_id()
    elif options.scheduler is None:
        if os.environ.get("SLURM_JOB_ID"):
            options.scheduler, options.launcher = "slurm", options.launcher or "srun"
            options.job_id = options.job_id or os.environ["SLURM_JOB_ID"]
            options.nodes = options.nodes or int(os.environ.get("SLURM_JOB_NUM_NODES", "1"))
        else:
            raise StudyError("not inside a Slurm job: submit a job script from jobscripts/, give --scheduler, "
                             "--job-id, --nodes and --launcher, or run here with --local")
    if not options.job_id:
        raise StudyError("--job-id is required with --scheduler")
    if options.launcher is None:
        options.launcher = "srun" if options.scheduler == "slurm" else "mpirun"
    options.nodes = options.nodes or 1
    if options.local and options.nodes != 1:
        raise StudyError(f"--nodes {options.nodes} with --local: a local study runs on this one node")
    if not Path(options.wave3d).is_file():
        raise StudyError(f"wave3d binary '{options.wave3d}' not found: build it or set WAVE3D_BIN")
    return run_study(options)


def report_command(options, extra):
    script = ROOT / "python/tools/study_report.py"
    return subprocess.run([sys.executable, str(script), *extra]).returncode


def main():
    parser = argparse.ArgumentParser(prog="wave3d-study", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="expand a study into runs and execute them",
                         description="Expands the study into configurations x repetitions, checks every "
                                     "configuration with wave3d plan and wave3d run --check, then runs them "
                                     "(srun steps inside a Slurm job, mpirun under PBS or with --local).")
    run.add_argument("study", help="the study configuration, e.g. configs/studies/placement.toml")
    run.add_argument("--local", action="store_true", help="run here with mpirun, outside any batch job")
    run.add_argument("--scheduler", choices=["slurm", "pbs"], help="the batch system (default: from SLURM_JOB_ID)")
    run.add_argument("--job-id", help="the scheduler's job id (default: SLURM_JOB_ID; local-<time> with --local)")
    run.add_argument("--nodes", type=int, help="nodes of the job (default: SLURM_JOB_NUM_NODES, else 1)")
    run.add_argument("--launcher", choices=["srun", "mpirun"], help="which line of wave3d plan starts the runs")
    run.add_argument("--hostfile", help="mpirun --hostfile (PBS: $PBS_NODEFILE)")
    run.add_argument("--root", default=str(ROOT), help="the repository: relative paths in the study start here")
    run.add_argument("--results", help="parent of <study>/<job id> (default: WAVE3D_RESULTS, else study.results)")
    run.add_argument("--wave3d", default=default_binary("WAVE3D_BIN", "app/wave3d"),
                     help="the wave3d binary (default: WAVE3D_BIN, else build/release/app/wave3d, or bin/wave3d of an installation)")
    run.add_argument("--noise", default=default_binary("WAVE3D_NOISE_BIN", "tools/noise/wave3d-noise"),
                     help="the wave3d-noise binary (default: WAVE3D_NOISE_BIN, else next to the release build, or in bin/ of an installation)")
    run.add_argument("--dry-run", action="store_true", help="check and list the runs; run nothing, write nothing")
    sub.add_parser("report", add_help=False, help="turn a study directory into report.md and plots "
                                                  "(python/tools/study_report.py; --help for its options)")
    options, extra = parser.parse_known_args()
    try:
        if options.command == "report":
            return report_command(options, extra)
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return run_command(options)
    except StudyError as e:
        print(f"wave3d study: error: {e}", file=sys.stderr, flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
