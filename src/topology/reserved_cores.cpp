#include "topology/reserved_cores.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topology/placement_error.hpp"

namespace wave3d {
namespace {

std::string cores_phrase(int n) { return fmt::format("{} {}", n, n == 1 ? "core" : "cores"); }

std::vector<int> per_socket(const Topology& topo, int count) {
  std::size_t smallest = topo.cores.size();
  for (const Package& p : topo.packages) smallest = std::min(smallest, p.cores.size());
  std::vector<int> reserved;
  for (const Package& p : topo.packages) {
    if (static_cast<std::size_t>(count) >= p.cores.size())
      throw PlacementError(fmt::format("reserving {} per socket leaves socket {} without compute cores; "
                                       "reserve at most {} per socket",
                                       cores_phrase(count), p.index, smallest - 1));
    reserved.insert(reserved.end(), p.cores.end() - count, p.cores.end());
  }
  return reserved;
}

std::vector<int> listed(const Topology& topo, const std::vector<int>& cores) {
  const int ncores = static_cast<int>(topo.cores.size());
  std::vector<int> reserved;
  for (int c : cores) {
    if (c < 0 || c >= ncores)
      throw PlacementError(fmt::format("reserved core {} is out of range: the node has cores 0-{}", c, ncores - 1));
    if (std::find(reserved.begin(), reserved.end(), c) != reserved.end())
      throw PlacementError(fmt::format("reserved core {} is listed twice", c));
    reserved.push_back(c);
  }
  return reserved;
}

}  // namespace

std::vector<int> slurm_core_spec_cores(const Topology& topo, int count) {
  const int ncores = static_cast<int>(topo.cores.size());
  if (count < 0) throw PlacementError(fmt::format("cannot reserve {} cores per node", count));
  if (count >= ncores)
    throw PlacementError(fmt::format("reserving {} per node leaves the node without compute cores; "
                                     "reserve at most {} per node",
                                     cores_phrase(count), ncores - 1));
  // Each socket's cores, taken from the back; sockets are visited from the highest down, repeatedly.
  std::vector<std::vector<int>> left;
  for (const Package& p : topo.packages) left.push_back(p.cores);
  std::vector<int> reserved;
  std::size_t s = left.size() - 1;
  while (static_cast<int>(reserved.size()) < count) {
    if (!left[s].empty()) {
      reserved.push_back(left[s].back());
      left[s].pop_back();
    }
    s = s == 0 ? left.size() - 1 : s - 1;
  }
  std::sort(reserved.begin(), reserved.end());
  return reserved;
}

std::vector<int> choose_reserved_cores(const Topology& topo, const ReservedCores& reserve) {
  std::vector<int> reserved;
  switch (reserve.kind) {
    case ReservedCores::Kind::none: break;
    case ReservedCores::Kind::per_socket:
      if (reserve.count < 0) throw PlacementError(fmt::format("cannot reserve {} cores per socket", reserve.count));
      reserved = per_socket(topo, reserve.count);
      break;
    case ReservedCores::Kind::per_node: reserved = slurm_core_spec_cores(topo, reserve.count); break;
    case ReservedCores::Kind::list: reserved = listed(topo, reserve.cores); break;
  }
  std::sort(reserved.begin(), reserved.end());
  return reserved;
}

std::vector<int> cores_outside_cpu_set(const Topology& topo) {
  std::vector<int> outside;
  for (const Core& core : topo.cores) {
    const bool allowed = std::any_of(core.pus.begin(), core.pus.end(), [&](int pu) {
      return std::binary_search(topo.allowed_pus.begin(), topo.allowed_pus.end(), pu);
    });
    if (!allowed) outside.push_back(core.index);
  }
  return outside;
}

bool cpu_set_makes_reservation(const Topology& whole_machine, const ReservedCores& reserve) {
  const std::vector<int> outside = cores_outside_cpu_set(whole_machine);
  if (outside.empty() || reserve.kind == ReservedCores::Kind::none) return false;
  try {
    return choose_reserved_cores(whole_machine, reserve) == outside;
  } catch (const PlacementError&) {
    return false;  // impossible on the whole machine: the plan on the allowed cores says why
  }
}

Topology load_this_system_to_reserve(const ReservedCores& reserve) {
  Topology allowed = Topology::load_this_system();
  if (allowed.pu_count() == allowed.machine_pus || reserve.kind == ReservedCores::Kind::none) return allowed;
  Topology whole = Topology::load_whole_machine();
  return cpu_set_makes_reservation(whole, reserve) ? whole : allowed;
}

std::string describe(const ReservedCores& reserve) {
  switch (reserve.kind) {
    case ReservedCores::Kind::none: return "no cores";
    case ReservedCores::Kind::per_socket: return cores_phrase(reserve.count) + " per socket";
    case ReservedCores::Kind::per_node: return cores_phrase(reserve.count) + " per node";
    case ReservedCores::Kind::list:
      return fmt::format("{} {}", reserve.cores.size() == 1 ? "core" : "cores", fmt::join(reserve.cores, ","));
  }
  return "?";
}

}  // namespace wave3d
