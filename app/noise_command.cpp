#include "app/noise_command.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "app/command_provenance.hpp"
#include "app/noise_output.hpp"
#include "app/noise_ranks.hpp"
#include "engine/binding_audit.hpp"
#include "mpi/collective.hpp"
#include "mpi/quiet_wait.hpp"
#include "noise_parse.hpp"
#include "output/json_document.hpp"
#include "output/runtime_json.hpp"
#include "probe/noise_cpus.hpp"
#include "probe/noise_probe.hpp"
#include "probe/noise_report.hpp"
#include "probe/noise_result.hpp"
#include "probe/noise_trace.hpp"
#include "runtime/cpu_list.hpp"
#include "runtime/hostname.hpp"
#include "runtime/hwloc_topology.hpp"
#include "runtime/machine_info.hpp"
#include "runtime/thread_binding.hpp"

namespace wave3d::app {

using namespace engine;  // the run engine this subcommand drives

namespace {

using std::chrono::nanoseconds;

// Longest --duration: FWQ keeps every quantum (8 bytes each), so hours would cost gigabytes per CPU.
constexpr auto max_duration = std::chrono::minutes(10);

struct NoiseCommandOptions {
  std::string method = "both";
  std::string duration = "1s";
  std::uint64_t samples = 0;  // 0 = not given
  double quantum_us = 20.0;
  std::int64_t threshold_ns = 0;  // 0 = not given
  std::string cpus;
  std::string trace_dir;
  std::string json;
};

CLI::Validator duration_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto d = noise::parse_duration(text);
        if (!d)
          return fmt::format("'{}': expected a positive duration: a number and a unit ns, us, ms or s (e.g. 500ms, 2s)",
                             text);
        if (*d > max_duration) return fmt::format("'{}': at most 600s (FWQ keeps every quantum in memory)", text);
        return {};
      },
      "DURATION", "duration");
}

// A number within [low, high], with a message that names the value, the range and the unit.
template <typename T>
CLI::Validator range_validator(T low, T high, const char* unit) {
  return CLI::Validator(
      [low, high, unit](std::string& text) -> std::string {
        T value{};
        if (!CLI::detail::lexical_cast(text, value) || value < low || value > high)
          return fmt::format("'{}': expected a number of {} from {} to {}", text, unit, low, high);
        return {};
      },
      fmt::format("{} to {}", low, high), "range");
}

CLI::Validator cpu_list_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return noise::parse_cpu_list(text) ? std::string()
                                           : fmt::format("'{}': expected a CPU list like 0-3,8 (OS CPU numbers)", text);
      },
      "LIST", "cpu list");
}

// The option combinations CLI11 cannot check; the same verdict on every rank.
NoiseSettings settings_from(const NoiseCommandOptions& o) {
  NoiseSettings s;
  s.probe.fwq = o.method != "selfish";
  s.probe.selfish = o.method != "fwq";
  s.probe.duration = *noise::parse_duration(o.duration);
  s.probe.quantum = std::chrono::duration_cast<nanoseconds>(std::chrono::duration<double, std::micro>(o.quantum_us));
  if (o.samples > 0) {
    if (!s.probe.fwq) throw std::invalid_argument(fmt::format("--samples {}: counts FWQ quanta, but --method selfish "
                                                              "runs no FWQ", o.samples));
    s.probe.fwq_samples = o.samples;
  }
  if (o.threshold_ns > 0) {
    if (!s.probe.selfish)
      throw std::invalid_argument(fmt::format("--threshold-ns {}: is the selfish-detour threshold, but --method fwq "
                                              "runs no selfish detour", o.threshold_ns));
    s.probe.threshold_ns = o.threshold_ns;
  }
  if (!o.trace_dir.empty()) {
    if (!s.probe.selfish)
      throw std::invalid_argument(fmt::format("--trace-dir '{}': the traces hold selfish detours, but --method fwq "
                                              "runs no selfish detour", o.trace_dir));
    s.trace_dir = o.trace_dir;
  }
  if (!o.cpus.empty()) s.cpus = noise::parse_cpu_list(o.cpus);
  return s;
}

// The CPUs this rank would probe before ranks sharing a node split them.
std::vector<int> wanted_cpus(const NoiseSettings& s, const std::string& cpus_text, const HwlocTopology& topology,
                             const std::vector<int>& allowed) {
  if (allowed.empty()) throw std::runtime_error("cannot read this process's CPU affinity (sched_getaffinity)");
  if (!s.cpus) return one_pu_per_core(topology, allowed);
  const std::vector<int> outside = cpus_outside(*s.cpus, allowed);
  if (!outside.empty())
    throw std::invalid_argument(fmt::format("--cpus '{}': CPU {} not available to this process; allowed CPUs: {}",
                                            cpus_text, format_cpu_list(outside), format_cpu_list(allowed)));
  return *s.cpus;
}

void make_trace_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);  // ranks of one node may race here: what counts is the result
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error(fmt::format("--trace-dir '{}': cannot create the directory ({})", dir.string(),
                                         ec ? ec.message() : "exists and is not a directory"));
}

// Probes this rank's CPUs, writes their traces and returns the summaries.
RankNoise probe_rank(const NoiseSettings& s, const HwlocTopology& topology, std::vector<int> cpus, int rank,
                     std::vector<int> allowed) {
  RankNoise r;
  r.rank = rank;
  r.host = short_hostname();
  r.allowed_cpus = std::move(allowed);
  r.probed_cpus = cpus;
  if (cpus.empty()) {
    r.machine = collect_machine_info();
    return r;
  }
  NoiseProbeOptions options = s.probe;
  options.cpus = std::move(cpus);
  const NoiseProbeRun run = run_noise_probes(topology, options);
  r.time_origin_monotonic_ns = run.time_origin_monotonic_ns;
  r.fwq_iterations = run.fwq_iterations;
  r.fwq_calibration_cpu = run.fwq_calibration_cpu;
  for (const CoreProbe& probe : run.cores) {
    CoreNoise core = summarise_core(probe, topology);
    if (s.trace_dir && probe.selfish) {
      const std::filesystem::path path = *s.trace_dir / detour_trace_name(r.host, probe.cpu);
      write_detour_trace(path, probe.selfish->detours.detours());
      core.trace_file = path.string();
    }
    r.cores.push_back(std::move(core));
  }
  r.machine = collect_machine_info();  // after probing: loading the topology takes a few ms of its own
  return r;
}

// The probe threads as the binding audit sees them: each was bound to one CPU (its plan) and reports
// where it ran at the end of its probes.
RankPlacementFacts probe_placement(const RankNoise& probed) {
  RankPlacementFacts facts;
  facts.launch_cpus = probed.allowed_cpus;
  facts.planned = true;
  facts.binding.proc_bind = "true";
  facts.binding.num_places = static_cast<int>(probed.cores.size());
  for (const CoreNoise& core : probed.cores) {
    ThreadPlacement t;
    t.thread = static_cast<int>(facts.binding.threads.size());
    t.cpu = core.ran_on;
    t.allowed_cpus = {core.cpu};
    t.affinity = std::to_string(core.cpu);
    t.core = core.core;
    t.numa_node = core.numa_node;
    facts.binding.threads.push_back(t);
    facts.planned_pus.push_back({core.cpu});
  }
  return facts;
}

int run_noise(MPI_Comm comm, const NoiseCommandOptions& opt, const std::vector<std::string>& command_line) {
  const auto started = std::chrono::system_clock::now();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // The affinity before anything here binds a thread: the CPUs the launcher gave this process.
  const std::vector<int> allowed = launch_affinity();
  const NoiseSettings settings = mpi::collectively(comm, [&] { return settings_from(opt); });
  const auto topology = mpi::collectively(comm, [] { return std::make_unique<HwlocTopology>(); });
  const std::vector<int> wanted =
      mpi::collectively(comm, [&] { return wanted_cpus(settings, opt.cpus, *topology, allowed); });
  const std::vector<int> mine = share_cpus_on_node(comm, wanted);
  if (settings.trace_dir) mpi::collectively(comm, [&] { make_trace_dir(*settings.trace_dir); });

  // Checked before probing, so a bad path fails at once rather than after the measurement.
  mpi::collectively(comm, [&] {
    if (rank == 0 && !opt.json.empty()) check_output_file(opt.json, "--json");
  });

  if (rank == 0) {
    const auto per_method = settings.probe.fwq_samples ? std::string("FWQ by sample count")
                                                       : format_duration_ns(static_cast<double>(settings.probe.duration.count()));
    fmt::print("wave3d noise: probing ({} per method)...\n", per_method);
    std::fflush(stdout);
  }
  // Every rank starts together and, when done, sleeps rather than polls, so no rank disturbs another.
  mpi::barrier_quietly(comm);
  const RankNoise mine_result = mpi::collectively(comm, [&] { return probe_rank(settings, *topology, mine, rank, allowed); });
  mpi::barrier_quietly(comm);

  const std::vector<RankNoise> all = gather_rank_noise(comm, mine_result, 0);
  const JobPlacement placement = audit_job_placement(comm, probe_placement(mine_result), false);
  mpi::collectively(comm, [&] {
    if (rank != 0) return;
    fmt::print("{}", format_noise_report(settings, all));
    fmt::print("placement: {}\n", placement.verdict_text());
    std::fflush(stdout);
    fmt::print(stderr, "{}", format_placement_warnings(placement));
    if (!opt.json.empty()) {
      nlohmann::json doc = noise_json_document(settings, all, command_line);
      doc["placement_audit"] = placement.verdict_json();
      write_json_document(opt.json, kNoiseFormat, "noise", command_provenance(comm, command_line, started),
                          std::move(doc));
    }
  });
  return 0;
}

}  // namespace

Command add_noise_command(CLI::App& parent) {
  auto opt = std::make_shared<NoiseCommandOptions>();
  CLI::App* cli = parent.add_subcommand(
      "noise", "Measure operating-system noise on every CPU this process may use (fixed work quantum and selfish "
               "detour, one pinned thread per core, all at once)");
  cli->add_option("--method", opt->method, "fwq (fixed work quantum), selfish (selfish detour) or both, in that order")
      ->check(CLI::IsMember({"fwq", "selfish", "both"}))
      ->capture_default_str();
  cli->add_option("--duration", opt->duration, "How long each method probes, e.g. 500ms, 2s (at most 600s)")
      ->check(duration_validator())
      ->capture_default_str();
  cli->add_option("--samples", opt->samples, "FWQ: this many quanta per CPU instead of --duration")
      ->check(range_validator<std::uint64_t>(1, 100'000'000, "quanta"));
  cli->add_option("--quantum-us", opt->quantum_us, "FWQ: the fixed work quantum in microseconds (calibrated)")
      ->check(range_validator<double>(1.0, 1'000'000.0, "microseconds"))
      ->capture_default_str();
  cli->add_option("--threshold-ns", opt->threshold_ns,
                  "Selfish detour: a clock-read gap longer than this is a detour (default per CPU: max(10 x the "
                  "fastest loop iteration, 250 ns))")
      ->check(range_validator<std::int64_t>(1, 1'000'000'000, "nanoseconds"));
  cli->add_option("--cpus", opt->cpus, "Probe only these CPUs (OS numbers, e.g. 0-3,8; default: one PU of every "
                                       "core the process may use)")
      ->check(cpu_list_validator());
  cli->add_option("--trace-dir", opt->trace_dir, "Write each CPU's selfish detours to DIR/detours-<host>-cpu<N>.tsv "
                                                 "(start_ns<TAB>duration_ns, CLOCK_MONOTONIC from the start of the probe; created if missing)");
  cli->add_option("--json", opt->json, "Also write the settings, the machine and every result to this JSON file");

  Command command;
  command.cli = cli;
  command.run = [opt](MPI_Comm comm, const std::vector<std::string>& command_line) {
    return run_noise(comm, *opt, command_line);
  };
  return command;
}

}  // namespace wave3d::app
