#include "app/iobench_command.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/command_provenance.hpp"
#include "app/python_script.hpp"
#include "app/root_only.hpp"
#include "app/thread_list.hpp"
#include "iobench/io_study.hpp"
#include "iobench/io_study_json.hpp"
#include "iobench/io_study_report.hpp"
#include "output/json_document.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/machine_info.hpp"

namespace wave3d::app {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

struct IobenchCommandOptions {
  std::string path = "/dev/shm";
  std::uint64_t size = 256 * kMiB;
  std::string threads;  // "1,2,4-8"; empty = 1..cores
  std::string placement = "both";
  std::string files = "both";
  int repetitions = 3;
  bool fsync = false;
  bool no_path_matrix = false;
  std::uint64_t path_size = 0;  // 0 = min(size, 256 MiB)
  int path_threads = 1;
  std::string json;
  std::string png;
  bool keep = false;
};

std::string kernel_release() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return fmt::format("{} {}", u.sysname, u.release);
}

IoStudyOptions study_options(const IobenchCommandOptions& o) {
  IoStudyOptions s;
  s.directory = o.path;
  s.bytes = o.size;
  if (!o.threads.empty()) s.threads = parse_thread_list(o.threads);
  s.placements.clear();
  if (o.placement != "on-one-node") s.placements.push_back(BufferPlacement::on_each_node);
  if (o.placement != "on-each-node") s.placements.push_back(BufferPlacement::on_one_node);
  s.sharings.clear();
  if (o.files != "per-thread") s.sharings.push_back(FileSharing::shared);
  if (o.files != "shared") s.sharings.push_back(FileSharing::per_thread);
  s.repetitions = o.repetitions;
  s.fsync = o.fsync;
  s.keep = o.keep;
  s.path_matrix = !o.no_path_matrix;
  s.path_bytes = o.path_size > 0 ? o.path_size : std::min<std::uint64_t>(o.size, 256 * kMiB);
  s.path_threads = o.path_threads;
  return s;
}

// Prints the tables as the study measures: one row once every sharing mode of a thread count is done.
IoStudyObserver printing_observer(const IoStudyOptions& s, const MachineInfo& machine) {
  auto row = std::make_shared<std::vector<IoCase>>();
  auto table = std::make_shared<std::vector<IoCase>>();  // the cases of the current placement
  auto cases_per_table = std::make_shared<std::size_t>(0);
  IoStudyObserver o;
  o.on_start = [&s, &machine, cases_per_table](const IoStudyContext& context) {
    *cases_per_table = context.threads.size() * s.sharings.size();
    fmt::print("machine: {}, {}, {}; {}\n", machine.hostname, machine.cpu_model.value_or("CPU model unknown"),
               topology_summary(machine), kernel_release());
    fmt::print("{}", describe_study(s, context));
    std::string threads;
    for (int t : context.threads) threads += (threads.empty() ? "" : ",") + std::to_string(t);
    fmt::print("I/O thread counts: {}\n", threads);
    std::fflush(stdout);
  };
  o.on_placement = [&s](const PlacementInfo& p) {
    fmt::print("{}", placement_header(p, s.sharings));
    std::fflush(stdout);
  };
  o.on_case = [&s, row, table, cases_per_table](const IoCase& c) {
    row->push_back(c);
    table->push_back(c);
    if (row->size() < s.sharings.size()) return;
    fmt::print("{}", case_row(*row));
    row->clear();
    if (table->size() == *cases_per_table) {
      fmt::print("{}", page_cache_line(*table));
      table->clear();
    }
    std::fflush(stdout);
  };
  o.on_path_matrix_start = [](const PathMatrix& m) {
    fmt::print("{}", path_matrix_header(m));
    std::fflush(stdout);
  };
  o.on_path = [](const PathCase& c) {
    fmt::print("{}", path_row(c));
    std::fflush(stdout);
  };
  return o;
}

int measure_and_report(const IobenchCommandOptions& opt, const nlohmann::json& provenance) {
  const IoStudyOptions s = study_options(opt);
  // Checked before measuring so a bad path fails at once, not after the sweep.
  if (!opt.json.empty()) check_output_file(opt.json, "--json");
  const MachineInfo machine = collect_machine_info();
  fmt::print("wave3d iobench: the NUMA-aware parallel write study, on {}\n", machine.hostname);
  const IoStudyResult result = run_io_study(s, printing_observer(s, machine));

  bool files_ok = true;
  for (const IoCase& c : result.cases) files_ok = files_ok && c.check_error.empty();
  fmt::print("{}", path_matrix_summary(result.path_matrix));
  fmt::print("file check: {}\n", files_ok ? "every file read back equal to the buffer" : "FAILED (see above)");
  for (const std::string& f : result.kept_files) fmt::print("kept: {}\n", f);

  nlohmann::json doc = result;
  doc["machine"] = {{"hostname", machine.hostname},
                    {"cpu_model", machine.cpu_model ? nlohmann::json(*machine.cpu_model) : nlohmann::json()},
                    {"packages", machine.packages},
                    {"numa_nodes", machine.numa_nodes},
                    {"cores", machine.cores},
                    {"pus", machine.pus},
                    {"kernel", kernel_release()}};
  doc["bytes"] = s.bytes;
  doc["repetitions"] = s.repetitions;
  doc["fsync"] = s.fsync;
  doc["files_ok"] = files_ok;
  doc["what_is_measured"] =
      result.context.file_system.memory_backed
          ? "the copy of the buffer into the page cache of a memory file system, page allocation included"
      : s.fsync ? "the write of the buffer to the file system including fsync"
                : "the copy of the buffer into the page cache; the device is written later by the kernel";
  doc["gib"] = "GiB/s = 2^30 bytes per second";

  std::filesystem::path json_path = opt.json;
  std::filesystem::path temporary_json;
  if (opt.json.empty() && !opt.png.empty()) {  // the plot reads the document from a file
    temporary_json = std::filesystem::temp_directory_path() / fmt::format("wave3d-iobench-{}.json", ::getpid());
    json_path = temporary_json;
  }
  if (!json_path.empty()) write_json_document(json_path, kIobenchFormat, "iobench", provenance, std::move(doc));
  if (!opt.json.empty()) fmt::print("json: {}\n", opt.json);
  if (!opt.png.empty()) {
    const std::string python = WAVE3D_PYTHON_EXECUTABLE;
    if (python.empty()) {
      fmt::print("png: not written: no Python interpreter with matplotlib was found when wave3d was built\n");
    } else {
      const ScriptOutcome plot =
          run_python_script(python, python_tool("plot_iobench.py"), {json_path.string(), opt.png});
      if (plot.ok)
        fmt::print("png: {}\n", opt.png);
      else
        fmt::print("png: not written: {}\n", plot.failure);
    }
  }
  if (!temporary_json.empty()) std::filesystem::remove(temporary_json);
  return files_ok ? 0 : 1;
}

}  // namespace

Command add_iobench_command(CLI::App& parent) {
  auto opt = std::make_shared<IobenchCommandOptions>();
  CLI::App* cli = parent.add_subcommand(
      "iobench", "Write bandwidth of one buffer by 1..C NUMA-bound I/O threads (buffer on every NUMA node or on one; "
                 "one shared file or one per thread), and on multi-node machines the path matrix");
  cli->add_option("--path", opt->path,
                  "Directory to write the benchmark files in; the default, a memory file system, measures the copy "
                  "into the page cache")
      ->capture_default_str();
  cli->add_option("--size", opt->size, "Buffer (and file) size, e.g. 512MiB, 2GiB")
      ->transform(CLI::AsSizeValue(false))
      ->default_str("256MiB");
  cli->add_option("--threads", opt->threads,
                  "I/O thread counts to sweep: a list such as 1,2,4 and ranges such as 1-8 (default 1 to the number "
                  "of cores)")
      ->check(thread_list_validator());
  cli->add_option("--placement", opt->placement, "Where the buffer's pages are: on-each-node, on-one-node or both")
      ->check(CLI::IsMember({"on-each-node", "on-one-node", "both"}))
      ->capture_default_str();
  cli->add_option("--files", opt->files,
                  "shared (one file written at offsets, as the HDF5 direct write), per-thread (a file each) or both")
      ->check(CLI::IsMember({"shared", "per-thread", "both"}))
      ->capture_default_str();
  cli->add_option("--repetitions", opt->repetitions, "Writes per case; best and median are reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cli->add_flag("--fsync", opt->fsync, "Include fsync(2) in the time (for disk-backed paths)");
  cli->add_flag("--no-path-matrix", opt->no_path_matrix,
                "Skip the path matrix (buffer node x thread node x page-cache node)");
  cli->add_option("--path-size", opt->path_size,
                  "Buffer size for each path-matrix case (default: --size, at most 256MiB)")
      ->transform(CLI::AsSizeValue(false));
  cli->add_option("--path-threads", opt->path_threads, "I/O threads of each path-matrix case")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cli->add_option("--json", opt->json, "Also write every result to this JSON file");
  cli->add_option("--png", opt->png, "Also draw bandwidth against threads to this PNG (python/tools/plot_iobench.py)");
  cli->add_flag("--keep", opt->keep, "Keep the file(s) of the last write instead of deleting them");

  Command command;
  command.cli = cli;
  command.run = [opt](MPI_Comm comm, const std::vector<std::string>& command_line) {
    const auto started = std::chrono::system_clock::now();
    return measure_on_root(comm, "iobench",
                           [&] { return measure_and_report(*opt, command_provenance(comm, command_line, started)); });
  };
  return command;
}

}  // namespace wave3d::app
