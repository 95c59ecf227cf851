#pragma once
// `wave3d stream`: the STREAM memory-bandwidth probe over a sweep of thread counts, for one or both
// page-placement policies. Rank 0 of the communicator measures and prints; other ranks wait idle so
// they neither compete for the node's memory bandwidth nor print.
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_stream_command(CLI::App& parent);

}  // namespace wave3d::app
