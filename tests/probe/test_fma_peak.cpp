// The multiply-add peak probe: it runs, for as long as asked, and reports a finite positive rate in
// builds with vector multiply-adds. No wall-clock thresholds: the machines running the tests are
// shared and noisy.
#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <cmath>

#include "probe/fma_peak.hpp"

namespace wave3d {
namespace {

TEST(FmaPeak, MeasuresWhereTheBuildHasVectorMultiplyAdds) {
  if (fma_peak_lanes<float>() == 0) {
    EXPECT_FALSE(measure_fma_peak_gflops<float>(1, 0.01).has_value());
    GTEST_SKIP() << "no vector multiply-adds in this build: the compute bound is reported unknown";
  }
  EXPECT_EQ(fma_peak_lanes<float>(), 2 * fma_peak_lanes<double>());
  for (int threads : {1, 2}) {
    const auto started = std::chrono::steady_clock::now();
    const auto single = measure_fma_peak_gflops<float>(threads, 0.05);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ASSERT_TRUE(single.has_value());
    EXPECT_TRUE(std::isfinite(*single));
    EXPECT_GT(*single, 0.0);
    EXPECT_GE(seconds, 0.05);  // it ran at least as long as asked (the chains were not optimised away)
    const auto twice = measure_fma_peak_gflops<double>(threads, 0.05);
    ASSERT_TRUE(twice.has_value());
    EXPECT_GT(*twice, 0.0);
  }
}

}  // namespace
}  // namespace wave3d
