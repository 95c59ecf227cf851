// Saturation points of synthetic curves: the fewest threads within the tolerance of the best.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "advise/curve.hpp"

namespace wave3d::advise {
namespace {

Curve curve(const std::vector<double>& values) {  // threads 1, 2, 3, ...
  Curve c{"GB/s", {}};
  for (std::size_t i = 0; i < values.size(); ++i) c.points.push_back({static_cast<int>(i) + 1, values[i], {}, {}});
  return c;
}

std::string error_of(const Curve& c, double tolerance = default_tolerance) {
  try {
    (void)find_saturation(c, tolerance, "stencil curve of NUMA node 0");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(Saturation, FlatCurveSaturatesAtOneThread) {
  const Saturation s = find_saturation(curve({10, 10, 10, 10}), 0.05);
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(s.best_threads, 1);  // a tie goes to the fewest threads
  EXPECT_DOUBLE_EQ(s.fraction_of_best, 1.0);
}

TEST(Saturation, LinearCurveNeedsEveryCore) {
  const Saturation s = find_saturation(curve({1, 2, 3, 4, 5, 6, 7, 8}), 0.05);
  EXPECT_EQ(s.threads, 8);
  EXPECT_EQ(s.best_threads, 8);
  EXPECT_DOUBLE_EQ(s.value, 8);
}

TEST(Saturation, SaturatingCurveStopsAtTheKnee) {
  // The T2K shape per socket: 1 -> 2 cores gains 1.45x, then almost nothing.
  const Saturation s = find_saturation(curve({3.3, 4.8, 4.95, 5.0}), 0.05);
  EXPECT_EQ(s.threads, 2);
  EXPECT_DOUBLE_EQ(s.value, 4.8);
  EXPECT_EQ(s.best_threads, 4);
  EXPECT_DOUBLE_EQ(s.best_value, 5.0);
  EXPECT_NEAR(s.fraction_of_best, 0.96, 1e-12);
  EXPECT_DOUBLE_EQ(s.tolerance, 0.05);
}

TEST(Saturation, NoisyNonMonotoneCurve) {
  // A dip after the best and a point above the threshold before a lower one: the first point within the
  // tolerance wins, whatever follows it.
  const Curve c = curve({10, 19.2, 18.0, 20.0, 19.5, 17.0});
  const Saturation s = find_saturation(c, 0.05);
  EXPECT_EQ(s.best_threads, 4);
  EXPECT_EQ(s.threads, 2);  // 19.2 >= 0.95 * 20 = 19
  EXPECT_EQ(find_saturation(c, 0.02).threads, 4);  // 19.6 needed: only the best itself
}

TEST(Saturation, ContentionLossAfterThePeak) {
  // More threads make it slower (contention): the saturation point is at or before the peak.
  const Saturation s = find_saturation(curve({5, 9, 10, 8, 7}), 0.05);
  EXPECT_EQ(s.best_threads, 3);
  EXPECT_EQ(s.threads, 3);
}

TEST(Saturation, PointExactlyOnTheThresholdCounts) {
  // 19 = (1 - 0.05) x 20 exactly in decimal; 0.95 is not exact in binary.
  EXPECT_EQ(find_saturation(curve({10, 19, 20}), 0.05).threads, 2);
  EXPECT_EQ(find_saturation(curve({10, 18.99, 20}), 0.05).threads, 3);
  EXPECT_EQ(find_saturation(curve({9.5, 9.0, 10}), 0.05).threads, 1);
}

TEST(Saturation, ToleranceZeroMeansTheBestItself) {
  EXPECT_EQ(find_saturation(curve({3.3, 4.8, 4.95, 5.0}), 0.0).threads, 4);
  EXPECT_EQ(find_saturation(curve({3.3, 5.0, 4.95, 5.0}), 0.0).threads, 2);
}

TEST(Saturation, LargeToleranceSaturatesEarly) {
  EXPECT_EQ(find_saturation(curve({3.3, 4.8, 4.95, 5.0}), 0.4).threads, 1);  // 3.3 >= 3.0
  EXPECT_EQ(find_saturation(curve({3.3, 4.8, 4.95, 5.0}), 0.3).threads, 2);  // 3.3 < 3.5
}

TEST(Saturation, SingleCore) {
  const Saturation s = find_saturation(curve({7.5}), 0.05);
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(s.best_threads, 1);
}

TEST(Saturation, SparseThreadCounts) {
  Curve c{"MPoints/s", {{1, 10, {}, {}}, {2, 19, {}, {}}, {4, 30, {}, {}}, {8, 31, {}, {}}}};
  EXPECT_EQ(find_saturation(c, 0.05).threads, 4);
  EXPECT_EQ(value_at(c, 4), 30);
  EXPECT_FALSE(value_at(c, 3).has_value());
}

TEST(Saturation, BadCurvesAreRefusedWithWhatIsWrong) {
  EXPECT_NE(error_of(Curve{}).find("stencil curve of NUMA node 0 has no points"), std::string::npos);
  Curve unordered{"GB/s", {{2, 1, {}, {}}, {1, 2, {}, {}}}};
  EXPECT_NE(error_of(unordered).find("threads = 1 follows threads = 2"), std::string::npos) << error_of(unordered);
  Curve zero_threads{"GB/s", {{0, 1, {}, {}}}};
  EXPECT_NE(error_of(zero_threads).find("threads = 0"), std::string::npos);
  EXPECT_NE(error_of(curve({1, 0})).find("value = 0 at 2 threads"), std::string::npos) << error_of(curve({1, 0}));
  EXPECT_NE(error_of(curve({1, std::nan("")})).find("at 2 threads"), std::string::npos);
  EXPECT_NE(error_of(curve({1, std::numeric_limits<double>::infinity()})).find("finite"), std::string::npos);
}

TEST(Saturation, BadTolerancesAreRefused) {
  EXPECT_NE(error_of(curve({1, 2}), -0.01).find("tolerance = -0.01"), std::string::npos);
  EXPECT_NE(error_of(curve({1, 2}), 1.0).find("0 <= tolerance < 1"), std::string::npos);
  EXPECT_NE(error_of(curve({1, 2}), std::nan("")).find("tolerance"), std::string::npos);
}

}  // namespace
}  // namespace wave3d::advise
