#pragma once
// `wave3d advise`: (being written)
#include <CLI/CLI.hpp>

#include "app/command.hpp"

namespace wave3d::app {

Command add_advise_command(CLI::App& parent);

}  // namespace wave3d::app
