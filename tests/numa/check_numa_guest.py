#!/usr/bin/env python3
"""NUMA behaviour, checked inside a guest with several NUMA nodes (scripts/numa-guest/run-in-numa-guest.sh).

  check_numa_guest.py --wave3d PATH --work DIR --numa-nodes N [--sockets S] [--hbm-node K]

Every check runs wave3d on the guest's real topology and reads where the pages of its fields went
(run.json memory.pages_per_numa_node_per_rank, from move_pages):
  serial        all pages on node 0 (one thread writes them, on node 0's core)
  node:K        all pages on the last node
  interleave    every node holds its share (within 10 percentage points)
  first-touch   N threads bound one per node: every node holds at least 60 % of its share
  rank-per-numa one rank per NUMA node (mpirun line of wave3d plan): each rank's threads on its node's
                cores and its pages on its node; wave3d plan on the guest equals wave3d plan on the
                equivalent synthetic topology (S sockets of N / S NUMA nodes of one core), for
                rank-per-numa and rank-per-socket
  rank-per-socket one rank per socket (mpirun line of wave3d plan): each rank's threads one per CPU of
                its socket, its pages on its socket's NUMA nodes, and the placement audit "ok"
  iobench       the path matrix covers every buffer node x thread node x page-cache node, each case
                of the kind its nodes make it (local, pull, push, round-trip, relay with 3 distinct
                nodes), its page cache on the node asked for, and every file read back equal
  stream        runs with first-touch and serial arrays on the guest's nodes
  advise        measures every NUMA domain: one entry per node in advise.json, each with its own curves
  high-bandwidth-memory (with --hbm-node K, a guest made with --hbm) one rank per socket: the rank of
                socket 0 puts its fields on node K, the one HMAT says is fastest from there, and the
                others on their own node
Prints one line per check and exits 1 if any failed.
"""
import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

# counters.enabled=false: opening per-thread perf events switches the kernel's perf static keys, which
# patches live kernel text (text_poke_bp) on every vCPU. Under QEMU's TCG that patching can livelock
# the whole guest (one vCPU loops in its int3 handler, the patching one waits forever for its IPI;
# the guest's RCU stall report shows both), and these checks are about pages and threads, not counters.
SMALL = ["--set", "grid.n=64,64,64", "--set", "stencil.radius=2", "--set", "run.steps=4", "--set", "blocking.cache=off", "--set",
         "run.progress=off", "--set", "blocking.size=0,16,16", "--set", "counters.enabled=false"]
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)


# Well inside the guest's own time limit, so that a command that stalls is reported from inside.
COMMAND_TIMEOUT_S = 180


def stacks_of(pid):
    """Every thread's kernel stack (from /proc, which needs no tracing) and user stack (gdb from the
    host's file system, which the guest runs on) of a process that stopped making progress. A thread
    stuck inside the kernel can make gdb hang too, so gdb gets a bounded time and is left behind."""
    lines = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        try:
            state = next(l for l in (task / "status").read_text().splitlines() if l.startswith("State:"))
            lines.append(f"thread {task.name} ({(task / 'comm').read_text().strip()}) {state}, "
                         f"kernel stack:\n{(task / 'stack').read_text().rstrip() or '  (none: in user space)'}")
        except (OSError, StopIteration) as e:
            lines.append(f"thread {task.name}: {e}")
    if not shutil.which("gdb"):
        return "\n".join(lines + ["(no gdb in the guest: no user stacks)"])
    gdb = subprocess.Popen(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 20"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        out, _ = gdb.communicate(timeout=60)
        lines += [line for line in out.splitlines() if line.startswith(("#", "Thread"))]
    except subprocess.TimeoutExpired:
        gdb.kill()
        lines.append("(gdb did not attach within 60 s: no user stacks)")
    return "\n".join(lines)


def run_command(command, what):
    """Runs a command; True if it exited 0, else shows its output and records the failure. A command
    still running after COMMAND_TIMEOUT_S is reported with its output so far and its threads' stacks."""
    print("$ " + " ".join(command), flush=True)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"{what}: still running after {COMMAND_TIMEOUT_S} s; its stacks:", flush=True)
        print(stacks_of(proc.pid), flush=True)
        proc.kill()
        try:
            out, err = proc.communicate(timeout=30)
            print(out[-3000:], err[-3000:], sep="\n")
        except subprocess.TimeoutExpired:
            print(f"{what}: did not end when killed (stuck in the kernel)", flush=True)
        check(False, f"{what} did not finish within {COMMAND_TIMEOUT_S} s")
        return False
    if proc.returncode != 0:
        print(out[-3000:], err[-3000:], sep="\n")
        check(False, f"{what} exited {proc.returncode}")
    return proc.returncode == 0


def run_wave3d(args, name, settings, launcher=()):
    out = Path(args.work) / name
    if not run_command([*launcher, args.wave3d, "run", *SMALL, *settings, "--set", f"output.directory={out}"],
                       f"{name}: wave3d run"):
        return None
    (run_json,) = out.rglob("run.json")
    return json.loads(run_json.read_text())


def shares(pages):
    """Fraction of the sampled pages on each node, for one field of one rank."""
    counts = {int(k): v for k, v in pages["pages_per_node"].items()}
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total else {}


def field_shares(doc, rank=0):
    per_rank = doc["memory"]["pages_per_numa_node_per_rank"][rank]
    return {name: shares(per_rank[name]) for name in ("prev", "next", "vel")}


def check_all_on(doc, name, node):
    for field, s in field_shares(doc).items():
        check(s.get(node, 0.0) == 1.0, f"{name}: {field} pages all on node {node} ({s})")


def check_high_bandwidth_memory(args, sockets):
    launcher = ["mpirun", "-n", str(sockets), "--map-by", "ppr:1:socket", "--bind-to", "socket", "--oversubscribe"]
    doc = run_wave3d(args, "high-bandwidth-memory", ["--set", "placement.high_bandwidth_memory=true"],
                     launcher=launcher)
    if not doc:
        return
    for rank in range(sockets):
        s = field_shares(doc, rank)["prev"]
        if rank == 0:
            check(s.get(args.hbm_node, 0.0) == 1.0,
                  f"high-bandwidth memory: rank 0 (socket 0) has its fields on node {args.hbm_node} ({s})")
        else:
            check(args.hbm_node not in s and len(s) == 1,
                  f"high-bandwidth memory: rank {rank} (socket {rank}) keeps its fields off node {args.hbm_node}, "
                  f"on one node of its own ({s})")


def hwloc_physical(kind, socket):
    """The OS indices of the PUs or NUMA nodes (kind "pu" or "numa") of a socket, as hwloc-calc lists them."""
    out = subprocess.run(["hwloc-calc", "--physical-output", "--intersect", kind, f"socket:{socket}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return {int(i) for i in out.split(",") if i}


def check_rank_per_socket(args, plan, sockets, n):
    """One rank per socket with the mpirun line of wave3d plan: each rank's threads on the cores of its own
    socket, one per core, and its pages on that socket's NUMA nodes (first touch)."""
    launcher = plan["launchers"]["mpirun_argv"] + ["--oversubscribe"]
    doc = run_wave3d(args, "rank-per-socket", plan["launchers"]["program_argv"], launcher=launcher)
    if not doc:
        return
    check(doc["parallel"]["ranks"] == sockets, f"rank-per-socket: {doc['parallel']['ranks']} ranks, one per socket")
    audit = doc.get("placement_audit") or {}
    check(audit.get("verdict") == "ok", f"rank-per-socket: the placement audit finds every thread where the plan "
          f"put it ({audit})")
    for entry in sorted(doc["binding"], key=lambda b: b["rank"]):
        rank = entry["rank"]
        pus, nodes = hwloc_physical("pu", rank), hwloc_physical("numa", rank)
        cpus = [t["cpu"] for t in entry["binding"]["threads"]]
        check(len(cpus) == n // sockets and set(cpus) == pus,
              f"rank-per-socket: rank {rank}'s threads on CPUs {cpus}, one on each CPU of socket {rank} ({sorted(pus)})")
        s = field_shares(doc, rank)["prev"]
        on_socket = sum(share for node, share in s.items() if node in nodes)
        check(on_socket == 1.0, f"rank-per-socket: rank {rank}'s pages on the NUMA nodes {sorted(nodes)} of its socket ({s})")


def path_kind(buffer, thread, destination):
    if buffer == thread == destination:
        return "local"
    if thread == destination:
        return "pull"
    if buffer == thread:
        return "push"
    if buffer == destination:
        return "round-trip"
    return "relay"


def check_iobench(args, n):
    out = Path(args.work) / "iobench.json"
    if not run_command([args.wave3d, "iobench", "--path", "/dev/shm", "--size", "4MiB", "--threads", "1",
                        "--repetitions", "1", "--placement", "on-one-node", "--files", "shared", "--path-size", "1MiB",
                        "--json", str(out)], "iobench"):
        return
    doc = json.loads(out.read_text())
    check(doc["files_ok"] is True, "iobench: every file read back equal to the buffer")
    cases = doc["path_matrix"]["cases"]
    seen = {(c["buffer_node"], c["thread_node"], c["destination_node"]) for c in cases}
    check(seen == {(b, t, d) for b in range(n) for t in range(n) for d in range(n)},
          f"iobench: the path matrix has all {n}x{n}x{n} cases ({len(seen)} seen)")
    for c in cases:
        nodes = (c["buffer_node"], c["thread_node"], c["destination_node"])
        cache = shares(c["page_cache_pages"])
        if c["kind"] != path_kind(*nodes) or cache.get(c["destination_node"], 0.0) != 1.0:
            check(False, f"iobench: case {nodes} is '{c['kind']}' with its page cache on {cache}; expected "
                         f"'{path_kind(*nodes)}' with every page on node {c['destination_node']}")
            return
    kinds = sorted({c["kind"] for c in cases})
    check(True, f"iobench: every case of the kind its nodes make, page cache where asked; kinds {kinds}")


def check_stream(args):
    out = Path(args.work) / "stream.json"
    if run_command([args.wave3d, "stream", "--threads", "1,2", "--array-mib", "8", "--repetitions", "3",
                    "--json", str(out)], "stream"):
        check(out.is_file(), "stream: ran with first-touch and serial arrays")


def check_advise(args, n):
    out = Path(args.work) / "advise"
    if not run_command([args.wave3d, "advise", "--threads", "1", "--grid", "24", "--steps", "2", "--repetitions", "2",
                        "--array-mib", "4", "--stream-repetitions", "2", "--no-plot", "--output-dir", str(out)],
                       "advise"):
        return
    domains = json.loads((out / "advise.json").read_text())["domains"]
    nodes = sorted(d["os_index"] for d in domains)
    check(nodes == list(range(n)) and all(d["curves"] for d in domains),
          f"advise: one measured domain per NUMA node ({nodes})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wave3d", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--numa-nodes", type=int, required=True)
    ap.add_argument("--sockets", type=int, help="default: one per NUMA node")
    ap.add_argument("--hbm-node", type=int, help="the high-bandwidth node of a guest made with --hbm")
    args = ap.parse_args()
    n = args.numa_nodes
    sockets = args.sockets or n
    shutil.rmtree(args.work, ignore_errors=True)  # results of an earlier attempt would be read as these
    Path(args.work).mkdir(parents=True)
    # Where the pages go must be wave3d's doing alone: the kernel's automatic NUMA balancing would move
    # them after the fact, and a transparent huge page puts 2 MiB (half of these small fields) on the
    # node of whichever thread touches it first.
    for knob, value in [("/proc/sys/kernel/numa_balancing", "0"), ("/sys/kernel/mm/transparent_hugepage/enabled", "never")]:
        try:
            Path(knob).write_text(value)
            print(f"set {knob} = {value}")
        except OSError as e:
            print(f"could not set {knob} = {value}: {e}")
    topology = subprocess.run(["hwloc-calc", "--number-of", "numanode", "all"], capture_output=True, text=True)
    expected_nodes = n + (1 if args.hbm_node is not None else 0)
    check(topology.stdout.strip() == str(expected_nodes),
          f"the guest has {expected_nodes} NUMA nodes (hwloc: {topology.stdout.strip()})")
    if args.hbm_node is not None:
        check_high_bandwidth_memory(args, sockets)
        print(f"{len(failures)} check(s) failed" if failures else "all NUMA checks passed")
        return 1 if failures else 0

    bound = ["--set", "placement.layout=rank-per-node", "--set", f"run.threads={n}"]
    doc = run_wave3d(args, "serial", [*bound, "--set", "init.policy=serial"])
    if doc:
        check_all_on(doc, "serial", 0)
    doc = run_wave3d(args, "node", [*bound, "--set", "init.policy=node", "--set", f"init.numa_node={n - 1}"])
    if doc:
        check_all_on(doc, f"node:{n - 1}", n - 1)
    doc = run_wave3d(args, "interleave", [*bound, "--set", "init.policy=interleave"])
    if doc:
        for field, s in field_shares(doc).items():
            check(len(s) == n and all(abs(v - 1 / n) <= 0.10 for v in s.values()),
                  f"interleave: {field} pages spread evenly over {n} nodes ({s})")
    doc = run_wave3d(args, "first-touch", [*bound, "--set", "init.policy=first-touch"])
    if doc:
        for field, s in field_shares(doc).items():
            check(all(s.get(k, 0) >= 0.6 / n for k in range(n)),
                  f"first-touch: {field} pages split over the {n} threads' nodes ({s})")

    # One rank per NUMA node, launched with the mpirun line of wave3d plan.
    described = f"pack:{sockets} numa:{n // sockets} core:1 pu:1"
    plans = {}
    for layout in ("rank-per-numa", "rank-per-socket"):
        here = json.loads(subprocess.run([args.wave3d, "plan", "--layout", layout, "--json"],
                                         capture_output=True, text=True, check=True).stdout)
        synthetic = json.loads(subprocess.run(
            [args.wave3d, "plan", "--synthetic", described, "--layout", layout, "--json"],
            capture_output=True, text=True, check=True).stdout)
        check(here["plan"]["ranks"] == synthetic["plan"]["ranks"],
              f"wave3d plan --layout {layout} places ranks and threads on the guest as on the synthetic "
              f"topology {described}")
        plans[layout] = here
    plan = plans["rank-per-numa"]
    launcher = plan["launchers"]["mpirun_argv"] + ["--oversubscribe"]
    doc = run_wave3d(args, "rank-per-numa", plan["launchers"]["program_argv"], launcher=launcher)
    if doc:
        check(doc["parallel"]["ranks"] == n, f"rank-per-numa: {doc['parallel']['ranks']} ranks, one per node")
        for entry in sorted(doc["binding"], key=lambda b: b["rank"]):
            rank = entry["rank"]
            nodes = {t["numa_node"] for t in entry["binding"]["threads"]}
            check(nodes == {rank}, f"rank-per-numa: rank {rank}'s threads on NUMA node(s) {sorted(nodes)}")
            s = field_shares(doc, rank)["prev"]
            check(s.get(rank, 0.0) == 1.0, f"rank-per-numa: rank {rank}'s pages on its node {rank} ({s})")
    check_rank_per_socket(args, plans["rank-per-socket"], sockets, n)
    check_iobench(args, n)
    check_stream(args)
    check_advise(args, n)
    print(f"{len(failures)} check(s) failed" if failures else "all NUMA checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
