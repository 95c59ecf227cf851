#pragma once
// The arithmetic of the OS-noise probes, kept apart from clocks and threads so it can be tested on
// synthetic samples with known answers. All times are integer nanoseconds.
//
// Fixed work quantum (FWQ): the same amount of work is timed over and over; the fastest repetition is
// the quiet-machine baseline and everything above it was taken by something else (interrupts, other
// processes, the kernel):
//   noise fraction = sum(t_i - t_min) / sum(t_i),   largest detour = max(t_i - t_min).
// Selfish detour: a loop that only reads the clock; a gap between two readings above a threshold is a
// detour (start, duration):
//   noise fraction = sum(detour durations) / elapsed time.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/statistics.hpp"  // percentile_nearest_rank

namespace wave3d {

// Counts of non-negative durations in power-of-two bins: bin k holds [2^k, 2^(k+1)) ns; zero durations
// are counted on their own (a FWQ quantum exactly as fast as the baseline).
struct Log2Histogram {
  static constexpr int bin_count = 63;  // 2^62 ns is about 146 years: every int64 duration fits
  std::uint64_t zero = 0;
  std::array<std::uint64_t, bin_count> bins{};

  void add(std::int64_t ns);  // negative durations count as zero
  std::uint64_t total() const;
  Log2Histogram& operator+=(const Log2Histogram& other);
  bool operator==(const Log2Histogram&) const = default;
};

// floor(log2(ns)) for ns >= 1: the histogram bin of a duration.
int log2_bin(std::int64_t ns);
// Lower and upper bound (exclusive) of bin k in ns.
std::int64_t log2_bin_floor(int bin);
std::int64_t log2_bin_ceiling(int bin);


struct FwqSummary {
  std::uint64_t samples = 0;
  std::int64_t baseline_ns = 0;  // the fastest quantum: the quiet-machine minimum
  double mean_ns = 0.0;
  std::int64_t total_ns = 0;           // sum of all quanta
  std::int64_t detour_ns = 0;          // sum of (t_i - t_min): time taken by something else
  double noise_fraction = 0.0;         // detour_ns / total_ns
  std::int64_t largest_detour_ns = 0;  // max(t_i - t_min)
  std::int64_t p50_detour_ns = 0;      // percentiles of t_i - t_min over all quanta
  std::int64_t p99_detour_ns = 0;
  Log2Histogram histogram;  // of t_i - t_min, one entry per quantum
};

// Throws std::invalid_argument when there are no samples or a sample is not positive.
FwqSummary summarise_fwq(std::span<const std::int64_t> quantum_ns);

// Work iterations for one quantum of `quantum_ns`, scaled from a trial in which `trial_iterations`
// took at best `trial_ns`. At least 1. Throws std::invalid_argument for non-positive inputs.
std::uint64_t fwq_iterations_for(std::int64_t quantum_ns, std::uint64_t trial_iterations, std::int64_t trial_ns);

struct Detour {
  std::int64_t start_ns = 0;  // when the loop last ran before the detour, from the probe's time origin
  std::int64_t duration_ns = 0;
  bool operator==(const Detour&) const = default;
};

// The default selfish-detour threshold: a gap is a detour when it is longer than
// max(detour_threshold_gap_multiple x the minimum loop gap, detour_threshold_floor_ns). The multiple
// keeps the loop's own jitter (cache and TLB misses, the clock's retry loop) out; the floor keeps a
// very fast clock from turning single cache misses into detours.
inline constexpr std::int64_t detour_threshold_gap_multiple = 10;
inline constexpr std::int64_t detour_threshold_floor_ns = 250;
std::int64_t default_detour_threshold_ns(std::int64_t min_gap_ns);
// "max(10 x min loop gap 21 ns, 250 ns)": how the default was reached, for the report.
std::string default_detour_threshold_rule(std::int64_t min_gap_ns);

// Collects the detours of one selfish-detour loop. The totals (count, time, largest, histogram) cover
// every detour; the individual detours (for the trace file) are kept up to `capacity`, in storage
// allocated and touched up front so recording never page-faults inside the loop.
class DetourRecorder {
 public:
  DetourRecorder(std::int64_t threshold_ns, std::size_t capacity);

  // Two successive clock readings of the loop. Returns whether the gap was a detour.
  bool observe(std::int64_t previous_ns, std::int64_t now_ns) {
    const std::int64_t gap = now_ns - previous_ns;
    if (gap <= threshold_ns_) return false;
    record(previous_ns, gap);
    return true;
  }

  // Changes the threshold before the first observation (the storage is kept); std::logic_error after.
  void set_threshold_ns(std::int64_t threshold_ns);

  std::int64_t threshold_ns() const { return threshold_ns_; }
  std::uint64_t count() const { return count_; }
  std::int64_t total_ns() const { return total_ns_; }
  std::int64_t largest_ns() const { return largest_ns_; }
  const Log2Histogram& histogram() const { return histogram_; }
  // The kept detours, in the order they happened.
  std::span<const Detour> detours() const { return {kept_.data(), kept_count_}; }
  std::uint64_t dropped() const { return count_ - kept_count_; }  // detours beyond the capacity

 private:
  void record(std::int64_t start_ns, std::int64_t duration_ns);

  std::int64_t threshold_ns_;
  std::vector<Detour> kept_;
  std::size_t kept_count_ = 0;
  std::uint64_t count_ = 0;
  std::int64_t total_ns_ = 0;
  std::int64_t largest_ns_ = 0;
  Log2Histogram histogram_;
};

struct SelfishSummary {
  std::uint64_t reads = 0;        // clock readings in the measured loop
  std::int64_t elapsed_ns = 0;    // from the first to the last reading
  std::int64_t min_gap_ns = 0;    // fastest loop iteration seen while calibrating
  std::int64_t threshold_ns = 0;  // gaps above this were detours
  std::string threshold_rule;     // "--threshold-ns" or default_detour_threshold_rule(...)
  std::uint64_t detours = 0;
  std::int64_t detour_ns = 0;          // their total duration
  double noise_fraction = 0.0;         // detour_ns / elapsed_ns
  std::int64_t largest_detour_ns = 0;  // 0 when there was none
  std::int64_t p99_detour_ns = 0;      // over the kept detours; 0 when there was none
  std::uint64_t dropped = 0;           // detours not kept for the trace (and not in p99)
  Log2Histogram histogram;             // of the detour durations
};

// Throws std::invalid_argument when elapsed_ns is not positive.
SelfishSummary summarise_selfish(const DetourRecorder& recorder, std::uint64_t reads, std::int64_t elapsed_ns,
                                 std::int64_t min_gap_ns, std::string threshold_rule);

}  // namespace wave3d
