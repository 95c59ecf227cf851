"""extrapolate.py end to end on real runs and traces (tests/analysis/data), and its exit code 2 on bad input."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import analysis_support  # noqa: F401
from analysis_support import DATA, EXTRAPOLATE, write_file

ALL_CORES = os.path.join(DATA, "all-cores-daemon")
RESERVED = os.path.join(DATA, "reserved-daemon")
DAEMON_LOG = os.path.join(DATA, "all-cores-daemon.tsv")
TRACE_DIR = os.path.join(DATA, "traces")
QUICK = ["--monte-carlo-steps", "200", "--monte-carlo-max-ranks", "1000"]


def extrapolate(*args):
    return subprocess.run([sys.executable, EXTRAPOLATE, *args], capture_output=True, text=True, timeout=600)


class Outputs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wave3d-extrapolate-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_tail_model_and_intervals_in_the_json(self):
        out = os.path.join(self.dir, "x.json")
        done = extrapolate("--all-cores", ALL_CORES, "--reserved", RESERVED, "--monte-carlo-steps", "0",
                           "--tail-resamples", "30", "--json", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, encoding="utf-8") as f:
            result = json.load(f)
        self.assertEqual((result["format"], result["format_version"]), ("wave3d-extrapolation", 2))
        for entry in result["scenarios"]:
            tail = entry["tail"]
            self.assertEqual(tail["bootstrap"]["resamples"], 30)
            self.assertGreaterEqual(tail["supported_ranks"], 1)
            for p in tail["predictions"]:
                self.assertLessEqual(p["step_low_s"], p["step_high_s"])
                self.assertEqual(p["supported"], p["ranks"] <= tail["supported_ranks"])
        comparison = result["comparison"]["tail"]
        self.assertEqual((comparison["equal_ranks"]["unit"], comparison["equal_nodes"]["unit"]), ("ranks", "nodes"))
        self.assertEqual(comparison["ranks_per_node"], {"all_cores": 2, "reserved": 1})  # run.json placement
        self.assertIn("equal node count", done.stdout)
        self.assertIn(comparison["verdict"]["equal_ranks"], done.stdout)

    def test_help(self):
        done = extrapolate("--help")
        self.assertEqual(done.returncode, 0)
        for option in ("--all-cores", "--reserved", "--trace", "--cores-per-rank", "--output-dir"):
            self.assertIn(option, done.stdout)

    def test_all_cores_against_reserved_with_the_daemon_log(self):
        done = extrapolate("--all-cores", ALL_CORES, "--all-cores-trace", DAEMON_LOG, "--reserved", RESERVED,
                           "--output-dir", self.dir, *QUICK)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(ALL_CORES, "run.json"), encoding="utf-8") as f:
            jitter = json.load(f)["jitter"]
        measured = jitter["noise_amplification"]
        mean_step = sum(jitter["per_step_max_s"]) / len(jitter["per_step_max_s"])
        # The model at the run's own rank count beside what the run measured, with their difference.
        check = re.search(r"check at the run's 2 ranks: predicted amplification ([0-9.]+), measured ([0-9.]+) "
                          r"\(run.json noise_amplification\), relative difference ([-+][0-9.]+) %", done.stdout)
        self.assertIsNotNone(check, done.stdout)
        predicted = float(check.group(1))
        self.assertEqual(check.group(2), f"{measured:.3f}")
        self.assertAlmostEqual(float(check.group(3)), 100 * (predicted - measured) / measured, delta=0.1)
        self.assertRegex(done.stdout, r"mean step of the slowest rank at 2 ranks: predicted [0-9.]+ ms, measured "
                                      + re.escape(f"{1e3 * mean_step:.3f}") + " ms")
        self.assertRegex(done.stdout, r"reserving a core wins \(uncoordinated noise\): ")
        self.assertNotIn("DIFFERS", done.stdout)

        with open(os.path.join(self.dir, "extrapolation.json"), encoding="utf-8") as f:
            result = json.load(f)
        self.assertEqual([s["label"] for s in result["scenarios"]], ["all-cores", "reserved"])
        self.assertEqual(result["rank_counts"], [1, 2, 100, 1_000, 10_000, 100_000, 1_000_000])
        all_cores = result["scenarios"][0]
        self.assertAlmostEqual(all_cores["validation"]["measured_amplification"], measured, delta=1e-12)
        rows = all_cores["predictions"]
        steps = [r["uncoordinated_step_s"] for r in rows]
        self.assertEqual(steps, sorted(steps))  # more ranks never make the slowest one faster
        self.assertTrue(all(r["co_scheduled_step_s"] == rows[0]["co_scheduled_step_s"] for r in rows))
        self.assertTrue(all(r["monte_carlo"]["agrees"] for r in rows if r["monte_carlo"]))
        self.assertIn("uncoordinated", result["comparison"]["crossover_ranks"])
        with open(os.path.join(self.dir, "extrapolation.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_one_run_from_its_step_times(self):
        json_path = os.path.join(self.dir, "one.json")
        done = extrapolate("--run", ALL_CORES, "--ranks", "64", "--json", json_path, *QUICK)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("busy step time", done.stdout)
        with open(json_path, encoding="utf-8") as f:
            result = json.load(f)
        self.assertIn(64, result["rank_counts"])
        self.assertIsNone(result["comparison"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "extrapolation.png")))

    def test_trace_directory_alone(self):
        done = extrapolate("--trace", TRACE_DIR, "--step-ms", "5", *QUICK)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertRegex(done.stdout, r"2 detour trace files overlaid on 5.000 ms of computation per step")


class BadInput(unittest.TestCase):
    """Exit code 2 and one message that names the file (and line) or the option."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wave3d-extrapolate-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def assert_refused(self, args, pattern):
        done = extrapolate(*args)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertRegex(done.stderr, pattern)
        self.assertEqual(done.stdout, "")

    def test_missing_run(self):
        missing = os.path.join(self.dir, "no-such-run")
        self.assert_refused(["--run", missing], re.escape(missing) + r": not a directory")

    def test_malformed_trace_line(self):
        path = write_file(self.dir, "noise.tsv", "100\t10\n200\t10\n300\tten\n")
        self.assert_refused(["--trace", path, "--step-ms", "1"],
                            re.escape(path) + r":3: expected 'start_ns<TAB>duration_ns'")

    def test_empty_trace(self):
        path = write_file(self.dir, "empty.tsv", "")
        self.assert_refused(["--all-cores", ALL_CORES, "--all-cores-trace", path], re.escape(path) + ": no detours")

    def test_trace_without_step_time(self):
        self.assert_refused(["--trace", DAEMON_LOG], r"--trace without a run needs --step-ms")

    def test_cores_per_rank_that_does_not_divide_the_traces(self):
        self.assert_refused(["--trace", DAEMON_LOG, "--step-ms", "5", "--cores-per-rank", "2"],
                            r"--cores-per-rank 2: 1 trace files do not split")

    def test_conflicting_inputs_and_bad_values(self):
        self.assert_refused(["--run", ALL_CORES, "--all-cores", ALL_CORES], r"--run: give either")
        self.assert_refused(["--run", ALL_CORES, "--base-quantile", "2"], r"--base-quantile: .*between 0 and 1")
        self.assert_refused(["--trace", DAEMON_LOG, "--step-ms", "-1"], r"--step-ms: .*positive")
        self.assert_refused([], r"nothing to extrapolate")


if __name__ == "__main__":
    unittest.main()
