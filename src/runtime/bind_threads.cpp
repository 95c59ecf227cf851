#include "runtime/bind_threads.hpp"

#include <omp.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/cpu_list.hpp"

namespace wave3d {

void bind_openmp_threads(const HwlocTopology& topology, const std::vector<std::vector<int>>& pus_per_thread) {
  if (!hwloc_topology_is_thissystem(topology.get()))
    throw std::logic_error("bind_openmp_threads: the topology does not describe this machine");
  const int team = static_cast<int>(pus_per_thread.size());
  if (team == 0) return;
  // One error slot per thread, each on its own cache line.
  struct alignas(64) Slot {
    int error = 0;
  };
  std::vector<Slot> slots(pus_per_thread.size());
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num();
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (int pu : pus_per_thread[static_cast<std::size_t>(t)]) hwloc_bitmap_set(set, static_cast<unsigned>(pu));
    if (hwloc_set_cpubind(topology.get(), set, HWLOC_CPUBIND_THREAD) != 0) slots[static_cast<std::size_t>(t)].error = errno;
    hwloc_bitmap_free(set);
  }
  for (std::size_t t = 0; t < slots.size(); ++t)
    if (slots[t].error != 0)
      throw std::runtime_error("cannot bind OpenMP thread " + std::to_string(t) + " to CPU(s) " +
                               format_cpu_list(pus_per_thread[t]) + ": " + std::strerror(slots[t].error));
}

}  // namespace wave3d
