#pragma once
// `wave3d tune`: the block tuner of blocking.size = "auto" (and blocking.steps = "auto") run on its
// own for a run's configuration, on the ranks and threads it is launched with; it prints what it
// measured and the config lines to keep, and updates the tuning cache that runs read.
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_tune_command(CLI::App& parent);

}  // namespace wave3d::app
