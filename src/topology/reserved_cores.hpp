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

// The cores of `topology` none of whose PUs are in its allowed_pus: outside this process's CPU set.
// Ascending; empty for a topology restricted to the CPU set (hwloc's default) or an unrestricted process.
std::vector<int> cores_outside_cpu_set(const Topology& topology);

// True when the whole machine's cores outside this process's CPU set are exactly the ones `reserve` sets
// aside there: the batch system has made the reservation already. That is a Slurm job on a node with
// CoreSpecCount (or srun --core-spec) under task/cgroup, asked for the same per-node reservation. A plan
// is then made on the whole machine, so that it reserves the cores Slurm reserved.
bool cpu_set_makes_reservation(const Topology& whole_machine, const ReservedCores& reserve);

// This system's topology for a plan reserving `reserve`: the whole machine when its CPU set makes the
// reservation (above), otherwise the cores this process may use (Topology::load_this_system).
Topology load_this_system_to_reserve(const ReservedCores& reserve);

// For messages: "2 cores per socket", "3 cores per node", "cores 15,31".
std::string describe(const ReservedCores& reserve);

}  // namespace wave3d
