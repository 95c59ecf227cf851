#pragma once
// A placement plan as text for people: a map of the node and a summary of the ranks.
#include <string>

#include "topology/placement_plan.hpp"
#include "topology/topology.hpp"

namespace wave3d {

// Per socket (and NUMA node, when a socket has several) its cores in order, each as "core:use" where use
// is r.t (rank r's OpenMP thread t; r.t-u for threads t..u sharing a core with SMT), Pr (rank r's
// progress thread), R (an idle reserved core) or . (unused). Ends with a legend line.
std::string render_node_map(const Topology& topology, const PlacementPlan& plan);

// The plan's shape in a few lines, then one line per rank with its domain, cores, PUs and progress core.
std::string describe_plan(const PlacementPlan& plan);

}  // namespace wave3d
