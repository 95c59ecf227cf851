#include "topology/plan_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "runtime/cpu_list.hpp"

namespace wave3d {
namespace {

constexpr std::size_t cells_per_row = 8;

// The use of every core, as shown in the map.
std::vector<std::string> core_marks(const Topology& topo, const PlacementPlan& plan) {
  std::vector<std::string> marks(topo.cores.size(), ".");
  for (int c : plan.idle_reserved_cores) marks[static_cast<std::size_t>(c)] = "R";
  for (const PlannedRank& rank : plan.ranks) {
    if (rank.progress_core) marks[static_cast<std::size_t>(*rank.progress_core)] = fmt::format("P{}", rank.rank);
    // Threads sharing a core are consecutive (close binding fills a core first): show first-last.
    std::map<int, std::pair<int, int>> threads_on_core;
    for (int t = 0; t < static_cast<int>(rank.threads.size()); ++t) {
      const int c = rank.threads[static_cast<std::size_t>(t)].core;
      auto [it, fresh] = threads_on_core.try_emplace(c, t, t);
      if (!fresh) it->second.second = t;
    }
    for (const auto& [c, range] : threads_on_core)
      marks[static_cast<std::size_t>(c)] = range.first == range.second
                                               ? fmt::format("{}.{}", rank.rank, range.first)
                                               : fmt::format("{}.{}-{}", rank.rank, range.first, range.second);
  }
  return marks;
}

void append_rows(std::string& out, const std::vector<int>& cores, const std::vector<std::string>& marks,
                 std::size_t index_width, std::size_t mark_width, std::string_view indent) {
  for (std::size_t i = 0; i < cores.size(); i += cells_per_row) {
    out += indent;
    for (std::size_t j = i; j < std::min(cores.size(), i + cells_per_row); ++j) {
      const int c = cores[j];
      out += fmt::format(" {:>{}}:{:<{}}", c, index_width, marks[static_cast<std::size_t>(c)], mark_width);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
}

}  // namespace

std::string render_node_map(const Topology& topo, const PlacementPlan& plan) {
  const std::vector<std::string> marks = core_marks(topo, plan);
  std::size_t mark_width = 1;
  for (const std::string& m : marks) mark_width = std::max(mark_width, m.size());
  const std::size_t index_width = fmt::format("{}", topo.cores.empty() ? 0 : topo.cores.size() - 1).size();

  std::string out;
  for (const Package& p : topo.packages) {
    // The NUMA nodes whose cores all sit in this socket, in order; cores outside them are listed last.
    std::vector<const NumaNode*> numa;
    for (const NumaNode& n : topo.numa_nodes)
      if (n.package == p.index && !n.cores.empty()) numa.push_back(&n);
    if (numa.size() == 1 && numa.front()->cores == p.cores) {
      out += fmt::format("socket {} (NUMA node {}):\n", p.index, numa.front()->index);
      append_rows(out, p.cores, marks, index_width, mark_width, " ");
      continue;
    }
    out += fmt::format("socket {}:\n", p.index);
    std::vector<int> rest = p.cores;
    for (const NumaNode* n : numa) {
      out += fmt::format("  NUMA node {}:\n", n->index);
      append_rows(out, n->cores, marks, index_width, mark_width, "   ");
      std::erase_if(rest, [n](int c) { return std::find(n->cores.begin(), n->cores.end(), c) != n->cores.end(); });
    }
    if (!rest.empty()) append_rows(out, rest, marks, index_width, mark_width, "   ");
  }
  out += "(core:use; r.t = rank r thread t, Pr = progress thread of rank r, R = idle reserved core, . = unused)\n";
  return out;
}

std::string describe_plan(const PlacementPlan& plan) {
  const PlacementRequest& req = plan.request;
  std::string out = fmt::format("layout {}: {} rank{} per node ({} per {}), {} thread{} per rank on {} core{} each "
                                "(OMP_PLACES={})\n",
                                to_string(req.layout), plan.ranks_per_node, plan.ranks_per_node == 1 ? "" : "s",
                                plan.ranks_per_domain, to_string(plan.domain_kind), plan.threads_per_rank,
                                plan.threads_per_rank == 1 ? "" : "s", plan.cores_per_rank,
                                plan.cores_per_rank == 1 ? "" : "s", req.use_smt ? "threads" : "cores");
  if (plan.reserved_cores.empty()) {
    out += "reserved cores: none\n";
  } else {
    out += fmt::format("reserved cores: {} ({}{}); idle: {}\n", format_cpu_list(plan.reserved_cores),
                       req.reserve.to_string(),
                       plan.reserved_by_cpu_set ? ", outside this process's CPU set: the batch system set them aside" : "",
                       plan.idle_reserved_cores.empty() ? "none" : format_cpu_list(plan.idle_reserved_cores));
  }
  out += fmt::format("progress threads: {}\n", req.progress_thread ? "one per rank, on a reserved core" : "off");
  for (const PlannedRank& rank : plan.ranks) {
    std::vector<int> pus;
    for (const PlannedThread& t : rank.threads) pus.insert(pus.end(), t.pus.begin(), t.pus.end());
    out += fmt::format("rank {}: {} {}, cores {} (PUs {})", rank.rank, to_string(plan.domain_kind), rank.domain,
                       format_cpu_list(rank.cores), format_cpu_list(pus));
    if (rank.progress_core)
      out += fmt::format(", progress thread on core {} (PUs {})", *rank.progress_core,
                         format_cpu_list(rank.progress_pus));
    out += '\n';
  }
  return out;
}

}  // namespace wave3d
