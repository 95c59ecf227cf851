#include "engine/sweep_schedule.hpp"

#include <algorithm>

#include <fmt/format.h>

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

std::string short_sweeps_notice(const RunConfig& config, int steps_per_sweep, int first) {
  if (steps_per_sweep <= 1) return "";
  int sweeps = 0, short_sweeps = 0, short_steps = 0;
  for (int done = first; done < config.steps; ++sweeps) {
    const int steps = next_sweep_steps(config, steps_per_sweep, done);
    if (steps < steps_per_sweep) {
      ++short_sweeps;
      short_steps += steps;
    }
    done += steps;
  }
  if (short_sweeps == 0) return "";
  return fmt::format("{} of {} sweeps ran fewer than {} steps, ending at a snapshot, a checkpoint or the end of the "
                     "run ({} of the {} steps); intervals and run.steps that are multiples of {} avoid it",
                     short_sweeps, sweeps, steps_per_sweep, short_steps, config.steps - first, steps_per_sweep);
}

bool check_due_after(const RunConfig& config, int before, int after) {
  if (after >= config.steps) return true;
  const int every = std::max(1, config.check_every);
  return after / every > before / every;
}

}  // namespace wave3d::engine
