#include "app/iobench_command.hpp"

#include <stdexcept>

namespace wave3d::app {

Command add_iobench_command(CLI::App& parent) {
  Command command;
  command.cli = parent.add_subcommand("iobench", "(not available yet)");
  command.run = [](MPI_Comm, const std::vector<std::string>&) -> int {
    throw std::runtime_error("wave3d iobench is not available yet");
  };
  return command;
}

}  // namespace wave3d::app
