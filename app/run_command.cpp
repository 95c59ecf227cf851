#include "app/run_command.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_help.hpp"
#include "config/config_json.hpp"
#include "engine/binding_audit.hpp"
#include "engine/config_broadcast.hpp"
#include "engine/placement_setup.hpp"
#include "engine/run_counters.hpp"
#include "engine/run_preflight.hpp"
#include "engine/run_report.hpp"
#include "engine/time_loop.hpp"
#include "field/memory_placement.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"
#include "output/json_document.hpp"
#include "output/provenance.hpp"
#include "output/result_files.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/hostname.hpp"
#include "runtime/machine_info.hpp"

namespace wave3d::app {

using namespace engine;  // the run engine this subcommand drives

namespace {

struct RunOptions {
  std::optional<std::string> config_path;
  std::vector<std::string> overrides;
  std::vector<std::string> command_line;
  bool check_only = false;  // validate the configuration and stop: for scripts that plan many runs
  std::optional<int> check_ranks;  // --ranks / --nodes: the job --check checks, when not this launch
  std::optional<int> check_nodes;
  bool strict_placement = false;  // placement.strict for this run
};

int exit_code_for(const RunOutcome& outcome) {
  return outcome.verification.status == VerificationStatus::failed ? 1 : 0;
}

// run.json of a failed run: the header, status "failed", which rank on which host (null when the
// writer cannot know it) and why, and the configuration. Written by the failing rank itself just
// before the job is aborted, or by rank 0 when all ranks agree on the failure (on a file system the
// other nodes share, where the run directory is); best effort, it never hides the failure.
void record_failed_run(const std::filesystem::path& run_dir, const RunConfig& config, const std::string& what, int rank,
                       const std::optional<std::string>& host, const MpiFacts& facts,
                       const std::vector<std::string>& command_line,
                       std::chrono::system_clock::time_point started) noexcept {
  try {
    nlohmann::json document = {{"status", "failed"},
                               {"failure", {{"rank", rank}, {"host", host ? nlohmann::json(*host) : nlohmann::json()},
                                            {"message", what}}},
                               {"config", config_to_json(config)}};
    write_json_document(run_dir / kRunJsonName, kRunFormat, "run", collect_provenance(facts, command_line, started),
                        std::move(document));
  } catch (...) {
  }
}

// run.json of a run under way, written by rank 0 once the run directory exists and replaced when the run
// ends: a job killed outright (SIGKILL at the time limit, a lost node) leaves a run.json that says the run
// never completed, where it ran and with what, rather than a directory that looks like an empty run.
void record_running_run(const std::filesystem::path& run_dir, const RunConfig& config, const MpiFacts& facts,
                        const std::vector<std::string>& command_line, std::chrono::system_clock::time_point started) {
  nlohmann::json document = {{"status", "running"}, {"host", short_hostname()}, {"config", config_to_json(config)}};
  write_json_document(run_dir / kRunJsonName, kRunFormat, "run", collect_provenance(facts, command_line, started),
                      std::move(document));
}

// A run refused before or during its loop leaves nothing behind: its run.json under way (only that:
// a rank that failed alone has already replaced it with status "failed"), then the directory if empty.
void remove_refused_run(const std::filesystem::path& run_dir) noexcept {
  try {
    const std::filesystem::path run_json = run_dir / kRunJsonName;
    if (std::ifstream in(run_json); in && nlohmann::json::parse(in, nullptr, false).value("status", "") == "running")
      std::filesystem::remove(run_json);
  } catch (...) {
  }
  remove_if_empty(run_dir);
}

// The job the checks are for: this launch, or the one --ranks / --nodes describe.
JobShape job_to_check(const RunOptions& options, MPI_Comm comm) {
  JobShape job = launched_shape(comm);
  if (!options.check_ranks && !options.check_nodes) return job;
  job.described = true;
  if (options.check_ranks) job.ranks = *options.check_ranks;
  if (options.check_nodes) job.nodes = *options.check_nodes;
  job.nodes = std::min(job.nodes, job.ranks);
  return job;
}

// --check: what was checked and found, on rank 0, and what the counters could measure (their own
// notices, as the run prints them). Exit status 0.
int report_check(const RunConfig& config, MPI_Comm comm, const JobShape& job, const Preflight& found) {
  const RunCounters counters(config.counters, comm);
  if (mpi::rank_in(comm) != 0) return 0;
  const auto& dims = found.decomposition.dims;
  std::string memory = format_bytes(found.field_bytes_per_node) + " of fields per node";
  memory += found.available_bytes ? " (" + format_bytes(*found.available_bytes) + " available here)"
                                  : " (available memory unknown here: not checked)";
  std::printf("wave3d run: configuration accepted for %d rank%s on %d node%s (%d per node): process grid %d x %d x %d, "
              "%s\n",
              job.ranks, job.ranks == 1 ? "" : "s", job.nodes, job.nodes == 1 ? "" : "s", job.ranks_per_node(),
              dims[0], dims[1], dims[2], memory.c_str());
  if (found.restart_checkpoint)
    std::printf("wave3d run: restarts from %s (step %lld), which matches\n", found.restart_checkpoint->c_str(),
                static_cast<long long>(*found.restart_step));
  if (job.described)
    std::printf("wave3d run: placement and memory checked against this node (%s); the compute nodes must be "
                "like it\n",
                short_hostname().c_str());
  std::fflush(stdout);
  return 0;
}

int execute_run(const RunOptions& options, MPI_Comm comm) {
  const auto started = std::chrono::system_clock::now();
  int rank = 0, size = 1, provided = MPI_THREAD_SINGLE;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Query_thread(&provided);

  // 1. Configuration: parsed on rank 0, validated, broadcast; then the placement plan, which may
  //    settle the thread count, the progress thread's core and the memory node.
  RunConfig config = load_config_on_root(comm, options.config_path, options.overrides);
  if (options.strict_placement) config.placement.strict = true;
  const JobShape job = job_to_check(options, comm);
  const Preflight preflight = check_run_can_start(config, comm, job);
  if (options.check_only) return report_check(config, comm, job, preflight);
  if (config.threads > 0) omp_set_num_threads(config.threads);
  const AppliedPlacement placement = apply_placement(config, comm);
  // A memory policy naming a NUMA node this machine lacks is a configuration error: say so before
  // anything is created or allocated.
  mpi::collectively(comm, [&] {
    if (config.memory.policy == MemoryPolicy::node) check_placement(config.memory, HwlocTopology().get());
  });

  // 2. Where the results go: created before any work, so a bad path costs nothing.
  std::filesystem::path run_dir;
  const MpiFacts facts{mpi::library_version(), mpi::thread_level_name(provided), size};
  mpi::collectively(comm, [&] {
    if (rank != 0) return;
    run_dir = create_run_directory(config.output.directory, config.output.name, started);
    record_running_run(run_dir, config, facts, options.command_line, started);
  });
  run_dir = mpi::broadcast_string(comm, run_dir.string(), 0);  // a rank that fails alone records it there

  // 3. The time loop, in the precision asked for. Once everything is set up, and before the first
  //    step, the binding audit sees where every thread of every rank runs, and rank 0 prints the
  //    header with the binding map and any placement warning, once for the whole job.
  //    Snapshots and checkpoints go to the run directory, stamped with this run's provenance.
  const MachineInfo machine = collect_machine_info();
  RunContext context{size, omp_get_max_threads(), facts.thread_level, facts.library_version, topology_summary(machine)};
  JobPlacement job_placement;
  bool loop_began = false;  // set up, placement accepted, first step next: from here a failure is not bad input
  const BeforeLoop audit_and_announce = [&](const LoopSetup& setup) {
    job_placement = audit_job_placement(comm, collect_placement_facts(placement, setup), config.placement.strict);
    loop_began = true;
    if (rank != 0) return;
    context.threads_per_rank = omp_get_max_threads();
    std::fputs(format_header(config, context, job_placement.map).c_str(), stdout);
    std::fflush(stdout);
    std::fputs(format_placement_warnings(job_placement).c_str(), stderr);
    std::fflush(stderr);
  };
  const FieldIoContext field_io{run_dir, options.command_line, started};
  RunOutcome outcome;
  try {
    outcome = config.precision == Precision::single
                  ? run_time_loop<float>(config, comm, field_io, audit_and_announce)
                  : run_time_loop<double>(config, comm, field_io, audit_and_announce);
  } catch (const mpi::CollectiveError& e) {
    if (!loop_began) {
      if (rank == 0) remove_refused_run(run_dir);
      throw;
    }
    // Every rank agrees the run failed in its loop: run.json says so beside what it wrote, and main exits 1.
    if (rank == 0)
      record_failed_run(run_dir, config, e.what(), e.failing_rank(),
                        e.failing_rank() == 0 ? std::optional(short_hostname()) : std::nullopt, facts,
                        options.command_line, started);
    throw FailedWhileRunning(e.what());
  } catch (const std::exception& e) {
    // This rank failed alone and main ends the job; first its run.json says so, and where.
    record_failed_run(run_dir, config, e.what(), rank, short_hostname(), facts, options.command_line, started);
    throw;
  }

  // 5. Results: summary on stdout, run.json and steps.csv written atomically by rank 0.
  mpi::collectively(comm, [&] {
    if (rank != 0) return;
    std::fputs(format_summary(config, outcome).c_str(), stdout);
    std::printf("placement:   %s\n", job_placement.verdict_text().c_str());
    auto document = run_document(config, context, job_placement.map, outcome);
    document["status"] = "completed";
    document["placement"] = placement.summary;
    document["placement_audit"] = job_placement.verdict_json();
    if (config.output.steps_csv) write_steps_csv(run_dir / kStepsCsvName, outcome.step_times, outcome.field_io.first_step + 1);
    write_json_document(run_dir / kRunJsonName, kRunFormat, "run",
                        collect_provenance(facts, options.command_line, started), std::move(document));
    std::printf("results:     %s\n", run_dir.string().c_str());
    std::fflush(stdout);
  });
  return exit_code_for(outcome);
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cli = parent.add_subcommand("run", "Run the wave stencil on a config and verify the result");
  cli->add_option("config", options->config_path,
                  "TOML config file (default: the built-in configs/default.toml)");
  cli->add_option("--set", options->overrides, "Override one config key, e.g. --set grid.n=256,256,128 (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  CLI::Option* check =
      cli->add_flag("--check", options->check_only,
                    "Check everything the run checks before its first step (configuration, decomposition and "
                    "memory, placement, directories, restart file) and exit without running: status 0 if "
                    "accepted, 2 with the error otherwise");
  CLI::Option* ranks = cli->add_option("--ranks", options->check_ranks,
                                        "With --check: check for a job of N ranks rather than this launch (e.g. "
                                        "on a login node, before submitting)")
                            ->type_name("N")
                            ->check(CLI::Range(1, 1 << 24));
  CLI::Option* nodes = cli->add_option("--nodes", options->check_nodes,
                                        "With --check: the job's nodes (default: this launch's); memory and "
                                        "placement are checked per node, against this node")
                            ->type_name("N")
                            ->check(CLI::Range(1, 1 << 20));
  ranks->needs(check);
  nodes->needs(check);
  cli->add_flag("--strict-placement", options->strict_placement,
                "Refuse to measure (exit 2 before the first step) when the binding audit finds the placement "
                "wrong; the same as --set placement.strict=true");
  cli->footer("\nConfiguration keys (TOML file or --set):\n" + config_help_text());
  return {cli, [options](MPI_Comm comm, const std::vector<std::string>& command_line) {
            RunOptions o = *options;
            o.command_line = command_line;
            return execute_run(o, comm);
          }};
}

}  // namespace wave3d::app
