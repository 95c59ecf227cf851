#include "engine/sweep_levels_report.hpp"

#include <fmt/format.h>

namespace wave3d::engine {

std::optional<SweepLevelRates> sweep_level_rates(const SweepLevelTimes& times, int threads) {
  if (times.levels() < 2 || threads < 1) return std::nullopt;
  const double first = times.seconds_per_point(1), later = times.seconds_per_point(2, times.levels());
  if (first <= 0 || later <= 0) return std::nullopt;
  return SweepLevelRates{threads / first / 1e6, threads / later / 1e6};
}

std::string sweep_levels_line(const SweepLevelTimes& times, int threads) {
  const auto rates = sweep_level_rates(times, threads);
  if (!rates) return "";
  std::string per_level;
  for (int level = 1; level <= times.levels(); ++level) {
    const double ns = 1e9 * times.seconds_per_point(level);
    per_level += level == 1 ? fmt::format("level 1 {:.2f} ns", ns) : fmt::format(", {} {:.2f}", level, ns);
  }
  const std::string team = threads == 1 ? "on the one thread" : fmt::format("on all {} threads", threads);
  return fmt::format("kernel time per point on one thread: {}; {} level 1 alone {:.0f} MPoints/s, levels 2-{} {:.0f} "
                     "(level 1 reads memory, the later levels what the level below has just computed; a sweep of "
                     "more levels approaches their rate)",
                     per_level, team, rates->first_mpoints, times.levels(), rates->later_mpoints);
}

nlohmann::json sweep_levels_json(const SweepLevelTimes& times, int threads) {
  const auto rates = sweep_level_rates(times, threads);
  if (!rates) return nullptr;
  nlohmann::json levels = nlohmann::json::array();
  for (int level = 1; level <= times.levels(); ++level)
    levels.push_back({{"level", level},
                      {"points", times.points(level)},
                      {"thread_seconds", times.thread_seconds(level)},
                      {"ns_per_point", 1e9 * times.seconds_per_point(level)}});
  return {{"threads", threads},
          {"levels", levels},
          {"first_level_mpoints_per_second", rates->first_mpoints},
          {"later_levels_mpoints_per_second", rates->later_mpoints}};
}

}  // namespace wave3d::engine
