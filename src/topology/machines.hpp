#pragma once
// The machines DESIGN.md plans placement for, as hwloc synthetic descriptions, so a plan for a cluster
// node can be made and tested on a laptop: `wave3d plan --machine xeon-e5-2699v4`.
#include <span>
#include <string>
#include <string_view>

#include "topology/topology.hpp"

namespace wave3d {

struct BuiltinMachine {
  std::string_view name;       // what --machine takes
  std::string_view title;      // one line for listings
  std::string_view synthetic;  // hwloc synthetic description
};

// L3 sizes are the vendors' figures; memory sizes are left to hwloc's default because placement never
// looks at them.
inline constexpr BuiltinMachine xeon_e5_2699v4{
    "xeon-e5-2699v4", "2 x 22-core Intel Xeon E5-2699 v4, one NUMA node per socket (the ISO3DFD study)",
    "pack:2 numa:1 l3:1(size=55MiB) core:22 pu:1"};
inline constexpr BuiltinMachine xeon_e5_4620{
    "xeon-e5-4620", "4 x 8-core Intel Xeon E5-4620, one NUMA node per socket (the parallel I/O study)",
    "pack:4 numa:1 l3:1(size=16MiB) core:8 pu:1"};
inline constexpr BuiltinMachine opteron_8356{
    "opteron-8356", "4 x 4-core AMD Opteron 8356, one NUMA node per socket (T2K-Tsukuba, the surplus-core study)",
    "pack:4 numa:1 l3:1(size=2MiB) core:4 pu:1"};
// NPS4: four NUMA domains per socket, two 8-core L3 complexes (CCDs) in each. Hardware threads are
// numbered as Linux does on such nodes: core c has PUs c and c+128, not 2c and 2c+1.
inline constexpr BuiltinMachine epyc_7763_nps4{
    "epyc-7763-nps4", "2 x 64-core AMD EPYC 7763, NPS4 (4 NUMA nodes per socket), 2 hardware threads per core",
    "pack:2 numa:4 l3:2(size=32MiB) core:8 pu:2(indexes=2*128:1*2)"};

inline constexpr BuiltinMachine builtin_machine_table[] = {xeon_e5_2699v4, xeon_e5_4620, opteron_8356,
                                                           epyc_7763_nps4};

std::span<const BuiltinMachine> builtin_machines();

// Throws std::runtime_error listing the known names when `name` is not one of them.
const BuiltinMachine& find_builtin_machine(std::string_view name);

// The named machine's topology; its source reads "machine xeon-e5-2699v4 (synthetic ...)".
Topology load_builtin_machine(std::string_view name);

}  // namespace wave3d
