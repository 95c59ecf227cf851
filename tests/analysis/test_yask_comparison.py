"""What the comparison with YASK reads and computes (python/wave3d/yask_comparison.py): YASK's output lines,
its build and run command lines, wave3d's settings for the same points, and the bound and ratios of a
round."""

import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")))

from wave3d import yask_comparison as yc  # noqa: E402

# Lines as YASK's kernel prints them (a 2-thread run of iso3dfd, R = 8, single precision).
YASK_OUTPUT = """
 stencil-description:    iso3dfd radius 8
 element-size:           4B
 vector-size:            x=4 * y=4 * z=1
 auto-tuner: block-size:             t=0 * x=96 * y=28 * z=96
 auto-tuner: search-dist=16: 107.686 steps/sec (54 steps(s) in 501.456m secs) with size x=96 * y=28 * z=96
 auto-tuner: block-size:             t=0 * x=160 * y=48 * z=88
 throughput (num-points/sec):      1.80491G
 mid-throughput (num-reads/sec):   92.0503G
 mid-throughput (num-points/sec):  1.78052G
"""


class YaskOutput(unittest.TestCase):
    def test_the_median_trial_in_mpoints(self):
        self.assertAlmostEqual(yc.parse_yask_rate(YASK_OUTPUT), 1780.52)
        self.assertAlmostEqual(yc.parse_yask_rate(" mid-throughput (num-points/sec):  950.5M\n"), 950.5)

    def test_no_rate_is_an_error_showing_the_output(self):
        with self.assertRaisesRegex(yc.ComparisonError, "mid-throughput.*\n.*YASK error: bad option"):
            yc.parse_yask_rate("YASK error: bad option\n")

    def test_the_tuners_last_block(self):
        self.assertEqual(yc.parse_yask_tuned_blocks(YASK_OUTPUT), (160, 48, 88))
        with self.assertRaises(yc.ComparisonError):
            yc.parse_yask_tuned_blocks(" block-size: t=0 * x=96 * y=28 * z=96\n")

    def test_the_fold_of_its_vectors(self):
        self.assertEqual(yc.parse_yask_fold(YASK_OUTPUT), (4, 4, 1))
        self.assertIsNone(yc.parse_yask_fold(YASK_OUTPUT.replace("vector-size", "vector-shape")))

    def test_the_stencil_must_be_the_case(self):
        yc.check_yask_stencil(YASK_OUTPUT, 8, "single")
        with self.assertRaisesRegex(yc.ComparisonError, "radius 8 with 4-byte elements, not radius 4 in double"):
            yc.check_yask_stencil(YASK_OUTPUT, 4, "double")
        with self.assertRaisesRegex(yc.ComparisonError, "stencil-description"):
            yc.check_yask_stencil("nothing\n", 8, "single")


class Commands(unittest.TestCase):
    def test_target_from_cpu_flags(self):
        self.assertEqual(yc.yask_arch({"avx2", "fma", "avx512f"}), "avx512")
        self.assertEqual(yc.yask_arch({"avx2", "fma"}), "avx2")
        self.assertIsNone(yc.yask_arch({"sse4_2"}))

    def test_build_per_case_into_its_own_directory(self):
        command = yc.yask_build_command("/src/yask", "/work/yask-r4-double-avx2", "avx2", 4, "double", 2)
        for arg in ("stencil=iso3dfd", "arch=avx2", "radius=4", "real_bytes=8", "mpi=0",
                    "YASK_OUTPUT_DIR=/work/yask-r4-double-avx2"):
            self.assertIn(arg, command)
        self.assertEqual(yc.yask_binary("/work/b", "avx2"), Path("/work/b/bin/yask_kernel.iso3dfd.avx2.exe"))
        self.assertEqual(yc.arch_of_binary("/x/yask_kernel.iso3dfd.avx512.exe"), "avx512")
        self.assertEqual(yc.arch_of_binary("/x/my-yask"), "unknown")

    def test_a_fold_is_built_into_a_directory_of_its_own(self):
        command = yc.yask_build_command("/src/yask", "/w/b", "avx512", 8, "single", 2, (1, 1, 16))
        self.assertIn("fold=x=1,y=1,z=16", command)
        self.assertFalse(any(arg.startswith("fold=") for arg in
                             yc.yask_build_command("/src/yask", "/w/b", "avx512", 8, "single", 2)))
        self.assertEqual(yc.yask_build_name(8, "single", "avx512"), "yask-r8-single-avx512")
        self.assertEqual(yc.yask_build_name(8, "single", "avx512", (1, 1, 16)), "yask-r8-single-avx512-fold1x1x16")
        self.assertEqual([yc.vector_lanes(a, p) for a, p in (("avx512", "single"), ("avx512", "double"),
                                                              ("avx2", "single"), ("avx2", "double"))], [16, 8, 8, 4])

    def test_given_blocks_turn_the_tuner_off(self):
        tuned = yc.yask_run_command("y.exe", 256, 2, 48, 1)
        self.assertIn("-pre_auto_tune", tuned)
        fixed = yc.yask_run_command("y.exe", 256, 2, 48, 3, (96, 28, 80))
        text = " ".join(fixed)
        for part in ("-g 256", "-max_threads 2", "-outer_threads 2", "-num_trials 3", "-trial_steps 48",
                     "-bx 96 -by 28 -bz 80", "-no-pre_auto_tune", "-no-auto_tune"):
            self.assertIn(part, text)

    def test_wave3d_updates_the_same_points(self):
        settings = yc.wave3d_settings(256, 8, "double", 2, 48, Path("/w/blocking.json"))
        pairs = dict(s.split("=", 1) for s in settings[1::2])
        self.assertEqual(settings[0::2], ["--set"] * len(pairs))
        self.assertEqual(pairs["grid.n"], "272,272,272")  # 256 + 2R: the zero boundary's R layers stay fixed
        self.assertEqual(pairs["grid.boundary"], '"zero"')
        self.assertEqual(pairs["stencil.precision"], '"double"')
        self.assertEqual(json.loads(pairs["blocking.cache"]), "/w/blocking.json")


class TunedSettings(unittest.TestCase):
    TUNE_OUTPUT = """wave3d tune: 1 rank(s) x 2 thread(s), subdomain 272 x 272 x 272 (rank 0), kernel columns
  columns [0, 48, 8] x 4 steps per sweep, prefetch 2 rows ahead:    1454.7 MPoints/s (slowest rank), again

# config lines for these runs:
[stencil]
kernel = "columns"
[blocking]
size = [0, 48, 8]
steps = 4
prefetch_rows = 2
"""

    def test_the_config_lines_become_settings(self):
        settings = yc.tuned_settings(self.TUNE_OUTPUT)
        self.assertEqual(settings[0::2], ["--set"] * 4)
        self.assertEqual(settings[1::2], ['stencil.kernel="columns"', "blocking.size=0,48,8", "blocking.steps=4",
                                          "blocking.prefetch_rows=2"])

    def test_output_without_config_lines_is_an_error(self):
        with self.assertRaises(yc.ComparisonError):
            yc.tuned_settings("wave3d tune: something else\n")
        with self.assertRaises(yc.ComparisonError):
            yc.tuned_settings(yc.CONFIG_LINES_MARKER + "\n[blocking\nsize = \n")


class Rounds(unittest.TestCase):
    def round(self, triad_before, triad_after, yask, wave3d):
        return yc.Round(triad_before, triad_after, yask, yc.Wave3dRun(wave3d, "columns", [0, 64, 16], 1, 16, 3))

    def test_bound_from_the_mean_triad_and_the_bytes_per_point(self):
        r = self.round(60.0, 70.0, 1500.0, 3000.0)
        self.assertAlmostEqual(r.bound, 65.0 * 1000 / 16)
        self.assertAlmostEqual(r.ratio, 2.0)

    def test_medians_over_rounds(self):
        rounds = [self.round(64, 64, 1000, 2000), self.round(32, 32, 1000, 1000), self.round(64, 64, 2000, 3000)]
        s = yc.summary(rounds)
        self.assertEqual(s["rounds"], 3)
        self.assertAlmostEqual(s["yask_mpoints_per_second"], 1000)
        self.assertAlmostEqual(s["yask_fraction_of_bound"], 0.5)  # 1000/4000, 1000/2000, 2000/4000
        self.assertAlmostEqual(s["wave3d_fraction_of_bound"], 0.5)  # 2000/4000, 1000/2000, 3000/4000
        self.assertAlmostEqual(s["wave3d_over_yask"], 1.5)  # 2, 1, 1.5
        table = yc.format_table(rounds, {"radius": 8, "precision": "single", "grid": 256, "threads": 2, "steps": 48,
                                         "yask_arch": "avx512", "yask_blocks": [96, 28, 80],
                                         "yask_blocks_from": "given", "yask_trials": 3, "cache": "c.json"})
        self.assertRegex(table, r"median +1000 +0\.500 +2000 +0\.500 +1\.50")
        self.assertIn("columns, 0x64x16, prefetch 3, T 1", table)
        self.assertEqual(yc.Wave3dRun(1.0, "blocked", [0, 16, 16], 2, 16).kernel_text(), "blocked, 0x16x16, T 2")


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="wave3d-yask-"))

    def tearDown(self):
        for p in self.dir.iterdir():
            p.unlink()
        self.dir.rmdir()

    def test_a_run_that_did_not_complete_is_an_error(self):
        run = {"format": "wave3d-run", "format_version": 3, "status": "running"}
        (self.dir / "run.json").write_text(json.dumps(run))
        with self.assertRaisesRegex(yc.ComparisonError, "running"):
            yc.read_wave3d_run(self.dir)

    def test_the_triad_at_the_thread_count(self):
        doc = {"format": "wave3d-stream", "format_version": 2, "sweeps": {"first-touch": [
            {"threads": 1, "kernels": [{"kernel": "triad", "median_gbytes_per_second": 30.0}]},
            {"threads": 2, "kernels": [{"kernel": "copy", "median_gbytes_per_second": 50.0},
                                       {"kernel": "triad", "median_gbytes_per_second": 60.0}]}]}}
        path = self.dir / "s.json"
        path.write_text(json.dumps(doc))
        self.assertEqual(yc.read_triad(path, 2), 60.0)
        with self.assertRaisesRegex(yc.ComparisonError, "no first-touch triad at 4 threads"):
            yc.read_triad(path, 4)


if __name__ == "__main__":
    unittest.main()
