#pragma once
// The placement audit: given where every thread of every rank of a node runs and may run, finds what
// makes a measurement on that node wrong, and names the cause. A pure function of plain values (no
// hwloc, no system calls), so placements of machines we do not have can be audited in tests.
//
// Problems, each with the cause the evidence points to:
//   shared-cpus     threads take turns on CPUs while other CPUs of the node stay idle
//   oversubscribed  more threads than the CPUs the node lets the job use
//   floating        threads allowed on several cores: the scheduler may move them mid-measurement
//   off-plan        a thread is not where the placement plan put it
//   no-work         the cache blocking gives a rank fewer blocks than threads
// Causes: launcher (the launcher's binding of the rank), cgroup (the job's cpuset / cgroup), openmp
// (OMP_PROC_BIND / OMP_PLACES), unbound (nothing binds the thread), progress-core (the progress thread
// was put on a compute thread's CPU), plan (wave3d's own binding did not hold), blocking (blocking.size).
#include <optional>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace wave3d {

// One thread as it was seen: an OpenMP compute thread or the rank's progress thread.
struct SeenThread {
  int thread = 0;         // OpenMP thread number; for the progress thread, the rank's compute thread count
  bool progress = false;  // the MPI progress thread
  std::optional<int> cpu;         // where it was running when asked
  std::vector<int> allowed;       // its affinity mask (OS PU numbers), ascending
  std::vector<int> planned;       // the PUs the placement plan gave it, ascending; empty without a plan
};

struct SeenRank {
  int rank = 0;
  std::string host;
  std::vector<int> launch_cpus;  // the process's affinity as the launcher started it, before any binding
  std::string proc_bind;         // the OpenMP runtime's binding policy: "false", "close", "spread", ...
  int num_places = 0;            // OpenMP places (0: no place list)
  bool planned = false;          // wave3d bound the threads to a placement plan (placement.layout)
  std::vector<SeenThread> threads;  // compute threads in thread order, then the progress thread if any
  std::optional<long long> work_blocks;  // cache blocks of the rank's update region, if known
  int compute_threads() const;
};

// The CPUs of one node as far as the audit needs them.
struct NodeCpus {
  std::vector<int> allowed;     // PUs the job may use on the node (cgroup / cpuset), ascending
  int machine_pus = 0;          // every PU of the machine
  std::vector<int> core_of_pu;  // logical core of each PU, indexed by OS PU number; -1 where unknown
};

NodeCpus node_cpus_of(const Topology& topology);

struct PlacementProblem {
  std::string kind;   // shared-cpus, oversubscribed, floating, off-plan, no-work
  std::string cause;  // launcher, cgroup, openmp, unbound, progress-core, plan, blocking
  std::string host;
  std::vector<int> ranks;
  std::string message;  // one sentence naming ranks, threads and CPUs, the cause and what to do
};

// Audits the ranks of one node (all of `ranks` share it).
std::vector<PlacementProblem> audit_node(const NodeCpus& node, const std::vector<SeenRank>& ranks);

}  // namespace wave3d
