#include "engine/sweep_schedule.hpp"

#include <algorithm>

namespace wave3d::engine {

int next_sweep_steps(const RunConfig& config, int steps_per_sweep, int done) {
  int stop = config.steps;
  const auto before_next = [&](int every) {
    if (every > 0) stop = std::min(stop, (done / every + 1) * every);
  };
  before_next(config.output.snapshot_every);
  before_next(config.checkpoint.every);
  return std::clamp(stop - done, 1, std::max(1, steps_per_sweep));
}

bool check_due_after(const RunConfig& config, int before, int after) {
  if (after >= config.steps) return true;
  const int every = std::max(1, config.check_every);
  return after / every > before / every;
}

}  // namespace wave3d::engine
