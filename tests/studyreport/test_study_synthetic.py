"""study_report.py on synthetic study directories with chosen numbers: the medians and spreads of the table,
runs left out, the saturation points (and the tolerance option), the surplus-core finding, paired ratios,
a configuration without any good run, several pages of panels, and exit code 2 with one line for bad input."""

import json
import os
import shutil
import statistics
import tempfile
import unittest

from study_support import SyntheticStudy, done, is_png, load_json, read, report, write_json

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


class SurplusStudy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="wave3d-studyreport-")
        cls.study = make_surplus(os.path.join(cls.root, "surplus", "4242"))
        cls.done = report(cls.study)
        cls.out = os.path.join(cls.study, "report")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.json = load_json(os.path.join(self.out, "report.json"))
        self.md = read(os.path.join(self.out, "report.md"))
        self.rows = {c["id"]: c for c in self.json["configurations"]}

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
        self.assertIn("saturates at **4**", self.md)
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
            self.assertIn("uncoordinated", p["verdict"])
            self.assertIn(p["verdict"]["uncoordinated"], self.md)
        entries = self.json["extrapolation"]["configurations"]
        self.assertEqual(len(entries), 6)
        for e in entries:
            self.assertEqual([p["ranks"] for p in e["predictions"]], [1, 100, 1_000, 10_000, 100_000, 1_000_000])
            slowdowns = [p["slowdown"] for p in e["predictions"]]
            self.assertEqual(slowdowns, sorted(slowdowns))  # more ranks never make the slowest one faster

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

    def test_tolerance_option_moves_the_saturation_point(self):
        out = os.path.join(self.root, "tolerance")
        done = report(self.study, "--output", out, "--saturation-tolerance", "10")
        self.assertEqual(done.returncode, 0, done.stderr)
        sat = load_json(os.path.join(out, "report.json"))["saturation"]
        self.assertEqual(sat["tolerance"], 0.1)
        off = next(line for line in sat["lines"] if line["label"] == "daemon=off")
        self.assertEqual(off["saturation"]["cores"], 2)  # 92.5 >= 90 % of 99

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


class ManyConfigurations(unittest.TestCase):
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

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.json = load_json(os.path.join(self.out, "report.json"))
        self.md = read(os.path.join(self.out, "report.md"))

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
        study.doc["format"] = "wave3d-study/2"
        study.write()
        self.assert_one_line_error(report(self.dir), "study.json", "'wave3d-study/2'", "wave3d-study/1")

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

    def test_bad_tolerance(self):
        self.small_study().write()
        done = report(self.dir, "--saturation-tolerance", "120")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--saturation-tolerance", done.stderr)


if __name__ == "__main__":
    unittest.main()
