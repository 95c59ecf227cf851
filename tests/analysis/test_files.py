"""python/wave3d/files.py on its own: key paths, the renames of run.json version 2 read from older
files, and which format versions a reader accepts."""

import unittest

import analysis_support  # noqa: F401  (puts the wave3d package on the path)
from wave3d import files


class Lookup(unittest.TestCase):
    def test_dotted_paths_and_defaults(self):
        doc = {"metrics": {"mpoints_per_second": 12.5}}
        self.assertEqual(files.lookup(doc, files.MPOINTS_PER_SECOND), 12.5)
        self.assertIsNone(files.lookup(doc, files.VERIFICATION_STATUS))
        self.assertEqual(files.lookup(doc, "metrics.mpoints_per_second.deeper", "none"), "none")

    def test_renamed_keys_are_found_in_older_files(self):
        current = {"format": "wave3d-run", "format_version": 2, "metrics": {"loop_s": 3.0}}
        version_1 = {"format": "wave3d-run", "format_version": 1, "metrics": {"seconds": 2.0}}
        headerless = {"metrics": {"seconds": 1.0, "field_io_seconds": 0.5}}
        self.assertEqual(files.lookup(current, files.SECONDS), 3.0)
        self.assertEqual(files.lookup(version_1, files.SECONDS), 2.0)
        self.assertEqual(files.lookup(headerless, files.SECONDS), 1.0)
        self.assertEqual(files.lookup(headerless, files.FIELD_IO_SECONDS), 0.5)
        # A current file never falls back to an old name.
        self.assertIsNone(files.lookup({"format_version": 2, "metrics": {"seconds": 9.0}}, files.SECONDS))


class Formats(unittest.TestCase):
    def test_versions_a_reader_accepts(self):
        name, version = files.RUN_FORMAT
        self.assertIsNone(files.format_problem({"metrics": {}}))  # from before the header
        self.assertIsNone(files.format_problem({"format": name, "format_version": version}))
        self.assertIsNone(files.format_problem({"format": name, "format_version": 1}))
        self.assertIn("version", files.format_problem({"format": name, "format_version": version + 1}))
        self.assertIn("not 'wave3d-run'", files.format_problem({"format": "wave3d-bench", "format_version": 1}))
        self.assertIsNone(files.format_problem({"format": "wave3d-study/1"}, files.STUDY_FORMAT))
        self.assertIn("this reader knows version 2", files.format_problem({"format": "wave3d-iobench", "format_version": 1},
                                                             files.IOBENCH_FORMAT, files.IOBENCH_OLDEST))


class Completion(unittest.TestCase):
    def test_only_a_completed_run_has_results(self):
        self.assertIsNone(files.completion_problem({"status": "completed"}))
        self.assertIsNone(files.completion_problem({"metrics": {}}))  # from before the status key
        self.assertIn("the job ended before the run did", files.completion_problem({"status": "running"}))
        failed = {"status": "failed", "failure": {"rank": 3, "host": "n7", "message": "out of memory"}}
        self.assertEqual(files.completion_problem(failed), "status 'failed': rank 3 on n7: out of memory")


if __name__ == "__main__":
    unittest.main()
