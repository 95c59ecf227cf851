#pragma once
// `wave3d noise`: (being written)
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_noise_command(CLI::App& parent);

}  // namespace wave3d::app
