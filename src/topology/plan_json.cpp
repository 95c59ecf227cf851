#include "topology/plan_json.hpp"

#include <algorithm>

namespace wave3d {

nlohmann::json machine_to_json(const Topology& topology) {
  std::vector<int> cores_per_package;
  for (const Package& p : topology.packages) cores_per_package.push_back(static_cast<int>(p.cores.size()));
  // The smallest socket bounds a sweep that must fit on every socket.
  const int cores_per_socket =
      cores_per_package.empty() ? 0 : *std::min_element(cores_per_package.begin(), cores_per_package.end());
  return {{"source", topology.source},
          {"this_system", topology.is_this_system},
          {"summary", topology.summary()},
          {"sockets", topology.packages.size()},
          {"numa_nodes", topology.numa_nodes.size()},
          {"cores", topology.cores.size()},
          {"pus", topology.pu_count()},
          {"pus_per_core", topology.max_pus_per_core()},
          {"cores_per_socket", cores_per_socket},
          {"cores_per_each_socket", cores_per_package}};
}

nlohmann::json plan_to_json(const Topology& topology, const PlacementPlan& plan, const LauncherLines& lines) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const PlannedRank& r : plan.ranks) {
    nlohmann::json threads = nlohmann::json::array();
    for (const PlannedThread& t : r.threads) threads.push_back({{"core", t.core}, {"pus", t.pus}});
    ranks.push_back({{"rank", r.rank},
                     {"domain", r.domain},
                     {"cores", r.cores},
                     {"threads", threads},
                     {"progress_core", r.progress_core ? nlohmann::json(*r.progress_core) : nlohmann::json()}});
  }
  int compute_cores = 0;
  for (const PlannedRank& r : plan.ranks) compute_cores += static_cast<int>(r.cores.size());
  return {{"machine", machine_to_json(topology)},
          {"plan",
           {{"layout", to_string(plan.request.layout)},
            {"domain", to_string(plan.domain_kind)},
            {"ranks_per_node", plan.ranks_per_node},
            {"ranks_per_domain", plan.ranks_per_domain},
            {"threads_per_rank", plan.threads_per_rank},
            {"cores_per_rank", plan.cores_per_rank},
            {"compute_cores_per_node", compute_cores},
            {"reserved_cores", plan.reserved_cores},
            {"idle_reserved_cores", plan.idle_reserved_cores},
            {"reserved_by_cpu_set", plan.reserved_by_cpu_set},
            {"progress_thread", plan.request.progress_thread},
            {"smt", plan.request.use_smt},
            {"ranks", ranks}}},
          {"launchers",
           {{"srun", lines.srun},
            {"mpirun", lines.mpirun},
            {"program_argv", lines.program_argv},
            {"notes", lines.notes}}}};
}

}  // namespace wave3d
