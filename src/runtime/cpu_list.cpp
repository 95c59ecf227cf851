#include "runtime/cpu_list.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

namespace wave3d {

std::string format_cpu_list(std::vector<int> cpus) {
  std::erase_if(cpus, [](int c) { return c < 0; });
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());

  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += (j == i) ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> current_thread_affinity() {
  // The kernel's mask may be wider than the static cpu_set_t (1024 CPUs): grow until it fits.
  for (int capacity = 1024; capacity <= (1 << 22); capacity *= 2) {
    cpu_set_t* set = CPU_ALLOC(capacity);
    if (set == nullptr) return {};
    const std::size_t size = CPU_ALLOC_SIZE(capacity);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) != 0) {  // pid 0: the calling thread
      const int err = errno;
      CPU_FREE(set);
      if (err == EINVAL) continue;
      return {};
    }
    std::vector<int> cpus;
    for (int c = 0; c < capacity; ++c)
      if (CPU_ISSET_S(c, size, set)) cpus.push_back(c);
    CPU_FREE(set);
    return cpus;
  }
  return {};
}

}  // namespace wave3d
