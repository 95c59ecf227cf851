#pragma once
// Which cores a ReservedCores request sets aside on a given node.
#include <string>
#include <vector>

#include "topology/placement_request.hpp"
#include "topology/topology.hpp"

namespace wave3d {

// The reserved logical core indices, ascending. per-socket N takes the N highest-numbered cores of each
// socket; per-node N takes what Slurm's --core-spec=N would. Throws PlacementError for a reservation
// that leaves a socket (or the node) without compute cores, or a list naming a core that does not exist
// or naming one twice.
std::vector<int> choose_reserved_cores(const Topology& topology, const ReservedCores& reserve);

// The cores Slurm specialises for --core-spec=count (CoreSpecCount): the highest-numbered core of the
// highest-numbered socket first, then the highest free core of each lower socket in turn, round and
// round. Ascending. Throws PlacementError unless 0 <= count < cores of the node.
std::vector<int> slurm_core_spec_cores(const Topology& topology, int count);

// For messages: "2 cores per socket", "3 cores per node", "cores 15,31".
std::string describe(const ReservedCores& reserve);

}  // namespace wave3d
