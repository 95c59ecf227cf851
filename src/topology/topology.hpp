#pragma once
// A machine's hardware topology as plain values: packages (sockets), NUMA nodes, L3 domains, cores and
// their hardware threads (PUs). Built once with hwloc from this system, a synthetic description or an
// XML file; afterwards nothing refers to hwloc, so placement planning is a pure function of this value
// and tests can build or copy topologies freely.
//
// Indices: every `index` and every cross reference (Core::package, NumaNode::cores, ...) is a position
// in the matching vector of the Topology, in hwloc's logical order, which does not depend on how the
// operating system numbers things. Only `os_index` and PU numbers are operating-system numbers (what
// taskset, Slurm masks and sched_setaffinity use).
#include <cstdint>
#include <string>
#include <vector>

namespace wave3d {

struct Core {
  int index = 0;         // logical core index on the node, 0..cores-1
  int os_index = -1;     // the OS's core id (repeats across packages on Linux); -1 if unknown
  std::vector<int> pus;  // OS indices of its hardware threads, ascending
  int package = 0;       // index into Topology::packages
  int numa = -1;         // index into Topology::numa_nodes; -1 if no NUMA node holds this core
  int l3 = -1;           // index into Topology::l3_domains; -1 if the core has no L3 above it
};

struct Package {
  int index = 0;
  int os_index = -1;
  std::vector<int> cores;  // ascending
};

struct NumaNode {
  int index = 0;
  int os_index = -1;       // what numactl -m and mbind use
  int package = -1;        // the package holding all its cores; -1 if none (CPU-less) or several
  std::vector<int> cores;  // its local cores, ascending; empty for CPU-less memory (HBM, CXL)
};

struct L3Domain {
  int index = 0;
  int package = -1;
  std::uint64_t bytes = 0;  // 0 if unknown
  std::vector<int> cores;
};

struct Topology {
  // Where it came from, for messages: "this system", "synthetic \"pack:2 ...\"", "XML file x.xml".
  std::string source;
  // False for synthetic and foreign XML topologies. Binding through such a topology is a silent no-op
  // in hwloc, so code that binds must refuse when this is false.
  bool is_this_system = false;

  std::vector<Package> packages;
  std::vector<NumaNode> numa_nodes;
  std::vector<L3Domain> l3_domains;
  std::vector<Core> cores;

  // The topology is restricted to what this process may use (hwloc's default); these record the
  // restriction: the allowed PUs (OS indices, ascending) and how many PUs the whole machine has.
  std::vector<int> allowed_pus;
  int machine_pus = 0;

  // Loaders. Each throws std::runtime_error naming its input when hwloc cannot load it.
  static Topology load_this_system();
  // This system including the cores outside this process's CPU set (allowed_pus still says which PUs the
  // process may use): for a plan that accounts for cores a batch system set aside (see reserved_cores.hpp).
  static Topology load_whole_machine();
  static Topology from_synthetic(const std::string& description);
  static Topology from_xml_file(const std::string& path);

  int pu_count() const;            // PUs of all cores (the allowed ones)
  int max_pus_per_core() const;    // 1 without SMT
  // "2 packages, 2 NUMA nodes, 44 cores, 44 PUs", plus "(4 of 8 PUs allowed)" when restricted.
  std::string summary() const;
};

}  // namespace wave3d
