"""report.csv beside report.md: one row per configuration with its parameters, the repetitions that count,
the median throughput and its bootstrap interval, and the ratio to the study's reference configuration with
its interval and verdict. Plain CSV with a fixed header, for a spreadsheet or a plot of one's own."""

import csv
import io
import json

FIXED = ["configuration", "ranks", "threads_per_rank", "repetitions", "mpoints_per_second_median",
         "mpoints_per_second_low", "mpoints_per_second_high", "reference_configuration", "ratio_to_reference",
         "ratio_low", "ratio_high", "ratio_paired", "verdict", "interval_level", "resamples"]


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, (list, dict, bool)):
        return json.dumps(value)
    return value


def format_csv(report):
    """The CSV text of a report document (study_report.build_report)."""
    names = [a["name"] for a in report["axes"]]
    for row in report["configurations"]:
        names += [n for n in row["parameters"] if n not in names]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIXED[:1] + names + FIXED[1:])
    for row in report["configurations"]:
        median = row["mpoints_per_second_interval"] or {}
        ratio = row["ratio_to_reference"] or {}
        values = [row["id"], *(row["parameters"].get(n) for n in names), row["ranks"], row["threads_per_rank"],
                  row["runs_ok"], median.get("estimate"), median.get("low"), median.get("high"),
                  report["reference_configuration"], ratio.get("estimate"), ratio.get("low"), ratio.get("high"),
                  ratio.get("paired"), ratio.get("verdict"), median.get("level"), median.get("resamples")]
        writer.writerow([_cell(v) for v in values])
    return out.getvalue()
