#pragma once
// CPU sets as the compact list notation of Linux and taskset: "0-3,8,10-11".
#include <string>
#include <vector>

namespace wave3d {

// Any order and duplicates are accepted; negative ids are ignored. Empty input gives "".
std::string format_cpu_list(std::vector<int> cpus);

// The CPUs the calling thread may run on (sched_getaffinity), ascending; empty if the call fails.
std::vector<int> current_thread_affinity();

}  // namespace wave3d
