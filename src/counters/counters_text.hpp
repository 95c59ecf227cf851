#pragma once
// The counters as a user reads them: the notices printed once for the job when events cannot be
// counted, and the block of the run summary.
#include <string>
#include <vector>

#include "counters/job_counters.hpp"

namespace wave3d::counters {

// One line per distinct reason, naming the events it concerns (or saying that nothing is counted),
// each ending in what the run does about it. Empty when everything asked for is counted.
std::vector<std::string> unavailability_notices(const JobCounters& job);

// The "counters:" block of the run summary: per region and step, summed over threads and ranks; the
// events not counted and why; the DRAM bandwidth measured beside the model's estimate, or why not.
std::string format_counters_summary(const JobCounters& job, double model_gbytes_per_second);

}  // namespace wave3d::counters
