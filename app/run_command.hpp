#pragma once
#include "app/command.hpp"

namespace wave3d::app {

// `wave3d run [config.toml] [--set key=value]...`: one verified run, results under output.directory.
Command add_run_command(CLI::App& parent);

}  // namespace wave3d::app
