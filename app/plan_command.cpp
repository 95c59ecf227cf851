#include "app/plan_command.hpp"

#include "app/cli_validator.hpp"
#include "app/command_provenance.hpp"
#include "app/placement_cli.hpp"
#include "app/root_only.hpp"
#include "output/json_document.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "topology/launcher_lines.hpp"
#include "topology/placement_plan.hpp"
#include "topology/plan_json.hpp"
#include "topology/plan_report.hpp"
#include "topology/topology.hpp"

namespace wave3d::app {

namespace {

struct PlanCommandOptions {
  TopologyChoice topology;
  std::string layout = "rank-per-socket";
  int ranks_per_node = 0;
  int threads = 0;
  std::string reserve = "none";
  bool progress_thread = false;
  bool smt = false;
  int nodes = 1;
  std::string print_argv;  // "srun" or "mpirun": print only that launcher's words, for job scripts
  bool json = false;       // the machine, the plan and both lines as one JSON document, for programs
};

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

struct PlannedNode {
  Topology topo;
  PlacementPlan plan;
};

PlannedNode plan_node(const PlanCommandOptions& opt) {
  const PlacementRequest request = make_request(opt);
  Topology topo = load_topology(opt.topology, request.reserve);
  PlacementPlan plan = make_placement_plan(topo, request);
  return {std::move(topo), std::move(plan)};
}

void print_plan(const PlanCommandOptions& opt) {
  const auto [topo, plan] = plan_node(opt);
  const LauncherLines lines = make_launcher_lines(plan, LauncherOptions{.nodes = opt.nodes, .program = "wave3d run"});

  fmt::print("wave3d plan: {}: {}\n", topo.source, topo.summary());
  if (!topo.is_this_system) fmt::print("(not the running system's own topology: a plan to read, not to bind with)\n");
  fmt::print("\n{}\n{}\n", describe_plan(plan), render_node_map(topo, plan));
  fmt::print("{}", format_launcher_lines(lines, opt.nodes));
}

// The launcher's words up to the program, each followed by a NUL byte, so that a job script can read them
// into an array (bash: mapfile -d '') and append its own program and arguments without any word
// splitting or quoting.
void print_launcher_argv(const PlanCommandOptions& opt) {
  const PlacementPlan plan = plan_node(opt).plan;
  const LauncherLines lines = make_launcher_lines(plan, LauncherOptions{.nodes = opt.nodes, .program = ""});
  std::string words;
  for (const std::string& word : launcher_words(opt.print_argv == "srun" ? lines.srun : lines.mpirun))
    words.append(word).push_back('\0');
  std::fwrite(words.data(), 1, words.size(), stdout);
}

// The human lines name the program and its placement settings; the launcher argv lists stop before the
// program, as --print-argv does, and program_argv holds the settings for a script to put after "run".
void print_plan_json(const PlanCommandOptions& opt, nlohmann::json provenance) {
  const auto [topo, plan] = plan_node(opt);
  const LauncherLines lines = make_launcher_lines(plan, LauncherOptions{.nodes = opt.nodes, .program = "wave3d run"});
  const LauncherLines bare = make_launcher_lines(plan, LauncherOptions{.nodes = opt.nodes, .program = ""});
  nlohmann::json doc = plan_to_json(topo, plan, lines);
  doc["launchers"]["srun_argv"] = launcher_words(bare.srun);
  doc["launchers"]["mpirun_argv"] = launcher_words(bare.mpirun);
  doc.update(json_header(kPlanFormat, "plan", std::move(provenance)));
  fmt::print("{}\n", doc.dump(2));
}

CLI::Validator reserve_validator() {
  return validator_of(ReservedCores::parse, "none|per-socket:N|per-node:N|list:I,J,..");
}

}  // namespace

Command add_plan_command(CLI::App& parent) {
  auto opt = std::make_shared<PlanCommandOptions>();
  CLI::App* cli = parent.add_subcommand("plan", "Show where ranks and threads would go on a node, and the mpirun "
                                                "and srun lines that place them (runs nothing)");
  std::vector<std::string> layout_names;
  for (Layout l : all_layouts) layout_names.emplace_back(to_string(l));

  add_topology_options(cli, opt->topology, "this machine");
  cli->add_option("--layout", opt->layout, "rank-per-node, rank-per-socket, rank-per-numa or rank-per-core")
      ->check(CLI::IsMember(layout_names))
      ->capture_default_str();
  cli->add_option("--ranks-per-node", opt->ranks_per_node, "Ranks on each node (default: one per domain of the layout)")
      ->check(CLI::Range(0, 1 << 30));
  cli->add_option("--threads", opt->threads, "OpenMP threads per rank (default: fill the rank's cores)")
      ->check(CLI::Range(0, 1 << 30));
  cli->add_option("--reserve", opt->reserve,
                  "Cores kept from compute: none, per-socket:N, per-node:N (the highest-numbered, as Slurm's "
                  "--core-spec) or list:I,J,... of core indices")
      ->check(reserve_validator())
      ->capture_default_str();
  cli->add_flag("--progress-thread", opt->progress_thread,
                "Give each rank a progress thread on a reserved core of its socket / NUMA node");
  cli->add_flag("--smt", opt->smt, "Use hardware threads as OpenMP places (OMP_PLACES=threads)");
  cli->add_option("--nodes", opt->nodes, "Nodes of the job, for the launcher totals")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  cli->add_option("--print-argv", opt->print_argv,
                  "Print only the srun or mpirun line's words before the program, each ended by a NUL byte "
                  "(for job scripts: mapfile -d '' launcher < <(wave3d plan ... --print-argv srun))")
      ->check(CLI::IsMember({"srun", "mpirun"}));
  cli->add_flag("--json", opt->json,
                "Print the machine, the plan and both launcher lines as JSON (for scripts; cores_per_socket, "
                "compute_cores_per_node, reserved_cores, ...)")
      ->excludes("--print-argv");

  Command command;
  command.cli = cli;
  command.run = [opt](MPI_Comm comm, const std::vector<std::string>& command_line) {
    const auto started = std::chrono::system_clock::now();
    // A PlacementError already says why and what would fit; load errors name their input.
    return run_on_root(comm, "plan", [&] {
      if (opt->json)
        print_plan_json(*opt, command_provenance(comm, command_line, started));
      else if (opt->print_argv.empty())
        print_plan(*opt);
      else
        print_launcher_argv(*opt);
      return 0;
    });
  };
  return command;
}

}  // namespace wave3d::app
