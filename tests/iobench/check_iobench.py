#!/usr/bin/env python3
"""Runs `wave3d iobench` and checks its JSON: every placement x file mode x thread count asked for is
there with a bandwidth > 0 and files that read back equal to the buffer; the page-cache pages were
found; the path matrix has every buffer x thread x page-cache node case, its pages on the destination
node, and on a one-node machine the note that only the local path exists (printed on stdout too); the PNG, when asked
for and matplotlib is available, is a PNG.

usage: check_iobench.py --json FILE [--png FILE] [--threads 1,2] [--placements a,b] [--files a,b]
                        [--memory-backed yes|no] -- wave3d iobench ...
"""
import argparse
import json
import pathlib
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--png")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--placements", default="on-each-node,on-one-node")
    ap.add_argument("--files", default="shared,per-thread")
    ap.add_argument("--memory-backed", choices=["yes", "no"])
    ap.add_argument("--timeout", type=float, default=200)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command and a.command[0] == "--" else a.command
    for p in (a.json, a.png):
        if p:
            pathlib.Path(p).unlink(missing_ok=True)

    run = subprocess.run(command, capture_output=True, text=True, timeout=a.timeout)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    failures = []
    if run.returncode != 0:
        print(f"FAIL: exit code {run.returncode}")
        return 1
    doc = json.loads(pathlib.Path(a.json).read_text())

    threads = [int(t) for t in a.threads.split(",")]
    if doc["threads"] != threads:
        failures.append(f"threads {doc['threads']}, asked {threads}")
    seen = set()
    for case in doc["sweep"]:
        key = (case["placement"], case["files"], case["threads"])
        seen.add(key)
        bw = case["bandwidth"]
        if not (bw["best_gibytes_per_second"] > 0 and bw["median_gibytes_per_second"] > 0 and bw["best_gibytes_per_second"] >= bw["median_gibytes_per_second"]):
            failures.append(f"{key}: bandwidth {bw}")
        if len(bw["repetitions_s"]) != doc["repetitions"] or min(bw["repetitions_s"]) <= 0:
            failures.append(f"{key}: {len(bw['seconds'])} times for {doc['repetitions']} repetitions")
        if not case["file_check_ok"]:
            failures.append(f"{key}: {case['file_check']}")
        if sum(t["bytes"] for t in case["io_threads"]) != doc["bytes"]:
            failures.append(f"{key}: the I/O threads do not write the whole buffer")
        if not 1 <= len(case["io_threads"]) <= case["threads"]:
            failures.append(f"{key}: {len(case['io_threads'])} I/O threads for {case['threads']} asked")
        pages = case["page_cache_pages"]
        if pages.get("available") and pages["pages_sampled"] == 0:
            failures.append(f"{key}: no page-cache pages found")
    want = {(p, f, t) for p in a.placements.split(",") for f in a.files.split(",") for t in threads}
    if seen != want:
        failures.append(f"cases {sorted(seen)}, expected {sorted(want)}")

    fs = doc["file_system"]
    if not fs.get("type"):
        failures.append("the file system type is missing")
    if a.memory_backed and fs["memory_backed"] != (a.memory_backed == "yes"):
        failures.append(f"memory_backed is {fs['memory_backed']}")

    matrix = doc["path_matrix"]
    nodes = len(doc["numa_nodes"])
    if nodes == 1:
        if "only the local path exists" not in matrix["note"] or matrix["paths_that_exist"] != ["local"]:
            failures.append(f"one NUMA node, but the path matrix says {matrix}")
        if matrix["measured"] and [c["kind"] for c in matrix["cases"]] != ["local"]:
            failures.append(f"one NUMA node: path cases {matrix['cases']}")
        if "only the local path exists" not in run.stdout:
            failures.append("stdout does not say that only the local path exists")
    if matrix["measured"]:
        kinds = {c["kind"] for c in matrix["cases"]}
        if len(matrix["cases"]) != nodes ** 3 or kinds != set(matrix["paths_that_exist"]):
            failures.append(f"{nodes} NUMA nodes: {len(matrix['cases'])} path cases, kinds {kinds}")
        for c in matrix["cases"]:
            if c["bandwidth"]["best_gibytes_per_second"] <= 0:
                failures.append(f"path case {c} has no bandwidth")
            pages = c["page_cache_pages"]
            if pages.get("available") and pages["pages_per_node"].get(str(c["destination_node"]), 0) == 0:
                failures.append(f"path case {c}: no page-cache page on the destination node")

    if a.png:
        if "png: not written" in run.stdout:
            print("note: " + [l for l in run.stdout.splitlines() if l.startswith("png:")][0])
        elif pathlib.Path(a.png).read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            failures.append(f"{a.png} is not a PNG")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
