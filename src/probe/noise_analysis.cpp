#include "probe/noise_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace wave3d {

int log2_bin(std::int64_t ns) {
  if (ns < 1) throw std::invalid_argument(fmt::format("log2_bin: {} ns has no bin (zero is counted apart)", ns));
  return std::bit_width(static_cast<std::uint64_t>(ns)) - 1;
}

std::int64_t log2_bin_floor(int bin) { return std::int64_t{1} << bin; }
std::int64_t log2_bin_ceiling(int bin) { return std::int64_t{1} << (bin + 1); }

void Log2Histogram::add(std::int64_t ns) {
  if (ns < 1) {
    ++zero;
    return;
  }
  ++bins[static_cast<std::size_t>(log2_bin(ns))];
}

std::uint64_t Log2Histogram::total() const {
  std::uint64_t sum = zero;
  for (std::uint64_t c : bins) sum += c;
  return sum;
}

Log2Histogram& Log2Histogram::operator+=(const Log2Histogram& other) {
  zero += other.zero;
  for (std::size_t k = 0; k < bins.size(); ++k) bins[k] += other.bins[k];
  return *this;
}

FwqSummary summarise_fwq(std::span<const std::int64_t> quantum_ns) {
  if (quantum_ns.empty()) throw std::invalid_argument("FWQ summary of no samples");
  FwqSummary s;
  s.samples = quantum_ns.size();
  s.baseline_ns = *std::min_element(quantum_ns.begin(), quantum_ns.end());
  if (s.baseline_ns <= 0)
    throw std::invalid_argument(fmt::format("FWQ sample of {} ns: quanta must take a positive time", s.baseline_ns));
  std::vector<std::int64_t> excess;
  excess.reserve(quantum_ns.size());
  for (std::int64_t t : quantum_ns) {
    s.total_ns += t;
    const std::int64_t e = t - s.baseline_ns;
    s.detour_ns += e;
    s.largest_detour_ns = std::max(s.largest_detour_ns, e);
    s.histogram.add(e);
    excess.push_back(e);
  }
  s.mean_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.samples);
  s.noise_fraction = static_cast<double>(s.detour_ns) / static_cast<double>(s.total_ns);
  s.p50_detour_ns = percentile_nearest_rank(excess, 50.0);
  s.p99_detour_ns = percentile_nearest_rank(std::move(excess), 99.0);
  return s;
}

std::uint64_t fwq_iterations_for(std::int64_t quantum_ns, std::uint64_t trial_iterations, std::int64_t trial_ns) {
  if (quantum_ns <= 0 || trial_iterations == 0 || trial_ns <= 0)
    throw std::invalid_argument(fmt::format("FWQ calibration needs positive values (quantum {} ns, trial of {} "
                                            "iterations in {} ns)",
                                            quantum_ns, trial_iterations, trial_ns));
  const double scaled = std::round(static_cast<double>(quantum_ns) * static_cast<double>(trial_iterations) /
                                   static_cast<double>(trial_ns));
  return scaled < 1.0 ? 1 : static_cast<std::uint64_t>(scaled);
}

std::int64_t default_detour_threshold_ns(std::int64_t min_gap_ns) {
  return std::max(detour_threshold_gap_multiple * min_gap_ns, detour_threshold_floor_ns);
}

std::string default_detour_threshold_rule(std::int64_t min_gap_ns) {
  return fmt::format("max({} x min loop gap {} ns, {} ns)", detour_threshold_gap_multiple, min_gap_ns,
                     detour_threshold_floor_ns);
}

DetourRecorder::DetourRecorder(std::int64_t threshold_ns, std::size_t capacity)
    : threshold_ns_(threshold_ns), kept_(capacity) {  // value-initialised: every page touched now
  if (threshold_ns <= 0)
    throw std::invalid_argument(fmt::format("detour threshold {} ns: must be positive", threshold_ns));
}

void DetourRecorder::set_threshold_ns(std::int64_t threshold_ns) {
  if (threshold_ns <= 0)
    throw std::invalid_argument(fmt::format("detour threshold {} ns: must be positive", threshold_ns));
  if (count_ > 0) throw std::logic_error("DetourRecorder: the threshold cannot change after detours were recorded");
  threshold_ns_ = threshold_ns;
}

void DetourRecorder::record(std::int64_t start_ns, std::int64_t duration_ns) {
  ++count_;
  total_ns_ += duration_ns;
  largest_ns_ = std::max(largest_ns_, duration_ns);
  histogram_.add(duration_ns);
  if (kept_count_ < kept_.size()) kept_[kept_count_++] = Detour{start_ns, duration_ns};
}

SelfishSummary summarise_selfish(const DetourRecorder& recorder, std::uint64_t reads, std::int64_t elapsed_ns,
                                 std::int64_t min_gap_ns, std::string threshold_rule) {
  if (elapsed_ns <= 0)
    throw std::invalid_argument(fmt::format("selfish-detour summary over {} ns: must be positive", elapsed_ns));
  SelfishSummary s;
  s.reads = reads;
  s.elapsed_ns = elapsed_ns;
  s.min_gap_ns = min_gap_ns;
  s.threshold_ns = recorder.threshold_ns();
  s.threshold_rule = std::move(threshold_rule);
  s.detours = recorder.count();
  s.detour_ns = recorder.total_ns();
  s.noise_fraction = static_cast<double>(s.detour_ns) / static_cast<double>(elapsed_ns);
  s.largest_detour_ns = recorder.largest_ns();
  s.dropped = recorder.dropped();
  s.histogram = recorder.histogram();
  if (!recorder.detours().empty()) {
    std::vector<std::int64_t> durations;
    durations.reserve(recorder.detours().size());
    for (const Detour& d : recorder.detours()) durations.push_back(d.duration_ns);
    s.p99_detour_ns = percentile_nearest_rank(std::move(durations), 99.0);
  }
  return s;
}

}  // namespace wave3d
