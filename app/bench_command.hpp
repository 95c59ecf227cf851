#pragma once
#include "app/command.hpp"

namespace wave3d::app {

// `wave3d bench`: the R=8 single-precision stencil and STREAM triad measured side by side in one
// process, for a list of thread counts; reports each as a fraction of the bandwidth and compute bounds.
Command add_bench_command(CLI::App& parent);

}  // namespace wave3d::app
