#pragma once
// The hardware topology of this machine as an owned hwloc object: loaded once by the constructor,
// destroyed with the wrapper. Read-only queries on a loaded topology are safe from any thread.
#include <hwloc.h>

#include <optional>

namespace wave3d {

class HwlocTopology {
 public:
  // Loads the whole machine, including PUs this process is not allowed to use (a cgroup or cpuset
  // restriction must not make the machine look smaller than it is). Throws std::runtime_error when
  // hwloc cannot load a topology.
  HwlocTopology();
  ~HwlocTopology();
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;

  hwloc_topology_t get() const { return topology_; }

  // OS index of the NUMA node whose memory is local to the PU with OS index `cpu`.
  std::optional<int> numa_node_of_cpu(int cpu) const;
  // Logical index of the core holding the PU with OS index `cpu` (the core numbering wave3d plan uses).
  std::optional<int> core_of_cpu(int cpu) const;

 private:
  hwloc_topology_t topology_ = nullptr;
};

}  // namespace wave3d
