#include "runtime/step_times.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

namespace wave3d {
namespace {

constexpr double kNotRecorded = std::numeric_limits<double>::quiet_NaN();

void validate_phases(const std::vector<std::string>& phases) {
  if (phases.empty()) throw std::invalid_argument("StepTimes needs at least one phase");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const std::string& name = phases[i];
    // Phase names become CSV column headers and JSON keys; keep them free of CSV syntax.
    if (name.empty() || name.find_first_of(",\"\r\n") != std::string::npos)
      throw std::invalid_argument(fmt::format("StepTimes: invalid phase name '{}'", name));
    if (std::find(phases.begin(), phases.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        phases.begin() + static_cast<std::ptrdiff_t>(i))
      throw std::invalid_argument(fmt::format("StepTimes: phase '{}' given twice", name));
  }
}

}  // namespace

StepTimes::StepTimes(int steps, std::vector<std::string> phases)
    : StepTimes(steps, phases,
                std::vector<double>(static_cast<std::size_t>(std::max(steps, 0)) * phases.size(),
                                    kNotRecorded)) {}

StepTimes::StepTimes(int steps, std::vector<std::string> phases, std::vector<double> values)
    : steps_(steps), phases_(std::move(phases)), values_(std::move(values)) {
  if (steps_ < 0) throw std::invalid_argument(fmt::format("StepTimes: negative step count {}", steps_));
  validate_phases(phases_);
  if (values_.size() != static_cast<std::size_t>(steps_) * phases_.size())
    throw std::invalid_argument(fmt::format("StepTimes: {} values for {} steps x {} phases",
                                            values_.size(), steps_, phases_.size()));
}

std::size_t StepTimes::phase_index(std::string_view name) const {
  const auto it = std::find(phases_.begin(), phases_.end(), name);
  if (it == phases_.end()) throw std::invalid_argument(fmt::format("StepTimes: unknown phase '{}'", name));
  return static_cast<std::size_t>(it - phases_.begin());
}

bool StepTimes::recorded(int step, std::size_t phase) const { return !std::isnan(at(step, phase)); }

PhaseSummary StepTimes::summary(std::size_t phase, int warmup) const {
  if (phase >= phases_.size()) throw std::out_of_range("StepTimes: phase index outside the table");
  PhaseSummary s;
  s.phase = phases_[phase];

  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(steps_));
  for (int step = std::max(warmup, 0); step < steps_; ++step) {
    const double v = at(step, phase);
    if (!std::isnan(v)) samples.push_back(v);
  }
  s.count = static_cast<int>(samples.size());
  if (samples.empty()) {
    s.min = s.median = s.mean = s.max = s.p99 = kNotRecorded;
    return s;
  }

  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  double sum = 0;
  for (double v : samples) sum += v;
  s.min = samples.front();
  s.max = samples.back();
  s.mean = sum / static_cast<double>(n);
  s.median = (n % 2 == 1) ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  const std::size_t rank = (99 * n + 99) / 100;  // ceil(0.99 n) in integers, >= 1 for n >= 1
  s.p99 = samples[rank - 1];
  return s;
}

std::vector<PhaseSummary> StepTimes::summaries(int warmup) const {
  std::vector<PhaseSummary> all;
  all.reserve(phases_.size());
  for (std::size_t p = 0; p < phases_.size(); ++p) all.push_back(summary(p, warmup));
  return all;
}

}  // namespace wave3d
