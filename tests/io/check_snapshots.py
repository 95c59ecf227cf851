#!/usr/bin/env python3
"""Snapshots of a real run, read back with h5py, h5dump and as XDMF.

Runs wave3d on --ranks ranks with output.snapshot_every, and a reference run on 1 rank (other halo mode
and thread count). For every snapshot: the file and no temporary left; its attributes (format, step,
time, dt, spacing, stencil radius, grid, precision, boundary, the resolved config and the provenance as
JSON); the dataset's shape [z][y][x], type and time level; its
dimension scales (labels z, y, x, coordinates in metres); its values bitwise equal to the reference
run's; `h5dump -H` reads it. The last snapshot's norm equals run.json's l2_norm. The XDMF sidecar
lists every snapshot with the right dimensions and times, pointing at files that exist. steps.csv has
an io time exactly on the snapshot steps.
"""
import csv
import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import h5py
import numpy

from io_check_support import Failures, arguments, fresh_directory, run_ok, text_attribute, wave3d_command

GRID = (32, 24, 20)
STEPS, EVERY, DT = 12, 4, 0.001
SETTINGS = [f"grid.n={','.join(map(str, GRID))}", "stencil.radius=4", f"run.steps={STEPS}",
            f"output.snapshot_every={EVERY}", f"physics.dt={DT}"]


def check_file(f, path, step, failures):
    attrs = {k: f.attrs[k] for k in f.attrs}
    expected = {"format": "wave3d-snapshot", "precision": "single", "boundary": "periodic"}
    for key, want in expected.items():
        failures.check(text_attribute(attrs.get(key, b"")) == want, f"{path}: attribute {key} = {attrs.get(key)!r}")
    failures.check(int(attrs["format_version"]) == 1, f"{path}: format_version {attrs['format_version']}")
    failures.check(int(attrs["step"]) == step, f"{path}: step {attrs['step']}, expected {step}")
    failures.check(float(attrs["time"]) == step * DT, f"{path}: time {attrs['time']}, expected {step * DT}")
    failures.check(float(attrs["dt"]) == DT and float(attrs["spacing"]) == 10.0, f"{path}: dt or spacing")
    for key, unit in (("time_units", "s"), ("dt_units", "s"), ("spacing_units", "m")):
        failures.check(text_attribute(attrs.get(key, b"")) == unit, f"{path}: {key} = {attrs.get(key)!r}, expected {unit}")
    failures.check(int(attrs["stencil_radius"]) == 4, f"{path}: stencil_radius {attrs['stencil_radius']}")
    failures.check(list(attrs["grid_n"]) == list(GRID), f"{path}: grid_n {attrs['grid_n']}")
    config = json.loads(text_attribute(attrs["config"]))
    failures.check(config["grid"]["n"] == list(GRID) and config["output"]["snapshot_every"] == EVERY,
                   f"{path}: config attribute {config.get('grid')}")
    provenance = json.loads(text_attribute(attrs["provenance"]))
    for key in ("wave3d_version", "git", "build", "mpi", "hostname", "command_line"):
        failures.check(key in provenance, f"{path}: provenance has no {key}")
    u = f["wavefield"]
    failures.check(u.shape == GRID[::-1], f"{path}: dataset shape {u.shape}, expected {GRID[::-1]}")
    failures.check(u.dtype == numpy.float32, f"{path}: dataset type {u.dtype}")
    failures.check(int(u.attrs["time_level"]) == step, f"{path}: time_level {u.attrs['time_level']}")
    failures.check("checksum" in u.attrs, f"{path}: no checksum attribute")
    failures.check(float(u.attrs["time"]) == step * DT and text_attribute(u.attrs["time_units"]) == "s"
                   and "units" in u.attrs, f"{path}: the dataset's time, time_units and units")
    check_coordinates(u, path, failures)
    return u[...]


def check_coordinates(u, path, failures):
    """The dataset's dimensions carry HDF5 dimension scales: labels z, y, x and one scale each holding the
    coordinates in metres (index times the spacing, 10 m)."""
    for dimension, (label, points) in enumerate(zip("zyx", u.shape)):
        dim = u.dims[dimension]
        failures.check(dim.label == label, f"{path}: dimension {dimension} is labelled {dim.label!r}, not {label!r}")
        if len(dim) != 1:
            failures.check(False, f"{path}: dimension {label} has {len(dim)} scales attached, expected 1")
            continue
        scale = dim[0]
        failures.check(scale.name == f"/{label}" and text_attribute(scale.attrs.get("units", b"")) == "m",
                       f"{path}: the scale of {label} is {scale.name} with units {scale.attrs.get('units')!r}")
        failures.check(numpy.array_equal(scale[...], numpy.arange(points) * 10.0),
                       f"{path}: the coordinates of {label} are not 0, 10, ... {10 * (points - 1)} m")


def main():
    ap = arguments(__doc__)
    ap.add_argument("--ranks", type=int, required=True)
    a = ap.parse_args()
    fresh_directory(a.results_dir)
    failures = Failures()
    doc = run_ok(wave3d_command(a, a.ranks, SETTINGS, "test"), failures)
    ref = run_ok(wave3d_command(a, 1, SETTINGS + ["parallel.halo=bulk"], "reference", threads=2), failures)
    if doc is None or ref is None:
        return failures.finish()
    print(doc["_stdout"])
    run_dir, ref_dir = a.results_dir / "runs" / "test", a.results_dir / "runs" / "reference"
    steps = list(range(EVERY, STEPS + 1, EVERY))
    failures.check(not list(run_dir.glob("*.tmp")), f"temporary files left: {list(run_dir.glob('*.tmp'))}")
    failures.check(doc["checksum"] == ref["checksum"], f"checksums differ: {doc['checksum']} vs {ref['checksum']}")
    failures.check(len(doc["field_io"]["snapshots"]["files"]) == len(steps), f"run.json field_io {doc['field_io']}")
    failures.check(doc["field_io"]["snapshots"]["bytes"] == len(steps) * 4 * math.prod(GRID),
                   f"run.json snapshot bytes {doc['field_io']['snapshots']['bytes']}")
    # Throughput without the field files written in the loop, and with them: the same points over the
    # loop's time less its I/O, and over all of it.
    metrics, io = doc["metrics"], doc["field_io"]
    io_seconds = io["snapshots"]["write_s"] + io["checkpoints"]["write_s"]
    points = metrics["updated_points_per_step"] * metrics["steps"] / 1e6
    failures.check(io_seconds > 0 and math.isclose(metrics["field_io_s"], io_seconds, rel_tol=1e-9),
                   f"metrics.field_io_s {metrics['field_io_s']} is the snapshots' and checkpoints' {io_seconds}")
    failures.check(math.isclose(metrics["mpoints_per_second"], points / (metrics["loop_s"] - io_seconds), rel_tol=1e-9)
                   and math.isclose(metrics["mpoints_per_second_with_io"], points / metrics["loop_s"], rel_tol=1e-9)
                   and metrics["mpoints_per_second"] > metrics["mpoints_per_second_with_io"],
                   f"throughput without I/O {metrics['mpoints_per_second']}, with {metrics['mpoints_per_second_with_io']}")
    for step in steps:
        name = f"wavefield_{step:06d}.h5"
        path = run_dir / name
        if not failures.check(path.exists(), f"{path} missing"):
            continue
        with h5py.File(path, "r") as f, h5py.File(ref_dir / name, "r") as g:
            u = check_file(f, path, step, failures)
            failures.check(numpy.array_equal(u, g["wavefield"][...]),
                           f"{name}: values differ from the 1-rank reference run's")
            failures.check(f["wavefield"].attrs["checksum"] == g["wavefield"].attrs["checksum"],
                           f"{name}: checksum attribute differs from the reference's")
        if step == STEPS:
            norm = math.sqrt(float(numpy.sum(u.astype(numpy.float64) ** 2)))
            failures.check(math.isclose(norm, doc["l2_norm"], rel_tol=1e-6),
                           f"{name}: norm {norm} differs from run.json l2_norm {doc['l2_norm']}")
            print(f"last snapshot: norm {norm:.9g}, run.json l2_norm {doc['l2_norm']:.9g}")
        dump = subprocess.run([a.h5dump, "-H", str(path)], capture_output=True, text=True)
        failures.check(dump.returncode == 0, f"h5dump -H {path}: exit code {dump.returncode}\n{dump.stderr}")
        for want in ('DATASET "wavefield"', f"DATASPACE  SIMPLE {{ ( {GRID[2]}, {GRID[1]}, {GRID[0]} )",
                     'ATTRIBUTE "config"', 'ATTRIBUTE "provenance"', 'ATTRIBUTE "step"'):
            failures.check(want in dump.stdout, f"h5dump -H {path} shows no {want!r}")

    sidecar = run_dir / "wavefield.xmf"
    failures.check(doc["field_io"]["snapshots"]["sidecar"] == str(sidecar), "run.json names no sidecar")
    grids = ElementTree.parse(sidecar).getroot().findall("./Domain/Grid/Grid")
    failures.check(len(grids) == len(steps), f"{sidecar}: {len(grids)} grids, expected {len(steps)}")
    for grid, step in zip(grids, steps):
        failures.check(float(grid.find("Time").get("Value")) == step * DT, f"{sidecar}: time of step {step}")
        failures.check(grid.find("Topology").get("Dimensions") == f"{GRID[2]} {GRID[1]} {GRID[0]}",
                       f"{sidecar}: topology dimensions")
        item = grid.find("Attribute/DataItem")
        file, _, dataset = item.text.partition(":")
        failures.check((sidecar.parent / file).exists() and dataset == "/wavefield", f"{sidecar}: {item.text}")

    with open(run_dir / "steps.csv") as f:
        rows = list(csv.DictReader(f))
    failures.check(len(rows) == a.ranks * STEPS, f"steps.csv: {len(rows)} rows")
    for row in rows:
        written = int(row["step"]) in steps  # steps.csv numbers steps as the snapshot files do
        failures.check((row["io"] != "") == written, f"steps.csv: rank {row['rank']} step {row['step']} io {row['io']!r}")
        if written:
            failures.check(float(row["io"]) <= float(row["total"]), f"steps.csv: io above total in {row}")
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
