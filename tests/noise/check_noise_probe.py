#!/usr/bin/env python3
"""End-to-end checks of `wave3d noise` (the OS-noise probes).

usage:
  check_noise_probe.py run --json FILE [--trace-dir DIR] [--ranks N] [--methods fwq,selfish]
                       [--max-seconds S] -- command...
      Runs the command (a `wave3d noise` line, possibly under mpiexec; "--json FILE" and, if given,
      "--trace-dir DIR" are appended) and checks: exit 0; a table row per probed CPU and method; the
      histogram; the JSON document (config, clock, machine, per-CPU results that agree with the noise
      definitions); every CPU probed once over all ranks; with --trace-dir, one trace per CPU whose
      lines are start_ns<TAB>duration_ns and add up to the JSON's detour time.

  check_noise_probe.py quiet-vs-loaded --wave3d EXE --daemon EXE --out DIR [--duration 0.5s]
      Probes one CPU three times: quiet, then with `wave3d-noise --kind spin` pinned to the same CPU
      (8 ms of every 10 ms), then quiet again. The loaded run's noise fraction must be above 5 % and
      more than twice the quieter of the two quiet runs, for both methods. The daemon is always
      stopped, also when a check fails. When allowed (root or CAP_SYS_NICE), the probe and the daemon
      each run in their own session at nice -20, and with the session's scheduler autogroup at nice -20
      (with autogrouping on, the kernel shares a CPU between sessions first, whatever the nice value of
      a process): so other work on a shared machine disturbs the quiet runs far less than the daemon
      disturbs the loaded one. The daemon and the probe share the CPU at equal priority either way.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time


def raise_priority():
    """In a child after setsid: nice -20 for the process and its new autogroup; silently kept as is
    when not allowed (the parent reports what the child got)."""
    try:
        os.nice(-20)
    except OSError:
        pass
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("-20")
    except OSError:
        pass


def priority_of(pid):
    nice = os.getpriority(os.PRIO_PROCESS, pid)
    try:
        with open(f"/proc/{pid}/autogroup") as f:
            group = f.read().strip()
    except OSError:
        group = "no autogroup"
    return f"nice {nice}, {group}"


def run(command, max_seconds, boost=False, on_start=None):
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=raise_priority if boost else None)
    if on_start:
        on_start(proc)
    try:
        out, err = proc.communicate(timeout=max_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out, err, time.monotonic() - started
    return proc.returncode, out, err, time.monotonic() - started


def check_core(core, methods, failures, where):
    """The per-CPU JSON results obey the definitions of the noise measures."""
    for method in ("fwq", "selfish"):
        r = core.get(method)
        if method not in methods:
            if r is not None:
                failures.append(f"{where}: {method} results although it was not asked for")
            continue
        if r is None:
            failures.append(f"{where}: no {method} results")
            continue
        hist = r["histogram"]
        hist_total = hist["zero"] + sum(b["count"] for b in hist["bins"])
        for b in hist["bins"]:
            if b["to_ns"] != 2 * b["from_ns"] or b["from_ns"] & (b["from_ns"] - 1):
                failures.append(f"{where} {method}: histogram bin {b} is not [2^k, 2^(k+1))")
        if not 0.0 <= r["noise_fraction"] < 1.0:
            failures.append(f"{where} {method}: noise fraction {r['noise_fraction']} outside [0, 1)")
        if method == "fwq":
            if r["samples"] < 10 or r["baseline_ns"] <= 0:
                failures.append(f"{where} fwq: {r['samples']} samples, baseline {r['baseline_ns']} ns")
            want = r["detour_ns"] / r["total_ns"]
            if abs(r["noise_fraction"] - want) > 1e-9:
                failures.append(f"{where} fwq: noise fraction {r['noise_fraction']} != detour/total {want}")
            if r["total_ns"] < r["samples"] * r["baseline_ns"]:
                failures.append(f"{where} fwq: total below samples x baseline")
            if not r["p50_detour_ns"] <= r["p99_detour_ns"] <= r["largest_detour_ns"]:
                failures.append(f"{where} fwq: p50 <= p99 <= largest does not hold")
            if hist_total != r["samples"]:
                failures.append(f"{where} fwq: histogram holds {hist_total} quanta, expected {r['samples']}")
        else:
            if r["reads"] < 1000 or r["elapsed_ns"] <= 0 or r["min_gap_ns"] <= 0:
                failures.append(f"{where} selfish: {r['reads']} reads over {r['elapsed_ns']} ns")
            if r["threshold_ns"] < r["min_gap_ns"]:
                failures.append(f"{where} selfish: threshold {r['threshold_ns']} below the min gap")
            want = r["detour_ns"] / r["elapsed_ns"]
            if abs(r["noise_fraction"] - want) > 1e-9:
                failures.append(f"{where} selfish: noise fraction {r['noise_fraction']} != detour/elapsed {want}")
            if hist_total != r["detours"]:
                failures.append(f"{where} selfish: histogram holds {hist_total} detours, expected {r['detours']}")
            if r["detours"] and not r["threshold_ns"] < r["p99_detour_ns"] <= r["largest_detour_ns"]:
                failures.append(f"{where} selfish: threshold < p99 <= largest does not hold")


def check_trace(core, failures, where):
    path = core.get("trace_file")
    if not path:
        failures.append(f"{where}: no trace_file in the JSON")
        return
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        failures.append(f"{where}: cannot read the trace {path}: {e}")
        return
    if not re.fullmatch(r"detours-.+-cpu%d\.tsv" % core["cpu"], os.path.basename(path)):
        failures.append(f"{where}: trace name {os.path.basename(path)} is not detours-<host>-cpu{core['cpu']}.tsv")
    lines = text.splitlines()
    detours = []
    for n, line in enumerate(lines, 1):
        m = re.fullmatch(r"(\d+)\t(\d+)", line)
        if not m:
            failures.append(f"{where}: trace line {n} is not start_ns<TAB>duration_ns: {line!r}")
            return
        detours.append((int(m.group(1)), int(m.group(2))))
    s = core["selfish"]
    kept = s["detours"] - s["dropped_from_trace"]
    if len(detours) != kept:
        failures.append(f"{where}: {len(detours)} trace lines, the JSON says {kept} detours were kept")
    if s["dropped_from_trace"] == 0 and sum(d for _, d in detours) != s["detour_ns"]:
        failures.append(f"{where}: trace durations add up to {sum(d for _, d in detours)} ns, "
                        f"the JSON says {s['detour_ns']} ns")
    for i in range(1, len(detours)):
        if detours[i][0] < detours[i - 1][0] + detours[i - 1][1]:
            failures.append(f"{where}: trace line {i + 1} starts before the previous detour ended")
            break
    if any(d <= s["threshold_ns"] for _, d in detours):
        failures.append(f"{where}: a trace detour is not above the threshold {s['threshold_ns']} ns")


def check_run(a, command):
    failures = []
    if os.path.exists(a.json):
        os.unlink(a.json)
    command = command + ["--json", a.json] + (["--trace-dir", a.trace_dir] if a.trace_dir else [])
    code, out, err, seconds = run(command, a.max_seconds)
    methods = a.methods.split(",")
    print("command:", " ".join(command))
    print(f"exit code {code} after {seconds:.2f} s")
    print("--- stdout\n" + out + "--- stderr\n" + err)
    if code is None:
        failures.append(f"still running after {a.max_seconds:g} s: killed")
    elif code != 0:
        failures.append(f"exit code {code}, expected 0")
    if not re.search(r"^wave3d noise: .* clock CLOCK_MONOTONIC", out, re.MULTILINE):
        failures.append("no header line naming the clock")
    if not re.search(r"^rank +host +cpu +core +method +samples +baseline +noise % +largest +p99 detour", out,
                      re.MULTILINE):
        failures.append("no table header")
    if not re.search(r"^detour histogram", out, re.MULTILINE):
        failures.append("no histogram")
    try:
        with open(a.json) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        failures.append(f"cannot read the JSON: {e}")
        doc = None
    if doc is not None:
        if doc.get("command") != "noise" or "CLOCK_MONOTONIC" not in doc.get("clock", ""):
            failures.append("JSON: command or clock missing")
        if doc["config"]["method"] != ("both" if len(methods) == 2 else methods[0]):
            failures.append(f"JSON: config.method is {doc['config']['method']}")
        ranks = doc["ranks"]
        if len(ranks) != a.ranks:
            failures.append(f"JSON: {len(ranks)} ranks, expected {a.ranks}")
        probed = []
        for r in ranks:
            if r["machine"].get("pus", 0) < 1:
                failures.append(f"rank {r['rank']}: no machine info")
            if sorted(c["cpu"] for c in r["cores"]) != sorted(r["probed_cpus"]):
                failures.append(f"rank {r['rank']}: cores {r['cores']} differ from probed_cpus")
            for c in r["cores"]:
                where = f"rank {r['rank']} cpu {c['cpu']}"
                probed.append((r["host"], c["cpu"]))
                if c["cpu"] not in r["allowed_cpus"]:
                    failures.append(f"{where}: not among the rank's allowed CPUs {r['allowed_cpus']}")
                if c["ran_on_cpu"] != c["cpu"]:
                    failures.append(f"{where}: the thread ended on CPU {c['ran_on_cpu']}")
                check_core(c, methods, failures, where)
                if a.trace_dir and "selfish" in methods:
                    check_trace(c, failures, where)
                for method in methods:
                    row = rf"^ *{r['rank']} +{re.escape(r['host'])} +{c['cpu']} +\S+ +{method} "
                    if not re.search(row, out, re.MULTILINE):
                        failures.append(f"{where}: no {method} row in the table")
        if not probed:
            failures.append("no CPU was probed")
        if len(set(probed)) != len(probed):
            failures.append(f"some CPU was probed twice: {probed}")
        if a.ranks > 1 and sum(1 for r in ranks if r["cores"]) < 2:
            failures.append("under several ranks sharing the node's CPUs, only one rank probed")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def noise_fractions(doc):
    core = doc["ranks"][0]["cores"][0]
    return {m: core[m]["noise_fraction"] for m in ("fwq", "selfish")}, core


def quiet_vs_loaded(a):
    failures = []
    cpu = max(os.sched_getaffinity(0))
    os.makedirs(a.out, exist_ok=True)
    print(f"probing CPU {cpu}")

    def probe(name, extra=()):
        path = os.path.join(a.out, f"{name}.json")
        if os.path.exists(path):
            os.unlink(path)
        command = [a.wave3d, "noise", "--cpus", str(cpu), "--duration", a.duration, "--json", path, *extra]
        priority = []
        code, out, err, seconds = run(command, 60, boost=True, on_start=lambda p: priority.append(priority_of(p.pid)))
        print(f"--- {name} ({priority[0]}): exit {code} after {seconds:.2f} s: {' '.join(command)}\n{out}{err}")
        if code != 0:
            raise RuntimeError(f"{name} run: exit code {code}")
        with open(path) as f:
            return json.load(f)

    daemon = None
    try:
        quiet1, _ = noise_fractions(probe("quiet1"))
        # --run-for bounds its life should this script itself be killed (a ctest timeout) before the
        # finally block below can stop it.
        daemon = subprocess.Popen([a.daemon, "--kind", "spin", "--period", "10ms", "--duration", "8ms",
                                   "--cpus", str(cpu), "--run-for", "30s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True, preexec_fn=raise_priority)
        print(f"--- daemon started ({priority_of(daemon.pid)})")
        time.sleep(0.2)
        if daemon.poll() is not None:
            raise RuntimeError(f"wave3d-noise ended at once: {daemon.communicate()}")
        loaded_doc = probe("loaded", ["--trace-dir", os.path.join(a.out, "traces")])
        loaded, loaded_core = noise_fractions(loaded_doc)
        daemon.send_signal(signal.SIGTERM)
        d_out, d_err = daemon.communicate(timeout=10)
        print("--- daemon:", d_out.strip(), d_err.strip())
        daemon = None
        quiet2, _ = noise_fractions(probe("quiet2"))
        for method in ("fwq", "selfish"):
            quiet = min(quiet1[method], quiet2[method])
            print(f"{method}: quiet {100 * quiet1[method]:.3f} % and {100 * quiet2[method]:.3f} %, "
                  f"loaded {100 * loaded[method]:.3f} % ({loaded[method] / max(quiet, 1e-12):.1f}x the quieter)")
            if loaded[method] < 0.05:
                failures.append(f"{method}: loaded noise {100 * loaded[method]:.3f} % is not above 5 %")
            if loaded[method] <= 2 * quiet:
                failures.append(f"{method}: loaded noise {100 * loaded[method]:.3f} % is not more than twice "
                                f"the quiet {100 * quiet:.3f} %")
        # The daemon's bursts are long: the loaded CPU's largest detour is far above the default threshold.
        s = loaded_core["selfish"]
        if s["largest_detour_ns"] < 100_000:
            failures.append(f"selfish: the largest loaded detour is {s['largest_detour_ns']} ns, below 100 us")
        check_trace(loaded_core, failures, f"loaded cpu {cpu}")
    except (RuntimeError, OSError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        failures.append(str(e))
    finally:
        if daemon is not None and daemon.poll() is None:
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.communicate()
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run")
    r.add_argument("--json", required=True)
    r.add_argument("--trace-dir")
    r.add_argument("--ranks", type=int, default=1)
    r.add_argument("--methods", default="fwq,selfish")
    r.add_argument("--max-seconds", type=float, default=60.0)
    r.add_argument("command", nargs=argparse.REMAINDER)
    q = sub.add_parser("quiet-vs-loaded")
    q.add_argument("--wave3d", required=True)
    q.add_argument("--daemon", required=True)
    q.add_argument("--out", required=True)
    q.add_argument("--duration", default="0.5s")
    a = ap.parse_args()
    if a.mode == "run":
        command = a.command[1:] if a.command and a.command[0] == "--" else a.command
        return check_run(a, command)
    return quiet_vs_loaded(a)


if __name__ == "__main__":
    sys.exit(main())
