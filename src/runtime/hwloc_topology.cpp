#include "runtime/hwloc_topology.hpp"

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace wave3d {
namespace {

// First NUMA node among the memory children of `obj`, looking behind memory-side caches.
hwloc_obj_t first_numa_node_below(hwloc_obj_t obj) {
  for (hwloc_obj_t mem = obj->memory_first_child; mem != nullptr; mem = mem->next_sibling) {
    if (mem->type == HWLOC_OBJ_NUMANODE) return mem;
    if (hwloc_obj_t inner = first_numa_node_below(mem)) return inner;
  }
  return nullptr;
}

}  // namespace

HwlocTopology::HwlocTopology() {
  if (hwloc_topology_init(&topology_) != 0)
    throw std::runtime_error(fmt::format("hwloc_topology_init failed: {}", std::generic_category().message(errno)));
  // Best effort: should the flag be refused, the allowed part of the machine is still worth loading.
  (void)hwloc_topology_set_flags(topology_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (hwloc_topology_load(topology_) != 0) {
    const int err = errno;
    hwloc_topology_destroy(topology_);
    throw std::runtime_error(fmt::format("hwloc_topology_load failed: {}", std::generic_category().message(err)));
  }
}

HwlocTopology::~HwlocTopology() { hwloc_topology_destroy(topology_); }

std::optional<int> HwlocTopology::numa_node_of_cpu(int cpu) const {
  if (cpu < 0) return std::nullopt;
  hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(topology_, static_cast<unsigned>(cpu));
  // In hwloc 2 NUMA nodes hang as memory children off the first ancestor they are local to
  // (possibly behind a memory-side cache), so walk up until an ancestor has memory.
  for (; obj != nullptr; obj = obj->parent)
    if (hwloc_obj_t node = first_numa_node_below(obj)) return static_cast<int>(node->os_index);
  return std::nullopt;
}

std::optional<int> HwlocTopology::core_of_cpu(int cpu) const {
  if (cpu < 0) return std::nullopt;
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology_, static_cast<unsigned>(cpu));
  if (pu == nullptr) return std::nullopt;
  hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topology_, HWLOC_OBJ_CORE, pu);
  if (core == nullptr) return std::nullopt;
  return static_cast<int>(core->logical_index);
}

}  // namespace wave3d
