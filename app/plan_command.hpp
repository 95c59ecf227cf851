#pragma once
// `wave3d plan`: where the ranks and threads of a job would go on one node, and the mpirun and srun lines
// that put them there. Plans for this machine, a built-in test machine or any hwloc synthetic/XML
// topology; runs nothing. Rank 0 prints.
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_plan_command(CLI::App& parent);

}  // namespace wave3d::app
