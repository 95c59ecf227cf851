#pragma once
// The command-line side of placement planning, shared by `wave3d plan` and `wave3d advise`: which
// machine to plan for (this one, a built-in study machine, an hwloc synthetic description or XML file)
// and the launcher lines as printed.
#include <CLI/CLI.hpp>
#include <string>

#include "topology/launcher_lines.hpp"
#include "topology/reserved_cores.hpp"
#include "topology/topology.hpp"

namespace wave3d::app {

struct TopologyChoice {
  std::string machine;    // a built-in machine name
  std::string synthetic;  // an hwloc synthetic description
  std::string xml;        // an hwloc XML file

  bool given() const { return !machine.empty() || !synthetic.empty() || !xml.empty(); }
};

struct TopologyOptions {
  CLI::Option* machine = nullptr;
  CLI::Option* synthetic = nullptr;
  CLI::Option* xml = nullptr;
};

// Adds --machine, --synthetic and --xml (at most one of them) to `cli`, stored in `choice`, which must
// outlive the parse. `default_text` says what is planned for without them.
TopologyOptions add_topology_options(CLI::App* cli, TopologyChoice& choice, const std::string& default_text);

// The chosen topology, or this system's when none was chosen. Throws std::runtime_error naming the input
// hwloc cannot load.
// Without a choice, a plan reserving `reserve` gets load_this_system_to_reserve(reserve).
Topology load_topology(const TopologyChoice& choice, const ReservedCores& reserve = {});

// "Open MPI 4.1, N nodes:\n  mpirun ...\nSlurm, N nodes:\n  srun ...\n" and the notes, one per line.
std::string format_launcher_lines(const LauncherLines& lines, int nodes);

}  // namespace wave3d::app
