#pragma once
// What the noise probes found on one process, as summaries small enough to gather from every rank
// (the raw samples and detours stay where they were measured; the detours go to the trace files).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probe/noise_analysis.hpp"
#include "probe/noise_probe.hpp"
#include "runtime/hwloc_topology.hpp"

namespace wave3d {

struct CoreNoise {
  int cpu = -1;
  std::optional<int> ran_on;     // the CPU the probe thread was on at the end
  std::optional<int> core;       // logical core index (as wave3d plan numbers them)
  std::optional<int> numa_node;  // OS index
  std::optional<FwqSummary> fwq;
  std::optional<SelfishSummary> selfish;
  std::string trace_file;  // empty: no trace written
};

struct RankNoise {
  int rank = 0;
  std::string host;
  std::vector<int> allowed_cpus;  // the process's CPUs (affinity) when the command started
  std::vector<int> probed_cpus;
  std::int64_t time_origin_monotonic_ns = 0;  // see noise_probe.hpp
  std::uint64_t fwq_iterations = 0;
  int fwq_calibration_cpu = -1;
  std::vector<CoreNoise> cores;
  nlohmann::json machine;  // collect_machine_info() of this rank's node, as JSON
};

// The summaries of one CPU's raw results; core and NUMA node looked up in `topology`.
CoreNoise summarise_core(const CoreProbe& probe, const HwlocTopology& topology);

}  // namespace wave3d
