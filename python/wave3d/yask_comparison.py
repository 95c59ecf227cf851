"""wave3d's kernel beside YASK's iso3dfd, the public stencil code it is measured against: what the
comparison runs (command lines), what it reads back (YASK's text output, wave3d's run.json and stream
JSON) and how the rounds are summarised. The processes themselves are started by
python/tools/compare_yask.py.

Both codes update the same points: YASK's domain of g^3 points (its halos are not updated on one rank),
wave3d's grid of (g + 2R)^3 with the zero boundary, whose outer R layers stay fixed, so g^3 points
again. Both rates are points updated per second; the bound beside them is the STREAM triad of the
same round (wave3d stream, median) divided by the bytes per point wave3d assumes (run.json)."""

import json
import re
import statistics
import tomllib
from dataclasses import dataclass
from pathlib import Path

from wave3d import files

PRECISIONS = {"single": 4, "double": 8}  # stencil.precision -> YASK's real_bytes
RADII = (1, 2, 4, 8)


class ComparisonError(Exception):
    """A process of the comparison failed or wrote something this module cannot read."""


def yask_arch(cpu_flags):
    """YASK's target for a CPU with these /proc/cpuinfo flags: avx512 where AVX-512F is, else avx2, else
    None (YASK's other targets are not x86 ones this comparison runs)."""
    if "avx512f" in cpu_flags:
        return "avx512"
    if "avx2" in cpu_flags and "fma" in cpu_flags:
        return "avx2"
    return None


def yask_build_command(yask_dir, output_dir, arch, radius, precision, jobs, fold=None):
    """make for YASK's iso3dfd at this radius and precision, built with g++ and without MPI into its own
    output directory (YASK names the binary after the stencil and target only); with `fold` (x, y, z),
    each vector holds x * y * z points of that shape instead of YASK's default fold."""
    command = ["make", "-C", str(yask_dir), f"-j{jobs}", "stencil=iso3dfd", f"arch={arch}", f"radius={radius}",
               f"real_bytes={PRECISIONS[precision]}", "YK_CXX=g++", "mpi=0", f"YASK_OUTPUT_DIR={output_dir}"]
    if fold is not None:
        command.append("fold=x={},y={},z={}".format(*fold))
    return command


VECTOR_BYTES = {"avx512": 64, "avx2": 32}


def vector_lanes(arch, precision):
    """Points per vector of YASK's target `arch` in `precision`: what a fold's x * y * z must equal."""
    return VECTOR_BYTES[arch] // PRECISIONS[precision]


def yask_build_name(radius, precision, arch, fold=None):
    """The work directory's name for one build: one per case, and per fold where one is given."""
    name = f"yask-r{radius}-{precision}-{arch}"
    return name + ("-fold{}x{}x{}".format(*fold) if fold is not None else "")


def yask_binary(output_dir, arch):
    return Path(output_dir) / "bin" / f"yask_kernel.iso3dfd.{arch}.exe"


def arch_of_binary(binary):
    """The target in a YASK kernel's file name (yask_kernel.<stencil>.<arch>.exe), or "unknown"."""
    parts = Path(binary).name.split(".")
    return parts[-2] if len(parts) >= 4 and parts[0] == "yask_kernel" and parts[-1] == "exe" else "unknown"


def yask_library_dir(binary):
    """Where the binary's shared libraries are (the build's lib/, beside bin/)."""
    return Path(binary).resolve().parent.parent / "lib"


def yask_wavefront_options(wavefront):
    """YASK's options for wave-front tiling (steps, mega-block x, mega-block y): that many steps over each
    mega-block of x by y whole rows along its unit-stride z before the next, the mega-blocks skewed per
    step; none for one step at a time (wavefront None)."""
    if wavefront is None:
        return []
    steps, x, y = wavefront
    return ["-Mbt", str(steps), "-Mbx", str(x), "-Mby", str(y)]


def yask_run_command(binary, grid, threads, steps, trials, blocks=None, wavefront=None):
    """YASK timing `trials` trials of `steps` steps on a grid^3 domain with `threads` OpenMP threads: with
    blocks (x, y, z) as given and no auto-tuning, without them after its auto-tuner has chosen; with
    wave-front tiling where `wavefront` gives it (yask_wavefront_options)."""
    command = [str(binary), "-g", str(grid), "-max_threads", str(threads), "-outer_threads", str(threads),
               "-num_trials", str(trials), "-trial_steps", str(steps)] + yask_wavefront_options(wavefront)
    if blocks is None:
        return command + ["-pre_auto_tune"]
    x, y, z = blocks
    return command + ["-bx", str(x), "-by", str(y), "-bz", str(z), "-no-pre_auto_tune", "-no-auto_tune"]


_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_MID_RATE = re.compile(r"mid-throughput \(num-points/sec\):\s*([0-9.eE+-]+)\s*([KMGT]?)\b")
_TUNED_BLOCK = re.compile(r"auto-tuner: block-size:\s*t=\d+ \* x=(\d+) \* y=(\d+) \* z=(\d+)")
_RADIUS = re.compile(r"stencil-description:\s*iso3dfd radius (\d+)")
_ELEMENT = re.compile(r"element-size:\s*(\d+)B")
_FOLD = re.compile(r"vector-size:\s*x=(\d+) \* y=(\d+) \* z=(\d+)")


def _tail(text, lines=15):
    return "\n".join(text.strip().splitlines()[-lines:])


def parse_yask_rate(text):
    """MPoints/s of YASK's median trial ("mid-throughput (num-points/sec): 1.78G")."""
    found = _MID_RATE.findall(text)
    if not found:
        raise ComparisonError(f"no 'mid-throughput (num-points/sec)' line in YASK's output; its end:\n{_tail(text)}")
    value, unit = found[-1]
    return float(value) * _SCALE[unit] / 1e6


def parse_yask_tuned_blocks(text):
    """(x, y, z) of the block YASK's auto-tuner settled on: the last "auto-tuner: block-size:" line."""
    found = _TUNED_BLOCK.findall(text)
    if not found:
        raise ComparisonError(f"no 'auto-tuner: block-size:' line in YASK's output; its end:\n{_tail(text)}")
    return tuple(int(v) for v in found[-1])


def parse_yask_fold(text):
    """(x, y, z) of the points each of YASK's vectors holds ("vector-size: x=4 * y=4 * z=1"; its z is the
    unit-stride axis, wave3d's x), or None where its output does not say."""
    found = _FOLD.search(text)
    return tuple(int(v) for v in found.groups()) if found else None


def check_yask_stencil(text, radius, precision):
    """Raise unless YASK's output says it ran iso3dfd at this radius and precision."""
    found_radius, found_bytes = _RADIUS.search(text), _ELEMENT.search(text)
    if not found_radius or not found_bytes:
        raise ComparisonError("YASK's output names no 'stencil-description' or 'element-size'; its end:\n"
                              + _tail(text))
    if int(found_radius.group(1)) != radius or int(found_bytes.group(1)) != PRECISIONS[precision]:
        raise ComparisonError(f"YASK ran iso3dfd radius {found_radius.group(1)} with {found_bytes.group(1)}-byte "
                              f"elements, not radius {radius} in {precision} precision: a binary built for another "
                              "case")


def wave3d_settings(grid, radius, precision, threads, steps, cache, sweep_steps="1"):
    """--set arguments of a wave3d run updating the same grid^3 points as YASK (see the module's doc), with
    `sweep_steps` time steps per sweep (blocking.steps: a count, or "auto")."""
    n = grid + 2 * radius
    settings = {"grid.n": f"{n},{n},{n}", "grid.boundary": '"zero"', "init.condition": '"seed-cube"',
                "stencil.radius": str(radius), "stencil.precision": f'"{precision}"', "run.threads": str(threads),
                "run.steps": str(steps), "run.progress": '"off"', "blocking.cache": json.dumps(str(cache)),
                "blocking.steps": '"auto"' if sweep_steps == "auto" else str(sweep_steps)}
    return [arg for key, value in settings.items() for arg in ("--set", f"{key}={value}")]


CONFIG_LINES_MARKER = "# config lines for these runs:"


def tuned_settings(tune_output):
    """--set arguments for the config lines `wave3d tune` printed after CONFIG_LINES_MARKER (the kernel,
    blocks, steps per sweep, prefetch distance and temporal halo it chose), so that every round runs
    that choice whether or not the tuning cache kept it (it does not where the machine's pace moved
    during the search)."""
    if CONFIG_LINES_MARKER not in tune_output:
        raise ComparisonError(f"no '{CONFIG_LINES_MARKER}' in wave3d tune's output; its end:\n{_tail(tune_output)}")
    try:
        chosen = tomllib.loads(tune_output.split(CONFIG_LINES_MARKER, 1)[1])
    except tomllib.TOMLDecodeError as e:
        raise ComparisonError(f"wave3d tune's config lines do not parse: {e}") from None
    settings = []
    for section, values in chosen.items():
        for key, value in values.items():
            if isinstance(value, list):
                text = ",".join(str(v) for v in value)
            elif isinstance(value, str):
                text = json.dumps(value)
            else:
                text = str(value)
            settings += ["--set", f"{section}.{key}={text}"]
    return settings


@dataclass
class Wave3dRun:
    mpoints_per_second: float
    kernel: str
    blocks: list
    steps_per_sweep: int
    bytes_per_point: int
    prefetch_rows: int = None  # the columns kernel's prefetch distance; None for the other kernels

    def kernel_text(self):
        """'columns, 0x64x16, prefetch 3, T 1': the kernel, blocks, prefetch distance (where it has one) and T."""
        prefetch = "" if self.prefetch_rows is None else f", prefetch {self.prefetch_rows}"
        return f"{self.kernel}, {'x'.join(map(str, self.blocks))}{prefetch}, T {self.steps_per_sweep}"


def _read_document(path, document_format, oldest=1):
    """The JSON document at path, of document_format from version oldest on; ComparisonError if not."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ComparisonError(f"cannot read {path}: {e}") from None
    problem = files.format_problem(doc, document_format, oldest)
    if problem:
        raise ComparisonError(f"{path}: {problem}")
    return doc


def read_wave3d_run(run_dir):
    """What a wave3d run's run.json says of its rate and kernel."""
    path = Path(run_dir) / files.RUN_JSON
    doc = _read_document(path, files.RUN_FORMAT)
    problem = files.completion_problem(doc)
    if problem:
        raise ComparisonError(f"{path}: {problem}")
    values = {key: files.lookup(doc, key) for key in (files.MPOINTS_PER_SECOND, files.KERNEL_NAME, files.KERNEL_BLOCKS,
                                                     files.STEPS_PER_SWEEP, files.BYTES_PER_POINT)}
    missing = [key for key, value in values.items() if value is None]
    if missing:
        raise ComparisonError(f"{path} has no {', '.join(missing)}")
    return Wave3dRun(*values.values(), prefetch_rows=files.lookup(doc, files.KERNEL_PREFETCH_ROWS))


def read_triad(stream_json, threads):
    """The median triad GB/s of `wave3d stream --init first-touch --json` at this thread count."""
    path = Path(stream_json)
    doc = _read_document(path, files.STREAM_FORMAT, oldest=files.STREAM_FORMAT[1])
    for row in doc.get("sweeps", {}).get("first-touch", []):
        if row.get("threads") != threads:
            continue
        for kernel in row.get("kernels", []):
            if kernel.get("kernel") == "triad":
                return kernel["median_gbytes_per_second"]
    raise ComparisonError(f"{path} holds no first-touch triad at {threads} threads")


@dataclass
class Round:
    triad_before: float  # GB/s
    triad_after: float
    yask: float  # MPoints/s
    wave3d: Wave3dRun

    @property
    def bound(self):
        """MPoints/s a kernel moving wave3d's bytes per point at the round's triad rate would reach."""
        return (self.triad_before + self.triad_after) / 2 * 1e3 / self.wave3d.bytes_per_point

    @property
    def ratio(self):
        return self.wave3d.mpoints_per_second / self.yask


def summary(rounds):
    """Medians over the rounds of what the table shows."""
    def median(f):
        return statistics.median(f(r) for r in rounds)
    return {"rounds": len(rounds), "yask_mpoints_per_second": median(lambda r: r.yask),
            "wave3d_mpoints_per_second": median(lambda r: r.wave3d.mpoints_per_second),
            "yask_fraction_of_bound": median(lambda r: r.yask / r.bound),
            "wave3d_fraction_of_bound": median(lambda r: r.wave3d.mpoints_per_second / r.bound),
            "wave3d_over_yask": median(lambda r: r.ratio)}


def format_table(rounds, case):
    """The rounds and their medians as text."""
    wavefront = case.get("yask_wavefront")
    yask_steps = (f"wave-front tiling of {wavefront[0]} steps over mega-blocks of {wavefront[1]}x{wavefront[2]} "
                  "whole rows" if wavefront else "one step at a time")
    fold = case.get("yask_fold")
    fold_text = ("vectors of {} x {} x {} points (x, y, z; YASK's z is wave3d's unit-stride x)".format(*fold)
                 if fold else "its vectors' fold not reported")
    lines = [f"iso3dfd R = {case['radius']}, {case['precision']} precision, {case['grid']}^3 points updated, "
             f"{case['threads']} threads, {case['steps']} steps per run",
             f"YASK {case['yask_arch']}, {fold_text}, {yask_steps}, blocks {'x'.join(map(str, case['yask_blocks']))} "
             f"({case['yask_blocks_from']}), "
             f"median of {case['yask_trials']} trials; wave3d what `wave3d tune` chose with blocking.steps "
             f"{case.get('wave3d_sweep_steps', '1')} (tuning cache {case['cache']})",
             "bound = triad GB/s (mean of before and after) x 1000 / bytes per point",
             "",
             f"{'round':>5} {'triad GB/s':>15} {'bound':>7} {'YASK':>7} {'of bound':>8} {'wave3d':>7} {'of bound':>8} "
             f"{'wave3d/YASK':>11}  wave3d kernel, blocks, prefetch rows, T"]
    for i, r in enumerate(rounds, 1):
        w = r.wave3d
        lines.append(f"{i:>5} {r.triad_before:>7.1f}/{r.triad_after:<7.1f} {r.bound:>7.0f} {r.yask:>7.0f} "
                     f"{r.yask / r.bound:>8.3f} {w.mpoints_per_second:>7.0f} {w.mpoints_per_second / r.bound:>8.3f} "
                     f"{r.ratio:>11.2f}  {w.kernel_text()}")
    s = summary(rounds)
    lines.append(f"{'median':>5} {'':>15} {'':>7} {s['yask_mpoints_per_second']:>7.0f} "
                 f"{s['yask_fraction_of_bound']:>8.3f} "
                 f"{s['wave3d_mpoints_per_second']:>7.0f} {s['wave3d_fraction_of_bound']:>8.3f} "
                 f"{s['wave3d_over_yask']:>11.2f}")
    return "\n".join(lines) + "\n"


def document(rounds, case):
    """The comparison as a JSON document with wave3d's header."""
    doc = files.header(files.YASK_COMPARISON_FORMAT, "compare_yask.py")
    doc["case"] = case
    doc["rounds"] = [{"triad_before_gbytes_per_second": r.triad_before, "triad_after_gbytes_per_second": r.triad_after,
                      "bound_mpoints_per_second": r.bound, "yask_mpoints_per_second": r.yask,
                      "wave3d_mpoints_per_second": r.wave3d.mpoints_per_second, "wave3d_kernel": r.wave3d.kernel,
                      "wave3d_blocks": r.wave3d.blocks, "wave3d_prefetch_rows": r.wave3d.prefetch_rows,
                      "wave3d_steps_per_sweep": r.wave3d.steps_per_sweep,
                      "bytes_per_point": r.wave3d.bytes_per_point} for r in rounds]
    doc["summary"] = summary(rounds)
    return doc
