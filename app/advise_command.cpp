#include "app/advise_command.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "advise/advice.hpp"
#include "advise/advise_json.hpp"
#include "advise/advise_report.hpp"
#include "app/advise_measure.hpp"
#include "app/command_provenance.hpp"
#include "app/placement_cli.hpp"
#include "app/python_script.hpp"
#include "app/root_only.hpp"
#include "app/thread_list.hpp"
#include "output/json_document.hpp"
#include "probe/stream.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/cpu_list.hpp"
#include "runtime/hostname.hpp"
#include "runtime/thread_binding.hpp"
#include "topology/launcher_lines.hpp"
#include "topology/placement_plan.hpp"
#include "topology/plan_report.hpp"

namespace wave3d::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct AdviseOptions {
  std::string curves;  // a curves or advise JSON file: advise without measuring
  TopologyChoice topology;
  double tolerance_percent = 100.0 * advise::default_tolerance;
  std::string output_dir = ".";
  std::string json;  // default <output_dir>/advise.json
  std::string png;   // default <output_dir>/advise.png
  bool no_plot = false;
  int nodes = 1;
  // Measurement.
  int numa = -1;  // -1: every NUMA node with cores
  std::string threads;
  std::int64_t grid = 0;
  int steps = 5;
  int repetitions = 3;
  std::size_t array_mib = 0;
  int stream_repetitions = 5;
};

// Where the curves came from, for the header and the JSON.
struct CurvesSource {
  Topology topology;
  std::vector<advise::DomainCurves> curves;
  std::string description;
  json measurement;  // null unless measured here
};

std::string plural(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

AdviseMeasureOptions measure_options(const AdviseOptions& o) {
  AdviseMeasureOptions m;
  m.grid = o.grid;
  m.steps = o.steps;
  m.repetitions = o.repetitions;
  m.stream_elements = stream_elements_of_mib(o.array_mib);
  m.stream_repetitions = o.stream_repetitions;
  if (o.numa >= 0) m.numa = o.numa;
  if (!o.threads.empty()) m.threads = parse_thread_list(o.threads);
  m.launch_cpus = launch_affinity();  // before any measurement binds this thread
  return m;
}

CurvesSource measure_here(const AdviseOptions& o, int ranks) {
  CurvesSource src{Topology::load_this_system(), {}, {}, nullptr};
  const AdviseMeasureOptions m = measure_options(o);
  std::vector<DomainSweep> sweeps = prepare_sweeps(src.topology, m);
  src.description = fmt::format("measured by wave3d advise on {}", hostname());

  fmt::print("wave3d advise: measuring on {} ({}: {})\n", hostname(), src.topology.source, src.topology.summary());
  if (ranks > 1)
    fmt::print("  rank 0 measures its own node; the other {} wait idle\n", plural(ranks - 1, "rank", "ranks"));
  // The curves are only as good as the node is quiet: say so when other work is running.
  double load[1] = {0.0};
  const bool load_known = getloadavg(load, 1) == 1;
  if (load_known && load[0] > 0.5 * src.topology.pu_count())
    fmt::print("  note: the load average over the last minute is {:.1f} on {} CPUs: other processes share these cores "
               "and the curves will show it; advise on an idle node\n",
               load[0], src.topology.pu_count());
  for (const DomainSweep& s : sweeps) {
    const std::uint64_t field_bytes = static_cast<std::uint64_t>(12 * s.grid * s.grid * s.grid);
    fmt::print("  NUMA node {}: cores {}, threads {}; stencil R=8 single precision on {}^3 (fields {}{}), triad on "
               "3 x {}\n",
               s.numa, format_cpu_list(s.cores), fmt::join(s.threads, ","), s.grid, format_bytes(field_bytes),
               s.llc_bytes ? fmt::format(", {:.2g} x {}", static_cast<double>(field_bytes) / *s.llc_bytes, s.llc_source)
                           : fmt::format(", sized for {}", s.llc_source),
               format_bytes(s.stream_elements * sizeof(double)));
    if (s.llc_bytes && (field_bytes < 2 * *s.llc_bytes || 3 * s.stream_elements * sizeof(double) < 2 * *s.llc_bytes))
      fmt::print("  note: the fields or the triad arrays are not much larger than the cache: the curves show the "
                 "caches more than the memory\n");
  }
  fmt::print("  threads pinned one per core of the NUMA node (lowest-numbered first), memory bound to the node; "
             "median of {} stencil repetitions of {} steps and of {} triad repetitions, each after a warm-up\n\n",
             o.repetitions, o.steps, o.stream_repetitions - 1);
  std::fflush(stdout);

  json domains = json::array();
  for (DomainSweep& s : sweeps) {
    measure_domain(s, m, [](const DomainSweep& sweep, const BenchCase& c) {
      fmt::print(stderr, "{}", c.placement_warnings);
      std::fflush(stderr);
      fmt::print("  NUMA node {}, {}: triad {:.2f} GB/s, stencil {:.1f} MPoints/s, placement {}\n", sweep.numa,
                 plural(c.threads_per_rank, "thread", "threads"), c.triad_gbytes.median, c.stencil_mpoints.median,
                 c.placement_verdict);
      std::fflush(stdout);
    });
    for (const std::string& notice : s.notices) fmt::print("  notice: NUMA node {}: {}\n", s.numa, notice);
    src.curves.push_back(s.curves);
    domains.push_back({{"numa", s.numa},
                       {"os_index", s.os_index},
                       {"cores", s.cores},
                       {"threads", s.threads},
                       {"grid", s.grid},
                       {"field_bytes", 12 * s.grid * s.grid * s.grid},
                       {"llc_bytes", s.llc_bytes ? json(*s.llc_bytes) : json(nullptr)},
                       {"llc_source", s.llc_source},
                       {"stream_elements", s.stream_elements},
                       {"notices", s.notices}});
  }
  src.measurement = {{"host", hostname()},
                     {"load_average_1min", load_known ? json(load[0]) : json(nullptr)},
                     {"stencil", "R=8 single precision, seed cube, zero boundary (the bench's stencil)"},
                     {"steps_per_repetition", o.steps},
                     {"repetitions", o.repetitions},
                     {"stream_repetitions", o.stream_repetitions},
                     {"statistic", "median over the repetitions after the warm-up; low/high: min/max"},
                     {"binding", "one thread per core of the NUMA node, lowest-numbered first, hwloc"},
                     {"memory", "bound to the NUMA node (hwloc area binding); see notices"},
                     {"domains", domains}};
  fmt::print("\n");
  return src;
}

CurvesSource load_curves(const AdviseOptions& o) {
  std::ifstream in(o.curves);
  if (!in) throw std::runtime_error(fmt::format("--curves {}: cannot open the file", o.curves));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("--curves {}: not valid JSON: {}", o.curves, e.what()));
  }
  advise::CurvesDocument curves;
  try {
    curves = advise::curves_from_json(doc);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("--curves {}: {}", o.curves, e.what()));
  }
  CurvesSource src{load_topology(o.topology), std::move(curves.domains), std::move(curves.description), nullptr};
  fmt::print("wave3d advise: curves from {}{}\n  advising for {}: {}\n", o.curves,
             src.description.empty() ? "" : fmt::format(" ({})", src.description), src.topology.source,
             src.topology.summary());
  if (!src.topology.is_this_system)
    fmt::print("  (not the running system's own topology: a plan to read, not to bind with)\n");
  fmt::print("\n");
  return src;
}

// The plan's launcher lines, and without the progress thread (every surplus core to daemons, which is
// where srun's --core-spec can take over) when the plan has one.
json print_launchers(const Topology& topology, const advise::NodeAdvice& advice, int nodes) {
  const PlacementPlan plan = make_placement_plan(topology, advice.request);
  const LauncherLines lines = make_launcher_lines(plan, {.nodes = nodes, .program = advice.run_program});
  fmt::print("\n{}\n{}", render_node_map(topology, plan), format_launcher_lines(lines, nodes));
  json j = {{"nodes", nodes},
            {"program", advice.run_program},
            {"mpirun", lines.mpirun},
            {"srun", lines.srun},
            {"notes", lines.notes},
            {"without_progress_thread", nullptr}};
  if (!advice.request.progress_thread) return j;

  PlacementRequest daemons_only = advice.request;
  daemons_only.progress_thread = false;
  const std::string program = "wave3d run --set placement.layout=rank-per-numa --set placement.reserve=" + advice.reserve;
  const PlacementPlan plain = make_placement_plan(topology, daemons_only);
  const LauncherLines plain_lines = make_launcher_lines(plain, {.nodes = nodes, .program = program});
  fmt::print("\nwithout a progress thread (every surplus core left to daemons):\n{}",
             format_launcher_lines(plain_lines, nodes));
  j["without_progress_thread"] = {
      {"program", program}, {"mpirun", plain_lines.mpirun}, {"srun", plain_lines.srun}, {"notes", plain_lines.notes}};
  return j;
}

int run_advise(const AdviseOptions& o, int ranks, const json& provenance) {
  const double tolerance = o.tolerance_percent / 100.0;
  advise::check_tolerance(tolerance);
  const fs::path json_path = o.json.empty() ? fs::path(o.output_dir) / "advise.json" : fs::path(o.json);
  const fs::path png_path = o.png.empty() ? fs::path(o.output_dir) / "advise.png" : fs::path(o.png);
  // Before a sweep of minutes, not after it.
  check_output_file(json_path, "--json");
  if (!o.no_plot) check_output_file(png_path, "--png");

  const CurvesSource src = o.curves.empty() ? measure_here(o, ranks) : load_curves(o);
  const advise::NodeAdvice advice = advise::advise_node(src.topology, src.curves, tolerance);

  // With one domain's curves applied to all, the table and findings are the same everywhere: shown once.
  const std::size_t tables = advice.shared_curves ? 1 : advice.domains.size();
  for (std::size_t i = 0; i < tables; ++i) {
    const advise::DomainAdvice& d = advice.domains[i];
    fmt::print("NUMA node {} (OS node {}): cores {} ({}){}\n", d.numa, d.os_index, format_cpu_list(d.cores),
               plural(static_cast<int>(d.cores.size()), "core", "cores"),
               advice.shared_curves ? fmt::format("; the same curves for all {} NUMA nodes", advice.domains.size()) : "");
    fmt::print("{}{}\n", advise::render_curve_table(d, tolerance), advise::describe_domain_advice(d, tolerance));
  }
  if (advice.shared_curves) {
    for (const advise::DomainAdvice& d : advice.domains) fmt::print("{}\n", advise::describe_core_roles(d));
    fmt::print("\n");
  }
  fmt::print("{}", advise::describe_node_advice(advice));
  json launcher = print_launchers(src.topology, advice, o.nodes);

  json doc = advise::advice_to_json(advice);
  doc["description"] = src.description;
  doc["source"] = o.curves.empty() ? "measured" : "curves file " + o.curves;
  doc["launcher"] = std::move(launcher);
  doc["measurement"] = src.measurement;
  write_json_document(json_path, kAdviseFormat, "advise", provenance, std::move(doc));
  fmt::print("\njson: {}\n", json_path.string());

  if (o.no_plot) return 0;
  std::fflush(stdout);
  const ScriptOutcome plot =
      run_python_script(WAVE3D_PYTHON_EXECUTABLE, python_tool("plot_advise.py"), {json_path.string(), png_path.string()});
  if (plot.ok)
    fmt::print("png: {}\n", png_path.string());
  else
    fmt::print("png: not written: {}\n", plot.failure);
  return 0;
}

CLI::Validator tolerance_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && v >= 0.0 && v < 100.0) return {};
        } catch (const std::exception&) {
        }
        return fmt::format("tolerance {} is not allowed; allowed: a percentage 0 <= p < 100 (5 = within 5 % of the "
                           "best)",
                           text);
      },
      "PERCENT");
}

}  // namespace

Command add_advise_command(CLI::App& parent) {
  auto o = std::make_shared<AdviseOptions>();
  CLI::App* cli = parent.add_subcommand(
      "advise",
      "Surplus-core advisor: sweep STREAM triad and the stencil over 1..C pinned threads on each NUMA domain, find "
      "where they saturate, and recommend how many cores compute and what runs on the rest (progress thread, "
      "daemons), with the mpirun and srun lines. Runs in one process: under mpiexec rank 0 measures its own node "
      "and the other ranks wait idle (run it once per node type, e.g. srun -N1 -n1 wave3d advise).");
  auto* curves = cli->add_option("--curves", o->curves,
                                 "Advise from saved curves (an advise.json, or a file with only \"domains\": "
                                 "[{\"curves\": {\"triad\": ..., \"stencil\": ...}}]) instead of measuring")
                     ->check(CLI::ExistingFile);
  const TopologyOptions topo = add_topology_options(cli, o->topology, "this machine");
  for (CLI::Option* opt : {topo.machine, topo.synthetic, topo.xml}) opt->needs(curves);
  cli->add_option("--tolerance", o->tolerance_percent,
                  "Saturation: the fewest threads within this many percent of the curve's best")
      ->check(tolerance_validator())
      ->capture_default_str();
  cli->add_option("--output-dir", o->output_dir, "Directory for advise.json and advise.png")->capture_default_str();
  cli->add_option("--json", o->json, "Write the curves and the advice here (default: <output-dir>/advise.json)");
  cli->add_option("--png", o->png, "Draw the curves here (default: <output-dir>/advise.png)");
  cli->add_flag("--no-plot", o->no_plot, "Do not draw the PNG");
  cli->add_option("--nodes", o->nodes, "Nodes of the job, for the launcher totals")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  auto measuring = [&](CLI::Option* opt) { return opt->excludes(curves)->group("Measurement"); };
  measuring(cli->add_option("--numa", o->numa,
                            "Measure only this NUMA node (logical index) and apply its curves to every NUMA node")
                ->check(CLI::Range(0, 1 << 30)));
  measuring(cli->add_option("--threads", o->threads, "Thread counts to sweep, e.g. 1-4 or 1,2,4 (default: 1 to the "
                                                     "cores of the NUMA node)")
                ->check(thread_list_validator()));
  measuring(cli->add_option("--grid", o->grid, "Cube edge of the stencil grid (default: fields at least 8x the NUMA "
                                               "node's last-level cache)")
                ->check(CLI::Range(std::int64_t{17}, std::int64_t{1} << 14)));
  measuring(cli->add_option("--steps", o->steps, "Stencil time steps per repetition")
                ->check(CLI::Range(1, 100000))
                ->capture_default_str());
  measuring(cli->add_option("--repetitions", o->repetitions, "Timed stencil repetitions (after one warm-up)")
                ->check(CLI::Range(1, 1000))
                ->capture_default_str());
  measuring(cli->add_option("--array-mib", o->array_mib,
                            "MiB per triad array (default: 4x the NUMA node's last-level cache, at least 64)")
                ->check(CLI::Range(1, 1 << 30)));
  measuring(cli->add_option("--stream-repetitions", o->stream_repetitions,
                            "Triad repetitions, the first a warm-up")
                ->check(CLI::Range(2, stream_max_repetitions))
                ->capture_default_str());

  Command command;
  command.cli = cli;
  command.run = [o](MPI_Comm comm, const std::vector<std::string>& command_line) {
    const auto started = std::chrono::system_clock::now();
    int size = 1;
    MPI_Comm_size(comm, &size);
    return run_on_root(comm, "advise",
                       [&] { return run_advise(*o, size, command_provenance(comm, command_line, started)); });
  };
  return command;
}

}  // namespace wave3d::app
