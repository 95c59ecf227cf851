#pragma once
// A placement plan as JSON, for programs that build on `wave3d plan` (the study runner sizes its sweeps
// from it) instead of parsing the printed report: the machine, where every rank and thread goes, the
// reserved cores, both launcher lines and the wave3d run words that go after "run" (program_argv) so that
// the run binds to the same plan.
#include <nlohmann/json.hpp>

#include "topology/launcher_lines.hpp"
#include "topology/placement_plan.hpp"
#include "topology/topology.hpp"

namespace wave3d {

nlohmann::json machine_to_json(const Topology& topology);
nlohmann::json plan_to_json(const Topology& topology, const PlacementPlan& plan, const LauncherLines& lines);

}  // namespace wave3d
