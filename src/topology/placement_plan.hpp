#pragma once
// Where every rank and thread of one node goes, computed from a Topology and a PlacementRequest by a
// pure function: no hwloc, no system calls, the same answer on a laptop as on the cluster node. Binding
// threads, memory policy and the launcher lines all follow from this value.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/placement_error.hpp"
#include "topology/placement_request.hpp"
#include "topology/reserved_cores.hpp"
#include "topology/topology.hpp"

namespace wave3d {

// What a rank's `domain` index counts: the node (always 0), sockets or NUMA nodes. rank-per-core ranks
// belong to the socket of their core.
enum class DomainKind { node, socket, numa };
std::string_view to_string(DomainKind kind);  // "node", "socket", "NUMA node"

struct PlannedThread {
  int core = 0;          // logical core index
  std::vector<int> pus;  // the thread's OpenMP place: all PUs of the core, or one PU with use_smt
};

struct PlannedRank {
  int rank = 0;    // rank number on the node
  int domain = 0;  // index of its socket / NUMA node (see PlacementPlan::domain_kind)
  std::vector<PlannedThread> threads;  // OpenMP threads in thread-number order
  std::vector<int> cores;              // the distinct cores of its threads, ascending
  std::optional<int> progress_core;    // a reserved core of its own domain
  std::vector<int> progress_pus;       // PUs of progress_core
};

struct PlacementPlan {
  PlacementRequest request;
  DomainKind domain_kind = DomainKind::socket;
  int ranks_per_node = 0;
  int ranks_per_domain = 0;
  int threads_per_rank = 0;
  int cores_per_rank = 0;  // compute cores of each rank (progress core not counted)
  int sockets = 0;
  int node_cores = 0;      // all cores of the node, reserved ones included
  int pus_per_core = 1;    // the most hardware threads any core has
  std::vector<std::vector<int>> domain_cores;  // every core of each domain, reserved ones included
  std::vector<PlannedRank> ranks;
  std::vector<int> reserved_cores;       // ascending
  std::vector<int> idle_reserved_cores;  // reserved cores without a progress thread, ascending
  // True when reserved_cores is exactly what Slurm's --core-spec=N would set aside (see below), so a
  // launcher can ask Slurm instead of listing masks.
  bool reserved_follow_core_spec = true;
  // True when the reserved cores are exactly the cores outside the process's CPU set (a topology from
  // Topology::load_whole_machine): the batch system set them aside already, and the plan agrees.
  bool reserved_by_cpu_set = false;
};

PlacementPlan make_placement_plan(const Topology& topology, const PlacementRequest& request);

}  // namespace wave3d
