#pragma once
// StepTimes: the duration of every phase of every time step of one rank, in a table allocated up
// front so that recording inside the time loop never allocates. Phases are named at construction
// ("halo", "compute", "check", "total", ...); callers look the index up once and record by index.
// A phase not recorded in some step (e.g. a check run every 10 steps) stays NaN there and is left
// out of the summaries, rather than counted as a zero-time step.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace wave3d {

struct PhaseSummary {
  std::string phase;
  int count = 0;  // recorded steps that entered the summary (after warm-up)
  // Seconds; NaN when count == 0. Median of an even count is the mean of the middle two; p99 is the
  // nearest-rank 99th percentile (the smallest value >= 99 % of the samples).
  double min = 0, median = 0, mean = 0, max = 0, p99 = 0;
};

class StepTimes {
 public:
  // Throws std::invalid_argument for negative steps, no phases, or empty, duplicate or CSV-unsafe
  // (comma, quote, line break) phase names.
  StepTimes(int steps, std::vector<std::string> phases);
  // Rebuilds a table from its values() (e.g. after gathering ranks); values.size() must be
  // steps * phases.size().
  StepTimes(int steps, std::vector<std::string> phases, std::vector<double> values);

  int steps() const { return steps_; }
  const std::vector<std::string>& phases() const { return phases_; }
  std::size_t phase_count() const { return phases_.size(); }
  // Throws std::invalid_argument for an unknown name.
  std::size_t phase_index(std::string_view name) const;

  // Throws std::out_of_range for a step or phase outside the table.
  void record(int step, std::size_t phase, double seconds) { values_[offset(step, phase)] = seconds; }
  void record(int step, std::string_view phase, double seconds) { record(step, phase_index(phase), seconds); }

  // NaN when the phase was not recorded in that step.
  double at(int step, std::size_t phase) const { return values_[offset(step, phase)]; }
  bool recorded(int step, std::size_t phase) const;

  // Step-major: values()[step * phase_count() + phase].
  const std::vector<double>& values() const { return values_; }

  // Summary over the recorded steps with index >= warmup (the first steps pay for page faults and
  // cold caches and would distort the statistics).
  PhaseSummary summary(std::size_t phase, int warmup) const;
  std::vector<PhaseSummary> summaries(int warmup) const;

 private:
  std::size_t offset(int step, std::size_t phase) const {
    if (step < 0 || step >= steps_ || phase >= phases_.size())
      throw std::out_of_range("StepTimes: step or phase index outside the table");
    return static_cast<std::size_t>(step) * phases_.size() + phase;
  }

  int steps_ = 0;
  std::vector<std::string> phases_;
  std::vector<double> values_;
};

}  // namespace wave3d
