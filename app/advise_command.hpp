#pragma once
// `wave3d advise`: the surplus-core advisor. Sweeps STREAM triad and the stencil over 1..C pinned
// threads on each NUMA domain of this node (or reads saved curves for any machine), finds where each
// curve saturates, and recommends how many cores compute, what the surplus cores should run (the
// progress thread, then daemons), and the mpirun and srun lines for that plan. Prints the curves as a
// table, writes them with the advice to JSON and draws them to a PNG. Runs in one process: under
// mpiexec, rank 0 measures its own node and the other ranks wait idle.
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_advise_command(CLI::App& parent);

}  // namespace wave3d::app
