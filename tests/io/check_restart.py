#!/usr/bin/env python3
"""Restart is bitwise: a run continued from a checkpoint ends with the field of the uninterrupted run.

A: the run, uninterrupted, on --ranks ranks. B: the same with a checkpoint every --every steps (the
field must not change). C: continued from B's checkpoint at --restart-step on --restart-ranks ranks
and --restart-process-grid. D: the same, restart.from naming a directory (its newest checkpoint).
The checksums in run.json of A, B, C and D must be equal; C's run.json says where it continued from,
and its metrics and steps.csv cover the steps it ran. B and C write snapshots: C's sidecar continues
B's series.
"""
import csv
import shutil
import sys

import h5py
from xml.etree import ElementTree

from io_check_support import Failures, arguments, fresh_directory, run_ok, text_attribute, wave3d_command


def main():
    ap = arguments(__doc__)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--process-grid")
    ap.add_argument("--restart-ranks", type=int, required=True)
    ap.add_argument("--restart-process-grid")
    ap.add_argument("--set", action="append", default=[], help="more settings for every run")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--restart-step", type=int, default=10)
    a = ap.parse_args()
    fresh_directory(a.results_dir)
    failures = Failures()
    settings = ["grid.n=32,24,20", "stencil.radius=4", f"run.steps={a.steps}"] + a.set
    checkpoints = a.results_dir / "checkpoints"
    with_checkpoints = settings + [f"checkpoint.every={a.every}", "checkpoint.keep=100",
                                   f"checkpoint.directory={checkpoints}", f"output.snapshot_every={a.every}"]
    start = checkpoints / f"checkpoint_{a.restart_step:06d}.h5"
    only_start = a.results_dir / "only_start"

    A = run_ok(wave3d_command(a, a.ranks, settings, "A", a.process_grid), failures)
    B = run_ok(wave3d_command(a, a.ranks, with_checkpoints, "B", a.process_grid), failures)
    if A is None or B is None:
        return failures.finish()
    written = sorted(p.name for p in checkpoints.glob("checkpoint_*"))
    expected = [f"checkpoint_{s:06d}.h5" for s in range(a.every, a.steps + 1, a.every)]
    failures.check(written == expected, f"checkpoints written: {written}, expected {expected}")
    # checkpoints.xmf: every kept checkpoint's "current" level as a frame of one series, for ParaView.
    sidecar = checkpoints / "checkpoints.xmf"
    failures.check(B["field_io"]["checkpoints"]["sidecar"] == str(sidecar),
                   f"B: run.json names the checkpoint sidecar: {B['field_io']['checkpoints'].get('sidecar')}")
    if sidecar.is_file():
        items = [item.text for item in ElementTree.parse(sidecar).getroot().iter("DataItem") if item.text
                 and ".h5:" in item.text]
        failures.check(items == [f"{name}:/current" for name in expected], f"{sidecar}: frames {items}")
    else:
        failures.check(False, f"no {sidecar}")
    with h5py.File(start, "r") as f:
        failures.check(text_attribute(f.attrs["format"]) == "wave3d-checkpoint", f"{start}: format")
        failures.check(text_attribute(f.attrs["time_units"]) == "s" and text_attribute(f.attrs["spacing_units"]) == "m",
                       f"{start}: units of time and spacing")
        failures.check(text_attribute(f["current"].attrs["time_units"]) == "s"
                       and float(f["current"].attrs["time"]) == float(f.attrs["time"])
                       and abs(float(f["previous"].attrs["time"]) - (float(f.attrs["time"]) - float(f.attrs["dt"]))) < 1e-12,
                       f"{start}: each time level's time in seconds")
        failures.check(int(f.attrs["step"]) == a.restart_step, f"{start}: step {f.attrs['step']}")
        failures.check(int(f["current"].attrs["time_level"]) == a.restart_step and
                       int(f["previous"].attrs["time_level"]) == a.restart_step - 1, f"{start}: time levels")
        for name, field in f.items():
            if field.ndim == 3:  # every field carries the coordinates /z, /y, /x as dimension scales
                scales = [(dim.label, [scale.name for scale in dim.values()]) for dim in field.dims]
                failures.check(scales == [("z", ["/z"]), ("y", ["/y"]), ("x", ["/x"])],
                               f"{start}: the dimension scales of {name}: {scales}")
    fresh_directory(only_start)
    shutil.copy(checkpoints / f"checkpoint_{a.every:06d}.h5", only_start)
    shutil.copy(start, only_start)

    C = run_ok(wave3d_command(a, a.restart_ranks, settings + [f"restart.from={start}", f"output.snapshot_every={a.every}"],
                              "C", a.restart_process_grid), failures)
    D = run_ok(wave3d_command(a, a.restart_ranks, settings + [f"restart.from={only_start}"], "D",
                              a.restart_process_grid), failures)
    if C is None or D is None:
        return failures.finish()
    print(C["_stdout"])
    for name, doc in (("B (checkpoints written)", B), ("C (restarted)", C), ("D (restarted from a directory)", D)):
        print(f"checksum {name}: {doc['checksum']}, A: {A['checksum']}")
        failures.check(doc["checksum"] == A["checksum"], f"{name}: checksum {doc['checksum']} != A's {A['checksum']}")
        failures.check(doc["verification"]["status"] == A["verification"]["status"],
                       f"{name}: {doc['verification']['status']}, A: {A['verification']['status']}")
    failures.check(C["field_io"]["restarted_from"] == str(start), f"C: restarted_from {C['field_io']['restarted_from']}")
    failures.check(D["field_io"]["restarted_from"] == str(only_start / start.name),
                   f"D: restarted_from {D['field_io']['restarted_from']}")
    # One series across the restart: C's wavefield.xmf lists B's snapshots up to the checkpoint's step,
    # then its own, each file found from C's directory.
    c_dir = a.results_dir / "runs" / "C"
    frames = [item.text for item in ElementTree.parse(c_dir / "wavefield.xmf").getroot().iter("DataItem")
              if item.text and ".h5:" in item.text]
    steps = [int(text.split("wavefield_")[1][:6]) for text in frames]
    failures.check(steps == list(range(a.every, a.steps + 1, a.every)),
                   f"C: wavefield.xmf lists steps {steps}, expected every {a.every} up to {a.steps}")
    failures.check(all((c_dir / text.split(":")[0]).is_file() for text in frames), f"C: every frame's file exists: {frames}")
    failures.check(all(text.startswith("../B/") for text, step in zip(frames, steps) if step <= a.restart_step),
                   f"C: the frames up to step {a.restart_step} are B's: {frames}")
    run_steps = a.steps - a.restart_step
    failures.check(C["field_io"]["first_step"] == a.restart_step and C["metrics"]["steps"] == run_steps,
                   f"C: first_step {C['field_io']['first_step']}, metrics.steps {C['metrics']['steps']}")
    failures.check(C["parallel"]["ranks"] == a.restart_ranks, f"C ran on {C['parallel']['ranks']} ranks")
    if a.restart_process_grid:
        failures.check(C["decomposition"]["process_grid"] == [int(v) for v in a.restart_process_grid.split(",")],
                       f"C: process grid {C['decomposition']['process_grid']}")
    with open(f"{C['_directory']}/steps.csv") as f:
        rows = list(csv.DictReader(f))
    failures.check(len(rows) == a.restart_ranks * run_steps, f"C: steps.csv has {len(rows)} rows")
    first = C["field_io"]["first_step"] + 1  # continued after the checkpoint's step, numbered as the files are
    failures.check(sorted({int(r["step"]) for r in rows}) == list(range(first, first + run_steps)),
                   f"C: steps.csv numbers its steps {first}..{first + run_steps - 1}")
    return failures.finish()


if __name__ == "__main__":
    sys.exit(main())
