#include "field/memory_placement.hpp"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace wave3d {
namespace {

HwlocBitmap new_bitmap() {
  HwlocBitmap b(hwloc_bitmap_alloc());
  if (!b) throw std::bad_alloc();
  return b;
}

HwlocBitmap copy_bitmap(hwloc_const_bitmap_t src) {
  HwlocBitmap b(hwloc_bitmap_dup(src));
  if (!b) throw std::bad_alloc();
  return b;
}

// "0-1,4" (hwloc's list syntax, as numactl and lstopo print it).
std::string list_of(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return "?";
  std::string s(text);
  std::free(text);
  return s.empty() ? "none" : s;
}

std::string all_numa_nodes(hwloc_topology_t topology) {
  // The root nodeset, not the allowed one: the topology is loaded with disallowed nodes included.
  return list_of(hwloc_get_root_obj(topology)->complete_nodeset);
}

bool subtype_is(hwloc_obj_t node, std::string_view want) {
  if (node->subtype == nullptr) return false;
  const std::string_view s(node->subtype);
  if (s.size() != want.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((s[i] | 0x20) != (want[i] | 0x20)) return false;  // ASCII case-insensitive
  return true;
}

// hwloc names high-bandwidth nodes "HBM" (e.g. Sapphire Rapids Max) or "MCDRAM" (Knights Landing).
bool is_hbm(hwloc_obj_t node) { return subtype_is(node, "HBM") || subtype_is(node, "MCDRAM"); }
// Ordinary nodes carry no subtype; Knights Landing names its ordinary memory "DRAM". Other subtypes
// (NVM, SPM, GPUMemory, CXL-DRAM) are neither the local DRAM to beat nor high-bandwidth memory.
bool is_dram(hwloc_obj_t node) { return node->subtype == nullptr || subtype_is(node, "DRAM"); }

std::optional<std::uint64_t> bandwidth(hwloc_topology_t topology, hwloc_obj_t node, hwloc_location* initiator) {
  hwloc_uint64_t value = 0;
  if (hwloc_memattr_get_value(topology, HWLOC_MEMATTR_ID_BANDWIDTH, node, initiator, 0, &value) != 0)
    return std::nullopt;
  return value;
}

std::string unsupported(std::string_view what, std::string_view detail) {
  return fmt::format("memory binding not supported here: {} ({}); pages are placed by first touch instead", what,
                     detail);
}

}  // namespace

InitPolicy touch_order(MemoryPolicy policy) {
  return policy == MemoryPolicy::serial ? InitPolicy::serial : InitPolicy::first_touch;
}

HwlocBitmap process_cpuset(hwloc_topology_t topology) {
  HwlocBitmap cpus = new_bitmap();
  // Any thread's binding is within the process's, so ask for the whole process.
  if (hwloc_get_cpubind(topology, cpus.get(), HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(cpus.get(), hwloc_topology_get_allowed_cpuset(topology));
  else
    hwloc_bitmap_and(cpus.get(), cpus.get(), hwloc_topology_get_allowed_cpuset(topology));
  return cpus;
}

HwlocBitmap interleave_nodeset(hwloc_topology_t topology, hwloc_const_cpuset_t cpus) {
  HwlocBitmap nodes = new_bitmap();
  // Nodes whose locality intersects `cpus`: a rank bound to one package interleaves over that
  // package's nodes only, as the ISO3DFD study does per socket.
  if (cpus != nullptr) hwloc_cpuset_to_nodeset(topology, cpus, nodes.get());
  hwloc_bitmap_and(nodes.get(), nodes.get(), hwloc_topology_get_allowed_nodeset(topology));
  if (hwloc_bitmap_iszero(nodes.get())) hwloc_bitmap_copy(nodes.get(), hwloc_topology_get_allowed_nodeset(topology));
  return nodes;
}

void check_placement(const MemoryPlacement& placement, hwloc_topology_t topology) {
  if (placement.policy != MemoryPolicy::node) return;
  const hwloc_obj_t node = placement.node < 0 ? nullptr
                                              : hwloc_get_numanode_obj_by_os_index(
                                                    topology, static_cast<unsigned>(placement.node));
  if (node == nullptr)
    throw std::invalid_argument(fmt::format("init.numa_node = {} (init.policy = node): NUMA node {} does not exist "
                                            "on this machine; allowed: its NUMA nodes, {}",
                                            placement.node, placement.node, all_numa_nodes(topology)));
  if (!hwloc_bitmap_isset(hwloc_topology_get_allowed_nodeset(topology), node->os_index))
    throw std::invalid_argument(fmt::format("init.numa_node = {} (init.policy = node): NUMA node {} exists but this "
                                            "process may not use it; allowed: the NUMA nodes it may use, {}",
                                            placement.node,
                                            placement.node, list_of(hwloc_topology_get_allowed_nodeset(topology))));
}

std::optional<std::string> place_memory(void* addr, std::size_t bytes, const MemoryPlacement& placement,
                                        hwloc_topology_t topology) {
  check_placement(placement, topology);
  const bool interleave = placement.policy == MemoryPolicy::interleave;
  if (!interleave && placement.policy != MemoryPolicy::node) return std::nullopt;  // touching order decides
  if (addr == nullptr || bytes == 0) return std::nullopt;
  if (!hwloc_topology_is_thissystem(topology))
    throw std::logic_error("place_memory: the hwloc topology does not describe this machine (synthetic or XML), "
                           "so binding memory through it would silently do nothing");

  const char* what = interleave ? "interleaving an area" : "binding an area to one node";
  const hwloc_topology_membind_support* support = hwloc_topology_get_support(topology)->membind;
  if (!support->set_area_membind || !(interleave ? support->interleave_membind : support->bind_membind))
    return unsupported(what, "hwloc reports no support for it on this system");

  HwlocBitmap nodes = new_bitmap();
  if (interleave)
    nodes = interleave_nodeset(topology, process_cpuset(topology).get());
  else
    hwloc_bitmap_only(nodes.get(), static_cast<unsigned>(placement.node));
  const hwloc_membind_policy_t policy = interleave ? HWLOC_MEMBIND_INTERLEAVE : HWLOC_MEMBIND_BIND;
  if (hwloc_set_area_membind(topology, addr, bytes, nodes.get(), policy, HWLOC_MEMBIND_BYNODESET) == 0)
    return std::nullopt;

  const int err = errno;
  const std::string message = std::generic_category().message(err);
  if (err == ENOSYS || err == EXDEV) return unsupported(what, message);
  // Container runtimes commonly filter mbind(2) out unless the container has CAP_SYS_NICE.
  if (err == EPERM) return unsupported(what, "mbind(2) is not permitted: " + message);
  throw std::runtime_error(fmt::format("{} over NUMA nodes {} failed: {}", what, list_of(nodes.get()), message));
}

BandwidthNodeChoice highest_bandwidth_node(hwloc_topology_t topology, hwloc_const_cpuset_t cpus) {
  const HwlocBitmap where = copy_bitmap(cpus != nullptr ? cpus : hwloc_topology_get_allowed_cpuset(topology));
  std::vector<hwloc_obj_t> local;  // usable nodes local to the caller's CPUs
  for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, nullptr); n != nullptr;
       n = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, n))
    if (hwloc_bitmap_isset(hwloc_topology_get_allowed_nodeset(topology), n->os_index) &&
        hwloc_bitmap_intersects(n->cpuset, where.get()))
      local.push_back(n);
  if (local.empty())
    return {std::nullopt, fmt::format("no NUMA node this process may use is local to CPUs {}", list_of(where.get()))};
  HwlocBitmap local_nodes = new_bitmap();
  for (hwloc_obj_t n : local) hwloc_bitmap_set(local_nodes.get(), n->os_index);
  auto is_local = [&](hwloc_obj_t n) { return hwloc_bitmap_isset(local_nodes.get(), n->os_index) != 0; };

  hwloc_location initiator{};
  initiator.type = HWLOC_LOCATION_TYPE_CPUSET;
  initiator.location.cpuset = where.get();

  // The ordinary memory to beat: the slowest local DRAM node. Where only the firmware's HMAT table tells
  // the nodes apart (no subtype), a high-bandwidth node is a DRAM node by hwloc's reckoning too.
  hwloc_obj_t dram = nullptr;
  std::optional<std::uint64_t> dram_bw;
  for (hwloc_obj_t n : local) {
    if (!is_dram(n)) continue;
    const auto bw = bandwidth(topology, n, &initiator);
    if (dram == nullptr || (bw && (!dram_bw || *bw < *dram_bw))) {
      dram = n;
      dram_bw = bw;
    }
  }

  hwloc_obj_t best = nullptr;
  hwloc_uint64_t best_bw = 0;
  const bool have_values =
      hwloc_memattr_get_best_target(topology, HWLOC_MEMATTR_ID_BANDWIDTH, &initiator, 0, &best, &best_bw) == 0;
  std::string verdict;  // why the bandwidth values rule out a node, when they do
  if (have_values && is_local(best) && dram != nullptr && dram_bw) {
    // A node without a subtype must be clearly faster (1.5x), not one of several alike DRAM nodes
    // whose measured values differ a little.
    const bool faster = is_dram(best) ? 2 * best_bw >= 3 * *dram_bw : best_bw > *dram_bw;
    if (best != dram && faster)
      return {static_cast<int>(best->os_index),
              fmt::format("hwloc rates NUMA node {}{} at {} MiB/s for CPUs {}, above {} MiB/s for DRAM node {}",
                          best->os_index, best->subtype ? fmt::format(" ({})", best->subtype) : "", best_bw,
                          list_of(where.get()), *dram_bw, dram->os_index)};
    verdict = best == dram ? fmt::format("this machine has no high-bandwidth memory node: hwloc rates DRAM node {} "
                                         "highest for CPUs {} ({} MiB/s)",
                                         dram->os_index, list_of(where.get()), *dram_bw)
                           : fmt::format("this machine has no high-bandwidth memory node: hwloc rates node {} highest "
                                         "for CPUs {} ({} MiB/s), not clearly above DRAM node {} ({} MiB/s)",
                                         best->os_index, list_of(where.get()), best_bw, dram->os_index, *dram_bw);
  } else if (have_values && !is_local(best)) {
    verdict = fmt::format("hwloc's highest-bandwidth node for CPUs {} is node {}, which is not local or not allowed",
                          list_of(where.get()), best->os_index);
  }

  // The values could not decide (none, or none for a node): hwloc's own subtypes can.
  for (hwloc_obj_t n : local)
    if (is_hbm(n) && (verdict.empty() || !bandwidth(topology, n, &initiator)))
      return {static_cast<int>(n->os_index),
              fmt::format("NUMA node {} has hwloc subtype {} and is local to CPUs {} (no bandwidth values compare it "
                          "with the DRAM)",
                          n->os_index, n->subtype, list_of(where.get()))};

  if (!verdict.empty()) return {std::nullopt, verdict};
  if (!have_values)
    return {std::nullopt, fmt::format("this machine has no high-bandwidth memory node: every NUMA node is DRAM "
                                      "(hwloc has no bandwidth attributes here, and none of the NUMA nodes {} local "
                                      "to CPUs {} has subtype HBM or MCDRAM)",
                                      list_of(local_nodes.get()), list_of(where.get()))};
  return {std::nullopt, fmt::format("hwloc has bandwidth values for CPUs {} but none for a local DRAM node to compare "
                                    "with, and no local node has subtype HBM or MCDRAM",
                                    list_of(where.get()))};
}

}  // namespace wave3d
