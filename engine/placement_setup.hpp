#pragma once
// Putting this rank's threads where the placement plan for its node says (placement.layout), before
// any field is allocated, so first touch happens from the final cores. The ranks sharing a node find
// each other with MPI_Comm_split_type and each takes its own entry of the same plan.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "topology/placement_plan.hpp"

namespace wave3d::engine {

struct AppliedPlacement {
  bool bound = false;                             // false with placement.layout = none
  std::vector<int> launch_cpus;                   // the affinity the launcher gave this process
  std::vector<std::vector<int>> planned_pus;      // per OpenMP thread of this rank
  std::optional<int> progress_cpu;                // OS index for the progress thread, if planned
  std::vector<int> progress_pus;                  // the PUs of the progress thread's planned core
  nlohmann::json summary;                         // for run.json: the plan as this rank sees it
  std::vector<std::string> notices;               // e.g. no high-bandwidth memory here
};

// Collective over comm: refuses, on every rank, a thread count no process could start (run.threads, or
// OMP_NUM_THREADS when it is 0; runtime/thread_limit.hpp). Call before any parallel region.
void check_thread_count(const RunConfig& config, MPI_Comm comm);

// The plan placement.layout makes for `ranks_per_node` ranks on this machine (its hwloc topology, less
// placement.reserve). Throws, naming the setting, when no such plan exists. Not collective; requires
// placement.layout other than none.
PlacementPlan plan_node_placement(const RunConfig& config, int ranks_per_node);

// Collective over comm. May set the OpenMP thread count (a layout with run.threads = 0 fills the
// rank's cores) and returns what was applied. Adjusts `config` where the plan decides: the progress
// thread's core, the memory policy for high-bandwidth memory. Errors are agreed on by all ranks.
AppliedPlacement apply_placement(RunConfig& config, MPI_Comm comm);

}  // namespace wave3d::engine
