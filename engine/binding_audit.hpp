#pragma once
// The node-wide binding audit of a job: every rank reports where its OpenMP threads and its progress
// thread run and may run; rank 0 groups the reports by node (MPI_Comm_split_type), audits each node
// (topology/placement_audit) and keeps the binding map for the header and run.json. The job then
// knows, once for all ranks, whether its placement makes the measurement wrong.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/thread_binding.hpp"
#include "topology/placement_audit.hpp"

namespace wave3d::engine {

// The progress thread as this rank sees it.
struct ProgressPlacement {
  std::optional<int> cpu;   // where it runs
  std::vector<int> allowed;  // where it may run
  std::vector<int> planned;  // where the placement plan put it; empty without a plan
};

// What one rank contributes to the audit.
struct RankPlacementFacts {
  ThreadBinding binding;                      // its OpenMP threads
  std::vector<int> launch_cpus;               // its affinity as the launcher started it
  bool planned = false;                       // wave3d bound the threads to a placement plan
  std::vector<std::vector<int>> planned_pus;  // per OpenMP thread, when planned
  std::optional<ProgressPlacement> progress;  // when the rank has a progress thread
  std::optional<long long> work_blocks;       // cache blocks per sweep of the rank's update region
  std::vector<std::string> notices;           // placement notices to print once (e.g. no HBM here)
};

struct JobPlacement {
  nlohmann::json map;                        // rank 0: one entry per rank (host, node, threads, progress thread)
  std::vector<PlacementProblem> problems;    // rank 0: every node's problems
  bool strict = false;

  bool ok() const { return problems.empty(); }
  // {"verdict": "ok" | "wrong", "problems": [...], "strict": bool} for run.json.
  nlohmann::json verdict_json() const;
  // "ok", or "wrong: shared-cpus, floating" for the summary.
  std::string verdict_text() const;
};

// This rank's facts once the time loop is set up: where its threads run (asked now), what the launcher
// gave it and what the plan wanted. Opens a parallel region: call it outside the time loop.
struct AppliedPlacement;
struct LoopSetup;
RankPlacementFacts collect_placement_facts(const AppliedPlacement& placement, const LoopSetup& setup);

// Collective over comm: gathers every rank's facts to rank 0 and audits every node there. With
// `strict`, a wrong placement becomes a mpi::CollectiveError on every rank (the job refuses to measure).
// Prints nothing: see format_placement_warnings.
JobPlacement audit_job_placement(MPI_Comm comm, const RankPlacementFacts& mine, bool strict);

// The warnings for stderr, each problem once for the whole job (at most `max_problems` in full), and
// the placement notices with the ranks that raised them; empty when all is well.
std::string format_placement_warnings(const JobPlacement& job, std::size_t max_problems = 8);

}  // namespace wave3d::engine
