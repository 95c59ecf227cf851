#pragma once
// `wave3d iobench`: (being written)
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_iobench_command(CLI::App& parent);

}  // namespace wave3d::app
