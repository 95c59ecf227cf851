#pragma once
// Where the time loop's sweeps end. A sweep of T steps (temporal blocking) computes its levels at once,
// so nothing can look at the field between them: snapshots, checkpoints and the end of the run, due
// at exact steps, end a sweep early. The NaN/Inf check does not: it runs at the end of the sweep that
// reaches or passes each multiple of run.check_every. Cutting sweeps there instead would run every
// tenth step's sweep short at the default check_every = 10 and T = 4 (sweeps of 4, 4 and 2), the first
// level of each sweep reading memory as a step of T = 1 does; a check a few steps late still names
// the steps between the last clean check and itself.
#include <string>

#include "config/run_config.hpp"

namespace wave3d::engine {

// How many steps the sweep after `done` steps takes: steps_per_sweep, or fewer where a snapshot, a
// checkpoint or the end of the run comes first (at least 1).
int next_sweep_steps(const RunConfig& config, int steps_per_sweep, int done);

// Where snapshots, checkpoints or the end of the run cut sweeps short of steps_per_sweep in a run that
// starts at step `first`: "" where none does (or steps_per_sweep is 1), else how many sweeps and steps
// ran short, for the summary: each short sweep reads memory as often as a full one for fewer steps.
std::string short_sweeps_notice(const RunConfig& config, int steps_per_sweep, int first);

// Whether the NaN/Inf check is due after a sweep from `before` to `after` steps: the sweep reached or
// passed a multiple of run.check_every, or the end of the run.
bool check_due_after(const RunConfig& config, int before, int after);

}  // namespace wave3d::engine
