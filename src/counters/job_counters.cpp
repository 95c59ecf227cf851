#include "counters/job_counters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace wave3d::counters {
namespace {

// Reasons grouped by text, each with its ranks, in order of first appearance; ranks without a reason
// listed last as counted. `everyone`: how many ranks there are in all.
std::string grouped_text(const std::vector<std::pair<int, std::optional<std::string>>>& per_rank, std::size_t everyone) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  std::vector<int> fine;
  for (const auto& [rank, problem] : per_rank) {
    if (!problem) {
      fine.push_back(rank);
      continue;
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == *problem; });
    if (it == groups.end()) it = groups.insert(groups.end(), {*problem, {}});
    it->second.push_back(rank);
  }
  if (groups.size() == 1 && fine.empty() && groups.front().second.size() == everyone) return groups.front().first;
  std::vector<std::string> parts;
  for (const auto& [text, ranks] : groups)
    parts.push_back(fmt::format("{} (rank{} {})", text, ranks.size() > 1 ? "s" : "", rank_list(ranks)));
  if (!fine.empty()) parts.push_back(fmt::format("counted on rank{} {}", fine.size() > 1 ? "s" : "", rank_list(fine)));
  return fmt::format("{}", fmt::join(parts, "; "));
}

nlohmann::json region_object(const RegionCounts& counts) {
  nlohmann::json json = nlohmann::json::object();
  for (std::size_t r = 0; r < kRegionCount; ++r) json[std::string(kRegionNames[r])] = counts[r];
  return json;
}

nlohmann::json region_rates(const RegionCounts& counts, double divisor) {
  nlohmann::json json = nlohmann::json::object();
  for (std::size_t r = 0; r < kRegionCount; ++r)
    json[std::string(kRegionNames[r])] = divisor > 0 ? nlohmann::json(static_cast<double>(counts[r]) / divisor)
                                                     : nlohmann::json();
  return json;
}

void add_to(RegionCounts& sum, const RegionCounts& more) {
  for (std::size_t r = 0; r < kRegionCount; ++r) sum[r] += more[r];
}

DramSummary combine_dram(const std::vector<RankReport>& ranks) {
  DramSummary dram;
  std::vector<std::pair<int, std::optional<std::string>>> per_node;
  for (std::size_t r = 0; r < ranks.size(); ++r)
    if (ranks[r].dram) per_node.emplace_back(static_cast<int>(r), ranks[r].dram->problem);
  if (per_node.empty()) {
    dram.problem = "no rank measured its node's DRAM traffic";
    return dram;
  }
  bool any_problem = false;
  for (const auto& [rank, problem] : per_node) any_problem = any_problem || problem.has_value();
  if (any_problem) {
    dram.problem = grouped_text(per_node, per_node.size());
    return dram;
  }
  for (const auto& [rank, problem] : per_node) {
    dram.bytes += ranks[static_cast<std::size_t>(rank)].dram->bytes;
    ++dram.nodes;
  }
  dram.events = ranks[static_cast<std::size_t>(per_node.front().first)].dram->events;
  return dram;
}

}  // namespace

std::string rank_list(const std::vector<int>& ranks) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    parts.push_back(j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

std::optional<std::string> merge_rank_problems(const std::vector<std::optional<std::string>>& per_rank) {
  std::vector<std::pair<int, std::optional<std::string>>> tagged;
  bool any = false;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    tagged.emplace_back(static_cast<int>(r), per_rank[r]);
    any = any || per_rank[r].has_value();
  }
  if (!any) return std::nullopt;
  return grouped_text(tagged, per_rank.size());
}

JobCounters disabled_counters() {
  JobCounters job;
  job.enabled = false;
  return job;
}

JobCounters combine_rank_reports(const std::vector<RankReport>& ranks, int steps, double seconds) {
  JobCounters job;
  job.steps = steps;
  job.seconds = seconds;
  if (ranks.empty()) {
    job.unavailable = "no rank reported its counters";
    return job;
  }
  job.library = ranks.front().regions.library;
  std::vector<std::optional<std::string>> whole;
  for (const RankReport& r : ranks) {
    job.threads_per_rank.push_back(r.regions.threads);
    whole.push_back(r.regions.unavailable);
  }
  bool all_unavailable = true;
  for (const auto& w : whole) all_unavailable = all_unavailable && w.has_value();
  if (all_unavailable) job.unavailable = merge_rank_problems(whole);

  const std::vector<EventCounts>& names = ranks.front().regions.events;
  for (std::size_t i = 0; i < names.size(); ++i) {
    EventSummary event{names[i].name, std::nullopt, {}, names[i].modes, names[i].counted_by, {}};
    std::vector<std::optional<std::string>> problems;
    for (const RankReport& r : ranks) {
      const std::vector<EventCounts>& mine = r.regions.events;
      if (i >= mine.size() || mine[i].name != event.name)
        problems.emplace_back("this rank was asked for a different list of events");
      else if (!mine[i].problem && static_cast<int>(mine[i].per_thread.size()) != r.regions.threads)
        problems.emplace_back("this rank reported counts for fewer threads than its team has");
      else
        problems.push_back(mine[i].problem);
    }
    event.problem = merge_rank_problems(problems);
    if (event.problem) event.modes.clear(), event.counted_by.clear();
    if (!event.problem) {
      for (const RankReport& r : ranks) {
        if (r.regions.events[i].modes != event.modes) event.modes = "differs between ranks";
        if (r.regions.events[i].counted_by != event.counted_by) event.counted_by = "differs between ranks";
        event.per_rank_thread.push_back(r.regions.events[i].per_thread);
        for (const RegionCounts& thread : r.regions.events[i].per_thread) add_to(event.total, thread);
      }
    }
    job.events.push_back(std::move(event));
  }
  job.dram = combine_dram(ranks);
  return job;
}

nlohmann::json counters_json(const JobCounters& job, double model_gbytes_per_second) {
  if (!job.enabled) return {{"enabled", false}};
  nlohmann::json events = nlohmann::json::array();
  for (const EventSummary& e : job.events) {
    nlohmann::json entry{{"name", e.name},
                         {"status", e.problem ? "unavailable" : "available"},
                         {"reason", optional_text(e.problem)}};
    if (!e.problem) {
      entry["modes"] = e.modes;
      entry["counted_by"] = e.counted_by;
      entry["total"] = region_object(e.total);
      entry["per_step"] = region_rates(e.total, job.steps);
      entry["per_second"] = region_rates(e.total, job.seconds);
      nlohmann::json per_rank = nlohmann::json::array();
      for (std::size_t r = 0; r < e.per_rank_thread.size(); ++r) {
        RegionCounts rank_total{};
        nlohmann::json threads = nlohmann::json::array();
        for (const RegionCounts& t : e.per_rank_thread[r]) {
          add_to(rank_total, t);
          threads.push_back(region_object(t));
        }
        per_rank.push_back({{"rank", r}, {"total", region_object(rank_total)}, {"per_thread", threads}});
      }
      entry["per_rank"] = per_rank;
    }
    events.push_back(std::move(entry));
  }
  nlohmann::json dram{{"status", job.dram.problem ? "unavailable" : "available"},
                      {"reason", optional_text(job.dram.problem)},
                      {"model_gbytes_per_second", model_gbytes_per_second}};
  if (!job.dram.problem) {
    dram["bytes"] = job.dram.bytes;
    dram["gbytes_per_second"] = job.seconds > 0 ? nlohmann::json(job.dram.bytes / job.seconds / 1e9) : nlohmann::json();
    dram["nodes"] = job.dram.nodes;
    dram["events"] = job.dram.events;
    dram["scope"] = "whole packages of the measured nodes over the time loop: every process on them counts";
  }
  return {{"enabled", true},
          {"library", job.library},
          {"unavailable", optional_text(job.unavailable)},
          {"regions",
           {{"compute", "the stencil kernel: interior and shell"},
            {"halo", "the halo exchange: pack, wait, unpack"},
            {"step", "the whole time step, as the total column of steps.csv"}}},
          {"attribution",
           "each OpenMP thread counts its own events; every thread reads them at each region boundary, so a "
           "region holds all its threads did between two boundaries (idling included); totals are sums over "
           "threads and ranks, per_step divides by the steps, per_second by the time loop's seconds (loop_s); modes: "
           "user+kernel, or user where the kernel does not permit counting kernel mode; counted_by: the counter "
           "library, or perf_event_open for a kernel software event the library could not count"},
          {"ranks", job.ranks()},
          {"threads_per_rank", job.threads_per_rank},
          {"steps", job.steps},
          {"loop_s", job.seconds},
          {"events", events},
          {"dram", dram}};
}

}  // namespace wave3d::counters
