#pragma once
// The binding map of a run, in the spirit of xthi: for every rank, its host and where each of its
// OpenMP threads runs (CPU, allowed CPUs, NUMA node), with the warnings each rank found about its
// own placement. Gathered to rank 0 for the header and run.json.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/thread_binding.hpp"

namespace wave3d::app {

// Collective. On rank 0 an array with one object per rank: {rank, host, binding, warnings}; elsewhere null.
nlohmann::json gather_binding_map(MPI_Comm comm, const ThreadBinding& mine, const std::vector<std::string>& warnings);

// Header lines for the map (at most `max_ranks` ranks listed in full).
std::string format_binding_map(const nlohmann::json& map, int max_ranks = 16);

// Each distinct warning of the map once, with the ranks that raised it; empty when there are none.
std::string format_binding_warnings(const nlohmann::json& map);

}  // namespace wave3d::app
