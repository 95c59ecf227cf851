#pragma once
// Choosing which NUMA nodes the pages of a field come from (the ISO3DFD first-touch study).
//
// Linux applies a memory policy when a page is first faulted, so place_memory() must run after the
// allocation and BEFORE the first write; first_touch() then writes the pages in the order
// touch_order() names. first_touch and serial keep the default policy, so that order alone decides;
// interleave spreads pages round-robin over the NUMA nodes local to this process's CPUs; node binds
// every page to one node, like `numactl -m N`.
#include <hwloc.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "field/field.hpp"
#include "field/first_touch.hpp"
#include "field/memory_policy.hpp"
#include "runtime/hwloc_topology.hpp"

namespace wave3d {

// The order in which first_touch() must write the pages: one thread for serial, the kernel's
// parallel block order for the others (under interleave/node the policy, not the order, decides).
InitPolicy touch_order(MemoryPolicy policy);

// An owned hwloc bitmap (cpuset or nodeset).
struct HwlocBitmapFree {
  void operator()(hwloc_bitmap_t b) const noexcept { hwloc_bitmap_free(b); }
};
using HwlocBitmap = std::unique_ptr<hwloc_bitmap_s, HwlocBitmapFree>;

// The CPUs this process may run on: its binding (taskset, mpiexec) within the allowed cpuset (cgroup).
HwlocBitmap process_cpuset(hwloc_topology_t topology);

// The NUMA nodes an interleaved area spreads over: the allowed nodes local to `cpus`. Pure (no
// binding), so it can be checked on a synthetic topology. Never empty on a loaded topology: should no
// allowed node be local to `cpus`, all allowed nodes are returned.
HwlocBitmap interleave_nodeset(hwloc_topology_t topology, hwloc_const_cpuset_t cpus);

// Throws std::invalid_argument when `placement` cannot be applied on `topology`: for policy node, a
// node number that does not exist or that this process may not use (the message names the policy,
// the node and the nodes there are). Cheap: call it at configuration time, before allocating.
void check_placement(const MemoryPlacement& placement, hwloc_topology_t topology);

// Sets the memory policy of [addr, addr + bytes) for pages not yet faulted. Returns a notice for the
// caller to print when the system cannot bind memory ("memory binding not supported here: ..."), in
// which case the pages fall back to first-touch placement; nullopt when the policy was applied (or
// none was needed). Throws std::invalid_argument as check_placement() does, std::logic_error when
// `topology` does not describe this machine (binding on a synthetic or XML topology is a no-op in
// hwloc, which would hide a misconfiguration), and std::runtime_error for other binding failures.
[[nodiscard]] std::optional<std::string> place_memory(void* addr, std::size_t bytes, const MemoryPlacement& placement,
                                                      hwloc_topology_t topology);
[[nodiscard]] inline std::optional<std::string> place_memory(void* addr, std::size_t bytes,
                                                             const MemoryPlacement& placement,
                                                             const HwlocTopology& topology) {
  return place_memory(addr, bytes, placement, topology.get());
}

// The NUMA node with the highest memory bandwidth for `cpus` if it is a different, faster node than
// the best local DRAM node (HBM, MCDRAM); otherwise no node. `reason` says how the node was chosen or
// why there is none. Bandwidth comes only from hwloc's memory attributes (MiB/s, from ACPI HMAT and
// similar); when they cannot decide, hwloc's own node subtypes "HBM"/"MCDRAM" are the fallback.
struct BandwidthNodeChoice {
  std::optional<int> node;  // OS index
  std::string reason;
};
BandwidthNodeChoice highest_bandwidth_node(hwloc_topology_t topology, hwloc_const_cpuset_t cpus);

}  // namespace wave3d
