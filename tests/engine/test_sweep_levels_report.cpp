// The kernel's time per level of temporal sweeps as the summary, run.json and the bench give it
// (engine/sweep_levels_report.hpp): thread time per point, and the rates of the first and the later
// levels on all threads.
#include <gtest/gtest.h>

#include "engine/sweep_levels_report.hpp"

namespace wave3d::engine {
namespace {

// Level 1 at 4 ns per point and thread, levels 2 and 3 at 2 and 3 ns (2.5 together).
SweepLevelTimes four_two_three() {
  SweepLevelTimes t;
  t.add(1, 2.0e-3, 500'000);
  t.add(2, 1.0e-3, 250'000);
  t.add(2, 0.0, 250'000);  // another thread's share: times and points add up
  t.add(3, 1.5e-3, 500'000);
  return t;
}

TEST(SweepLevelsReport, TimesPerPointAddUpOverThreadsAndLevels) {
  const SweepLevelTimes t = four_two_three();
  EXPECT_EQ(t.levels(), 3);
  EXPECT_EQ(t.points(2), 500'000);
  EXPECT_DOUBLE_EQ(t.seconds_per_point(1), 4e-9);
  EXPECT_DOUBLE_EQ(t.seconds_per_point(2), 2e-9);
  EXPECT_DOUBLE_EQ(t.seconds_per_point(2, 3), 2.5e-9);
  SweepLevelTimes merged;
  merged.merge(t);
  merged.merge(t);
  EXPECT_EQ(merged.points(3), 1'000'000);
  EXPECT_DOUBLE_EQ(merged.seconds_per_point(3), 3e-9);
}

TEST(SweepLevelsReport, RatesAreTheThreadsOverTheTimePerPoint) {
  const auto rates = sweep_level_rates(four_two_three(), 2);
  ASSERT_TRUE(rates.has_value());
  EXPECT_DOUBLE_EQ(rates->first_mpoints, 500.0);  // 2 threads / 4 ns
  EXPECT_DOUBLE_EQ(rates->later_mpoints, 800.0);  // 2 threads / 2.5 ns
  const std::string line = sweep_levels_line(four_two_three(), 2);
  EXPECT_NE(line.find("level 1 4.00 ns, 2 2.00, 3 3.00"), std::string::npos) << line;
  EXPECT_NE(line.find("on all 2 threads level 1 alone 500 MPoints/s, levels 2-3 800"), std::string::npos) << line;
  const nlohmann::json j = sweep_levels_json(four_two_three(), 2);
  EXPECT_EQ(j["threads"], 2);
  ASSERT_EQ(j["levels"].size(), 3u);
  EXPECT_EQ(j["levels"][2]["points"], 500'000);
  EXPECT_DOUBLE_EQ(j["levels"][0]["ns_per_point"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["later_levels_mpoints_per_second"].get<double>(), 800.0);
}

TEST(SweepLevelsReport, NothingWithOneLevelOrNoTime) {
  SweepLevelTimes one;
  one.add(1, 1e-3, 1000);
  EXPECT_FALSE(sweep_level_rates(one, 2).has_value());
  EXPECT_EQ(sweep_levels_line(one, 2), "");
  EXPECT_TRUE(sweep_levels_json(one, 2).is_null());
  SweepLevelTimes untimed;
  untimed.add(1, 0.0, 1000);
  untimed.add(2, 0.0, 1000);
  EXPECT_FALSE(sweep_level_rates(untimed, 2).has_value());
  EXPECT_FALSE(sweep_level_rates(four_two_three(), 0).has_value());
}

}  // namespace
}  // namespace wave3d::engine
