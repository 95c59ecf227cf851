#pragma once
// Relative distances between NUMA nodes as the firmware reports them (ACPI SLIT through hwloc: 10 on
// the diagonal, larger across links). Used to send I/O threads that spill off a full node to the
// nearest one, and recorded beside the path matrix.
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "runtime/hwloc_topology.hpp"

namespace wave3d {

class NumaDistances {
 public:
  // Empty when hwloc has no latency-like distance matrix for the NUMA nodes (one-node machines, VMs).
  static NumaDistances of(const HwlocTopology& topology);

  bool empty() const { return values_.empty(); }
  // From node `from` to node `to` (OS indices), or nullopt when unknown.
  std::optional<std::uint64_t> between(int from, int to) const;
  void set(int from, int to, std::uint64_t value) { values_[{from, to}] = value; }

 private:
  std::map<std::pair<int, int>, std::uint64_t> values_;
};

}  // namespace wave3d
