#!/usr/bin/env python3
"""End-to-end checks of wave3d-noise: runs it, optionally sends SIGTERM, and checks the exit code, the
summary line and the burst log ("start_ns<TAB>duration_ns" per line).

usage: check_noise.py [--sigterm-after S] [--max-seconds S] [--min-bursts N] [--max-bursts N]
                      [--min-duration-ms D] [--max-duration-ms D] --log FILE -- command...
The command gets "--log FILE" appended.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigterm-after", type=float)
    ap.add_argument("--max-seconds", type=float, default=10.0)
    ap.add_argument("--min-bursts", type=int, required=True)
    ap.add_argument("--max-bursts", type=int, required=True)
    ap.add_argument("--min-duration-ms", type=float, required=True)
    ap.add_argument("--max-duration-ms", type=float, required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = (a.command[1:] if a.command and a.command[0] == "--" else a.command) + ["--log", a.log]
    if os.path.exists(a.log):
        os.unlink(a.log)

    failures = []
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    signalled = None
    if a.sigterm_after is not None:
        time.sleep(a.sigterm_after)
        proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
    try:
        out, err = proc.communicate(timeout=a.max_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        failures.append(f"still running after {a.max_seconds:g} s: killed")
    ended = time.monotonic()
    if signalled is not None and ended - signalled > 1.0:
        failures.append(f"took {ended - signalled:.2f} s to stop after SIGTERM, more than 1 s")
    if proc.returncode != 0:
        failures.append(f"exit code {proc.returncode}, expected 0")
    if not re.search(r"^wave3d-noise: \d+ bursts .*mean duration .*achieved period", out, re.MULTILINE):
        failures.append("no summary line on stdout")
    if signalled is not None and "stopped by SIGTERM" not in out:
        failures.append("summary does not say it was stopped by SIGTERM")

    try:
        with open(a.log) as f:
            text = f.read()
    except OSError as e:
        text = ""
        failures.append(f"cannot read the log: {e}")
    if text and not text.endswith("\n"):
        failures.append("the log's last line is incomplete")
    bursts = []
    for n, line in enumerate(text.splitlines(), 1):
        m = re.fullmatch(r"(\d+)\t(\d+)", line)
        if not m:
            failures.append(f"log line {n} is not start_ns<TAB>duration_ns: {line!r}")
            break
        bursts.append((int(m.group(1)), int(m.group(2))))
    if not a.min_bursts <= len(bursts) <= a.max_bursts:
        failures.append(f"{len(bursts)} bursts in the log, expected {a.min_bursts}..{a.max_bursts}")
    for i, (start, dur) in enumerate(bursts):
        # SIGTERM may arrive during the last burst: the daemon stops at once and logs the work it did.
        cut_short = signalled is not None and i == len(bursts) - 1
        shortest = 0.0 if cut_short else a.min_duration_ms * 1e6
        if not shortest <= dur < a.max_duration_ms * 1e6:
            failures.append(f"burst {i} lasted {dur / 1e6:.3f} ms, expected [{a.min_duration_ms}, {a.max_duration_ms}) ms")
        if i and start <= bursts[i - 1][0]:
            failures.append(f"burst {i} starts at {start} ns, not after burst {i - 1} ({bursts[i - 1][0]} ns)")
    summary = re.search(r"(\d+) bursts", out)
    if summary and int(summary.group(1)) != len(bursts):
        failures.append(f"summary says {summary.group(1)} bursts, the log has {len(bursts)}")

    print("command:", " ".join(command))
    print(f"exit code {proc.returncode} after {ended - started:.2f} s, {len(bursts)} bursts logged")
    print("--- stdout\n" + out + "--- stderr\n" + err)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
