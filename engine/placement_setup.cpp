#include "engine/placement_setup.hpp"

#include <omp.h>

#include <stdexcept>

#include <fmt/format.h>

#include "config/enum_names.hpp"
#include "field/memory_placement.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "runtime/bind_threads.hpp"
#include "runtime/cpu_list.hpp"
#include "runtime/thread_binding.hpp"
#include "runtime/thread_limit.hpp"
#include "topology/placement_plan.hpp"
#include "topology/reserved_cores.hpp"
#include "topology/topology.hpp"

namespace wave3d::engine {
namespace {

Layout layout_of(PlacementLayout layout) {
  switch (layout) {
    case PlacementLayout::rank_per_node: return Layout::rank_per_node;
    case PlacementLayout::rank_per_socket: return Layout::rank_per_socket;
    case PlacementLayout::rank_per_numa: return Layout::rank_per_numa;
    case PlacementLayout::rank_per_core: return Layout::rank_per_core;
    case PlacementLayout::none: break;
  }
  throw std::logic_error("layout_of: no layout");
}

void choose_high_bandwidth_memory(RunConfig& config, AppliedPlacement& applied) {
  const HwlocTopology topology;
  const BandwidthNodeChoice choice = highest_bandwidth_node(topology.get(), process_cpuset(topology.get()).get());
  if (!choice.node) {
    applied.notices.push_back("placement.high_bandwidth_memory: " + choice.reason +
                              "; the fields stay under init.policy = " + std::string(enum_name(config.memory.policy)));
    return;
  }
  config.memory = MemoryPlacement{MemoryPolicy::node, *choice.node};
  applied.notices.push_back("placement.high_bandwidth_memory: fields on NUMA node " + std::to_string(*choice.node) +
                            " (" + choice.reason + ")");
}

}  // namespace

void check_thread_count(const RunConfig& config, MPI_Comm comm) {
  mpi::collectively(comm, [&] {
    const bool asked = config.threads > 0;
    if (auto why = thread_count_problem(asked ? config.threads : omp_get_max_threads(),
                                        asked ? "run.threads" : "OMP_NUM_THREADS (run.threads = 0)",
                                        this_process_thread_limit()))
      throw std::invalid_argument(*why);
  });
}

PlacementPlan plan_node_placement(const RunConfig& config, int ranks_per_node) {
  PlacementRequest request;
  request.layout = layout_of(config.placement.layout);
  request.ranks_per_node = ranks_per_node;
  request.threads_per_rank = config.threads;
  request.reserve = ReservedCores::parse(config.placement.reserve);
  request.progress_thread = computes_during_exchange(config.parallel.halo) && config.parallel.progress == ProgressEngine::thread;
  request.use_smt = config.placement.smt;
  const Topology topology = load_this_system_to_reserve(request.reserve);
  if (!topology.is_this_system) throw std::runtime_error("placement: hwloc did not load this machine's topology");
  // The plan's own words speak of layouts, threads and cores; the settings that asked for them lead.
  std::string settings = fmt::format("placement.layout = \"{}\", run.threads = {}", enum_name(config.placement.layout),
                                     config.threads);
  if (!config.placement.reserve.empty()) settings += fmt::format(", placement.reserve = \"{}\"", config.placement.reserve);
  settings += fmt::format(", {} rank{} on a node", ranks_per_node, ranks_per_node == 1 ? "" : "s");
  try {
    PlacementPlan plan = make_placement_plan(topology, request);
    if (plan.ranks.size() < static_cast<std::size_t>(ranks_per_node))
      throw std::runtime_error(fmt::format("the plan has {} ranks per node", plan.ranks.size()));
    return plan;
  } catch (const std::exception& e) {
    throw std::invalid_argument(settings + ": " + e.what());
  }
}

AppliedPlacement apply_placement(RunConfig& config, MPI_Comm comm) {
  AppliedPlacement applied;
  // What the launcher gave this process, before anything here changes it.
  applied.launch_cpus = launch_affinity();
  const std::string launcher_cpus = format_cpu_list(applied.launch_cpus);
  applied.summary = {{"layout", enum_name(config.placement.layout)}, {"launcher_cpuset", launcher_cpus}};
  if (config.placement.high_bandwidth_memory) mpi::collectively(comm, [&] { choose_high_bandwidth_memory(config, applied); });
  if (config.placement.layout == PlacementLayout::none) return applied;

  const mpi::NodeRank node = mpi::rank_on_node(comm);
  PlacementPlan plan;
  mpi::collectively(comm, [&] { plan = plan_node_placement(config, node.size); });
  const PlannedRank& mine = plan.ranks[static_cast<std::size_t>(node.rank)];
  for (const PlannedThread& t : mine.threads) applied.planned_pus.push_back(t.pus);
  if (!mine.progress_pus.empty()) {
    applied.progress_cpu = mine.progress_pus.front();
    applied.progress_pus = mine.progress_pus;
    config.parallel.progress_core = *applied.progress_cpu;
  }
  config.threads = static_cast<int>(mine.threads.size());
  omp_set_num_threads(config.threads);
  // debug.unbound_rank leaves one rank's threads where they are, so that tests can show the audit
  // catching threads that are not where the plan put them.
  const bool skip_binding = config.debug.unbound_rank == mpi::rank_in(comm);
  mpi::collectively(comm, [&] {
    if (!skip_binding) bind_openmp_threads(HwlocTopology(), applied.planned_pus);
  });
  applied.bound = true;

  std::vector<int> cores = mine.cores;
  applied.summary = {{"layout", enum_name(config.placement.layout)},
                     {"launcher_cpuset", launcher_cpus},
                     {"reserve", config.placement.reserve},
                     {"node_rank", node.rank},
                     {"ranks_per_node", plan.ranks_per_node},
                     {"threads_per_rank", plan.threads_per_rank},
                     {"rank0_cores", cores},
                     {"rank0_progress_core", mine.progress_core ? nlohmann::json(*mine.progress_core) : nullptr},
                     {"idle_reserved_cores", plan.idle_reserved_cores}};
  return applied;
}

}  // namespace wave3d::engine
