#include "counters/dram_counter.hpp"

#include <span>

#include "runtime/hwloc_topology.hpp"

namespace wave3d::counters {

std::vector<int> first_cpu_of_each_package() {
  const HwlocTopology topology;
  std::vector<int> cpus;
  const int packages = hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_PACKAGE);
  for (int p = 0; p < packages; ++p) {
    const hwloc_obj_t package = hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_PACKAGE, static_cast<unsigned>(p));
    const int first = package != nullptr ? hwloc_bitmap_first(package->cpuset) : -1;
    if (first >= 0) cpus.push_back(first);
  }
  if (cpus.empty()) cpus.push_back(0);  // no package level in the topology: the machine is one package
  return cpus;
}

DramCounter::DramCounter(CounterBackend& backend) : opened_(backend.open_dram(first_cpu_of_each_package())) {
  if (!opened_.reader) problem_ = opened_.problem;
}

std::optional<std::string> DramCounter::read(std::vector<long long>& values) {
  values.assign(opened_.events.size(), 0);
  return opened_.reader->read(std::span<long long>(values));
}

void DramCounter::start() {
  if (problem_) return;
  problem_ = read(at_start_);
}

void DramCounter::stop() {
  if (problem_ || at_start_.empty()) return;
  problem_ = read(at_stop_);
  stopped_ = !problem_;
}

DramCounts DramCounter::counts() const {
  DramCounts counts;
  counts.events = opened_.events;
  if (problem_) {
    counts.problem = problem_;
    return counts;
  }
  if (!stopped_) {
    counts.problem = "the measurement window was not closed";
    return counts;
  }
  long long total = 0;
  for (std::size_t i = 0; i < at_stop_.size(); ++i) total += at_stop_[i] - at_start_[i];
  counts.bytes = static_cast<double>(total) * opened_.bytes_per_count;
  return counts;
}

}  // namespace wave3d::counters
