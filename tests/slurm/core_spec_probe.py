#!/usr/bin/env python3
"""Run as a job step: prints, as one JSON line, the CPUs this process may run on, and whether it can widen
that set to CPUS (a comma-separated list, the node's specialised CPUs): with cgroup confinement the
kernel refuses; with affinity binding alone the process may move itself anywhere."""
import json
import os
import socket
import sys

allowed = sorted(os.sched_getaffinity(0))
wanted = {int(c) for c in sys.argv[1].split(",") if c} if len(sys.argv) > 1 else set()
widened = None
if wanted:
    try:
        os.sched_setaffinity(0, set(allowed) | wanted)
        widened = sorted(os.sched_getaffinity(0))
    except OSError as e:
        widened = f"refused: {e.strerror}"
    os.sched_setaffinity(0, set(allowed))
print(json.dumps({"host": socket.gethostname(), "allowed": allowed, "widened_to": widened}), flush=True)
