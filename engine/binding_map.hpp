#pragma once
// The binding map of a run, in the spirit of xthi: for every rank, its host and where each of its
// OpenMP threads and its progress thread runs (CPU, allowed CPUs, NUMA node). The map is gathered by
// the binding audit (engine/binding_audit.hpp); this formats it for the header.
#include <nlohmann/json.hpp>
#include <string>

namespace wave3d::engine {

// Header lines for the map (at most `max_ranks` ranks listed in full).
std::string format_binding_map(const nlohmann::json& map, int max_ranks = 16);

}  // namespace wave3d::engine
