#include "app/noise_command.hpp"

#include <stdexcept>

namespace wave3d::app {

Command add_noise_command(CLI::App& parent) {
  Command command;
  command.cli = parent.add_subcommand("noise", "(not available yet)");
  command.run = [](MPI_Comm, const std::vector<std::string>&) -> int {
    throw std::runtime_error("wave3d noise is not available yet");
  };
  return command;
}

}  // namespace wave3d::app
