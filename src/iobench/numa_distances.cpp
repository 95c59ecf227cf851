#include "iobench/numa_distances.hpp"

#include <hwloc/distances.h>

#include <vector>

namespace wave3d {

NumaDistances NumaDistances::of(const HwlocTopology& topology) {
  NumaDistances d;
  unsigned count = 1;
  hwloc_distances_s* matrix = nullptr;
  if (hwloc_distances_get_by_type(topology.get(), HWLOC_OBJ_NUMANODE, &count, &matrix,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
      count == 0 || matrix == nullptr)
    return d;
  for (unsigned i = 0; i < matrix->nbobjs; ++i)
    for (unsigned j = 0; j < matrix->nbobjs; ++j)
      d.set(static_cast<int>(matrix->objs[i]->os_index), static_cast<int>(matrix->objs[j]->os_index),
            matrix->values[i * matrix->nbobjs + j]);
  hwloc_distances_release(topology.get(), matrix);
  return d;
}

std::optional<std::uint64_t> NumaDistances::between(int from, int to) const {
  const auto it = values_.find({from, to});
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

}  // namespace wave3d
