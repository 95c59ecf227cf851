#pragma once
// Binding the OpenMP threads of this process to given CPUs with hwloc. libgomp keeps the same OS
// thread for each thread number across parallel regions of the same size, so binding once, in a
// region of the team size the compute regions use, holds for the whole run.
#include <vector>

#include "runtime/hwloc_topology.hpp"

namespace wave3d {

// Opens a parallel region of pus_per_thread.size() threads; thread t binds itself to the PUs (OS
// indices) pus_per_thread[t]. Throws std::runtime_error naming the thread and CPUs when a binding
// fails (e.g. CPUs outside the cgroup), and std::logic_error when `topology` is not this machine
// (binding on a synthetic topology is a silent no-op in hwloc).
void bind_openmp_threads(const HwlocTopology& topology, const std::vector<std::vector<int>>& pus_per_thread);

}  // namespace wave3d
