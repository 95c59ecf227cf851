#pragma once
// Where the pages of the fields come from: the memory policy of a run (see memory_placement.hpp for
// how it is applied). Kept apart so the configuration can name it without pulling in hwloc.

namespace wave3d {

enum class MemoryPolicy {
  first_touch,  // the threads that compute a block write its pages first (parallel, kernel order)
  serial,       // one thread writes every page: all on its node (the slow case of the studies)
  interleave,   // pages round-robin over the NUMA nodes local to the process's CPUs
  node,         // every page on one NUMA node, like numactl -m N
};

struct MemoryPlacement {
  MemoryPolicy policy = MemoryPolicy::first_touch;
  int node = -1;  // OS index of the NUMA node, for MemoryPolicy::node only
  bool huge_pages = true;  // ask for transparent huge pages (field/huge_pages.hpp)
};

}  // namespace wave3d
