#pragma once
// `wave3d noise`: operating-system noise probes. On every CPU the process may use (one PU per core,
// or --cpus), a thread pinned to it runs the fixed-work-quantum probe and then the selfish-detour
// probe, all CPUs at once; the fastest quantum or loop iteration is the quiet-machine baseline. Prints
// per CPU the noise fraction, the largest and p99 detour, and a log2 histogram; --trace-dir writes the
// selfish detours per CPU in LogGOPSim's start/duration format; --json writes everything. Under
// mpiexec every rank probes its own CPUs (ranks sharing CPUs split them) and rank 0 prints all.
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_noise_command(CLI::App& parent);

}  // namespace wave3d::app
