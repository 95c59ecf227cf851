"""The loaders on files from real runs (tests/analysis/data) and on broken ones."""

import json
import os
import shutil
import tempfile
import unittest

import numpy as np

import analysis_support  # noqa: F401
from analysis_support import DATA, write_file
from wave3d.analysis.errors import InputError
from wave3d.analysis.loaders import expand_trace_paths, load_run, load_trace, load_traces

ALL_CORES = os.path.join(DATA, "all-cores-daemon")
RESERVED = os.path.join(DATA, "reserved-daemon")
DAEMON_LOG = os.path.join(DATA, "all-cores-daemon.tsv")
TRACE_DIR = os.path.join(DATA, "traces")


class RealRun(unittest.TestCase):
    def test_shape_and_reported_figures(self):
        run = load_run(ALL_CORES)
        self.assertEqual(run.ranks, 2)
        self.assertEqual(run.phases["total"].shape, (2, len(run.steps)))
        self.assertEqual(run.steps[0], 1)  # step 0 (warm-up) dropped, as wave3d's jitter summary does
        self.assertEqual(len(run.per_step_max_s), len(run.steps))
        self.assertGreater(run.noise_amplification, 1.0)

    def test_steps_csv_reproduces_run_json_jitter(self):
        """Both files describe the same steps: per-step max/median and the amplification agree."""
        for directory in (ALL_CORES, RESERVED):
            with self.subTest(run=directory):
                run = load_run(directory)
                total = run.phases["total"]
                np.testing.assert_allclose(total.max(axis=0), run.per_step_max_s, rtol=1e-6)
                np.testing.assert_allclose(np.median(total, axis=0), run.per_step_median_s, rtol=1e-6)
                recomputed = total.max(axis=0).sum() / np.median(total, axis=0).sum()
                self.assertAlmostEqual(recomputed, run.noise_amplification, delta=1e-6)

    def test_busy_time_leaves_out_waiting_and_checks(self):
        run = load_run(ALL_CORES)
        busy, total = run.step_times("busy"), run.step_times("total")
        np.testing.assert_allclose(busy, total - run.phases["wait"] - run.phases["check"])
        self.assertTrue(np.all(busy <= total))
        self.assertTrue(np.all(busy > 0))


class RealTraces(unittest.TestCase):
    def test_daemon_log(self):
        trace = load_trace(DAEMON_LOG)
        with open(DAEMON_LOG, encoding="utf-8") as f:
            lines = [line for line in f if line.strip()]
        self.assertEqual(trace.count, len(lines))
        self.assertTrue(np.all(np.diff(trace.starts_ns) > 0))
        self.assertTrue(np.all(trace.durations_ns > 0))

    def test_trace_directory_in_cpu_order(self):
        files = expand_trace_paths([TRACE_DIR])
        self.assertGreaterEqual(len(files), 2)
        self.assertTrue(all(f.endswith(".tsv") for f in files))
        traces = load_traces([TRACE_DIR])
        self.assertEqual(len(traces), len(files))
        self.assertTrue(all(t.count > 0 for t in traces))


class TraceFormat(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wave3d-analysis-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_comments_header_blank_lines_and_daemon_summary_are_skipped(self):
        path = write_file(self.dir, "log.tsv", "# probe on cpu 3\nstart_ns\tduration_ns\n\n300\t20\n100\t10\n"
                                               "wave3d-noise: 2 bursts (spin), mean duration 0.000 ms\n")
        trace = load_trace(path)
        np.testing.assert_array_equal(trace.starts_ns, [100, 300])  # sorted by start
        np.testing.assert_array_equal(trace.durations_ns, [10, 20])

    def assert_bad(self, text, pattern):
        path = write_file(self.dir, "bad.tsv", text)
        with self.assertRaises(InputError) as caught:
            load_trace(path)
        self.assertRegex(str(caught.exception), pattern)
        self.assertIn(path, str(caught.exception))

    def test_malformed_lines_name_file_and_line(self):
        self.assert_bad("100\t10\n200 x\n", r"bad.tsv:2: expected 'start_ns<TAB>duration_ns'.*'200 x'")
        self.assert_bad("100\t10\t5\n", r"bad.tsv:1: expected")
        self.assert_bad("100\t-10\n", r"bad.tsv:1: expected")
        self.assert_bad("1.5e3\t10\n", r"bad.tsv:1: expected")

    def test_empty_trace(self):
        self.assert_bad("", r"bad.tsv: no detours")
        self.assert_bad("# only a comment\n\n", r"bad.tsv: no detours")

    def test_missing_trace_and_empty_directory(self):
        with self.assertRaisesRegex(InputError, "nope.tsv: no such file"):
            load_trace(os.path.join(self.dir, "nope.tsv"))
        with self.assertRaisesRegex(InputError, "holds no \\*.tsv files"):
            expand_trace_paths([self.dir])


class BrokenRuns(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="wave3d-analysis-")
        self.run = os.path.join(self.dir, "run")
        shutil.copytree(ALL_CORES, self.run)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def assert_bad(self, pattern):
        with self.assertRaises(InputError) as caught:
            load_run(self.run)
        self.assertRegex(str(caught.exception), pattern)

    def test_missing_directory(self):
        with self.assertRaisesRegex(InputError, "absent: not a directory"):
            load_run(os.path.join(self.dir, "absent"))

    def test_missing_files(self):
        os.remove(os.path.join(self.run, "steps.csv"))
        self.assert_bad(r"steps.csv: no such file \(the run needs output.steps_csv = true\)")
        os.remove(os.path.join(self.run, "run.json"))
        self.assert_bad(r"run.json: no such file")

    def test_run_json_without_jitter_or_not_json(self):
        path = os.path.join(self.run, "run.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        del doc["jitter"]
        write_file(self.run, "run.json", json.dumps(doc))
        self.assert_bad(r"run.json: no 'jitter' section")
        write_file(self.run, "run.json", "{\n  \"config\": \n")
        self.assert_bad(r"run.json:\d+: not valid JSON")

    def edit_steps(self, edit):
        path = os.path.join(self.run, "steps.csv")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        write_file(self.run, "steps.csv", "\n".join(edit(lines)) + "\n")

    def test_bad_number_names_line_and_column(self):
        def corrupt(lines):
            fields = lines[4].split(",")
            fields[lines[0].split(",").index("total")] = "fast"
            lines[4] = ",".join(fields)
            return lines
        self.edit_steps(corrupt)
        self.assert_bad(r"steps.csv:5: column 'total': 'fast' is not a number")

    def test_missing_row_and_short_row(self):
        self.edit_steps(lambda lines: lines[:5] + lines[6:])
        self.assert_bad(r"steps.csv: rank \d+ has no row for step \d+")
        shutil.copy(os.path.join(ALL_CORES, "steps.csv"), os.path.join(self.run, "steps.csv"))
        self.edit_steps(lambda lines: lines[:3] + ["0,2,0.1"] + lines[4:])
        with open(os.path.join(ALL_CORES, "steps.csv"), encoding="utf-8") as f:
            columns = len(f.readline().split(","))
        self.assert_bad(rf"steps.csv:4: 3 fields, the header has {columns}")

    def test_header_without_total(self):
        self.edit_steps(lambda lines: [lines[0].replace("total", "sum")] + lines[1:])
        self.assert_bad(r"steps.csv:1: header has no 'total' column")

    def test_rank_count_disagreeing_with_run_json(self):
        self.edit_steps(lambda lines: [line for line in lines if not line.startswith("1,")])
        self.assert_bad(r"steps.csv: has rows for 1 ranks but run.json says parallel.ranks = 2")


if __name__ == "__main__":
    unittest.main()
