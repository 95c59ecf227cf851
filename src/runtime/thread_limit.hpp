#pragma once
// How many OpenMP threads one process may start. Beyond the OpenMP runtime's thread limit
// (OMP_THREAD_LIMIT) it will not start them, and far beyond the CPUs the process may run on the team
// cannot start at all (libgomp dies in its first parallel region at 10^5 threads) or measures only
// the threads taking turns. So a count above either bound is refused before any parallel region; a
// count above the CPUs but within the bound runs, and the binding audit names the oversubscription.
#include <optional>
#include <string>
#include <string_view>

namespace wave3d {

// Threads per CPU a process may start: enough for deliberate oversubscription in tests and studies.
inline constexpr int kMaxThreadsPerCpu = 64;

struct ThreadLimit {
  int threads = 0;          // the most threads one process may start
  int allowed_cpus = 0;     // CPUs in this process's affinity mask
  int runtime_limit = 0;    // omp_get_thread_limit()
};

// The limit for `allowed_cpus` CPUs and the runtime's limit.
ThreadLimit thread_limit(int allowed_cpus, int runtime_limit);

// The limit of this process: its affinity mask and the OpenMP runtime's limit.
ThreadLimit this_process_thread_limit();

// Why `threads` (what `setting` asked for, e.g. "run.threads" or "OMP_NUM_THREADS") is refused, or
// nothing when it may run.
std::optional<std::string> thread_count_problem(int threads, std::string_view setting, const ThreadLimit& limit);

}  // namespace wave3d
