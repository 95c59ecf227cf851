#include <gtest/gtest.h>

#include <cmath>

#include "output/runtime_json.hpp"
#include "runtime/step_times.hpp"
#include "runtime/timer.hpp"

namespace wave3d {
namespace {

TEST(StepTimes, SummariesOfKnownDataSkipWarmup) {
  StepTimes times(12, {"halo", "compute"});
  // Two warm-up steps with outliers that must not show up in the summary.
  times.record(0, "compute", 100.0);
  times.record(1, "compute", 50.0);
  // Steps 2..11 take 1..10 seconds.
  for (int step = 2; step < 12; ++step) times.record(step, std::size_t{1}, static_cast<double>(step - 1));

  const PhaseSummary s = times.summary(times.phase_index("compute"), 2);
  EXPECT_EQ(s.phase, "compute");
  EXPECT_EQ(s.count, 10);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 10.0);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_DOUBLE_EQ(s.median, 5.5);  // mean of the middle two of an even count
  EXPECT_DOUBLE_EQ(s.p99, 10.0);    // nearest rank: ceil(0.99 * 10) = 10th value

  const PhaseSummary all = times.summary(1, 0);
  EXPECT_EQ(all.count, 12);
  EXPECT_DOUBLE_EQ(all.max, 100.0);
}

TEST(StepTimes, OddCountMedianAndP99OfHundredSamples) {
  StepTimes odd(3, {"total"});
  odd.record(0, "total", 3.0);
  odd.record(1, "total", 1.0);
  odd.record(2, "total", 2.0);
  EXPECT_DOUBLE_EQ(odd.summary(0, 0).median, 2.0);

  StepTimes hundred(100, {"total"});
  for (int step = 0; step < 100; ++step) hundred.record(step, std::size_t{0}, static_cast<double>(100 - step));
  const PhaseSummary s = hundred.summary(0, 0);
  EXPECT_DOUBLE_EQ(s.p99, 99.0);  // 99th of 1..100
  EXPECT_DOUBLE_EQ(s.median, 50.5);
}

TEST(StepTimes, UnrecordedStepsAreLeftOut) {
  StepTimes times(10, {"compute", "check"});
  for (int step = 0; step < 10; ++step) {
    times.record(step, "compute", 1.0);
    if (step % 5 == 4) times.record(step, "check", 0.5);
  }
  EXPECT_FALSE(times.recorded(0, 1));
  EXPECT_TRUE(times.recorded(4, 1));
  const PhaseSummary check = times.summary(1, 0);
  EXPECT_EQ(check.count, 2);
  EXPECT_DOUBLE_EQ(check.mean, 0.5);

  const PhaseSummary none = times.summary(1, 10);  // warm-up covers every step
  EXPECT_EQ(none.count, 0);
  EXPECT_TRUE(std::isnan(none.mean));
  EXPECT_TRUE(nlohmann::json(none)["mean_s"].is_null());
}

TEST(StepTimes, RejectsBadInput) {
  EXPECT_THROW(StepTimes(5, {}), std::invalid_argument);
  EXPECT_THROW(StepTimes(5, {"a", "a"}), std::invalid_argument);
  EXPECT_THROW(StepTimes(5, {"a,b"}), std::invalid_argument);
  EXPECT_THROW(StepTimes(-1, {"a"}), std::invalid_argument);
  EXPECT_THROW(StepTimes(2, {"a"}, {1.0}), std::invalid_argument);
  StepTimes times(5, {"halo"});
  EXPECT_THROW(times.record(5, std::size_t{0}, 1.0), std::out_of_range);
  EXPECT_THROW(times.record(0, std::size_t{1}, 1.0), std::out_of_range);
  EXPECT_THROW(times.record(0, "nope", 1.0), std::invalid_argument);
}

TEST(StepTimes, RebuildsFromGatheredValues) {
  StepTimes original(2, {"halo", "compute"});
  original.record(0, "halo", 0.25);
  original.record(1, "compute", 2.0);
  const StepTimes copy(2, original.phases(), original.values());
  EXPECT_DOUBLE_EQ(copy.at(0, 0), 0.25);
  EXPECT_DOUBLE_EQ(copy.at(1, 1), 2.0);
  EXPECT_FALSE(copy.recorded(0, 1));
}

TEST(Timer, IsMonotonicAndLapsRestart) {
  Timer timer;
  const double a = timer.seconds();
  const double b = timer.seconds();
  EXPECT_GE(a, 0.0);
  EXPECT_GE(b, a);
  const auto before = timer.started();
  EXPECT_GE(timer.lap(), 0.0);
  EXPECT_GE(timer.started(), before);
}

}  // namespace
}  // namespace wave3d
