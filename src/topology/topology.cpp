#include "topology/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace wave3d {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;

TopologyHandle init_topology(const std::string& what) {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0)
    throw std::runtime_error(
        fmt::format("cannot load {}: hwloc_topology_init failed: {}", what, std::generic_category().message(errno)));
  return TopologyHandle(t);
}

void load(hwloc_topology_t t, const std::string& what) {
  if (hwloc_topology_load(t) != 0)
    throw std::runtime_error(fmt::format("cannot load {}: {}", what, std::generic_category().message(errno)));
}

std::vector<int> bitmap_ids(hwloc_const_bitmap_t set) {
  std::vector<int> ids;
  if (set == nullptr) return ids;
  for (int id = hwloc_bitmap_first(set); id != -1; id = hwloc_bitmap_next(set, id)) ids.push_back(id);
  return ids;
}

int os_index_or_unknown(hwloc_obj_t obj) {
  return obj->os_index == HWLOC_UNKNOWN_INDEX ? -1 : static_cast<int>(obj->os_index);
}

int logical_ancestor(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_obj_t obj) {
  const hwloc_obj_t ancestor = hwloc_get_ancestor_obj_by_type(t, type, obj);
  return ancestor == nullptr ? -1 : static_cast<int>(ancestor->logical_index);
}

// The package every listed core belongs to, or -1 if they span several (or there are none).
int common_package(const std::vector<int>& core_ids, const std::vector<Core>& cores) {
  if (core_ids.empty()) return -1;
  const int first = cores[static_cast<std::size_t>(core_ids.front())].package;
  for (int c : core_ids)
    if (cores[static_cast<std::size_t>(c)].package != first) return -1;
  return first;
}

// Copies what placement needs out of a loaded hwloc topology.
Topology snapshot(hwloc_topology_t t, std::string source) {
  Topology topo;
  topo.source = std::move(source);
  topo.is_this_system = hwloc_topology_is_thissystem(t) != 0;
  topo.allowed_pus = bitmap_ids(hwloc_topology_get_allowed_cpuset(t));
  topo.machine_pus = hwloc_bitmap_weight(hwloc_topology_get_complete_cpuset(t));

  // Some platforms (certain VMs, older ARM kernels) report no packages or no cores: the machine then
  // counts as one package, and each PU as a core, rather than as a machine without compute.
  const int npackages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  if (npackages > 0) {
    for (int p = 0; p < npackages; ++p) {
      const hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(p));
      topo.packages.push_back(Package{.index = p, .os_index = os_index_or_unknown(obj), .cores = {}});
    }
  } else {
    topo.packages.push_back(Package{.index = 0, .os_index = -1, .cores = {}});
  }

  const int nnuma = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  std::vector<hwloc_obj_t> numa_objs;
  for (int n = 0; n < nnuma; ++n) {
    const hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(n));
    numa_objs.push_back(obj);
    topo.numa_nodes.push_back(NumaNode{.index = n, .os_index = os_index_or_unknown(obj), .package = -1, .cores = {}});
  }

  const int nl3 = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE);
  for (int i = 0; i < nl3; ++i) {
    const hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_L3CACHE, static_cast<unsigned>(i));
    topo.l3_domains.push_back(L3Domain{.index = i, .package = -1, .bytes = obj->attr->cache.size, .cores = {}});
  }

  const hwloc_obj_type_t core_type =
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int ncores = hwloc_get_nbobjs_by_type(t, core_type);
  for (int c = 0; c < ncores; ++c) {
    const hwloc_obj_t obj = hwloc_get_obj_by_type(t, core_type, static_cast<unsigned>(c));
    Core core;
    core.index = c;
    core.os_index = core_type == HWLOC_OBJ_CORE ? os_index_or_unknown(obj) : -1;
    core.pus = bitmap_ids(obj->cpuset);
    core.package = npackages > 0 ? std::max(logical_ancestor(t, HWLOC_OBJ_PACKAGE, obj), 0) : 0;
    core.l3 = logical_ancestor(t, HWLOC_OBJ_L3CACHE, obj);
    // NUMA nodes are memory children in hwloc 2, not ancestors: a core is local to the node whose
    // cpuset contains it. Where several do (DDR and HBM behind the same cores), the first in logical
    // order wins, which hwloc puts first for the ordinary DRAM.
    for (const hwloc_obj_t numa : numa_objs) {
      if (!hwloc_bitmap_iszero(numa->cpuset) && hwloc_bitmap_isincluded(obj->cpuset, numa->cpuset)) {
        core.numa = static_cast<int>(numa->logical_index);
        break;
      }
    }
    topo.packages[static_cast<std::size_t>(core.package)].cores.push_back(c);
    if (core.numa >= 0) topo.numa_nodes[static_cast<std::size_t>(core.numa)].cores.push_back(c);
    if (core.l3 >= 0) topo.l3_domains[static_cast<std::size_t>(core.l3)].cores.push_back(c);
    topo.cores.push_back(std::move(core));
  }

  for (NumaNode& numa : topo.numa_nodes) numa.package = common_package(numa.cores, topo.cores);
  for (L3Domain& l3 : topo.l3_domains) l3.package = common_package(l3.cores, topo.cores);
  return topo;
}

}  // namespace

Topology Topology::load_this_system() {
  const std::string what = "the topology of this system";
  TopologyHandle t = init_topology(what);
  load(t.get(), what);
  return snapshot(t.get(), "this system");
}

Topology Topology::load_whole_machine() {
  const std::string what = "the topology of this whole system";
  TopologyHandle t = init_topology(what);
  if (hwloc_topology_set_flags(t.get(), HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0)
    throw std::runtime_error(fmt::format("cannot load {}: hwloc refuses to include disallowed CPUs: {}", what,
                                         std::generic_category().message(errno)));
  load(t.get(), what);
  return snapshot(t.get(), "this system");
}

Topology Topology::from_synthetic(const std::string& description) {
  const std::string what = fmt::format("synthetic topology \"{}\"", description);
  TopologyHandle t = init_topology(what);
  if (hwloc_topology_set_synthetic(t.get(), description.c_str()) != 0)
    throw std::runtime_error(fmt::format("invalid {}: hwloc cannot parse it (expected levels such as "
                                         "\"pack:2 numa:1 l3:1 core:22 pu:1\")",
                                         what));
  load(t.get(), what);
  return snapshot(t.get(), what);
}

Topology Topology::from_xml_file(const std::string& path) {
  const std::string what = fmt::format("XML topology file {}", path);
  // hwloc's own error for a missing file is a bare errno; say which file and why.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw std::runtime_error(fmt::format("cannot load {}: no such file", what));
  TopologyHandle t = init_topology(what);
  if (hwloc_topology_set_xml(t.get(), path.c_str()) != 0)
    throw std::runtime_error(fmt::format("cannot load {}: not a valid hwloc XML topology", what));
  load(t.get(), what);
  return snapshot(t.get(), what);
}

int Topology::pu_count() const {
  int n = 0;
  for (const Core& c : cores) n += static_cast<int>(c.pus.size());
  return n;
}

int Topology::max_pus_per_core() const {
  std::size_t n = 0;
  for (const Core& c : cores) n = std::max(n, c.pus.size());
  return static_cast<int>(n);
}

std::string Topology::summary() const {
  const auto count = [](std::size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  std::string s = fmt::format("{}, {}, {}, {}", count(packages.size(), "package", "packages"),
                              count(numa_nodes.size(), "NUMA node", "NUMA nodes"),
                              count(cores.size(), "core", "cores"),
                              count(static_cast<std::size_t>(pu_count()), "PU", "PUs"));
  if (machine_pus > pu_count()) s += fmt::format(" ({} of {} PUs allowed)", pu_count(), machine_pus);
  return s;
}

}  // namespace wave3d
