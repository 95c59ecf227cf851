#include "runtime/binding_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "runtime/cpu_list.hpp"

namespace wave3d {

std::optional<std::string> crowded_threads_warning(const ThreadBinding& binding) {
  std::set<int> usable;
  for (const ThreadPlacement& t : binding.threads) usable.insert(t.allowed_cpus.begin(), t.allowed_cpus.end());
  const std::size_t threads = binding.threads.size();
  if (threads <= 1 || usable.size() >= threads) return std::nullopt;
  return fmt::format(
      "{} OpenMP threads can only run on {} CPU(s), so they take turns instead of running in parallel. "
      "The launcher bound this rank to too few cores: Open MPI binds each rank to a single core by default "
      "when it starts 1 or 2 ranks. Give each rank as many cores as threads (mpirun --map-by "
      "ppr:N:socket:PE=<threads> --bind-to core, or srun --cpus-per-task=<threads>; wave3d plan prints the "
      "lines) or use --bind-to none.",
      threads, usable.size());
}

std::vector<std::string> plan_mismatch_warnings(const ThreadBinding& binding,
                                                const std::vector<std::vector<int>>& planned) {
  std::vector<std::string> warnings;
  if (binding.threads.size() != planned.size())
    warnings.push_back(fmt::format("the plan has {} threads for this rank but {} are running", planned.size(),
                                   binding.threads.size()));
  for (std::size_t t = 0; t < std::min(binding.threads.size(), planned.size()); ++t) {
    std::vector<int> want = planned[t];
    std::sort(want.begin(), want.end());
    const ThreadPlacement& got = binding.threads[t];
    const bool mask_ok = got.allowed_cpus == want;
    const bool cpu_ok = got.cpu && std::binary_search(want.begin(), want.end(), *got.cpu);
    if (!mask_ok || !cpu_ok)
      warnings.push_back(fmt::format("thread {} was planned on CPU(s) {} but may run on {} and ran on {}", t,
                                     format_cpu_list(want), got.affinity,
                                     got.cpu ? std::to_string(*got.cpu) : std::string("?")));
  }
  return warnings;
}

}  // namespace wave3d
