#!/usr/bin/env python3
"""Writes a good checkpoint with a 2-rank run, and bad restart files made from it, into --results-dir:
good.h5, truncated.h5 (the first half), corrupt_values.h5 (bytes of the 'current' values
overwritten), corrupt_header.h5 (the superblock overwritten), wavefield_000005.h5 (a snapshot, not a
checkpoint), checkpoint_000005.h5.tmp (a whole checkpoint under the name of an unpublished one) and an
empty directory."""
import shutil
import sys

import h5py

from io_check_support import Failures, arguments, fresh_directory, run_ok, wave3d_command


def overwrite(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def main():
    a = arguments(__doc__).parse_args()
    directory = a.results_dir
    fresh_directory(directory)
    failures = Failures()
    doc = run_ok(wave3d_command(a, 2, ["grid.n=24,20,16", "stencil.radius=2", "run.steps=5", "checkpoint.every=5",
                                       "output.snapshot_every=5"], "source"), failures)
    if doc is None:
        return failures.finish()
    source = directory / "runs" / "source"
    good = directory / "good.h5"
    shutil.copy(source / "checkpoint_000005.h5", good)
    shutil.copy(source / "wavefield_000005.h5", directory / "wavefield_000005.h5")
    size = good.stat().st_size
    shutil.copy(good, directory / "truncated.h5")
    with open(directory / "truncated.h5", "r+b") as f:
        f.truncate(size // 2)
    shutil.copy(good, directory / "corrupt_values.h5")
    with h5py.File(good, "r") as f:
        offset = f["current"].id.get_offset()
        middle = offset + f["current"].size * f["current"].dtype.itemsize // 2
    overwrite(directory / "corrupt_values.h5", middle, b"\x7f" * 16)
    shutil.copy(good, directory / "corrupt_header.h5")
    overwrite(directory / "corrupt_header.h5", 0, b"\x00garbage" * 8)
    shutil.copy(good, directory / "checkpoint_000005.h5.tmp")
    (directory / "empty").mkdir()
    for p in sorted(directory.iterdir()):
        print(p.name, p.stat().st_size if p.is_file() else "(directory)")
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
