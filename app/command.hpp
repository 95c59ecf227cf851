#pragma once
// A subcommand of the wave3d executable: its CLI11 definition and what to run when it is chosen.
// Each subcommand lives in its own file and adds itself with an add_<name>_command function; the
// options it parses are owned by the `run` closure, so there is no global state.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace wave3d::app {

struct Command {
  CLI::App* cli = nullptr;
  // Runs the command on every rank of comm; returns the process exit code. command_line is argv as
  // given, for the provenance record.
  std::function<int(MPI_Comm comm, const std::vector<std::string>& command_line)> run;
};

}  // namespace wave3d::app
