#include "app/noise_output.hpp"

#include <fmt/format.h>

#include <set>

#include "output/provenance.hpp"
#include "probe/noise_analysis.hpp"
#include "probe/noise_json.hpp"
#include "probe/noise_report.hpp"
#include "runtime/cpu_list.hpp"

namespace wave3d::app {
namespace {

constexpr const char* clock_name = "CLOCK_MONOTONIC (std::chrono::steady_clock)";

std::string method_name(const NoiseProbeOptions& p) {
  if (p.fwq && p.selfish) return "both";
  return p.fwq ? "fwq" : "selfish";
}

std::string default_threshold_rule() {
  return fmt::format("max({} x min loop gap, {} ns), per CPU", detour_threshold_gap_multiple, detour_threshold_floor_ns);
}

std::string duration_text(std::chrono::nanoseconds d) { return format_duration_ns(static_cast<double>(d.count())); }

}  // namespace

std::string format_noise_report(const NoiseSettings& settings, const std::vector<RankNoise>& ranks) {
  const NoiseProbeOptions& p = settings.probe;
  std::size_t cpus = 0;
  std::set<std::string> hosts;
  std::set<std::uint64_t> iterations;
  for (const RankNoise& r : ranks) {
    cpus += r.cores.size();
    hosts.insert(r.host);
    if (!r.cores.empty() && r.fwq_iterations > 0) iterations.insert(r.fwq_iterations);
  }
  std::string out = fmt::format("wave3d noise: {} on {} CPU{} of {} rank{} on {} host{}, all probing at once; clock {}\n",
                                p.fwq && p.selfish ? "fixed work quantum (fwq), then selfish detour"
                                : p.fwq            ? "fixed work quantum (fwq)"
                                                   : "selfish detour",
                                cpus, cpus == 1 ? "" : "s", ranks.size(), ranks.size() == 1 ? "" : "s", hosts.size(),
                                hosts.size() == 1 ? "" : "s", clock_name);
  if (p.fwq) {
    std::string work;
    if (iterations.size() == 1) {
      work = fmt::format("{}", *iterations.begin());
    } else {
      for (const RankNoise& r : ranks)
        if (!r.cores.empty()) work += fmt::format("{}{} (rank {})", work.empty() ? "" : ", ", r.fwq_iterations, r.rank);
    }
    out += fmt::format("fwq: {} quantum = {} iterations of fixed work (calibrated on each rank's first CPU); {}; "
                       "baseline = fastest quantum, noise = sum(t - baseline) / sum(t)\n",
                       duration_text(p.quantum), work,
                       p.fwq_samples ? fmt::format("{} quanta per CPU", *p.fwq_samples)
                                     : fmt::format("{} per CPU", duration_text(p.duration)));
  }
  if (p.selfish)
    out += fmt::format("selfish: clock-read loop for {} per CPU; a gap above the threshold ({}) is a detour; noise = "
                       "detour time / elapsed\n",
                       duration_text(p.duration),
                       p.threshold_ns ? fmt::format("--threshold-ns {}", *p.threshold_ns) : default_threshold_rule());
  if (settings.trace_dir)
    out += fmt::format("traces: {}/detours-<host>-cpu<N>.tsv, start_ns<TAB>duration_ns counted from each rank's "
                       "time origin (time_origin_monotonic_ns in --json)\n",
                       settings.trace_dir->string());
  for (const RankNoise& r : ranks)
    if (r.cores.empty())
      out += fmt::format("rank {} on {}: no CPU to probe (its CPUs {} are probed by other ranks of the node)\n", r.rank,
                         r.host, format_cpu_list(r.allowed_cpus));
  out += '\n';
  out += format_noise_table(ranks);
  out += format_noise_notes(ranks);
  const std::string histogram = format_noise_histogram(ranks);
  if (!histogram.empty()) out += '\n' + histogram;
  return out;
}

nlohmann::json noise_json_document(const NoiseSettings& settings, const std::vector<RankNoise>& ranks,
                                   const std::vector<std::string>& command_line) {
  const NoiseProbeOptions& p = settings.probe;
  nlohmann::json config = {
      {"method", method_name(p)},
      {"duration_ns", p.duration.count()},
      {"fwq_samples", p.fwq_samples ? nlohmann::json(*p.fwq_samples) : nlohmann::json(nullptr)},
      {"quantum_ns", p.quantum.count()},
      {"threshold_ns", p.threshold_ns ? nlohmann::json(*p.threshold_ns) : nlohmann::json(nullptr)},
      {"threshold_default_rule", default_threshold_rule()},
      {"cpus", settings.cpus ? nlohmann::json(*settings.cpus) : nlohmann::json(nullptr)},
      {"trace_dir", settings.trace_dir ? nlohmann::json(settings.trace_dir->string()) : nlohmann::json(nullptr)},
      {"ranks", ranks.size()}};
  return {{"command", "noise"},
          {"config", config},
          {"clock", clock_name},
          {"trace_format", "one line per detour: start_ns<TAB>duration_ns, start counted from the rank's "
                           "time_origin_monotonic_ns"},
          {"command_line", command_line},
          {"build", build_provenance()},
          {"ranks", ranks}};
}

}  // namespace wave3d::app
