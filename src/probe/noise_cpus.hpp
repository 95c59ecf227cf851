#pragma once
// Which CPUs the noise probes run on: one PU of every core the process may use, and, when several ranks
// of a node may use the same cores (mpiexec --bind-to none), a split so each core is probed once.
#include <vector>

#include "runtime/hwloc_topology.hpp"

namespace wave3d {

// Of every core that has a PU in `allowed` (OS indices), the lowest such PU, in ascending order. A
// PU that hwloc places under no core object counts as a core of its own.
std::vector<int> one_pu_per_core(const HwlocTopology& topology, const std::vector<int>& allowed);

// The CPUs of `wanted` that are not in `allowed` (both ascending or not; the result is ascending).
std::vector<int> cpus_outside(const std::vector<int>& wanted, const std::vector<int>& allowed);

// wanted[r]: the CPUs rank r of a node would probe. Each CPU wanted by several ranks goes to the one
// of them that has been given the fewest CPUs so far (the lowest rank on a tie), taking the CPUs in
// ascending order; so disjoint sets stay as they are and identical sets are dealt out round-robin.
// A rank may end up with none.
std::vector<std::vector<int>> share_cpus_among_ranks(const std::vector<std::vector<int>>& wanted);

}  // namespace wave3d
