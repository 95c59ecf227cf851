#pragma once
// A subcommand of the wave3d executable: its CLI11 definition and what to run when it is chosen.
// Each subcommand lives in its own file and adds itself with an add_<name>_command function; the
// options it parses are owned by the `run` closure, so there is no global state.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wave3d::app {

// A job every rank agrees has failed after its work began (an I/O error in the time loop, say), as
// opposed to input refused before it: main prints the message once and exits 1, not 2.
class FailedWhileRunning : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Command {
  CLI::App* cli = nullptr;
  // Runs the command on every rank of comm; returns the process exit code. command_line is argv as
  // given, for the provenance record.
  std::function<int(MPI_Comm comm, const std::vector<std::string>& command_line)> run;
};

}  // namespace wave3d::app
