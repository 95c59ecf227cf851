#include "app/stream_command.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "app/command_provenance.hpp"
#include "app/root_only.hpp"
#include "app/thread_list.hpp"
#include "output/json_document.hpp"
#include "probe/stream.hpp"
#include "probe/stream_json.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/machine_info.hpp"

namespace wave3d::app {

namespace {

struct StreamCommandOptions {
  std::string threads;  // "1,2,4-8"; empty = 1..omp_get_max_threads()
  std::string init = "both";
  std::size_t elements = 0;   // 0 = not given
  std::size_t array_mib = 0;  // 0 = not given
  int repetitions = 10;
  std::string json;  // empty = no JSON file
};

std::string_view proc_bind_name(omp_proc_bind_t bind) {
  switch (bind) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
  }
  return "?";
}

std::string describe_llc(const std::optional<CacheLevel>& llc) {
  if (!llc) return "LLC unknown";
  if (llc->instances == 1) return fmt::format("LLC L{} {}", llc->level, format_bytes(llc->bytes));
  return fmt::format("LLC L{} {} ({} x {})", llc->level, format_bytes(llc->bytes * llc->instances), llc->instances,
                     format_bytes(llc->bytes));
}

void print_table_header(InitPolicy policy) {
  fmt::print("\ninit {}\n", stream_policy_name(policy));
  fmt::print("{:>7} {:>10} {:>10} {:>10} {:>10} {:>12} {:>8}\n", "threads", "copy", "scale", "add", "triad",
             "triad median", "triad");
  fmt::print("{:>7} {:>10} {:>10} {:>10} {:>10} {:>12} {:>8}\n", "", "GB/s", "GB/s", "GB/s", "GB/s", "GB/s",
             "speedup");
}

void print_row(const StreamSweep& sweep) {
  const std::size_t i = sweep.runs.size() - 1;
  const StreamResult& r = sweep.runs[i];
  if (!r.valid) {
    fmt::print("{:>7} FAILED: {}\n", r.threads, r.error);
  } else {
    const auto speedup = sweep.triad_speedup(i);
    fmt::print("{:>7} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f} {:>12.1f} {:>8}\n", r.threads,
               r[StreamKernel::copy].best_gbs, r[StreamKernel::scale].best_gbs, r[StreamKernel::add].best_gbs,
               r[StreamKernel::triad].best_gbs, r[StreamKernel::triad].median_gbs,
               speedup ? fmt::format("{:.2f}", *speedup) : std::string("-"));
  }
  if (r.threads != r.options.threads)
    fmt::print("{:>7} (asked for {} threads; the OpenMP runtime gave {})\n", "", r.options.threads, r.threads);
  std::fflush(stdout);  // rows of a long sweep appear as they are measured, even through mpiexec
}

// Everything rank 0 does. Returns the exit code: 0, or 1 when a run failed validation.
int measure_and_report(const StreamCommandOptions& opt, const nlohmann::json& provenance) {
  const MachineInfo node = collect_machine_info();
  const std::optional<std::uint64_t> llc_total = total_last_level_cache_bytes(node);
  std::size_t elements = opt.elements;
  if (opt.array_mib > 0) elements = stream_elements_of_mib(opt.array_mib);
  if (elements == 0)
    elements = default_stream_elements(llc_total);

  std::vector<int> thread_counts;
  if (opt.threads.empty()) {
    for (int t = 1; t <= omp_get_max_threads(); ++t) thread_counts.push_back(t);
  } else {
    thread_counts = parse_thread_list(opt.threads);
  }

  std::vector<InitPolicy> policies;
  if (opt.init != "serial") policies.push_back(InitPolicy::first_touch);
  if (opt.init != "first-touch") policies.push_back(InitPolicy::serial);

  // Checked before measuring so a bad path fails in a second, not after a sweep of minutes.
  if (!opt.json.empty()) check_output_file(opt.json, "--json");

  const std::size_t array_bytes = elements * sizeof(double);
  const std::string_view bind = proc_bind_name(omp_get_proc_bind());
  fmt::print("wave3d stream: 3 arrays of {} doubles, {} each, {} total; {}; NUMA nodes {}; OMP_PROC_BIND {}\n",
             elements, format_bytes(array_bytes), format_bytes(3 * array_bytes), describe_llc(node.last_level_cache),
             node.numa_nodes > 0 ? fmt::format("{}", node.numa_nodes) : std::string("unknown"), bind);
  fmt::print("{} repetitions, first dropped; best rates unless marked; GB = 1e9 bytes; STREAM byte counts "
             "(copy/scale 16 B, add/triad 24 B per element)\n",
             opt.repetitions);
  if (llc_total && array_bytes < 4 * *llc_total)
    fmt::print("note: arrays smaller than 4x the last-level cache; the rates include cache effects\n");
  std::fflush(stdout);

  const StreamOptions base{.elements = elements, .threads = 1, .policy = InitPolicy::first_touch,
                           .repetitions = opt.repetitions};
  bool all_valid = true;
  nlohmann::json sweeps = nlohmann::json::object();
  for (InitPolicy policy : policies) {
    print_table_header(policy);
    StreamOptions o = base;
    o.policy = policy;
    const StreamSweep sweep = sweep_threads(o, thread_counts, print_row);
    for (const StreamResult& r : sweep.runs) all_valid = all_valid && r.valid;
    sweeps[std::string(stream_policy_name(policy))] = sweep;
  }

  if (!opt.json.empty()) {
    nlohmann::json doc{{"elements", elements},
                       {"bytes_per_array", array_bytes},
                       {"repetitions", opt.repetitions},
                       {"numa_nodes", node.numa_nodes},
                       {"omp_proc_bind", std::string(bind)},
                       {"llc", nullptr},
                       {"valid", all_valid},
                       {"sweeps", sweeps}};
    if (node.last_level_cache) {
      doc["llc"] = {{"level", node.last_level_cache->level},
                    {"instances", node.last_level_cache->instances},
                    {"total_bytes", *llc_total},
                    {"largest_bytes", node.last_level_cache->bytes}};
    }
    write_json_document(opt.json, kStreamFormat, "stream", provenance, std::move(doc));
  }
  return all_valid ? 0 : 1;
}

}  // namespace

Command add_stream_command(CLI::App& parent) {
  auto opt = std::make_shared<StreamCommandOptions>();
  CLI::App* cli = parent.add_subcommand("stream", "Measure the node's memory bandwidth (STREAM copy, scale, add, "
                                                  "triad) over a sweep of OpenMP thread counts");
  cli->add_option("--threads", opt->threads,
                  "Thread counts to sweep: a list such as 1,2,4 and ranges such as 1-8 "
                  "(default 1 to the OpenMP maximum)")
      ->check(thread_list_validator());
  cli->add_option("--init", opt->init, "Page placement of the arrays: first-touch, serial or both")
      ->check(CLI::IsMember({"first-touch", "serial", "both"}))
      ->capture_default_str();
  auto* elements = cli->add_option("--elements", opt->elements, "Elements (doubles) per array")
                       ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cli->add_option("--array-mib", opt->array_mib, "MiB per array (default: 4x the last-level cache, at least 64)")
      ->check(CLI::Range(1, 1 << 24))
      ->excludes(elements);
  cli->add_option("--repetitions", opt->repetitions, "Repetitions of each kernel; the first is a warm-up")
      ->check(CLI::Range(2, stream_max_repetitions))
      ->capture_default_str();
  cli->add_option("--json", opt->json, "Also write every result to this JSON file");

  Command command;
  command.cli = cli;
  command.run = [opt](MPI_Comm comm, const std::vector<std::string>& command_line) {
    const auto started = std::chrono::system_clock::now();
    return measure_on_root(comm, "stream",
                           [&] { return measure_and_report(*opt, command_provenance(comm, command_line, started)); });
  };
  return command;
}

}  // namespace wave3d::app
