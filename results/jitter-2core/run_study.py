#!/usr/bin/env python3
"""The surplus-core and daemon-jitter experiment on one small node.

Runs wave3d with and without the wave3d-noise daemon (periodic memory scans), with every core
computing and with one core reserved (idle, or holding the progress thread), several repetitions
each, and writes summary.json, summary.md and summary.png beside the run directories.

    results/jitter-2core/run_study.py --build-dir build/release --out results/jitter-2core/data

Every number in the summary is read from the runs' run.json files; nothing is assumed.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Case:
    name: str
    ranks: int
    threads: int
    settings: tuple[str, ...]  # wave3d --set overrides
    description: str


def cases_for(cores: int) -> list[Case]:
    """All cores computing (as ranks, and as threads of one rank) against one core reserved."""
    common = ("placement.layout=rank-per-core",)
    return [
        Case("all-cores-ranks", cores, 1, common + ("placement.reserve=none",),
             f"{cores} ranks x 1 thread, every core computes"),
        Case("all-cores-threads", 1, cores, ("placement.layout=rank-per-node", "placement.reserve=none"),
             f"1 rank x {cores} threads, every core computes"),
        Case("reserved-idle", cores - 1, 1, common + ("placement.reserve=per-node:1",),
             f"{cores - 1} rank(s) x 1 thread, the highest core left idle"),
        Case("reserved-progress", cores - 1, 1,
             common + ("placement.reserve=per-node:1", "parallel.halo=overlap", "parallel.progress=thread"),
             f"{cores - 1} rank(s) x 1 thread, a progress thread on the reserved core"),
    ]


@dataclass
class Daemon:
    """The wave3d-noise daemon for the length of one run; stopped with SIGTERM, never left behind."""
    binary: Path
    args: list[str]
    log: Path
    process: subprocess.Popen | None = field(default=None, init=False)

    def __enter__(self) -> "Daemon":
        self.process = subprocess.Popen([str(self.binary), *self.args, "--log", str(self.log)])
        time.sleep(0.2)  # let it allocate its buffer before the run starts
        if self.process.poll() is not None:
            raise RuntimeError(f"wave3d-noise exited at start with code {self.process.returncode}")
        return self

    def __exit__(self, *exc) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run_case(args, case: Case, daemon_on: bool, rep: int) -> dict:
    run_dir = args.out / "runs" / f"{case.name}-{'daemon' if daemon_on else 'quiet'}" / f"rep{rep}"
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    wave3d = args.build_dir / "src" / "app" / "wave3d"
    command = ["mpiexec", "-n", str(case.ranks), "--bind-to", "none", str(wave3d), "run"]
    for setting in (*case.settings, f"run.threads={case.threads}", f"run.steps={args.steps}",
                    f"grid.n={args.grid}", "run.progress=off",
                    f"output.directory={run_dir.parent}", f"output.name={run_dir.name}"):
        command += ["--set", setting]
    env = dict(os.environ, OMP_NUM_THREADS=str(case.threads))
    log = run_dir / "stdout.txt"

    def launch() -> None:
        with log.open("w") as out:
            done = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=args.timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{case.name} rep {rep} failed with exit {done.returncode}; see {log}")

    if daemon_on:
        noise = args.build_dir / "tools" / "noise" / "wave3d-noise"
        daemon_args = ["--kind", "memscan", "--period", args.daemon_period, "--duration", args.daemon_duration,
                       "--mib", str(args.daemon_mib)]
        with Daemon(noise, daemon_args, run_dir / "daemon.tsv"):
            launch()
    else:
        launch()
    return json.loads((run_dir / "run.json").read_text())


def summarise(records: list[dict]) -> dict:
    """Medians of the repetitions, with min and max to show the spread."""
    def spread(values: list[float]) -> dict:
        return {"min": min(values), "median": statistics.median(values), "max": max(values)}
    out = {}
    for key in dict.fromkeys((r["case"], r["daemon"]) for r in records):  # in run order
        runs = [r for r in records if (r["case"], r["daemon"]) == key]
        out[f"{key[0]}-{'daemon' if key[1] else 'quiet'}"] = {
            "case": key[0], "daemon": key[1], "ranks": runs[0]["ranks"], "threads": runs[0]["threads"],
            "description": runs[0]["description"], "repetitions": len(runs),
            "mpoints_per_second": spread([r["mpoints_per_second"] for r in runs]),
            "step_time_p50_s": spread([r["step_time_p50_s"] for r in runs]),
            "step_time_p99_s": spread([r["step_time_p99_s"] for r in runs]),
            "step_time_max_s": spread([r["step_time_max_s"] for r in runs]),
            "noise_amplification": spread([r["noise_amplification"] for r in runs]),
        }
    return out


def write_markdown(path: Path, summary: dict, meta: dict) -> None:
    lines = [f"# Surplus cores and daemon jitter on {meta['host']} ({meta['cores']} cores)", "",
             f"Grid {meta['grid']}, {meta['steps']} steps, {meta['repetitions']} repetitions per case; daemon: "
             f"wave3d-noise memscan {meta['daemon']['mib']} MiB for {meta['daemon']['duration']} every "
             f"{meta['daemon']['period']}, floating. Medians of the repetitions, [min, max] in brackets.", "",
             "| case | daemon | ranks x threads | MPoints/s | vs quiet | step p50 ms | step p99 ms | step max ms | amplification |",
             "|---|---|---|---|---|---|---|---|---|"]
    for key, s in summary.items():
        quiet = summary.get(f"{s['case']}-quiet")
        ratio = s["mpoints_per_second"]["median"] / quiet["mpoints_per_second"]["median"] if quiet else float("nan")
        m = s["mpoints_per_second"]
        lines.append(
            f"| {s['case']} | {'on' if s['daemon'] else 'off'} | {s['ranks']} x {s['threads']} | "
            f"{m['median']:.1f} [{m['min']:.1f}, {m['max']:.1f}] | {ratio:.3f} | "
            f"{1e3 * s['step_time_p50_s']['median']:.2f} | {1e3 * s['step_time_p99_s']['median']:.2f} | "
            f"{1e3 * s['step_time_max_s']['median']:.2f} | {s['noise_amplification']['median']:.3f} |")
    path.write_text("\n".join(lines) + "\n")


def plot(path: Path, summary: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(s["case"] for s in summary.values()))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.38
    for offset, daemon in ((-width / 2, False), (width / 2, True)):
        rows = [summary.get(f"{c}-{'daemon' if daemon else 'quiet'}") for c in cases]
        for ax, metric, scale in ((axes[0], "mpoints_per_second", 1.0), (axes[1], "step_time_p99_s", 1e3)):
            med = [scale * r[metric]["median"] for r in rows]
            low = [scale * (r[metric]["median"] - r[metric]["min"]) for r in rows]
            high = [scale * (r[metric]["max"] - r[metric]["median"]) for r in rows]
            ax.bar([i + offset for i in range(len(cases))], med, width, yerr=[low, high], capsize=3,
                   label="daemon on" if daemon else "quiet")
    for ax, title in ((axes[0], "throughput (MPoints/s), median with min-max"),
                      (axes[1], "step time p99 (ms), median with min-max")):
        ax.set_xticks(range(len(cases)), cases, rotation=15)
        ax.set_title(title, fontsize=10)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", type=Path, default=Path("build/release"))
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    parser.add_argument("--grid", default="128,128,128")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--daemon-period", default="20ms")
    parser.add_argument("--daemon-duration", default="2ms")
    parser.add_argument("--daemon-mib", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    if args.repetitions < 1 or args.steps < 2:
        parser.error(f"--repetitions = {args.repetitions} and --steps = {args.steps}: need >= 1 and >= 2")
    cores = os.cpu_count() or 1
    if cores < 2:
        parser.error("this experiment needs at least 2 cores (one to reserve)")
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    if os.geteuid() == 0:
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    records = []
    plan = [(c, d, r) for r in range(args.repetitions) for c in cases_for(cores) for d in (False, True)]
    for i, (case, daemon_on, rep) in enumerate(plan, 1):
        result = run_case(args, case, daemon_on, rep)
        jitter = result["jitter"]
        records.append({"case": case.name, "daemon": daemon_on, "rep": rep, "ranks": case.ranks,
                        "threads": case.threads, "description": case.description,
                        "mpoints_per_second": result["metrics"]["mpoints_per_second"],
                        "step_time_p50_s": jitter["step_time_p50_s"], "step_time_p99_s": jitter["step_time_p99_s"],
                        "step_time_max_s": jitter["step_time_max_s"],
                        "noise_amplification": jitter["noise_amplification"]})
        print(f"[{i}/{len(plan)}] {case.name} daemon={'on' if daemon_on else 'off'} rep {rep}: "
              f"{records[-1]['mpoints_per_second']:.1f} MPoints/s, p99 {1e3 * jitter['step_time_p99_s']:.2f} ms, "
              f"amplification {jitter['noise_amplification']:.3f}", flush=True)

    meta = {"host": os.uname().nodename, "cores": cores, "grid": args.grid, "steps": args.steps,
            "repetitions": args.repetitions, "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "daemon": {"kind": "memscan", "mib": args.daemon_mib, "period": args.daemon_period,
                       "duration": args.daemon_duration, "pinned": False},
            "command_line": sys.argv}
    summary = summarise(records)
    (args.out / "summary.json").write_text(json.dumps({"meta": meta, "summary": summary, "runs": records}, indent=1))
    write_markdown(args.out / "summary.md", summary, meta)
    plot(args.out / "summary.png", summary)
    print((args.out / "summary.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
