"""What a report names of the runs behind it: the machine, the grid, the kernel and T (time steps per sweep
over memory), read from run.json. A fact the run.json does not hold is "not recorded", never guessed (a
run.json from before the "kernel" section names no kernel and no T)."""

from .. import files
from ..files import lookup

NOT_RECORDED = "not recorded"
FACTS = ("machine", "grid", "kernel", "steps_per_sweep")


def _grid(doc):
    n = lookup(doc, files.GRID_N)
    if isinstance(n, list) and n and all(isinstance(v, int) for v in n):
        return f"{n[0]}^3" if len(set(n)) == 1 and len(n) == 3 else " x ".join(map(str, n))
    return NOT_RECORDED


def _machine(doc):
    summary, model = lookup(doc, files.MACHINE_SUMMARY), lookup(doc, files.CPU_MODEL)
    host = lookup(doc, files.HOSTNAME)
    parts = [p for p in (model, summary) if isinstance(p, str) and p]
    if not parts:
        return f"host {host}" if isinstance(host, str) and host else NOT_RECORDED
    return ", ".join(parts)


def _kernel(doc):
    name = lookup(doc, files.KERNEL_NAME)
    if not isinstance(name, str) or not name:
        name = lookup(doc, files.CONFIG_KERNEL)
    radius, precision = lookup(doc, files.STENCIL_RADIUS), lookup(doc, files.STENCIL_PRECISION)
    stencil = " ".join(str(p) for p in (f"R={radius}" if radius is not None else None, precision) if p)
    if not isinstance(name, str) or not name:
        return f"{NOT_RECORDED} ({stencil})" if stencil else NOT_RECORDED
    return f"{name} ({stencil})" if stencil else name


def _steps_per_sweep(doc):
    for path in (files.STEPS_PER_SWEEP, files.CONFIG_SWEEP_STEPS):
        value = lookup(doc, path)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return NOT_RECORDED


def run_facts(doc):
    """{machine, grid, kernel, steps_per_sweep} of one run.json document, as text."""
    return {"machine": _machine(doc), "grid": _grid(doc), "kernel": _kernel(doc), "steps_per_sweep": _steps_per_sweep(doc)}


def combined_facts(facts_list):
    """The facts of several runs: each one's distinct values, joined with ' / ' when the runs differ."""
    combined = {}
    for key in FACTS:
        values = list(dict.fromkeys(f[key] for f in facts_list if f))
        combined[key] = " / ".join(values) if values else NOT_RECORDED
    return combined


def facts_line(facts):
    """'machine AMD EPYC, ...; grid 128^3; kernel blocked (R=8 single); T = 1'."""
    return (f"machine {facts['machine']}; grid {facts['grid']}; kernel {facts['kernel']}; "
            f"T (steps per sweep) {facts['steps_per_sweep']}")
