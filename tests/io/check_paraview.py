#!/usr/bin/env python3
"""wave3d's field files as ParaView reads them: every XDMF sidecar opened with ParaView's own readers
(pvpython, both the XDMF 3 and the legacy XDMF reader), every frame compared with h5py.

Run A (2 ranks) writes snapshots and checkpoints; run B continues from A's middle checkpoint on 1 rank,
so its wavefield.xmf holds one series across the restart (A's frames, then B's). For A's wavefield.xmf,
A's checkpoints.xmf and B's wavefield.xmf, each reader must offer one time step per frame, at the
frame's time in seconds (the file's time attribute), on the grid's dimensions with the spacing in
metres from origin 0, and the values of the frame's dataset read with h5py, bitwise.
"""
import json
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import h5py
import numpy

from io_check_support import (Failures, arguments, environment, fresh_directory, run_ok, text_attribute,
                              wave3d_command)

GRID = (18, 14, 12)
SPACING = 10.0
STEPS, EVERY, CHECKPOINT_EVERY = 8, 2, 4
SETTINGS = [f"grid.n={','.join(map(str, GRID))}", "stencil.radius=2", "physics.dt=0.001",
            f"output.snapshot_every={EVERY}", f"checkpoint.every={CHECKPOINT_EVERY}"]


def frames_of(xmf):
    """(time, h5 path, dataset) of every frame the sidecar lists."""
    frames = []
    for grid in ElementTree.parse(xmf).getroot().iter("Grid"):
        if grid.get("GridType") != "Uniform":
            continue
        item = next(i for i in grid.iter("DataItem") if i.get("Format") == "HDF")
        file, dataset = item.text.strip().split(":")
        frames.append((float(grid.find("Time").get("Value")), xmf.parent / file, dataset.lstrip("/")))
    return frames


def check_sidecar(a, xmf, out_dir, failures):
    done = subprocess.run([a.pvpython, "--force-offscreen-rendering", str(pathlib.Path(__file__).with_name("paraview_read.py")),
                           str(xmf), str(out_dir)], capture_output=True, text=True, timeout=300,
                          env={**environment(), "QT_QPA_PLATFORM": "offscreen"})
    if not failures.check(done.returncode == 0, f"pvpython could not read {xmf}:\n{done.stdout}\n{done.stderr}"):
        return
    expected = frames_of(xmf)
    for reader in ("Xdmf3ReaderS", "XDMFReader"):
        seen = json.loads((out_dir / f"{reader}.json").read_text())["frames"]
        what = f"{xmf.name} with {reader}"
        if not failures.check(len(seen) == len(expected), f"{what}: {len(seen)} time steps, expected {len(expected)}"):
            continue
        for index, (frame, (time, h5, dataset)) in enumerate(zip(seen, expected)):
            with h5py.File(h5, "r") as f:
                values = f[dataset][...]
                file_time = float(f[dataset].attrs["time"])
                failures.check(text_attribute(f[dataset].attrs["time_units"]) == "s", f"{h5}: time_units")
            failures.check(frame["time"] == time == file_time,
                           f"{what}: frame {index} at {frame['time']} s; the sidecar says {time}, {h5.name} {file_time}")
            failures.check(frame["dimensions"] == list(GRID) and frame["spacing"] == [SPACING] * 3
                           and frame["origin"] == [0.0] * 3,
                           f"{what}: frame {index} grid {frame['dimensions']} spacing {frame['spacing']} "
                           f"origin {frame['origin']}")
            if not failures.check(dataset in frame["arrays"], f"{what}: frame {index} has arrays {frame['arrays']}"):
                continue
            shown = numpy.load(out_dir / f"{reader}_{index}_{dataset}.npy")
            # VTK's points run x fastest, as the [z][y][x] dataset does.
            failures.check(shown.dtype == values.dtype and numpy.array_equal(shown, values.reshape(-1)),
                           f"{what}: frame {index} ({h5.name}:/{dataset}) differs from h5py's values")
        print(f"{what}: {len(seen)} frames equal to h5py's")


def main():
    ap = arguments(__doc__)
    ap.add_argument("--pvpython", required=True)
    a = ap.parse_args()
    fresh_directory(a.results_dir)
    failures = Failures()
    A = run_ok(wave3d_command(a, 2, SETTINGS + [f"run.steps={STEPS}"], "A"), failures)
    if A is None:
        return failures.finish()
    a_dir = pathlib.Path(A["_directory"])
    start = a_dir / f"checkpoint_{CHECKPOINT_EVERY:06d}.h5"
    B = run_ok(wave3d_command(a, 1, SETTINGS + [f"run.steps={STEPS + 2 * EVERY}", f"restart.from={start}"], "B"),
               failures)
    if B is None:
        return failures.finish()
    b_dir = pathlib.Path(B["_directory"])
    sidecars = [(a_dir / "wavefield.xmf", STEPS // EVERY), (a_dir / "checkpoints.xmf", STEPS // CHECKPOINT_EVERY),
                (b_dir / "wavefield.xmf", (STEPS + 2 * EVERY) // EVERY)]
    for index, (xmf, frames) in enumerate(sidecars):
        failures.check(len(frames_of(xmf)) == frames, f"{xmf}: {len(frames_of(xmf))} frames, expected {frames}")
        check_sidecar(a, xmf, a.results_dir / f"paraview_{index}", failures)
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
