#include "runtime/thread_binding.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "runtime/cpu_list.hpp"
#include "runtime/hwloc_topology.hpp"

namespace wave3d {
namespace {

// One slot per thread. Each slot starts on its own cache line, so the threads' writes do not
// false-share a line (64 bytes: the line size of every x86-64 and most AArch64 cores).
struct alignas(64) ThreadSlot {
  int thread = -1;
  int cpu = -1;
  int place = -1;
  int team_size = 0;
  std::vector<int> allowed_cpus;
};

std::string proc_bind_name(omp_proc_bind_t policy) {
  switch (policy) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    default: break;
  }
  // The remaining value is "primary" (OpenMP 5.1), formerly "master"; spelled by value because the
  // enumerator's name depends on the runtime's OpenMP version.
  return static_cast<int>(policy) == 2 ? "primary" : "unknown";
}

// The OS CPU numbers of each OpenMP place, in place order.
std::vector<std::vector<int>> place_cpus() {
  std::vector<std::vector<int>> places(static_cast<std::size_t>(std::max(omp_get_num_places(), 0)));
  for (std::size_t p = 0; p < places.size(); ++p) {
    places[p].resize(static_cast<std::size_t>(omp_get_place_num_procs(static_cast<int>(p))));
    if (!places[p].empty()) omp_get_place_proc_ids(static_cast<int>(p), places[p].data());
  }
  return places;
}

std::string place_list() {
  std::string out;
  for (const std::vector<int>& ids : place_cpus()) {
    if (!out.empty()) out += ',';
    out += '{' + format_cpu_list(ids) + '}';
  }
  return out;
}

std::optional<std::string> environment_value(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

std::vector<int> launch_affinity() {
  const std::vector<std::vector<int>> places = place_cpus();
  if (places.empty() || omp_get_proc_bind() == omp_proc_bind_false) return current_thread_affinity();
  std::vector<int> cpus;
  for (const std::vector<int>& ids : places) cpus.insert(cpus.end(), ids.begin(), ids.end());
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

ThreadBinding report_thread_binding(int num_threads) {
  ThreadBinding binding;
  // Outside a parallel region these describe the policy the next region (ours) is created with.
  binding.proc_bind = proc_bind_name(omp_get_proc_bind());
  binding.num_places = omp_get_num_places();
  binding.places = place_list();
  binding.omp_proc_bind_env = environment_value("OMP_PROC_BIND");
  binding.omp_places_env = environment_value("OMP_PLACES");

  const int team = num_threads > 0 ? num_threads : omp_get_max_threads();
  std::vector<ThreadSlot> slots(static_cast<std::size_t>(team));
#pragma omp parallel num_threads(team)
  {
    ThreadSlot& slot = slots[static_cast<std::size_t>(omp_get_thread_num())];
    slot.thread = omp_get_thread_num();
    slot.team_size = omp_get_num_threads();
    slot.cpu = sched_getcpu();
    slot.place = omp_get_place_num();
    slot.allowed_cpus = current_thread_affinity();
  }

  // The runtime may give a smaller team than asked for (OMP_DYNAMIC, thread limits).
  std::unique_ptr<const HwlocTopology> topology;
  try {
    topology = std::make_unique<const HwlocTopology>();
  } catch (const std::runtime_error&) {
    // Without a topology the NUMA nodes stay unknown; the rest of the report is still true.
  }
  const int actual = slots.front().team_size;
  for (int t = 0; t < actual; ++t) {
    ThreadSlot& slot = slots[static_cast<std::size_t>(t)];
    ThreadPlacement p;
    p.thread = slot.thread;
    if (slot.cpu >= 0) p.cpu = slot.cpu;
    p.affinity = format_cpu_list(slot.allowed_cpus);
    p.allowed_cpus = std::move(slot.allowed_cpus);
    if (topology) {
      p.numa_node = topology->numa_node_of_cpu(slot.cpu);
      p.core = topology->core_of_cpu(slot.cpu);
    }
    p.place = slot.place;
    binding.threads.push_back(std::move(p));
  }
  return binding;
}

}  // namespace wave3d
