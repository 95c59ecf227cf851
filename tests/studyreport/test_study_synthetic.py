"""study_report.py on synthetic study directories with chosen numbers: the medians and spreads of the table,
runs left out, the saturation points (and the tolerance option), the surplus-core finding, paired ratios,
a configuration without any good run, several pages of panels, the placement audit of the runs (all ok,
some wrong, not audited) and exit code 2 with one line for bad input."""

import json
import os
import shutil
import statistics
import tempfile
import unittest

from study_support import (SyntheticStudy, done, is_png, load_json, placement_ok, placement_problem, placement_wrong,
                           read, report, write_json)

SURPLUS_AXES = [("placement.compute_cores_per_socket", [1, 2, 4]), ("daemon.enabled", [False, True])]

# (cores per socket, daemon) -> runs. Left out: a verification failure, a timeout, a pending run, a failed run.
SURPLUS_RUNS = {
    (1, False): [done(50.0), done(52.0, verification="FAILED"), done(51.0)],
    (2, False): [done(90.0), done(95.0), ("timeout", None, {})],
    (4, False): [done(100.0), done(98.0), done(99.0)],
    (1, True): [done(48.0), done(49.0), ("pending", None, {})],
    (2, True): [done(92.0), done(96.0), done(94.0)],
    (4, True): [done(80.0), done(85.0), ("failed", None, {"exit_status": 1})],
}


def surplus_id(cores, daemon):
    return f"cores{cores}-daemon-{'on' if daemon else 'off'}"


def make_surplus(directory):
    study = SyntheticStudy(directory, "surplus", SURPLUS_AXES, 3)
    for (cores, daemon), runs in SURPLUS_RUNS.items():
        study.add(surplus_id(cores, daemon),
                  {"placement.compute_cores_per_socket": cores, "daemon.enabled": daemon}, runs,
                  threads=cores, reserved=4 - cores, daemon=daemon)
    return study.write()


def counted(runs):
    return [m for status, m, extra in runs if status == "done" and (extra or {}).get("verification") != "FAILED"]


class ReportedStudy(unittest.TestCase):
    """A synthetic study written to cls.root by setUpClass and reported once (cls.done, cls.out); each test
    starts from the report's JSON, Markdown and rows."""

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.json = load_json(os.path.join(self.out, "report.json"))
        self.md = read(os.path.join(self.out, "report.md"))
        self.rows = {c["id"]: c for c in self.json["configurations"]}


class SurplusStudy(ReportedStudy):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="wave3d-studyreport-")
        cls.study = make_surplus(os.path.join(cls.root, "surplus", "4242"))
        cls.done = report(cls.study)
        cls.out = os.path.join(cls.study, "report")

    def test_table_numbers_are_medians_of_the_runs_that_count(self):
        best = max(statistics.median(counted(r)) for r in SURPLUS_RUNS.values())
        for key, runs in SURPLUS_RUNS.items():
            row = self.rows[surplus_id(*key)]
            values = counted(runs)
            t = row["mpoints_per_second"]
            self.assertEqual(t["median"], statistics.median(values), key)
            self.assertEqual((t["min"], t["max"], t["count"]), (min(values), max(values), len(values)), key)
            self.assertAlmostEqual(t["spread_percent"], 100 * (max(values) - min(values)) / statistics.median(values))
            self.assertAlmostEqual(row["ratio_to_best"], statistics.median(values) / best)
            self.assertEqual((row["runs_ok"], row["runs_total"]), (len(values), 3), key)
            self.assertAlmostEqual(row["step_p99_ms_median"], 2.0)
            self.assertAlmostEqual(row["noise_amplification_median"], 1.0)
            self.assertAlmostEqual(row["halo_exposed_percent_median"], 25.0)
            self.assertEqual(row["verification"], "VERIFIED")
        self.assertEqual(self.json["best_configuration"], "cores4-daemon-off")
        self.assertEqual(self.json["runs"]["counted"], 14)
        self.assertEqual(self.json["runs"]["total"], 18)

    def test_median_repetition_is_a_measured_run(self):
        self.assertEqual(self.rows["cores2-daemon-on"]["median_repetition"], 3)  # 92, 96, 94
        self.assertEqual(self.rows["cores4-daemon-on"]["median_repetition"], 1)  # 80, 85: the lower one

    def test_left_out_runs_are_listed_with_why(self):
        reasons = {(r["configuration"], r["repetition"]): r["reason"] for r in self.json["left_out"]}
        self.assertEqual(set(reasons), {("cores1-daemon-off", 2), ("cores2-daemon-off", 3),
                                        ("cores1-daemon-on", 3), ("cores4-daemon-on", 3)})
        self.assertIn("verification FAILED", reasons[("cores1-daemon-off", 2)])
        self.assertEqual(reasons[("cores2-daemon-off", 3)], "timed out (stopped at the run time limit)")
        self.assertIn("pending", reasons[("cores1-daemon-on", 3)])
        self.assertEqual(reasons[("cores4-daemon-on", 3)], "failed (exit status 1)")
        for (cid, rep), reason in reasons.items():
            self.assertIn(f"`{cid}` rep {rep}", self.md)
            self.assertIn(reason, self.md)

    def test_saturation_points_per_daemon_line(self):
        sat = self.json["saturation"]
        self.assertEqual(sat["axis"], "placement.compute_cores_per_socket")
        self.assertEqual(sat["core_counts"], [1, 2, 4])
        lines = {line["label"]: line for line in sat["lines"]}
        self.assertEqual(set(lines), {"daemon=off", "daemon=on"})
        off, on = lines["daemon=off"], lines["daemon=on"]
        self.assertEqual((off["best"]["cores"], off["saturation"]["cores"]), (4, 4))  # 92.5 < 95 % of 99
        self.assertEqual((on["best"]["cores"], on["saturation"]["cores"]), (2, 2))
        self.assertAlmostEqual(on["saturation"]["fraction_of_best"], 1.0)
        # daemon off: 4 cores (98, 100, 99) are faster than 2 (90, 95) by the decision rule: still rising
        self.assertEqual(off["saturation_verdict"]["verdict"], "rising")
        self.assertEqual(off["saturation_verdict"]["last_step"]["ratio"]["verdict"], "faster")
        self.assertIn("**still rising** at its last point (4 against 2: faster", self.md)
        self.assertNotIn("saturates at **4**", self.md)
        # daemon on: 4 cores (80, 85) are slower than 2 (92, 96, 94): saturated at 2
        self.assertEqual(on["saturation_verdict"]["verdict"], "saturated")
        self.assertIn("saturates at **2**", self.md)
        self.assertTrue(is_png(os.path.join(self.out, "saturation.png")))

    def test_surplus_core_finding(self):
        lines = {line["label"]: line for line in self.json["saturation"]["lines"]}
        on = lines["daemon=on"]["surplus"]
        self.assertTrue(on["fewer_beat_all"])
        self.assertFalse(on["within_spread"])  # [92, 96] against [80, 85]
        self.assertEqual((on["fewer_cores"], on["all_cores"]), (2, 4))
        self.assertTrue(on["all_cores_is_machine"])
        self.assertAlmostEqual(on["gain_percent"], 100 * (94.0 / 82.5 - 1))
        self.assertFalse(lines["daemon=off"]["surplus"]["fewer_beat_all"])
        self.assertIn("surplus-core finding of the Lattice QCD study holds", self.md)

    def test_daemon_on_off_ratio_per_core_count(self):
        finding = next(f for f in self.json["findings"] if f["axis"] == "daemon.enabled")
        self.assertIs(finding["baseline"], False)
        ratios = {row["label"]: row["ratio"] for row in finding["rows"]}
        self.assertAlmostEqual(ratios["cores/socket=1"], 48.5 / 50.5)
        self.assertAlmostEqual(ratios["cores/socket=2"], 94.0 / 92.5)
        self.assertAlmostEqual(ratios["cores/socket=4"], 82.5 / 99.0)

    def test_reserved_cores_compared_with_the_model(self):
        reserved = self.json["extrapolation"]["reserved"]
        pairs = {(p["reserved"], p["all_cores"]) for p in reserved["pairs"]}
        self.assertEqual(pairs, {(surplus_id(c, d), surplus_id(4, d)) for c in (1, 2) for d in (False, True)})
        for p in reserved["pairs"]:
            for key in ("equal_ranks", "equal_nodes", "co_scheduled"):
                self.assertIn(p["verdict"][key], self.md)
            for key in ("equal_ranks", "equal_nodes"):
                c = p[key]
                self.assertLessEqual(c["supported_up_to"], 3)  # a few delays per configuration support little
                if c["crossover"] is not None and c["low"] is not None:
                    self.assertLessEqual(c["low"], c["crossover"])
        entries = self.json["extrapolation"]["configurations"]
        self.assertEqual(len(entries), 6)
        for e in entries:
            self.assertEqual([p["ranks"] for p in e["predictions"]], [1, 100, 1_000, 10_000, 100_000, 1_000_000])
            slowdowns = [p["slowdown"] for p in e["predictions"]]
            self.assertEqual(slowdowns, sorted(slowdowns))  # more ranks never make the slowest one faster
            for p in e["predictions"]:
                self.assertLessEqual(p["slowdown_low"], p["slowdown_high"])
                self.assertEqual(p["supported"], p["ranks"] <= e["supported_ranks"])

    def test_every_plot_is_a_png_and_linked(self):
        plots = self.json["plots"]
        names = [plots["throughput"], plots["saturation"], plots["extrapolation"], *plots["heatmaps"],
                 *plots["histograms"]]
        for name in names:
            self.assertTrue(is_png(os.path.join(self.out, name)), name)
            self.assertIn(f"]({name})", self.md)
        for cid in self.rows:
            self.assertIn(f"`{cid}`", self.md)
        self.assertEqual([n for n in os.listdir(self.out) if n.startswith(".")], [])  # no temporary files left

    def test_report_csv_has_a_row_per_configuration_with_intervals(self):
        import csv
        with open(os.path.join(self.out, "report.csv"), encoding="utf-8") as f:
            rows = {r["configuration"]: r for r in csv.DictReader(f)}
        self.assertEqual(set(rows), set(self.rows))
        reference = self.json["reference_configuration"]
        self.assertEqual(reference, "cores1-daemon-off")  # the study's first configuration with a result
        for cid, r in rows.items():
            values = counted(SURPLUS_RUNS[next(k for k in SURPLUS_RUNS if surplus_id(*k) == cid)])
            self.assertEqual(int(r["repetitions"]), len(values))
            self.assertAlmostEqual(float(r["mpoints_per_second_median"]), statistics.median(values))
            self.assertLessEqual(float(r["mpoints_per_second_low"]), float(r["mpoints_per_second_median"]))
            self.assertGreaterEqual(float(r["mpoints_per_second_high"]), float(r["mpoints_per_second_median"]))
            self.assertEqual(r["reference_configuration"], reference)
            self.assertIn(r["verdict"], ("faster", "slower", "not distinguishable"))
            self.assertEqual(r["placement.compute_cores_per_socket"], str(self.rows[cid]["parameters"][
                "placement.compute_cores_per_socket"]))
        self.assertEqual(rows["cores4-daemon-off"]["verdict"], "faster")  # 98-100 against 50-51
        self.assertEqual(rows["cores1-daemon-off"]["verdict"], "not distinguishable")  # itself

    def test_header_and_figures_name_the_runs(self):
        self.assertIn("| grid | not recorded |", self.md)  # the synthetic run.json has no config section
        self.assertIn("| T (time steps per sweep) | not recorded |", self.md)
        self.assertIn("Decision rule: A is faster than B when the 95 % bootstrap interval", self.md)
        self.assertEqual(self.json["format_version"], 2)

    def test_tolerance_option_moves_the_saturation_point(self):
        out = os.path.join(self.root, "tolerance")
        done = report(self.study, "--output", out, "--saturation-tolerance", "10")
        self.assertEqual(done.returncode, 0, done.stderr)
        sat = load_json(os.path.join(out, "report.json"))["saturation"]
        self.assertEqual(sat["tolerance"], 0.1)
        off = next(line for line in sat["lines"] if line["label"] == "daemon=off")
        self.assertEqual(off["saturation"]["cores"], 2)  # 92.5 >= 90 % of 99

    def test_runs_without_an_audit_are_not_audited(self):
        # run.json from a wave3d before the placement audit: neither ok nor wrong, and nothing marked
        for row in self.rows.values():
            self.assertEqual(row["placement"]["text"], "not audited", row["id"])
            self.assertFalse(row["placement"]["wrong"])
            for run in row["runs"]:
                self.assertEqual(run["placement_verdict"], "not audited" if run["status"] == "done" else None)
        self.assertEqual(self.json["runs"]["placement"], {"ok": 0, "wrong": 0, "not_audited": 14})
        self.assertEqual(self.json["placement_wrong_runs"], [])
        self.assertIn("| placement | not audited (run.json without a placement audit) |", self.md)
        self.assertIn("Not audited: no run that counts has a placement audit", self.md)
        self.assertNotIn("(placement wrong)", self.md)
        self.assertNotIn("No run had a wrong placement", self.md)

    def test_a_failing_report_leaves_the_previous_one(self):
        study = os.path.join(self.root, "copy")
        shutil.copytree(self.study, study)
        before = read(os.path.join(study, "report", "report.md"))
        with open(os.path.join(study, "runs", "cores2-daemon-on", "rep2", "run.json"), "w") as f:
            f.write('{"metrics": ')
        done = report(study)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(read(os.path.join(study, "report", "report.md")), before)
        self.assertEqual([n for n in os.listdir(os.path.join(study, "report")) if n.startswith(".")], [])


def table_row(md, cid):
    """The report.md table row of a configuration."""
    return next(line for line in md.splitlines() if line.startswith(f"| `{cid}` |"))


# (cores per socket, daemon) -> runs, with their placement audits. Not audited: cores1-daemon-on throughout and
# one run of cores2-daemon-on. Wrong: two runs of cores4-daemon-on (counted) and a run of cores1-daemon-off
# that fails verification (left out for that).
SHARED = placement_problem("shared-cpus",
                           message="ranks 0 and 1 share CPU 0 while CPU 1 is idle (mpirun --bind-to core)")
FLOATING = placement_problem("floating", cause="unbound", ranks=(1,), message="rank 1 thread 0 floats over CPUs 0-3")
NO_WORK = placement_problem("no-work", cause="blocking", ranks=(0,), message="rank 0 has 2 blocks for 4 threads")
PLACEMENT_RUNS = {
    (1, False): [done(50.0, placement=placement_ok()),
                 done(52.0, verification="FAILED", placement=placement_wrong(NO_WORK)),
                 done(51.0, placement=placement_ok())],
    (2, False): [done(90.0, placement=placement_ok()), done(95.0, placement=placement_ok()),
                 ("failed", None, {"exit_status": 2})],
    (4, False): [done(100.0, placement=placement_ok()), done(98.0, placement=placement_ok()),
                 done(99.0, placement=placement_ok())],
    (1, True): [done(48.0), done(49.0), done(47.0)],
    (2, True): [done(92.0, placement=placement_ok()), done(96.0), done(94.0, placement=placement_ok())],
    (4, True): [done(80.0, placement=placement_wrong(SHARED)), done(85.0, placement=placement_ok()),
                done(83.0, placement=placement_wrong(SHARED, FLOATING))],
}
WRONG = "cores4-daemon-on"


class SomePlacementsWrong(ReportedStudy):
    """A surplus study in which some runs' placement was wrong, some ok and some not audited."""

    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="wave3d-studyreport-placement-")
        study = SyntheticStudy(os.path.join(cls.root, "surplus", "11"), "surplus", SURPLUS_AXES, 3)
        for (cores, daemon), runs in PLACEMENT_RUNS.items():
            study.add(surplus_id(cores, daemon),
                      {"placement.compute_cores_per_socket": cores, "daemon.enabled": daemon}, runs,
                      threads=cores, reserved=4 - cores, daemon=daemon)
        cls.study = study.write()
        cls.done = report(cls.study)
        cls.out = os.path.join(cls.study, "report")

    def test_placement_column(self):
        expected = {"cores1-daemon-off": "ok", "cores2-daemon-off": "ok", "cores4-daemon-off": "ok",
                    "cores1-daemon-on": "not audited", "cores2-daemon-on": "ok in 2/3; 1 not audited",
                    WRONG: "wrong in 2/3: shared-cpus, floating"}
        for cid, text in expected.items():
            self.assertEqual(self.rows[cid]["placement"]["text"], text, cid)
            self.assertTrue(table_row(self.md, cid).endswith(f"| {text} |"), table_row(self.md, cid))
            self.assertEqual(self.rows[cid]["placement"]["wrong"], cid == WRONG)
        self.assertIn("| verification | placement |", self.md)
        placement = self.rows[WRONG]["placement"]
        self.assertEqual((placement["counted"], placement["ok"], placement["wrong_runs"], placement["not_audited"]),
                         (3, 1, 2, 0))
        verdicts = [(r["placement_verdict"], r["placement_problems"]) for r in self.rows[WRONG]["runs"]]
        self.assertEqual(verdicts, [("wrong", ["shared-cpus"]), ("ok", []), ("wrong", ["shared-cpus", "floating"])])
        self.assertEqual(self.json["runs"]["placement"], {"ok": 10, "wrong": 2, "not_audited": 4})
        self.assertIn("| placement | of the runs that count: 10 ok, 2 wrong, 4 not audited |", self.md)

    def test_wrong_runs_stay_in_the_medians(self):
        t = self.rows[WRONG]["mpoints_per_second"]
        self.assertEqual((t["median"], t["min"], t["max"], t["count"]), (83.0, 80.0, 85.0, 3))
        self.assertEqual(self.rows[WRONG]["runs_ok"], 3)
        self.assertEqual(self.json["runs"]["counted"], 16)
        self.assertIn("16 of 18 runs count (2 with a wrong placement)", self.done.stdout)
        left_out = {(r["configuration"], r["repetition"]) for r in self.json["left_out"]}
        self.assertEqual(left_out, {("cores1-daemon-off", 2), ("cores2-daemon-off", 3)})  # for other reasons

    def test_wrong_runs_are_listed_with_their_messages(self):
        listed = {(r["configuration"], r["repetition"]): r for r in self.json["placement_wrong_runs"]}
        self.assertEqual(set(listed), {(WRONG, 1), (WRONG, 3), ("cores1-daemon-off", 2)})
        self.assertEqual(listed[(WRONG, 3)]["kinds"], ["shared-cpus", "floating"])
        self.assertEqual([p["message"] for p in listed[(WRONG, 3)]["problems"]],
                         [SHARED["message"], FLOATING["message"]])
        self.assertEqual(listed[(WRONG, 3)]["problems"][1]["cause"], "unbound")
        self.assertTrue(listed[(WRONG, 1)]["counts"])
        self.assertFalse(listed[("cores1-daemon-off", 2)]["counts"])  # its verification failed
        self.assertIn("## Placement", self.md)
        self.assertIn(f"- `{WRONG}` rep 3 (`runs/{WRONG}/rep3`): shared-cpus, floating", self.md)
        self.assertIn(f"  - floating (cause: unbound; node01, rank 1): {FLOATING['message']}", self.md)
        self.assertIn(f"  - shared-cpus (cause: launcher; node01, ranks 0, 1): {SHARED['message']}", self.md)
        self.assertIn("- `cores1-daemon-off` rep 2 (`runs/cores1-daemon-off/rep2`): no-work "
                      "(not counted for another reason)", self.md)

    def test_ratio_to_best_says_so(self):
        for cid, row in self.rows.items():
            self.assertEqual(row["ratio_to_best_placement_wrong"], [WRONG] if cid == WRONG else [], cid)
            self.assertEqual("(placement wrong)" in table_row(self.md, cid), cid == WRONG, cid)
        self.assertIn(f"{83.0 / 99.0:.3f} (placement wrong)", table_row(self.md, WRONG))
        self.assertIn("best median (`cores4-daemon-off`)", self.md)

    def test_paired_ratios_say_so(self):
        finding = next(f for f in self.json["findings"] if f["axis"] == "daemon.enabled")
        marks = {row["label"]: row["placement_wrong"] for row in finding["rows"]}
        self.assertEqual(marks, {"cores/socket=1": [], "cores/socket=2": [], "cores/socket=4": [WRONG]})
        ratio = next(row["ratio"] for row in finding["rows"] if row["configuration"] == WRONG)
        self.assertAlmostEqual(ratio, 83.0 / 99.0)
        self.assertIn(f"| {ratio:.3f} (placement wrong) |", self.md)
        self.assertEqual(self.md.count(" (placement wrong) |"), 3)  # vs best, the paired ratio, the extrapolation

    def test_saturation_and_surplus_say_so(self):
        lines = {line["label"]: line for line in self.json["saturation"]["lines"]}
        on, off = lines["daemon=on"], lines["daemon=off"]
        self.assertEqual(on["placement_wrong"], [WRONG])
        self.assertEqual([p["placement_wrong"] for p in on["points"]], [[], [], [WRONG]])
        self.assertEqual((on["best"]["cores"], on["best"]["placement_wrong"]), (2, []))
        self.assertEqual(on["surplus"]["placement_wrong"], [WRONG])
        self.assertTrue(on["surplus"]["fewer_beat_all"])
        self.assertEqual((off["placement_wrong"], off["surplus"]["placement_wrong"]), ([], []))
        self.assertIn("4: 83.00 (placement wrong)", self.md)
        surplus_lines = [line for line in self.md.splitlines() if line.startswith("- daemon=")]
        self.assertEqual(["(placement wrong)" in line for line in surplus_lines], [False, True])
        self.assertIn(f"(placement wrong: `{WRONG}`)", self.md)  # the surplus verdict rests on it

    def test_extrapolation_and_reserved_cores_say_so(self):
        entries = {e["configuration"]: e["placement_wrong"] for e in self.json["extrapolation"]["configurations"]}
        self.assertEqual(entries, {cid: [WRONG] if cid == WRONG else [] for cid in self.rows})
        pairs = {(p["reserved"], p["all_cores"]): p["placement_wrong"]
                 for p in self.json["extrapolation"]["reserved"]["pairs"]}
        for (reserved, all_cores), marks in pairs.items():
            self.assertEqual(marks, [WRONG] if all_cores == WRONG else [], reserved)
        reserved_lines = [line for line in self.md.splitlines()
                          if line.startswith("- `cores") and "reserving wins" in line]
        self.assertEqual(len(reserved_lines), 4)
        for line in reserved_lines:
            self.assertEqual(line.endswith("(placement wrong)."), f"against `{WRONG}`" in line, line)


class AllPlacementsOk(unittest.TestCase):
    def test_nothing_is_marked(self):
        root = tempfile.mkdtemp(prefix="wave3d-studyreport-placement-ok-")
        self.addCleanup(shutil.rmtree, root)
        study = SyntheticStudy(root, "placement", [("run.init.policy", ["first-touch", "serial"])], 2)
        study.add("first-touch", {"run.init.policy": "first-touch"},
                  [done(10.0, placement=placement_ok()), done(11.0, placement=placement_ok())])
        study.add("serial", {"run.init.policy": "serial"},
                  [done(9.0, placement=placement_ok()), done(9.5, placement=placement_ok())])
        study.write()
        result = report(root)
        self.assertEqual(result.returncode, 0, result.stderr)
        doc = load_json(os.path.join(root, "report", "report.json"))
        md = read(os.path.join(root, "report", "report.md"))
        self.assertEqual([c["placement"]["text"] for c in doc["configurations"]], ["ok", "ok"])
        self.assertEqual(doc["runs"]["placement"], {"ok": 4, "wrong": 0, "not_audited": 0})
        self.assertEqual(doc["placement_wrong_runs"], [])
        self.assertEqual([r["placement_wrong"] for f in doc["findings"] for r in f["rows"]], [[]])
        self.assertIn("No run had a wrong placement.", md)
        self.assertIn("| placement | of the runs that count: 4 ok |", md)
        self.assertNotIn("placement wrong", md)


class ManyConfigurations(ReportedStudy):
    """16 configurations: two pages of panels; one without any good run; first-touch/serial and halo ratios."""

    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="wave3d-studyreport-")
        axes = [("placement.layout", ["rank-per-node", "rank-per-core"]),
                ("run.init.policy", ["first-touch", "serial"]), ("run.parallel.halo", ["bulk", "overlap"]),
                ("run.grid.n", [[64, 64, 64], [96, 96, 96]]), ("run.stencil.radius", [8])]
        study = SyntheticStudy(os.path.join(cls.root, "placement", "7"), "placement", axes, 1)
        cls.expected = {}
        index = 0
        for layout, ranks in (("rank-per-node", 1), ("rank-per-core", 2)):
            for policy in ("first-touch", "serial"):
                for halo in ("bulk", "overlap"):
                    for n in (64, 96):
                        index += 1
                        cid = f"{index:02d}"
                        mpoints = 10.0 * index
                        runs = [done(mpoints)]
                        if index == 6:  # rank-per-node serial bulk 96: its only run failed
                            runs, mpoints = [("failed", None, {"exit_status": 1})], None
                        cls.expected[cid] = mpoints
                        study.add(cid, {"placement.layout": layout, "run.init.policy": policy,
                                        "run.parallel.halo": halo, "run.grid.n": [n, n, n],
                                        "run.stencil.radius": 8}, runs, ranks=ranks, threads=3 - ranks, compute=2)
        cls.study = study.write()
        cls.done = report(cls.study)
        cls.out = os.path.join(cls.study, "report")

    def test_no_result_is_shown_not_invented(self):
        row = next(c for c in self.json["configurations"] if c["id"] == "06")
        self.assertIsNone(row["mpoints_per_second"])
        self.assertIsNone(row["ratio_to_best"])
        self.assertEqual(row["verification"], "no result")
        self.assertRegex(self.md, r"\| `06` \|[^\n]*\| no result \|")
        single = next(c for c in self.json["configurations"] if c["id"] == "01")
        self.assertIsNone(single["mpoints_per_second"]["spread_percent"])  # one run has no spread

    def test_labels_name_only_the_varying_axes(self):
        labels = {c["id"]: c["short_label"] for c in self.json["configurations"]}
        self.assertEqual(labels["01"], "layout=rank-per-node init=first-touch halo=bulk n=64,64,64")
        self.assertNotIn("radius", " ".join(labels.values()))
        self.assertIn("8 (fixed)", self.md)

    def test_one_core_count_is_one_line(self):
        sat = self.json["saturation"]
        self.assertEqual(sat["lines"], [])
        self.assertIsNone(self.json["plots"]["saturation"])
        self.assertIn("The study has one core count (2 compute cores per node): no saturation curve.", self.md)
        self.assertFalse(os.path.exists(os.path.join(self.out, "saturation.png")))
        self.assertIsNone(self.json["extrapolation"]["reserved"])

    def test_first_touch_over_serial_per_layout(self):
        finding = next(f for f in self.json["findings"] if f["axis"] == "run.init.policy")
        self.assertEqual(finding["baseline"], "serial")
        rows = {row["configuration"]: row for row in finding["rows"]}
        self.assertEqual(len(rows), 8)
        # 01 (first-touch) against 05 (serial), same layout, halo and grid
        self.assertEqual(rows["01"]["baseline_configuration"], "05")
        self.assertAlmostEqual(rows["01"]["ratio"], self.expected["01"] / self.expected["05"])
        self.assertIsNone(rows["02"]["ratio"])  # its serial partner 06 has no result
        halo = next(f for f in self.json["findings"] if f["axis"] == "run.parallel.halo")
        self.assertEqual(halo["baseline"], "bulk")
        self.assertEqual(len(halo["rows"]), 8)

    def test_panels_are_split_over_pages(self):
        plots = self.json["plots"]
        self.assertEqual(plots["heatmaps"], ["step_heatmap.png", "step_heatmap-2.png"])
        self.assertEqual(plots["histograms"], ["step_histograms.png", "step_histograms-2.png"])
        for name in plots["heatmaps"] + plots["histograms"]:
            self.assertTrue(is_png(os.path.join(self.out, name)))


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wave3d-studyreport-bad-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def assert_one_line_error(self, done, *fragments):
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        lines = done.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])
        self.assertEqual(done.stdout, "")

    def small_study(self):
        study = SyntheticStudy(self.dir, "small", [("daemon.enabled", [False, True])], 1)
        study.add("off", {"daemon.enabled": False}, [done(10.0)])
        study.add("on", {"daemon.enabled": True}, [done(9.0)], daemon=True)
        return study

    def test_no_study_json(self):
        self.assert_one_line_error(report(self.dir), os.path.join(self.dir, "study.json"), "no such file")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "report")))

    def test_not_a_directory(self):
        self.assert_one_line_error(report(os.path.join(self.dir, "missing")), "not a directory")

    def test_another_format(self):
        study = self.small_study()
        study.doc["format_version"] = 3
        study.write()
        self.assert_one_line_error(report(self.dir), "study.json", "'wave3d-study version 3'", "'wave3d-study' version 2")

    def test_earlier_one_word_format_is_read(self):
        study = self.small_study()
        study.doc["format"] = "wave3d-study/1"  # as study.json files written before the common header say
        del study.doc["format_version"], study.doc["command"]
        study.write()
        done = report(self.dir)
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_study_json_not_json(self):
        with open(os.path.join(self.dir, "study.json"), "w") as f:
            f.write("{\n  \"format\": \n")
        self.assert_one_line_error(report(self.dir), "study.json:3", "not valid JSON")

    def test_run_without_a_status(self):
        study = self.small_study()
        study.doc["runs"][0]["status"] = None
        study.write()
        self.assert_one_line_error(report(self.dir), "study.json", "runs[0] (off rep 1): 'status' = None")

    def test_running_interrupted_and_unknown_states_are_left_out(self):
        study = self.small_study()
        study.add("three", {"daemon.enabled": False}, [("running", None, {})])
        study.add("four", {"daemon.enabled": True}, [("interrupted", None, {"exit_status": -15})], daemon=True)
        study.add("five", {"daemon.enabled": True}, [("queued", None, {})], daemon=True)
        study.doc["runs"][-1]["error"] = "no node"
        study.write()
        done = report(self.dir)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(self.dir, "report", "report.json")) as f:
            reasons = {r["configuration"]: r["reason"] for r in json.load(f)["left_out"]}
        self.assertEqual(reasons, {
            "three": "running (the study was still running when the report was made)",
            "four": "interrupted (the job was stopped while it ran; exit status -15)",
            "five": "status 'queued' (not a state this report knows): no node"})

    def test_unreadable_run_json(self):
        self.small_study().write()
        path = os.path.join(self.dir, "runs", "on", "rep1", "run.json")
        with open(path, "w") as f:
            f.write("not json")
        self.assert_one_line_error(report(self.dir), path, "not valid JSON")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "report", "report.md")))

    def test_done_run_without_run_json(self):
        self.small_study().write()
        path = os.path.join(self.dir, "runs", "off", "rep1", "run.json")
        os.unlink(path)
        self.assert_one_line_error(report(self.dir), path, "no such file")

    def test_run_json_without_throughput(self):
        self.small_study().write()
        path = os.path.join(self.dir, "runs", "off", "rep1", "run.json")
        write_json(path, {"metrics": {"seconds": 1.0}})
        self.assert_one_line_error(report(self.dir), path, "metrics.mpoints_per_second")

    def test_unreadable_placement_audit(self):
        self.small_study().write()
        path = os.path.join(self.dir, "runs", "on", "rep1", "run.json")
        doc = load_json(path)
        doc["placement_audit"] = {"verdict": "fine", "problems": []}
        write_json(path, doc)
        self.assert_one_line_error(report(self.dir), path, "placement_audit.verdict = 'fine'")
        doc["placement_audit"] = {"verdict": "wrong", "problems": "shared-cpus"}
        write_json(path, doc)
        self.assert_one_line_error(report(self.dir), path, "placement_audit.problems is not a list")

    def test_bad_tolerance(self):
        self.small_study().write()
        done = report(self.dir, "--saturation-tolerance", "120")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--saturation-tolerance", done.stderr)


if __name__ == "__main__":
    unittest.main()
