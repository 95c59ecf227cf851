#pragma once
// The OS-noise probes: one thread per CPU, each pinned to its CPU with hwloc, all probing at the same
// time, first the fixed work quantum (FWQ) and then the selfish-detour loop (see noise_analysis.hpp
// for what they measure). No MPI here (node level).
//
// Clock: every time is a reading of CLOCK_MONOTONIC (std::chrono::steady_clock on Linux), the clock
// wave3d-noise uses for its burst log. Detour starts are counted from the probe's time origin, one
// reading taken just before the probe threads start; its absolute value is kept so traces of other
// tools on the same node (which count from their own start on the same clock) can be shifted onto it.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe/noise_analysis.hpp"
#include "runtime/hwloc_topology.hpp"

namespace wave3d {

struct NoiseProbeOptions {
  std::vector<int> cpus;  // OS indices; one probe thread on each
  bool fwq = true;
  bool selfish = true;
  std::chrono::nanoseconds duration{std::chrono::seconds(1)};  // per method
  std::optional<std::uint64_t> fwq_samples;  // FWQ quanta per CPU; when set, FWQ ignores `duration`
  std::chrono::nanoseconds quantum{std::chrono::microseconds(20)};
  std::optional<std::int64_t> threshold_ns;  // selfish detour; default: default_detour_threshold_ns
};

// Detours kept per CPU for the trace file: 20000 per second of selfish probing, within [65536, 2^20]
// (16 bytes each, allocated up front). Detours beyond it still count in every total.
std::size_t detour_trace_capacity(std::chrono::nanoseconds duration);

struct FwqRaw {
  std::uint64_t iterations = 0;          // work per quantum
  std::vector<std::int64_t> quantum_ns;  // every measured quantum, in order
};

struct SelfishRaw {
  std::uint64_t reads = 0;
  std::int64_t elapsed_ns = 0;
  std::int64_t min_gap_ns = 0;
  std::string threshold_rule;
  DetourRecorder detours;
};

struct CoreProbe {
  int cpu = -1;                  // the CPU the thread was bound to
  std::optional<int> ran_on;     // sched_getcpu() after the last probe: `cpu` unless the binding failed
  std::optional<FwqRaw> fwq;
  std::optional<SelfishRaw> selfish;
};

struct NoiseProbeRun {
  std::int64_t time_origin_monotonic_ns = 0;  // CLOCK_MONOTONIC at the origin of the detour starts
  // FWQ calibration, done once on the first CPU so every CPU does the same work per quantum.
  std::uint64_t fwq_iterations = 0;
  int fwq_calibration_cpu = -1;
  std::vector<CoreProbe> cores;  // in the order of options.cpus
};

// Runs the probes. Throws std::invalid_argument for bad options (no CPUs, a non-positive duration,
// quantum or threshold, neither method chosen) and std::runtime_error when a thread cannot be bound
// to its CPU or its buffers cannot be allocated (then nothing is measured).
NoiseProbeRun run_noise_probes(const HwlocTopology& topology, const NoiseProbeOptions& options);

}  // namespace wave3d
