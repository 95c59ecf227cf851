"""study_report.py on study directories made of real wave3d runs (make_study.py): a surplus-like study
(compute cores per socket 1 and 2, daemon off and on, a failed and a pending run) and a placement study
(1 rank x 2 threads and 2 ranks x 1 thread under mpiexec, first-touch and serial). Every number checked
is recomputed here from the run.json files, the placement column too; nothing depends on how fast the
machine is or how the runs were placed on it.

    test_study_real.py --wave3d BIN --noise BIN --mpiexec MPIEXEC [unittest options]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

from study_support import HERE, is_png, load_json, read, report

BINARIES = None  # set from the command line in __main__


def placement_text(documents):
    """The report's placement column, recomputed from the run.json files: whatever this wave3d's audit says
    of the placement on this machine (or "not audited" for a wave3d without the audit)."""
    audits = [d.get("placement_audit") for d in documents]
    wrong = [a for a in audits if a and a["verdict"] == "wrong"]
    unaudited = sum(a is None for a in audits)
    if unaudited == len(audits):
        return "not audited"
    rest = f"; {unaudited} not audited" if unaudited else ""
    if wrong:
        kinds = list(dict.fromkeys(p["kind"] for a in wrong for p in a["problems"]))
        return f"wrong in {len(wrong)}/{len(audits)}" + (f": {', '.join(kinds)}" if kinds else "") + rest
    return "ok" if not unaudited else f"ok in {len(audits) - unaudited}/{len(audits)}{rest}"


class RealStudies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="wave3d-studyreport-real-")
        made = subprocess.run([sys.executable, os.path.join(HERE, "make_study.py"), "--wave3d", BINARIES.wave3d,
                               "--noise", BINARIES.noise, "--mpiexec", BINARIES.mpiexec, "--out", cls.root],
                              capture_output=True, text=True, timeout=300)
        if made.returncode != 0:
            raise RuntimeError(f"make_study.py failed:\n{made.stdout}\n{made.stderr}")
        cls.surplus = os.path.join(cls.root, "surplus", "1")
        cls.placement = os.path.join(cls.root, "placement", "2")
        cls.reports = {path: report(path) for path in (cls.surplus, cls.placement)}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def outputs(self, study):
        done = self.reports[study]
        self.assertEqual(done.returncode, 0, done.stderr)
        out = os.path.join(study, "report")
        return load_json(os.path.join(out, "report.json")), read(os.path.join(out, "report.md")), out

    def measured(self, study):
        """Configuration id -> list of run.json documents of its done runs, from study.json."""
        doc = load_json(os.path.join(study, "study.json"))
        runs = {c["id"]: [] for c in doc["configurations"]}
        for r in doc["runs"]:
            if r["status"] == "done":
                runs[r["configuration"]].append(load_json(os.path.join(study, r["dir"], "run.json")))
        return doc, runs

    def check_table(self, study):
        result, md, out = self.outputs(study)
        doc, runs = self.measured(study)
        rows = {c["id"]: c for c in result["configurations"]}
        self.assertEqual(set(rows), set(runs))
        for cid, documents in runs.items():
            values = [d["metrics"]["mpoints_per_second"] for d in documents]
            t = rows[cid]["mpoints_per_second"]
            self.assertAlmostEqual(t["median"], statistics.median(values), places=9)
            self.assertAlmostEqual(t["min"], min(values), places=9)
            self.assertAlmostEqual(t["max"], max(values), places=9)
            p99 = statistics.median(d["jitter"]["step_time_p99_s"] for d in documents)
            self.assertAlmostEqual(rows[cid]["step_p99_ms_median"], 1e3 * p99, places=9)
            amplification = statistics.median(d["jitter"]["noise_amplification"] for d in documents)
            self.assertAlmostEqual(rows[cid]["noise_amplification_median"], amplification, places=9)
            self.assertEqual(rows[cid]["runs_ok"], len(documents))
            self.assertEqual(rows[cid]["verification"], "VERIFIED")
            self.assertEqual(rows[cid]["placement"]["text"], placement_text(documents), cid)
            self.assertIn(f"`{cid}`", md)
        plots = result["plots"]
        for name in [plots["throughput"], plots["extrapolation"], *plots["heatmaps"], *plots["histograms"]] + \
                ([plots["saturation"]] if plots["saturation"] else []):
            self.assertTrue(is_png(os.path.join(out, name)), name)
            self.assertIn(f"]({name})", md)
        return result, md, runs

    def ratio(self, runs, numerator, denominator):
        def median(cid):
            return statistics.median(d["metrics"]["mpoints_per_second"] for d in runs[cid])
        return median(numerator) / median(denominator)

    def test_surplus_study(self):
        result, md, runs = self.check_table(self.surplus)
        rows = {c["id"]: c for c in result["configurations"]}
        self.assertEqual({cid: (r["runs_ok"], r["runs_total"]) for cid, r in rows.items()},
                         {"01-cores1-daemon-off": (2, 2), "02-cores1-daemon-on": (1, 2),
                          "03-cores2-daemon-off": (2, 2), "04-cores2-daemon-on": (1, 2)})
        left_out = {(r["configuration"], r["repetition"]): r for r in result["left_out"]}
        self.assertEqual(set(left_out), {("02-cores1-daemon-on", 2), ("04-cores2-daemon-on", 2)})
        self.assertEqual(left_out[("02-cores1-daemon-on", 2)]["reason"], "failed (exit status 1)")
        self.assertIn("`02-cores1-daemon-on` rep 2 (`runs/02-cores1-daemon-on/rep2`): failed (exit status 1)", md)
        self.assertIn("`04-cores2-daemon-on` rep 2", md)
        self.assertIn("not finished", md)

        sat = result["saturation"]
        self.assertEqual(sat["core_counts"], [1, 2])
        lines = {line["label"]: line for line in sat["lines"]}
        self.assertEqual(set(lines), {"daemon=off", "daemon=on"})
        for line in lines.values():
            self.assertIn(line["saturation"]["cores"], (1, 2))
            self.assertIsNotNone(line["surplus"])
            self.assertEqual(line["surplus"]["all_cores"], 2)
        self.assertIn("### Surplus cores and the daemon", md)

        daemon = next(f for f in result["findings"] if f["axis"] == "daemon.enabled")
        ratios = {row["configuration"]: row["ratio"] for row in daemon["rows"]}
        self.assertAlmostEqual(ratios["02-cores1-daemon-on"], self.ratio(runs, "02-cores1-daemon-on",
                                                                         "01-cores1-daemon-off"))
        self.assertAlmostEqual(ratios["04-cores2-daemon-on"], self.ratio(runs, "04-cores2-daemon-on",
                                                                         "03-cores2-daemon-off"))
        pairs = {(p["reserved"], p["all_cores"]): p for p in result["extrapolation"]["reserved"]["pairs"]}
        self.assertEqual(set(pairs), {("01-cores1-daemon-off", "03-cores2-daemon-off"),
                                      ("02-cores1-daemon-on", "04-cores2-daemon-on")})
        for p in pairs.values():
            # The crossover at equal rank and at equal node count, each with its interval, as the report says.
            self.assertIn(p["verdict"]["equal_ranks"], md)
            self.assertIn(p["verdict"]["equal_nodes"], md)

    def test_placement_study(self):
        result, md, runs = self.check_table(self.placement)
        self.assertIn("The study has one core count (2 compute cores per node): no saturation curve.", md)
        policy = next(f for f in result["findings"] if f["axis"] == "run.init.policy")
        ratios = {row["label"]: row["ratio"] for row in policy["rows"]}
        self.assertAlmostEqual(ratios["layout=rank-per-node"],
                               self.ratio(runs, "01-rank-per-node-first-touch", "02-rank-per-node-serial"))
        self.assertAlmostEqual(ratios["layout=rank-per-core"],
                               self.ratio(runs, "03-rank-per-core-first-touch", "04-rank-per-core-serial"))
        entries = {e["configuration"]: e for e in result["extrapolation"]["configurations"]}
        two_ranks = entries["03-rank-per-core-first-touch"]
        self.assertEqual(two_ranks["ranks"], 2)
        measured = runs["03-rank-per-core-first-touch"][0]["jitter"]["noise_amplification"]
        self.assertAlmostEqual(two_ranks["validation"]["measured_amplification"], measured, places=12)
        self.assertIsNotNone(two_ranks["validation"]["predicted_amplification"])
        self.assertIsNone(result["extrapolation"]["reserved"])  # every configuration computes on all cores
        self.assertIn("placement.layout=rank-per-socket", md)  # the excluded combination


if __name__ == "__main__":
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--wave3d", required=True)
    parser.add_argument("--noise", required=True)
    parser.add_argument("--mpiexec", required=True)
    BINARIES, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
