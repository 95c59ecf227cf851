#include "app/plan_command.hpp"

#include "app/root_only.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "topology/launcher_lines.hpp"
#include "topology/machines.hpp"
#include "topology/placement_plan.hpp"
#include "topology/plan_report.hpp"
#include "topology/topology.hpp"

namespace wave3d::app {

namespace {

struct PlanCommandOptions {
  std::string machine;    // a built-in machine name
  std::string synthetic;  // an hwloc synthetic description
  std::string xml;        // an hwloc XML file
  std::string layout = "rank-per-socket";
  int ranks_per_node = 0;
  int threads = 0;
  std::string reserve = "none";
  bool progress_thread = false;
  bool smt = false;
  int nodes = 1;
};

Topology load_topology(const PlanCommandOptions& opt) {
  if (!opt.machine.empty()) return load_builtin_machine(opt.machine);
  if (!opt.synthetic.empty()) return Topology::from_synthetic(opt.synthetic);
  if (!opt.xml.empty()) return Topology::from_xml_file(opt.xml);
  return Topology::load_this_system();
}

PlacementRequest make_request(const PlanCommandOptions& opt) {
  PlacementRequest req;
  req.layout = *parse_layout(opt.layout);  // the option's check admits layout names only
  req.ranks_per_node = opt.ranks_per_node;
  req.threads_per_rank = opt.threads;
  req.reserve = ReservedCores::parse(opt.reserve);
  req.progress_thread = opt.progress_thread;
  req.use_smt = opt.smt;
  return req;
}

void print_plan(const PlanCommandOptions& opt) {
  const Topology topo = load_topology(opt);
  const PlacementPlan plan = make_placement_plan(topo, make_request(opt));
  const LauncherLines lines = make_launcher_lines(plan, LauncherOptions{.nodes = opt.nodes, .program = "wave3d run"});

  fmt::print("wave3d plan: {}: {}\n", topo.source, topo.summary());
  if (!topo.is_this_system) fmt::print("(not the running system's own topology: a plan to read, not to bind with)\n");
  fmt::print("\n{}\n{}\n", describe_plan(plan), render_node_map(topo, plan));
  fmt::print("Open MPI 4.1, {} node{}:\n  {}\n", opt.nodes, opt.nodes == 1 ? "" : "s", lines.mpirun);
  fmt::print("Slurm, {} node{}:\n  {}\n", opt.nodes, opt.nodes == 1 ? "" : "s", lines.srun);
  if (!lines.notes.empty()) {
    fmt::print("notes:\n");
    for (const std::string& note : lines.notes) fmt::print("  - {}\n", note);
  }
}

CLI::Validator reserve_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          (void)ReservedCores::parse(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "none|per-socket:N|per-node:N|list:I,J,..");
}

}  // namespace

Command add_plan_command(CLI::App& parent) {
  auto opt = std::make_shared<PlanCommandOptions>();
  CLI::App* cli = parent.add_subcommand("plan", "Show where ranks and threads would go on a node, and the mpirun "
                                                "and srun lines that place them (runs nothing)");
  std::vector<std::string> machine_names;
  for (const BuiltinMachine& m : builtin_machines()) machine_names.emplace_back(m.name);
  std::vector<std::string> layout_names;
  for (Layout l : all_layouts) layout_names.emplace_back(to_string(l));

  auto* machine = cli->add_option("--machine", opt->machine, "A built-in test machine (default: this machine)")
                      ->check(CLI::IsMember(machine_names));
  auto* synthetic = cli->add_option("--synthetic", opt->synthetic,
                                    "An hwloc synthetic topology, e.g. \"pack:2 numa:1 l3:1 core:22 pu:1\"")
                        ->excludes(machine);
  cli->add_option("--xml", opt->xml, "An hwloc XML topology file (lstopo file.xml)")
      ->check(CLI::ExistingFile)
      ->excludes(machine)
      ->excludes(synthetic);
  cli->add_option("--layout", opt->layout, "rank-per-node, rank-per-socket, rank-per-numa or rank-per-core")
      ->check(CLI::IsMember(layout_names))
      ->capture_default_str();
  cli->add_option("--ranks-per-node", opt->ranks_per_node, "Ranks on each node (default: one per domain of the layout)")
      ->check(CLI::NonNegativeNumber);
  cli->add_option("--threads", opt->threads, "OpenMP threads per rank (default: fill the rank's cores)")
      ->check(CLI::NonNegativeNumber);
  cli->add_option("--reserve", opt->reserve,
                  "Cores kept from compute: none, per-socket:N, per-node:N (the highest-numbered, as Slurm's "
                  "--core-spec) or list:I,J,... of core indices")
      ->check(reserve_validator())
      ->capture_default_str();
  cli->add_flag("--progress-thread", opt->progress_thread,
                "Give each rank a progress thread on a reserved core of its socket / NUMA node");
  cli->add_flag("--smt", opt->smt, "Use hardware threads as OpenMP places (OMP_PLACES=threads)");
  cli->add_option("--nodes", opt->nodes, "Nodes of the job, for the launcher totals")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  Command command;
  command.cli = cli;
  command.run = [opt](MPI_Comm comm, const std::vector<std::string>&) {
    // A PlacementError already says why and what would fit; load errors name their input.
    return run_on_root(comm, "plan", [&] {
      print_plan(*opt);
      return 0;
    });
  };
  return command;
}

}  // namespace wave3d::app
