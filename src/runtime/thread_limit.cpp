#include "runtime/thread_limit.hpp"

#include <omp.h>
#include <sched.h>

#include <fmt/format.h>

#include <algorithm>
#include <climits>

namespace wave3d {

ThreadLimit thread_limit(int allowed_cpus, int runtime_limit) {
  const long per_cpu = static_cast<long>(std::max(allowed_cpus, 1)) * kMaxThreadsPerCpu;
  return {static_cast<int>(std::min<long>(per_cpu, runtime_limit)), allowed_cpus, runtime_limit};
}

ThreadLimit this_process_thread_limit() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const int cpus = sched_getaffinity(0, sizeof(mask), &mask) == 0 ? CPU_COUNT(&mask) : 1;
  return thread_limit(cpus, omp_get_thread_limit());
}

std::optional<std::string> thread_count_problem(int threads, std::string_view setting, const ThreadLimit& limit) {
  if (threads <= limit.threads) return std::nullopt;
  if (limit.threads == limit.runtime_limit)
    return fmt::format("{} = {}: the OpenMP runtime starts at most {} threads (OMP_THREAD_LIMIT)", setting, threads,
                       limit.runtime_limit);
  return fmt::format("{} = {}: at most {} threads per process here ({} per CPU this process may run on, {} CPU{}); "
                     "more could only take turns, if the OpenMP runtime could start them at all",
                     setting, threads, limit.threads, kMaxThreadsPerCpu, limit.allowed_cpus,
                     limit.allowed_cpus == 1 ? "" : "s");
}

}  // namespace wave3d
