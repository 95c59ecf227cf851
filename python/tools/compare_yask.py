#!/usr/bin/env python3
"""wave3d's kernel beside YASK's iso3dfd on this node, in one run: rounds of the STREAM triad, YASK and
wave3d run, each round's rates against the triad bound measured around them, and wave3d's rate over
YASK's.

YASK (github.com/intel/yask) is the public stencil framework with vector folding, wave-front tiling and
an auto-tuner. Give it as a source checkout (--yask; its iso3dfd is built with g++ for the case, into
the work directory) or as a built binary (--yask-binary). Each code runs one time step at a time unless
told otherwise (YASK's wave-front tiling with --yask-wavefront, wave3d's temporal blocking with
--sweep-steps). Each code's blocks are chosen once by its own tuner before the rounds (YASK's
auto-tuner, `wave3d tune`); in the rounds each runs the blocks its tuner chose (wave3d the config lines
`wave3d tune` printed). The rounds alternate which code runs first, so that a drift of the machine
weighs on both.

Exit codes: 0 on success, 1 when a process fails or writes what cannot be read, 2 for a bad option.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # python/: the wave3d package

from wave3d import files  # noqa: E402
from wave3d import yask_comparison as yc  # noqa: E402
from wave3d.option_types import positive_float, positive_int  # noqa: E402

EXAMPLES = """examples:
  # R = 8, single precision, 256^3 points, 2 threads, 3 rounds (YASK built from a checkout)
  compare_yask.py --yask ~/src/yask --wave3d build/release/app/wave3d
  # YASK with wave3d's layout (16 consecutive x in a vector) instead of its default 4 x 4 fold
  compare_yask.py --yask ~/src/yask --yask-fold 1,1,16
  # both codes with temporal blocking: YASK's wave front of 8 steps over 64 x 64 mega-blocks, wave3d's T chosen
  compare_yask.py --yask ~/src/yask --yask-wavefront 8,64,64 --sweep-steps auto
  # double precision at R = 4 with a YASK binary built before, its blocks given, JSON beside the table
  compare_yask.py --yask-binary ~/yask-r4/bin/yask_kernel.iso3dfd.avx512.exe --yask-blocks 96,28,80 \\
      --radius 4 --precision double --json yask-r4.json
"""


def integer_triple(text):
    """The three integers of "a,b,c", or None."""
    try:
        values = tuple(int(p) for p in text.split(","))
    except ValueError:
        return None
    return values if len(values) == 3 else None


def block_sizes(text):
    sizes = integer_triple(text)
    if sizes is None or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': three positive integers x,y,z wanted")
    return sizes


def wavefront(text):
    values = integer_triple(text)
    if values is None or values[0] < 2 or min(values) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': T,X,Y wanted: T >= 2 steps per mega-block, X and Y positive")
    return values


def sweep_steps(text):
    if text == "auto":
        return text
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}': a positive count of time steps per sweep, or auto")
    return str(value)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    yask = parser.add_mutually_exclusive_group(required=True)
    yask.add_argument("--yask", type=Path, help="a YASK source checkout: iso3dfd is built for the case (g++, no MPI)")
    yask.add_argument("--yask-binary", type=Path,
                      help="a built YASK iso3dfd kernel (bin/yask_kernel.iso3dfd.<arch>.exe)")
    parser.add_argument("--wave3d", default="wave3d", help="the wave3d executable (default: wave3d on PATH)")
    parser.add_argument("--grid", type=positive_int, default=256, help="points updated per axis (default 256)")
    parser.add_argument("--radius", type=int, choices=yc.RADII, default=8, help="stencil radius R (default 8)")
    parser.add_argument("--precision", choices=sorted(yc.PRECISIONS), default="single", help="(default single)")
    parser.add_argument("--threads", type=positive_int, default=os.cpu_count() or 1,
                        help="OpenMP threads of every process (default: the CPUs, %(default)s here)")
    parser.add_argument("--steps", type=positive_int, default=48,
                        help="time steps per run and per YASK trial (default 48)")
    parser.add_argument("--rounds", type=positive_int, default=3,
                        help="rounds of triad, YASK, wave3d, triad (default 3)")
    parser.add_argument("--yask-trials", type=positive_int, default=3,
                        help="YASK trials per round, the median kept (default 3)")
    parser.add_argument("--yask-blocks", type=block_sizes, help="YASK's block x,y,z (default: its auto-tuner's choice)")
    parser.add_argument("--yask-fold", type=block_sizes, metavar="X,Y,Z",
                        help="with --yask: build YASK with each vector holding X x Y x Z points (its z is the "
                             "unit-stride axis; 1,1,16 is wave3d's layout in single precision with AVX-512) "
                             "instead of its default fold")
    parser.add_argument("--yask-wavefront", type=wavefront, metavar="T,X,Y",
                        help="YASK's wave-front tiling: T steps over each mega-block of X by Y whole rows (its "
                             "-Mbt, -Mbx, -Mby; e.g. 8,64,64); default one step at a time")
    parser.add_argument("--sweep-steps", type=sweep_steps, default="1", metavar="T",
                        help="wave3d's time steps per sweep (blocking.steps: a count or auto; default 1)")
    parser.add_argument("--array-mib", type=positive_int,
                        help="MiB per array of the triad measured around each round (default: wave3d stream's, "
                             "4x the last-level cache, at least 64)")
    parser.add_argument("--tune-seconds", type=positive_float, default=10.0,
                        help="wave3d tune --seconds before the rounds (default 10)")
    parser.add_argument("--work-dir", type=Path, default=Path("compare-yask"),
                        help="YASK builds, wave3d runs, triad files and logs (default ./compare-yask)")
    parser.add_argument("--timeout", type=positive_float, default=1800.0,
                        help="seconds any one process may take (default 1800)")
    parser.add_argument("--json", type=Path, help="also write the rounds and their medians to this JSON file")
    return parser.parse_args(argv)


class OptionError(yc.ComparisonError):
    """An option names what is not there (exit status 2)."""


class Runner:
    """Starts the comparison's processes with the same thread binding, logging each one's output."""

    def __init__(self, work_dir, timeout):
        self.work_dir = work_dir
        self.timeout = timeout
        self.env = dict(os.environ)
        # The binding wave3d's benchmarks document; a binding the user set is kept.
        self.env.setdefault("OMP_PROC_BIND", "close")
        self.env.setdefault("OMP_PLACES", "cores")

    def run(self, name, command, extra_env=None):
        """The process's output (stdout and stderr); ComparisonError if it fails or outlasts the timeout."""
        log = self.work_dir / f"{name}.log"
        env = dict(self.env, **(extra_env or {}))
        try:
            done = subprocess.run([str(c) for c in command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, env=env, timeout=self.timeout)
        except subprocess.TimeoutExpired as e:
            log.write_text(e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""))
            raise yc.ComparisonError(f"{name}: no end after {self.timeout:.0f} s (--timeout); its output is in "
                                     f"{log}") from None
        except OSError as e:
            raise yc.ComparisonError(f"{name}: cannot start {command[0]}: {e}") from None
        log.write_text(done.stdout)
        if done.returncode != 0:
            tail = "\n".join(done.stdout.strip().splitlines()[-15:])
            raise yc.ComparisonError(f"{name}: exit status {done.returncode} ({log}); its end:\n{tail}")
        return done.stdout


def cpu_flags():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def built_yask(args, runner):
    """The YASK binary for the case: the one given, or iso3dfd built from the checkout (once per case)."""
    if args.yask_binary:
        if args.yask_fold is not None:
            raise OptionError("--yask-fold: a fold is chosen when YASK is built (--yask); a given --yask-binary "
                              "keeps its own")
        if not args.yask_binary.is_file():
            raise OptionError(f"--yask-binary: {args.yask_binary} is not a file")
        return args.yask_binary.resolve(), yc.arch_of_binary(args.yask_binary)
    if not (args.yask / "src" / "stencils").is_dir():
        raise OptionError(f"--yask: {args.yask} is not a YASK checkout (no src/stencils)")
    arch = yc.yask_arch(cpu_flags())
    if arch is None:
        raise yc.ComparisonError("this CPU has neither AVX-512F nor AVX2 with FMA: no YASK target to build")
    fold = args.yask_fold
    if fold is not None and fold[0] * fold[1] * fold[2] != yc.vector_lanes(arch, args.precision):
        raise OptionError(f"--yask-fold {','.join(map(str, fold))}: x * y * z must be "
                          f"{yc.vector_lanes(arch, args.precision)}, the points of one {arch} vector in "
                          f"{args.precision} precision")
    name = yc.yask_build_name(args.radius, args.precision, arch, fold)
    output = (args.work_dir / name).resolve()
    binary = yc.yask_binary(output, arch)
    if not binary.is_file():
        command = yc.yask_build_command(args.yask.resolve(), output, arch, args.radius, args.precision,
                                        os.cpu_count() or 1, fold)
        print(f"building YASK iso3dfd: {' '.join(command)}", flush=True)
        runner.run(name.replace("yask-", "yask-build-", 1), command)
        if not binary.is_file():
            raise yc.ComparisonError(f"the YASK build ended without {binary}")
    return binary, arch


def compare(args):
    args.work_dir.mkdir(parents=True, exist_ok=True)
    if shutil.which(args.wave3d) is None:
        raise OptionError(f"--wave3d: {args.wave3d} is not an executable")
    runner = Runner(args.work_dir, args.timeout)
    binary, arch = built_yask(args, runner)
    yask_env = {"LD_LIBRARY_PATH": ":".join(filter(None, [str(yc.yask_library_dir(binary)),
                                                           os.environ.get("LD_LIBRARY_PATH")]))}
    blocks, blocks_from = args.yask_blocks, "given"
    if blocks is None:
        print("YASK's auto-tuner choosing its blocks ...", flush=True)
        out = runner.run("yask-tune", yc.yask_run_command(binary, args.grid, args.threads, args.steps, 1,
                                                           wavefront=args.yask_wavefront), yask_env)
        yc.check_yask_stencil(out, args.radius, args.precision)
        blocks, blocks_from = yc.parse_yask_tuned_blocks(out), "its auto-tuner"
    cache = (args.work_dir / "blocking.json").resolve()
    settings = yc.wave3d_settings(args.grid, args.radius, args.precision, args.threads, args.steps, cache,
                                  args.sweep_steps)
    print(f"wave3d tune --seconds {args.tune_seconds:g} ...", flush=True)
    chosen = yc.tuned_settings(runner.run("wave3d-tune", [args.wave3d, "tune", "--seconds", args.tune_seconds] + settings))
    runs = (args.work_dir / "runs").resolve()

    def triad(name):
        path = args.work_dir / f"{name}.json"
        sized = ["--array-mib", args.array_mib] if args.array_mib else []
        runner.run(name, [args.wave3d, "stream", "--threads", args.threads, "--init", "first-touch", "--json", path]
                   + sized)
        return yc.read_triad(path, args.threads)

    folds = []  # what each round's YASK said its vectors hold

    def yask(i):
        out = runner.run(f"yask-round-{i}", yc.yask_run_command(binary, args.grid, args.threads, args.steps,
                                                                 args.yask_trials, blocks, args.yask_wavefront),
                         yask_env)
        yc.check_yask_stencil(out, args.radius, args.precision)
        folds.append(yc.parse_yask_fold(out))
        return yc.parse_yask_rate(out)

    def wave3d(i):
        name = f"round-{i}"
        shutil.rmtree(runs / name, ignore_errors=True)
        runner.run(f"wave3d-{name}", [args.wave3d, "run"] + settings + chosen +
                   ["--set", f"output.directory={json.dumps(str(runs))}", "--set", f'output.name="{name}"'])
        return yc.read_wave3d_run(runs / name)

    rounds = []
    for i in range(1, args.rounds + 1):
        before = triad(f"triad-{i}-before")
        if i % 2:
            yask_rate = yask(i)
            wave3d_run = wave3d(i)
        else:
            wave3d_run = wave3d(i)
            yask_rate = yask(i)
        rounds.append(yc.Round(before, triad(f"triad-{i}-after"), yask_rate, wave3d_run))
        print(f"round {i} of {args.rounds}: YASK {yask_rate:.0f}, wave3d {wave3d_run.mpoints_per_second:.0f} MPoints/s",
              flush=True)
    case = {"grid": args.grid, "radius": args.radius, "precision": args.precision, "threads": args.threads,
            "steps": args.steps, "yask_binary": str(binary), "yask_arch": arch, "yask_blocks": list(blocks),
            "yask_blocks_from": blocks_from, "yask_trials": args.yask_trials, "cache": str(cache),
            "yask_wavefront": list(args.yask_wavefront) if args.yask_wavefront else None,
            "yask_fold": list(folds[0]) if folds and folds[0] else None,
            "wave3d_sweep_steps": args.sweep_steps,
            "omp_proc_bind": runner.env["OMP_PROC_BIND"], "omp_places": runner.env["OMP_PLACES"]}
    print()
    print(yc.format_table(rounds, case), end="")
    if args.json:
        files.write_json_atomically(args.json, yc.document(rounds, case))


def main(argv=None):
    args = parse_args(argv)
    try:
        compare(args)
    except yc.ComparisonError as e:
        print(f"compare_yask.py: error: {e}", file=sys.stderr)
        return 2 if isinstance(e, OptionError) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
