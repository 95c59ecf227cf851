#!/usr/bin/env python3
"""Report a wave3d study directory: report.md, report.json and PNGs.

Reads study.json and every run's run.json and steps.csv (the layout is in python/tools/README.md) and
writes, by default into STUDY_DIR/report: a Markdown summary with one row per configuration (medians of the
repetitions with their spread), the runs left out, the saturation curve, paired findings, the jitter
extrapolation, and the plots it links to. Failed, timed-out and pending runs are listed, never counted; runs
whose placement audit says wrong are counted, listed, and every number that rests on them says so.

Exit codes: 0 on success, 2 for bad input (no study.json, a study.json of another format, an unreadable
run.json or steps.csv, a bad option), 3 when numpy or matplotlib cannot be imported.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # python/: the wave3d package

from wave3d.requirements import exit_unless_importable  # noqa: E402

exit_unless_importable("study_report.py")  # before anything imports numpy or matplotlib

from wave3d.analysis.errors import InputError  # noqa: E402
from wave3d.analysis.study import load_study  # noqa: E402
from wave3d.analysis.study_findings import DEFAULT_SATURATION_TOLERANCE  # noqa: E402
from wave3d.analysis.study_report import build_report, write_report  # noqa: E402


def tolerance(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0.0 <= value < 100.0:
        raise argparse.ArgumentTypeError(f"'{text}': must be a percentage from 0 to below 100")
    return value / 100.0


def build_parser():
    p = argparse.ArgumentParser(prog="study_report.py", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("study_dir", metavar="STUDY_DIR", help="a study directory (holds study.json)")
    p.add_argument("--output", metavar="DIR", help="where to write the report (default: STUDY_DIR/report)")
    p.add_argument("--saturation-tolerance", metavar="PERCENT", type=tolerance,
                   default=DEFAULT_SATURATION_TOLERANCE,
                   help="a line saturates at the fewest cores within this much of its best median "
                        f"(default: {100 * DEFAULT_SATURATION_TOLERANCE:g})")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    output = args.output or os.path.join(args.study_dir, "report")
    try:
        study = load_study(args.study_dir)
        report = build_report(study, args.saturation_tolerance)
        written = write_report(study, report, output)
    except InputError as e:
        print(f"study_report.py: {e}", file=sys.stderr)
        return 2
    runs = report["runs"]
    count = len(study.configurations)
    wrong = runs["placement"]["wrong"]
    placement = f" ({wrong} with a wrong placement)" if wrong else ""
    print(f"study {study.name}: {count} configuration{'' if count == 1 else 's'}, {runs['counted']} of "
          f"{runs['total']} runs count{placement}; wrote {len(written)} files to {output} (report.md, report.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
