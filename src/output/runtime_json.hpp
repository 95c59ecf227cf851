#pragma once
// JSON forms of the run-time facts (runtime/), for run.json. They follow nlohmann's to_json
// convention, so `nlohmann::json j = machine_info;` works. Unknown values become null.
#include <nlohmann/json.hpp>

#include "runtime/machine_info.hpp"
#include "runtime/memory_usage.hpp"
#include "runtime/step_times.hpp"
#include "runtime/thread_binding.hpp"

namespace wave3d {

void to_json(nlohmann::json& j, const CacheLevel& cache);
void to_json(nlohmann::json& j, const MachineInfo& info);  // includes "summary"
void to_json(nlohmann::json& j, const ThreadPlacement& placement);
void to_json(nlohmann::json& j, const ThreadBinding& binding);
void to_json(nlohmann::json& j, const MemoryUsage& usage);
void to_json(nlohmann::json& j, const PhaseSummary& summary);

}  // namespace wave3d
