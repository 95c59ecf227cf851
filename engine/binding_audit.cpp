#include "engine/binding_audit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/placement_setup.hpp"
#include "engine/time_loop.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "mpi/progress_thread.hpp"
#include "output/json_optional.hpp"
#include "output/runtime_json.hpp"
#include "runtime/cpu_list.hpp"
#include "runtime/hostname.hpp"
#include "runtime/hwloc_topology.hpp"
#include "topology/placement_audit_json.hpp"

namespace wave3d::engine {
namespace {

SeenRank seen_rank_of(int rank, const std::string& host, const RankPlacementFacts& f) {
  SeenRank seen;
  seen.rank = rank;
  seen.host = host;
  seen.launch_cpus = f.launch_cpus;
  seen.proc_bind = f.binding.proc_bind;
  seen.num_places = f.binding.num_places;
  seen.planned = f.planned;
  seen.work_blocks = f.work_blocks;
  for (const ThreadPlacement& t : f.binding.threads) {
    SeenThread thread{.thread = t.thread, .progress = false, .cpu = t.cpu, .allowed = t.allowed_cpus, .planned = {}};
    if (f.planned && static_cast<std::size_t>(t.thread) < f.planned_pus.size()) {
      thread.planned = f.planned_pus[static_cast<std::size_t>(t.thread)];
      std::sort(thread.planned.begin(), thread.planned.end());
    }
    seen.threads.push_back(std::move(thread));
  }
  if (f.progress) {
    SeenThread progress{.thread = seen.compute_threads(), .progress = true, .cpu = f.progress->cpu,
                        .allowed = f.progress->allowed, .planned = f.progress->planned};
    std::sort(progress.planned.begin(), progress.planned.end());
    seen.threads.push_back(std::move(progress));
  }
  return seen;
}

// The progress thread as the binding map shows it, in the same terms as an OpenMP thread.
nlohmann::json progress_entry(const ProgressPlacement& p, const HwlocTopology& topology) {
  const std::optional<int> core = p.cpu ? topology.core_of_cpu(*p.cpu) : std::nullopt;
  const std::optional<int> numa = p.cpu ? topology.numa_node_of_cpu(*p.cpu) : std::nullopt;
  return {{"cpu", or_null(p.cpu)}, {"core", or_null(core)}, {"affinity", format_cpu_list(p.allowed)},
          {"numa_node", or_null(numa)}, {"planned", format_cpu_list(p.planned)}};
}

// The machine's PUs and cores, and the PUs this process's cpuset / cgroup allows. Every rank reports
// its own allowed PUs: with a cgroup per task (Slurm's task/cgroup) the ranks of a node differ.
NodeCpus this_machine_cpus(const HwlocTopology& topology) {
  NodeCpus cpus;
  const hwloc_const_cpuset_t complete = hwloc_topology_get_complete_cpuset(topology.get());
  cpus.machine_pus = hwloc_bitmap_weight(complete);
  unsigned pu = 0;
  hwloc_bitmap_foreach_begin(pu, complete) {
    if (pu >= cpus.core_of_pu.size()) cpus.core_of_pu.resize(pu + 1, -1);
    cpus.core_of_pu[pu] = topology.core_of_cpu(static_cast<int>(pu)).value_or(-1);
  }
  hwloc_bitmap_foreach_end();
  hwloc_bitmap_foreach_begin(pu, hwloc_topology_get_allowed_cpuset(topology.get())) {
    cpus.allowed.push_back(static_cast<int>(pu));
  }
  hwloc_bitmap_foreach_end();
  return cpus;
}

nlohmann::json entry_of(int rank, const mpi::NodeRank& node, const RankPlacementFacts& f) {
  const std::string host = hostname();
  const HwlocTopology topology;
  nlohmann::json entry = {{"rank", rank},
                          {"host", host},
                          {"node", node.leader},
                          {"launch_cpus", format_cpu_list(f.launch_cpus)},
                          {"binding", f.binding},
                          {"progress_thread", f.progress ? progress_entry(*f.progress, topology) : nlohmann::json(nullptr)},
                          {"notices", f.notices},
                          {"seen", seen_rank_of(rank, host, f)}};
  const NodeCpus cpus = this_machine_cpus(topology);
  entry["allowed_pus"] = cpus.allowed;
  // The node's cores come once per node, from its first rank.
  if (node.rank == 0) entry["node_cpus"] = cpus;
  return entry;
}

// Rank 0: audits each node with the reports of its ranks; strips the audit inputs from the map.
std::vector<PlacementProblem> audit_nodes(nlohmann::json& map) {
  std::map<int, std::vector<SeenRank>> ranks_by_node;
  std::map<int, NodeCpus> cpus_by_node;
  std::map<int, std::set<int>> allowed_by_node;  // the union of the ranks' cpusets
  for (nlohmann::json& entry : map) {
    const int node = entry.at("node").get<int>();
    ranks_by_node[node].push_back(entry.at("seen").get<SeenRank>());
    if (entry.contains("node_cpus")) cpus_by_node[node] = entry.at("node_cpus").get<NodeCpus>();
    for (int pu : entry.at("allowed_pus")) allowed_by_node[node].insert(pu);
    entry.erase("seen");
    entry.erase("node_cpus");
    entry.erase("allowed_pus");
  }
  std::vector<PlacementProblem> problems;
  for (const auto& [node, ranks] : ranks_by_node) {
    NodeCpus& cpus = cpus_by_node.at(node);
    cpus.allowed.assign(allowed_by_node[node].begin(), allowed_by_node[node].end());
    std::vector<PlacementProblem> found = audit_node(cpus, ranks);
    problems.insert(problems.end(), found.begin(), found.end());
  }
  return problems;
}

}  // namespace

RankPlacementFacts collect_placement_facts(const AppliedPlacement& placement, const LoopSetup& setup) {
  RankPlacementFacts facts;
  facts.binding = report_thread_binding();
  facts.launch_cpus = placement.launch_cpus;
  facts.planned = placement.bound;
  facts.planned_pus = placement.planned_pus;
  facts.work_blocks = setup.work_blocks;
  facts.notices = placement.notices;
  if (setup.progress_thread != nullptr)
    facts.progress = ProgressPlacement{setup.progress_thread->started_cpu(), setup.progress_thread->allowed_cpus(),
                                       placement.progress_pus};
  return facts;
}

nlohmann::json JobPlacement::verdict_json() const {
  return {{"verdict", ok() ? "ok" : "wrong"}, {"problems", problems}, {"strict", strict}};
}

std::string JobPlacement::verdict_text() const {
  if (ok()) return "ok";
  std::vector<std::string> kinds;
  for (const PlacementProblem& p : problems)
    if (std::find(kinds.begin(), kinds.end(), p.kind) == kinds.end()) kinds.push_back(p.kind);
  return fmt::format("wrong: {}", fmt::join(kinds, ", "));
}

JobPlacement audit_job_placement(MPI_Comm comm, const RankPlacementFacts& mine, bool strict) {
  const int rank = mpi::rank_in(comm);
  const mpi::NodeRank node = mpi::rank_on_node(comm);
  JobPlacement job;
  job.strict = strict;
  const nlohmann::json entry = mpi::collectively(comm, [&] { return entry_of(rank, node, mine); });
  const std::vector<std::string> all = mpi::gather_strings(comm, entry.dump(), 0);
  mpi::collectively(comm, [&] {
    if (rank != 0) return;
    job.map = nlohmann::json::array();
    for (const std::string& text : all) job.map.push_back(nlohmann::json::parse(text));
    job.problems = audit_nodes(job.map);
  });
  if (!strict) return job;
  // Every rank learns the verdict, so all of them stop before measuring, with rank 0's message.
  std::optional<std::string> refusal;
  if (rank == 0 && !job.ok())
    refusal = fmt::format("placement.strict = true and the placement is {}; refusing to measure. {}",
                          job.verdict_text(), job.problems.front().message);
  mpi::agree_on_error(comm, refusal);
  return job;
}

std::string format_placement_warnings(const JobPlacement& job, std::size_t max_problems) {
  std::string s;
  for (std::size_t i = 0; i < std::min(job.problems.size(), max_problems); ++i) {
    const PlacementProblem& p = job.problems[i];
    s += fmt::format("wave3d: WARNING placement {} (cause: {}): {}\n", p.kind, p.cause, p.message);
  }
  if (job.problems.size() > max_problems)
    s += fmt::format("wave3d: WARNING placement: {} more problems in run.json (placement_audit)\n",
                     job.problems.size() - max_problems);
  // The same notice from many ranks is printed once, naming the ranks.
  std::map<std::string, std::vector<int>> ranks_by_notice;
  if (job.map.is_array())
    for (const nlohmann::json& entry : job.map)
      for (const nlohmann::json& n : entry.value("notices", nlohmann::json::array()))
        ranks_by_notice[n.get<std::string>()].push_back(entry.at("rank").get<int>());
  for (const auto& [notice, ranks] : ranks_by_notice)
    s += fmt::format("wave3d: notice (rank{} {}): {}\n", ranks.size() > 1 ? "s" : "", format_cpu_list(ranks), notice);
  return s;
}

}  // namespace wave3d::engine
