#pragma once
// How the kernel's time divided between the levels of temporally blocked sweeps, for the run's summary,
// run.json and the bench: each level's thread time per point, and the rate the first level alone and
// the later levels alone would reach on all the run's threads. The first level reads memory as a
// single step does; a sweep of more levels approaches the later levels' rate.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "solver/sweep_level_times.hpp"

namespace wave3d::engine {

struct SweepLevelRates {
  double first_mpoints = 0;  // level 1 alone on all threads, MPoints/s
  double later_mpoints = 0;  // levels 2 and up together on all threads, MPoints/s
};
// Nothing where fewer than two levels computed points. threads: all threads of all ranks.
std::optional<SweepLevelRates> sweep_level_rates(const SweepLevelTimes& times, int threads);

// "kernel time per point on one thread: level 1 4.62 ns, 2 3.06, ...; on all 2 threads level 1 alone
// 433 MPoints/s, levels 2-4 669 ...", or "" where sweep_level_rates has nothing.
std::string sweep_levels_line(const SweepLevelTimes& times, int threads);

// {"threads", "levels": [{"level", "points", "thread_seconds", "ns_per_point"}...],
//  "first_level_mpoints_per_second", "later_levels_mpoints_per_second"}, or null likewise.
nlohmann::json sweep_levels_json(const SweepLevelTimes& times, int threads);

}  // namespace wave3d::engine
