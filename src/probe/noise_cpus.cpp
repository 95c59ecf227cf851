#include "probe/noise_cpus.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace wave3d {

std::vector<int> one_pu_per_core(const HwlocTopology& topology, const std::vector<int>& allowed) {
  // Keyed by the core object (or the PU itself when it has no core), so the lowest allowed PU wins.
  std::map<hwloc_obj_t, int> lowest;
  for (int cpu : allowed) {
    if (cpu < 0) continue;
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology.get(), static_cast<unsigned>(cpu));
    if (pu == nullptr) continue;
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topology.get(), HWLOC_OBJ_CORE, pu);
    hwloc_obj_t key = core != nullptr ? core : pu;
    auto [it, inserted] = lowest.emplace(key, cpu);
    if (!inserted) it->second = std::min(it->second, cpu);
  }
  std::vector<int> cpus;
  for (const auto& [core, cpu] : lowest) cpus.push_back(cpu);
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

std::vector<int> cpus_outside(const std::vector<int>& wanted, const std::vector<int>& allowed) {
  const std::set<int> ok(allowed.begin(), allowed.end());
  std::set<int> out;
  for (int cpu : wanted)
    if (!ok.contains(cpu)) out.insert(cpu);
  return {out.begin(), out.end()};
}

std::vector<std::vector<int>> share_cpus_among_ranks(const std::vector<std::vector<int>>& wanted) {
  std::map<int, std::vector<std::size_t>> ranks_wanting;  // CPU -> ranks, ascending CPU order
  for (std::size_t r = 0; r < wanted.size(); ++r)
    for (int cpu : std::set<int>(wanted[r].begin(), wanted[r].end())) ranks_wanting[cpu].push_back(r);
  std::vector<std::vector<int>> given(wanted.size());
  for (const auto& [cpu, ranks] : ranks_wanting) {
    const std::size_t r = *std::min_element(ranks.begin(), ranks.end(), [&](std::size_t a, std::size_t b) {
      return given[a].size() != given[b].size() ? given[a].size() < given[b].size() : a < b;
    });
    given[r].push_back(cpu);
  }
  return given;
}

}  // namespace wave3d
