#include "counters/counters_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "counters/software_events.hpp"

namespace wave3d::counters {
namespace {

constexpr const char* kIndent = "             ";

// The events not counted, grouped by their reason, in the order asked for.
std::vector<std::pair<std::string, std::vector<std::string>>> missing_by_reason(const JobCounters& job) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const EventSummary& e : job.events) {
    if (!e.problem) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == *e.problem; });
    if (it == groups.end()) it = groups.insert(groups.end(), {*e.problem, {}});
    it->second.push_back(e.name);
  }
  return groups;
}

std::string team_text(const JobCounters& job) {
  const auto& t = job.threads_per_rank;
  const bool same = std::all_of(t.begin(), t.end(), [&](int n) { return n == t.front(); });
  if (same && !t.empty())
    return fmt::format("{} thread{} x {} rank{}", t.front(), t.front() == 1 ? "" : "s", t.size(), t.size() == 1 ? "" : "s");
  int sum = 0;
  for (int n : t) sum += n;
  return fmt::format("{} threads over {} ranks", sum, t.size());
}

std::string dram_line(const JobCounters& job, double model_gbytes_per_second) {
  // Without a counter library nothing was asked of the machine, so nothing can be said about it.
  if (job.unavailable)
    return fmt::format("DRAM bandwidth counters: not measured ({}); the model's estimate: {:.2f} GB/s", *job.unavailable,
                       model_gbytes_per_second);
  if (job.dram.problem)
    return fmt::format("DRAM bandwidth counters: not measured ({}); the model's estimate: {:.2f} GB/s",
                       *job.dram.problem, model_gbytes_per_second);
  const double measured = job.seconds > 0 ? job.dram.bytes / job.seconds / 1e9 : 0.0;
  return fmt::format("DRAM bandwidth: {:.2f} GB/s measured (memory-controller CAS counts x 64 B, {} node{}, whole "
                     "packages), beside the model's estimate of {:.2f} GB/s",
                     measured, job.dram.nodes, job.dram.nodes == 1 ? "" : "s", model_gbytes_per_second);
}

}  // namespace

std::vector<std::string> unavailability_notices(const JobCounters& job) {
  std::vector<std::string> lines;
  if (!job.enabled) return lines;
  if (job.unavailable) {
    lines.push_back(fmt::format("counters: nothing is counted: {}; the run goes on without counters", *job.unavailable));
    return lines;
  }
  for (const auto& [reason, names] : missing_by_reason(job))
    lines.push_back(fmt::format("counters: {} {} not counted: {}; the run goes on without {}", fmt::join(names, ", "),
                                names.size() == 1 ? "is" : "are", reason, names.size() == 1 ? "it" : "them"));
  return lines;
}

std::string format_counters_summary(const JobCounters& job, double model_gbytes_per_second) {
  if (!job.enabled) return "counters:    off (counters.enabled = false)\n";
  if (job.unavailable)
    return fmt::format("counters:    not counted: {}\n{}{}\n", *job.unavailable, kIndent,
                       dram_line(job, model_gbytes_per_second));
  std::string s = fmt::format("counters:    {}; per step, summed over {}; per s: the step region per second of "
                              "the time loop\n",
                              job.library, team_text(job));
  const bool any_counted =
      std::any_of(job.events.begin(), job.events.end(), [](const EventSummary& e) { return !e.problem; });
  if (any_counted) {
    s += fmt::format("{}{:<32} {:>12} {:>12} {:>12} {:>12}\n", kIndent, "event", kRegionNames[0], kRegionNames[1],
                     kRegionNames[2], "per s");
    const double steps = job.steps > 0 ? job.steps : 1;
    for (const EventSummary& e : job.events) {
      if (e.problem) continue;
      const double per_second =
          job.seconds > 0 ? static_cast<double>(e.total[static_cast<std::size_t>(Region::step)]) / job.seconds : 0.0;
      s += fmt::format("{}{:<32} {:>12.4g} {:>12.4g} {:>12.4g} {:>12.4g}\n", kIndent, e.name,
                       static_cast<double>(e.total[0]) / steps, static_cast<double>(e.total[1]) / steps,
                       static_cast<double>(e.total[2]) / steps, per_second);
    }
  }
  std::vector<std::string> user_only;
  for (const EventSummary& e : job.events)
    if (!e.problem && e.modes != "user+kernel") user_only.push_back(fmt::format("{} ({})", e.name, e.modes));
  std::vector<std::string> by_kernel;
  for (const EventSummary& e : job.events)
    if (!e.problem && e.counted_by == kSoftwareEventsLibrary && !job.library.starts_with(kSoftwareEventsLibrary))
      by_kernel.push_back(e.name);
  if (!by_kernel.empty())
    s += fmt::format("{}counted through perf_event_open, where {} could not: {}\n", kIndent,
                     job.library.substr(0, job.library.find(',')), fmt::join(by_kernel, ", "));
  if (!user_only.empty())
    s += fmt::format("{}not counted in kernel mode (not permitted here): {}\n", kIndent, fmt::join(user_only, ", "));
  for (const auto& [reason, names] : missing_by_reason(job))
    s += fmt::format("{}not counted: {}: {}\n", kIndent, fmt::join(names, ", "), reason);
  s += fmt::format("{}{}\n", kIndent, dram_line(job, model_gbytes_per_second));
  return s;
}

}  // namespace wave3d::counters
