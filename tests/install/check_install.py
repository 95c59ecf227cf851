#!/usr/bin/env python3
"""wave3d as a cluster administrator installs it and a user runs it.

  check_install.py --build DIR --work DIR [--cmake CMAKE]

`cmake --install` of the build into a fresh prefix; then, from a directory outside the source and the
build, with a PATH and PYTHONPATH that name neither, the installed tree must: run (VERIFIED, run.json),
draw a plot (the binary finds its script beside itself), run a study with the installed study runner
and report it, load as an Lmod module (PATH, WAVE3D_ROOT), and be found by find_package(wave3d)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

LMOD_INIT = Path("/usr/share/lmod/lmod/init/bash")
failures = []


def expect(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def run(command, env, cwd, timeout=300):
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        print(f"$ {' '.join(map(str, command))}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}", flush=True)
    return done


def clean_environment(prefix):
    """Only the system and the installation on the search paths: no source tree, no build tree."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "WAVE3D_PYTHON_TOOLS", "WAVE3D_BIN", "WAVE3D_NOISE_BIN", "WAVE3D_ROOT")}
    env["PATH"] = f"{prefix}/bin:/usr/local/bin:/usr/bin:/bin"
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--cmake", default="cmake")
    args = parser.parse_args()
    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    prefix, user = work / "prefix", work / "user"
    user.mkdir(parents=True)

    installed = run([args.cmake, "--install", args.build, "--prefix", str(prefix)], os.environ.copy(), work)
    expect(installed.returncode == 0, "cmake --install exits 0")
    share = prefix / "share/wave3d"
    module = prefix / "share/modulefiles/wave3d"
    for path in (prefix / "bin/wave3d", prefix / "bin/wave3d-noise", share / "python/wave3d/files.py",
                 share / "python/tools/plot_advise.py", share / "configs/default.toml",
                 share / "configs/studies/single.toml", share / "jobscripts/slurm/study.sbatch",
                 share / "jobscripts/pbs/study.pbs", share / "jobscripts/wave3d-study",
                 prefix / "lib/cmake/wave3d/wave3dConfig.cmake"):
        expect(path.exists(), f"installed: {path.relative_to(prefix)}")
    modules = sorted(module.glob("*.lua"))
    expect(len(modules) == 1, f"one Lmod module file: {[m.name for m in modules]}")
    env = clean_environment(prefix)

    done = run(["wave3d", "run", "--set", "grid.n=24,24,24", "--set", "run.steps=4", "--set",
                'output.directory="results"', "--set", 'output.name="installed"'], env, user)
    expect(done.returncode == 0 and "VERIFIED" in done.stdout, "the installed wave3d runs and verifies")
    run_json = user / "results/installed/run.json"
    expect(run_json.is_file() and json.loads(run_json.read_text()).get("status") == "completed",
           "its run.json is written where the user asked")

    done = run(["wave3d", "advise", "--threads", "1", "--array-mib", "16", "--grid", "32", "--steps", "1",
                "--repetitions", "1", "--output-dir", "advise"], env, user)
    png = user / "advise/advise.png"
    expect(done.returncode == 0 and png.is_file() and png.read_bytes()[:4] == b"\x89PNG",
           f"advise draws its PNG with the installed script ({done.stdout.strip().splitlines()[-1:]})")

    study = share / "configs/studies/single.toml"
    done = run([sys.executable, str(share / "jobscripts/wave3d-study"), "run", "--local", "--job-id", "1",
                "--", str(study)], env, user, timeout=600)
    study_dirs = sorted((user / "results").glob("studies/*/1"))
    expect(done.returncode == 0 and len(study_dirs) == 1 and (study_dirs[0] / "study.json").is_file(),
           f"the installed study runner runs a study into the current directory: {study_dirs}")
    if study_dirs:
        done = run([sys.executable, str(share / "jobscripts/wave3d-study"), "report", str(study_dirs[0])], env, user)
        expect(done.returncode == 0 and (study_dirs[0] / "report/report.md").is_file(), "and reports it")

    if LMOD_INIT.is_file():
        script = (f"source {LMOD_INIT} && module use {prefix}/share/modulefiles && module load wave3d && "
                  "command -v wave3d && echo WAVE3D_ROOT=$WAVE3D_ROOT && wave3d --version")
        done = run(["bash", "-c", script], env, user)
        expect(done.returncode == 0 and f"{prefix}/bin/wave3d" in done.stdout and f"WAVE3D_ROOT={share}" in done.stdout,
               "module load wave3d puts the installation on PATH and sets WAVE3D_ROOT")
    else:
        expect(False, f"Lmod is not installed ({LMOD_INIT}): scripts/install-deps.sh installs Debian's lmod")

    consumer = work / "consumer"
    consumer.mkdir()
    (consumer / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(consumer NONE)\nfind_package(wave3d 0.1 REQUIRED)\n"
        "get_target_property(exe wave3d::wave3d IMPORTED_LOCATION_RELEASE)\n"
        "if(NOT exe)\n  get_target_property(exe wave3d::wave3d LOCATION)\nendif()\n"
        "message(STATUS \"wave3d=${exe} share=${WAVE3D_SHARE_DIR}\")\n")
    done = run([args.cmake, "-S", str(consumer), "-B", str(consumer / "build"), f"-DCMAKE_PREFIX_PATH={prefix}"],
               env, consumer)
    expect(done.returncode == 0 and f"wave3d={prefix}/bin/wave3d" in done.stdout and f"share={share}" in done.stdout,
           "find_package(wave3d) gives wave3d::wave3d and WAVE3D_SHARE_DIR of the installation")

    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("PASS")


if __name__ == "__main__":
    main()
