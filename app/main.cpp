// wave3d: an ISO3DFD-style acoustic wave stencil, MPI across ranks, OpenMP within a rank.
// main only sets up MPI, reads the command line and hands over to one subcommand.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "app/advise_command.hpp"
#include "app/bench_command.hpp"
#include "app/command.hpp"
#include "app/iobench_command.hpp"
#include "app/tune_command.hpp"
#include "app/noise_command.hpp"
#include "app/plan_command.hpp"
#include "app/run_command.hpp"
#include "app/stream_command.hpp"
#include "config/config_error.hpp"
#include "io/hdf5/hdf5_library.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "output/build_info.hpp"

namespace {

// "wave3d <command>: error: <what CLI11 found>; see wave3d <command> --help" for the deepest command
// that was named on the command line.
std::string command_line_error(const CLI::App& cli, const CLI::ParseError& e, int argc, char** argv) {
  if (cli.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
    std::string commands;
    for (const CLI::App* sub : cli.get_subcommands([](const CLI::App*) { return true; }))
      commands += (commands.empty() ? "" : ", ") + sub->get_name();
    return "wave3d: error: '" + std::string(argv[1]) + "' is not a command; allowed: " + commands + "; see wave3d --help\n";
  }
  std::string name = "wave3d";
  const CLI::App* app = &cli;
  for (auto named = app->get_subcommands(); !named.empty(); named = app->get_subcommands()) {
    app = named.front();
    name += " " + app->get_name();
  }
  std::string what = e.what();
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
  for (char& c : what)
    if (c == '\n') c = ' ';
  return name + ": error: " + what + "; see " + name + " --help\n";
}

// Parses the command line and runs the one subcommand it names; returns the exit status.
int run_command_line(int argc, char** argv, int rank) {
  using namespace wave3d;
  CLI::App cli{"wave3d: hybrid MPI+OpenMP acoustic wave stencil mini-app", "wave3d"};
  cli.set_version_flag("--version", std::string("wave3d ") + build_info::version);
  cli.require_subcommand(1);
  const std::vector<app::Command> commands = {
      app::add_run_command(cli),    app::add_bench_command(cli), app::add_stream_command(cli),
      app::add_plan_command(cli),   app::add_advise_command(cli), app::add_noise_command(cli),
      app::add_iobench_command(cli), app::add_tune_command(cli)};

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments and reached the same verdict; only rank 0 speaks.
    // --help and --version end parsing the same way, successfully: CLI11 prints them.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return rank == 0 ? cli.exit(e) : 0;
    // A bad command line is bad input like any other: one line, exit code 2.
    if (rank == 0) std::fputs(command_line_error(cli, e, argc, argv).c_str(), stderr);
    return 2;
  }

  for (const app::Command& command : commands) {
    if (!command.cli->parsed()) continue;
    try {
      return command.run(MPI_COMM_WORLD, std::vector<std::string>(argv, argv + argc));
    } catch (const app::FailedWhileRunning& e) {
      if (rank == 0) std::fprintf(stderr, "wave3d: error: %s\n", e.what());
      return 1;
    } catch (const mpi::CollectiveError& e) {
      // Every rank holds the same message; rank 0 prints it once.
      if (rank == 0) std::fprintf(stderr, "wave3d: error: %s\n", e.what());
      return 2;
    } catch (const std::exception& e) {
      // A failure on this rank alone: the others may be waiting on it, so end the whole job.
      mpi::abort_job(MPI_COMM_WORLD, e.what());
    }
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wave3d;
  io::Hdf5Library hdf5;  // before MPI_Init: see io/hdf5/hdf5_library.hpp
  // MPI_THREAD_MULTIPLE is asked for so a progress thread can drive communication; a run that does
  // not need it works with whatever level the library provides.
  mpi::Environment environment(&argc, &argv, MPI_THREAD_MULTIPLE);
  const int status = run_command_line(argc, argv, environment.world_rank());
  hdf5.end();  // before MPI_Finalize
  return status;
}
