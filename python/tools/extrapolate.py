#!/usr/bin/env python3
"""Extrapolate wave3d's measured jitter to 10^2..10^6 ranks.

Bulk-synchronous steps wait for the slowest rank; with measured per-rank delays (from a run's steps.csv
or from detour traces) this predicts the step time at N ranks for uncoordinated and co-scheduled noise,
and, given one run with every core computing and one with a core reserved, the rank count from which
reserving the core wins. The model and its assumptions are in python/tools/README.md.

Exit codes: 0 on success, 2 for bad input (a missing, empty or malformed file; a bad option), 3 when
numpy or matplotlib cannot be imported.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # python/: the wave3d package

from wave3d.requirements import exit_unless_importable  # noqa: E402

exit_unless_importable("extrapolate.py")  # before anything imports numpy or matplotlib

from wave3d.analysis.errors import InputError, OptionError  # noqa: E402
from wave3d.analysis.extrapolation import extrapolate, rank_counts_for  # noqa: E402
from wave3d.analysis.loaders import STEP_QUANTITIES, load_run, load_traces  # noqa: E402
from wave3d.analysis.model import run_base_s, run_work_s, scenario_from_run, scenario_from_traces  # noqa: E402
from wave3d.analysis.report import format_report  # noqa: E402
from wave3d.option_types import non_negative_int, positive_float, positive_int  # noqa: E402

EXAMPLES = """examples:
  # one run's own step-time distribution, extrapolated (table on stdout)
  extrapolate.py --run results/runs/2024-...-vm-1234
  # every core computing under the daemon against a core reserved for it, with JSON and a plot
  extrapolate.py --all-cores runs/all-cores-daemon --reserved runs/reserved-daemon --output-dir out/
  # the daemon's burst log as the noise of the all-cores run (base step time from that run)
  extrapolate.py --all-cores runs/all-cores-daemon --all-cores-trace noise.tsv --reserved runs/reserved-daemon
  # detour traces of `wave3d noise --trace-dir` alone, 2 cores per rank, 8.5 ms steps
  extrapolate.py --trace traces/ --cores-per-rank 2 --step-ms 8.5
"""


def quantile(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"'{text}': must be between 0 and 1")
    return value


def build_parser():
    p = argparse.ArgumentParser(
        prog="extrapolate.py", description=__doc__.split("\n\n")[1], epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    inputs = p.add_argument_group("inputs (a run, or an all-cores/reserved pair, or traces with --step-ms)")
    inputs.add_argument("--run", metavar="DIR", help="a wave3d results directory (run.json + steps.csv)")
    inputs.add_argument("--all-cores", metavar="DIR", help="results directory of the run with every core computing")
    inputs.add_argument("--reserved", metavar="DIR", help="results directory of the run with a core reserved")
    inputs.add_argument("--trace", metavar="PATH", nargs="+", default=[],
                        help="detour trace files or directories (their *.tsv) to use as the noise of --run, or "
                             "alone with --step-ms")
    inputs.add_argument("--all-cores-trace", metavar="PATH", nargs="+", default=[],
                        help="detour traces to use as the noise of --all-cores instead of its step times")
    inputs.add_argument("--reserved-trace", metavar="PATH", nargs="+", default=[],
                        help="detour traces to use as the noise of --reserved instead of its step times")
    model = p.add_argument_group("model")
    model.add_argument("--step-time", choices=STEP_QUANTITIES, default="busy",
                       help="the step time whose spread is the noise: busy = total - wait - check (the rank's own "
                            "work and its noise), total = as recorded (default: %(default)s); the base step always "
                            "includes communication")
    model.add_argument("--base-quantile", type=quantile, default=0.5,
                       help="each rank's noise-free level is this quantile of its step times (default: "
                            "%(default)s, the median)")
    model.add_argument("--step-ms", type=positive_float,
                       help="noise-free step time in ms, all of it computation, for traces (default: from the run: "
                            "its busy time is what detours delay, its total time the base)")
    model.add_argument("--cores-per-rank", type=positive_int, default=1,
                       help="consecutive trace files that form one rank; its delay is the largest of its cores' "
                            "(default: %(default)s)")
    model.add_argument("--ranks", type=positive_int, nargs="+", default=[],
                       help="rank counts to add to 10^2..10^6 and the measured ones")
    check = p.add_argument_group("Monte Carlo check")
    check.add_argument("--monte-carlo-steps", type=non_negative_int, default=1000,
                       help="simulated steps per rank count, 0 to skip (default: %(default)s)")
    check.add_argument("--monte-carlo-max-ranks", type=positive_int, default=10_000,
                       help="simulate only rank counts up to this (default: %(default)s)")
    check.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    check.add_argument("--tail-resamples", type=non_negative_int, default=200,
                       help="bootstrap resamples of the tail model's intervals, 0 to leave the tail model out "
                            "(default: %(default)s)")
    out = p.add_argument_group("output (the table always goes to stdout)")
    out.add_argument("--json", metavar="FILE", help="write the full result as JSON")
    out.add_argument("--png", metavar="FILE", help="write the plot")
    out.add_argument("--output-dir", metavar="DIR",
                     help="write extrapolation.json and extrapolation.png into DIR (created if missing)")
    return p


def build_scenarios(args, parser):
    if args.run and (args.all_cores or args.reserved):
        parser.error("--run: give either --run or --all-cores/--reserved, not both")
    if (args.all_cores_trace and not args.all_cores) or (args.reserved_trace and not args.reserved):
        parser.error("--all-cores-trace/--reserved-trace: need the matching --all-cores/--reserved run")
    if args.trace and (args.all_cores or args.reserved):
        parser.error("--trace: goes with --run or --step-ms; use --all-cores-trace/--reserved-trace with the pair")

    def scenario(label, run_dir, trace_paths):
        run = load_run(run_dir) if run_dir else None
        if trace_paths:
            traces = load_traces(trace_paths)
            if args.step_ms:
                work = base = args.step_ms * 1e-3
            else:
                work, base = run_work_s(run, args.base_quantile), run_base_s(run, args.base_quantile)
            return scenario_from_traces(label, traces, work, base_s=base, cores_per_rank=args.cores_per_rank, run=run)
        return scenario_from_run(label, run, args.step_time, args.base_quantile)

    if args.all_cores or args.reserved:
        scenarios = []
        if args.all_cores:
            scenarios.append(scenario("all-cores", args.all_cores, args.all_cores_trace))
        if args.reserved:
            scenarios.append(scenario("reserved", args.reserved, args.reserved_trace))
        return scenarios
    if args.run:
        return [scenario("run", args.run, args.trace)]
    if args.trace:
        if not args.step_ms:
            parser.error("--trace without a run needs --step-ms (the noise-free step time)")
        return [scenario("trace", None, args.trace)]
    parser.error("nothing to extrapolate: give --run DIR, --all-cores DIR and --reserved DIR, "
                 "or --trace with --step-ms")
    return []


def write_outputs(result, args):
    json_path, png_path = args.json, args.png
    if args.output_dir:
        try:
            os.makedirs(args.output_dir, exist_ok=True)
        except OSError as e:
            raise InputError(args.output_dir, f"cannot create the output directory ({e.strerror})") from None
        json_path = json_path or os.path.join(args.output_dir, "extrapolation.json")
        png_path = png_path or os.path.join(args.output_dir, "extrapolation.png")
    written = []
    if json_path:
        try:
            with open(json_path, "w", encoding="utf-8") as f:
                json.dump(result, f, indent=1)
                f.write("\n")
        except OSError as e:
            raise InputError(json_path, f"cannot write ({e.strerror})") from None
        written.append(json_path)
    if png_path:
        from wave3d.analysis.plotting import plot_extrapolation  # matplotlib only when a plot is asked for

        try:
            plot_extrapolation(result, png_path)
        except OSError as e:
            raise InputError(png_path, f"cannot write ({e.strerror})") from None
        written.append(png_path)
    return written


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        scenarios = build_scenarios(args, parser)
        result = extrapolate(scenarios, rank_counts_for(scenarios, args.ranks), mc_steps=args.monte_carlo_steps,
                             mc_max_ranks=args.monte_carlo_max_ranks, seed=args.seed,
                             tail_resamples=args.tail_resamples)
        sys.stdout.write(format_report(result))
        for path in write_outputs(result, args):
            print(f"wrote {path}")
    except InputError as e:
        print(f"extrapolate.py: {e}", file=sys.stderr)
        return 2
    except OptionError as e:
        print(f"extrapolate.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
