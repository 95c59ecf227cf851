#pragma once
// The counters of a whole job: every rank's report combined on rank 0. An event is counted for the
// job only when every thread of every rank counted it; otherwise it is unavailable, with the reason
// each group of ranks gave. Totals are sums over threads and ranks; rates are per time step and per
// second of the time loop (wall clock of the slowest rank).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "counters/rank_report.hpp"

namespace wave3d::counters {

struct EventSummary {
  std::string name;
  std::optional<std::string> problem;  // why the job has no counts of it
  RegionCounts total{};                // over every thread of every rank
  std::string modes;                   // "user+kernel", "user", or "differs between ranks"
  std::string counted_by;              // "PAPI", "perf_event_open", or "differs between ranks"
  std::vector<std::vector<RegionCounts>> per_rank_thread;  // [rank][thread]
};

struct DramSummary {
  std::optional<std::string> problem;  // why DRAM traffic was not measured
  double bytes = 0;                    // read + written, all measured nodes together
  int nodes = 0;                       // nodes measured (one rank each)
  std::vector<std::string> events;     // the events of the first measured node
};

struct JobCounters {
  bool enabled = true;  // counters.enabled
  std::string library;
  std::optional<std::string> unavailable;  // why nothing at all was counted
  std::vector<int> threads_per_rank;
  int steps = 0;
  double seconds = 0;  // the time loop, slowest rank
  std::vector<EventSummary> events;
  DramSummary dram;

  std::size_t ranks() const { return threads_per_rank.size(); }
};

// The job's counters from every rank's report (in rank order).
JobCounters combine_rank_reports(const std::vector<RankReport>& ranks, int steps, double seconds);

// A job that did not count (counters.enabled = false).
JobCounters disabled_counters();

// "Reason (ranks 0-3)"-style text for per-rank reasons: nullopt when no rank has one; the bare reason
// when every rank gives the same one; otherwise each reason with its ranks.
std::optional<std::string> merge_rank_problems(const std::vector<std::optional<std::string>>& per_rank);

// "0", "0-3", "0,2,5-7".
std::string rank_list(const std::vector<int>& ranks);

// The run.json "counters" section. model_gbytes_per_second: the traffic the run's model estimates
// (bytes per point x points per second), shown beside a measured DRAM bandwidth.
nlohmann::json counters_json(const JobCounters& job, double model_gbytes_per_second);

}  // namespace wave3d::counters
