// The STREAM probe on small arrays: results validate, rates are sane numbers, the options are honoured.
// No wall-clock thresholds: the machines running the tests are shared and noisy.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "probe/stream.hpp"
#include "probe/stream_json.hpp"

namespace wave3d {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

// 256 Ki doubles = 2 MiB per array: cache-resident, fast, and still many pages per thread.
StreamOptions small(InitPolicy policy, int threads = 2) {
  return StreamOptions{.elements = 256 * 1024, .threads = threads, .policy = policy, .repetitions = 4};
}

void expect_sane(const StreamResult& r) {
  ASSERT_TRUE(r.valid) << r.error;
  EXPECT_TRUE(r.error.empty());
  EXPECT_EQ(r.bytes_per_array, r.options.elements * sizeof(double));
  for (StreamKernel k : stream_kernels) {
    const KernelBandwidth& b = r[k];
    SCOPED_TRACE(std::string(to_string(k)));
    EXPECT_EQ(b.kernel, k);
    EXPECT_EQ(b.bytes_per_element, stream_bytes_per_element(k));
    EXPECT_EQ(b.seconds.size(), static_cast<std::size_t>(r.options.repetitions - 1));  // warm-up dropped
    for (double s : b.seconds) EXPECT_GT(s, 0.0);
    EXPECT_TRUE(std::isfinite(b.best_gbs));
    EXPECT_TRUE(std::isfinite(b.worst_gbs));
    EXPECT_GT(b.worst_gbs, 0.0);
    EXPECT_LE(b.worst_gbs, b.median_gbs);
    EXPECT_LE(b.median_gbs, b.best_gbs);
  }
}

TEST(Stream, ByteModelIsStreams) {
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::copy), 16u);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::scale), 16u);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::add), 24u);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::triad), 24u);
}

TEST(Stream, FirstTouchRunValidates) { expect_sane(run_stream(small(InitPolicy::first_touch))); }

TEST(Stream, SerialRunValidates) { expect_sane(run_stream(small(InitPolicy::serial))); }

TEST(Stream, OddSizeAndOneThreadValidate) {
  StreamOptions o = small(InitPolicy::first_touch, 1);
  o.elements = 100'003;  // not a multiple of the vector width or of the thread count
  expect_sane(run_stream(o));
  o.threads = 2;
  expect_sane(run_stream(o));
}

TEST(Stream, ThreadsComeFromTheClauseNotGlobalState) {
  const int before = omp_get_max_threads();
  const StreamResult r = run_stream(small(InitPolicy::first_touch, 3));  // ctest sets OMP_NUM_THREADS=2
  EXPECT_EQ(r.threads, 3);
  EXPECT_EQ(r.options.threads, 3);
  EXPECT_EQ(omp_get_max_threads(), before);
}

TEST(Stream, RejectsBadOptions) {
  StreamOptions o = small(InitPolicy::first_touch);
  o.elements = 0;
  EXPECT_THROW(run_stream(o), std::invalid_argument);
  o = small(InitPolicy::first_touch, 0);
  EXPECT_THROW(run_stream(o), std::invalid_argument);
  o = small(InitPolicy::first_touch);
  o.repetitions = 1;  // nothing would be left after the warm-up
  EXPECT_THROW(run_stream(o), std::invalid_argument);
}

// Processes measuring at once: every timed kernel (warm-up included) is preceded by a call of the
// hook, with "fine" from this process.
TEST(Stream, EveryKernelWaitsForTheOthersInStep) {
  StreamOptions o = small(InitPolicy::first_touch);
  int calls = 0;
  bool all_fine = true;
  o.in_step_with_others = [&](bool ok) {
    ++calls;
    all_fine = all_fine && ok;
    return true;
  };
  expect_sane(run_stream(o));
  EXPECT_EQ(calls, o.repetitions * static_cast<int>(stream_kernels.size()));
  EXPECT_TRUE(all_fine);
}

// Another process that cannot go on stops this one at its next kernel instead of letting it measure
// alone (its partners would wait for it forever).
TEST(Stream, StopsWhenAnotherProcessCannotGoOn) {
  StreamOptions o = small(InitPolicy::first_touch);
  int calls = 0;
  o.in_step_with_others = [&](bool) { return ++calls < 3; };
  EXPECT_THROW(run_stream(o), std::runtime_error);
  EXPECT_EQ(calls, 3);
}

// Where this process cannot make its arrays, it tells the others (false) once before it throws, so
// that they stop too.
TEST(Stream, TellsTheOthersWhenItsArraysCannotBeMade) {
  StreamOptions o = small(InitPolicy::first_touch);
  std::vector<bool> told;
  o.before_first_touch = [](void*, std::size_t) { throw std::runtime_error("pages cannot be bound"); };
  o.in_step_with_others = [&](bool ok) {
    told.push_back(ok);
    return ok;
  };
  EXPECT_THROW(run_stream(o), std::runtime_error);
  EXPECT_EQ(told, std::vector<bool>{false});
}

// The rates of a kernel from its times: what bench gives the ranks' slowest times per repetition.
TEST(Stream, KernelBandwidthFromTimes) {
  const KernelBandwidth k = kernel_bandwidth(StreamKernel::triad, {2.0, 1.0, 4.0}, 1'000'000'000);
  EXPECT_DOUBLE_EQ(k.best_gbs, 24.0);
  EXPECT_DOUBLE_EQ(k.median_gbs, 12.0);
  EXPECT_DOUBLE_EQ(k.worst_gbs, 6.0);
}

TEST(StreamCheck, AcceptsTheExpectedValues) {
  const int reps = 7;
  const StreamExpected e = stream_expected(reps);
  const std::size_t n = 1000;
  std::vector<double> a(n, e.a), b(n, e.b), c(n, e.c);
  EXPECT_EQ(stream_check(a.data(), b.data(), c.data(), n, reps, 2), "");
}

TEST(StreamCheck, ExpectedValuesFollowTheKernelSequence) {
  const StreamExpected zero = stream_expected(0);
  EXPECT_EQ(zero.a, 1.0);
  EXPECT_EQ(zero.b, 2.0);
  EXPECT_EQ(zero.c, 0.0);
  const StreamExpected one = stream_expected(1);  // c = a; b = s c; c = a + b; a = b + s c
  const double s = one.b;                         // b = s * 1
  EXPECT_DOUBLE_EQ(one.c, 1.0 + s);
  EXPECT_DOUBLE_EQ(one.a, s + s * (1.0 + s));
}

TEST(StreamCheck, ReportsAWrongElement) {
  const int reps = 5;
  const StreamExpected e = stream_expected(reps);
  const std::size_t n = 1000;
  std::vector<double> a(n, e.a), b(n, e.b), c(n, e.c);
  b[617] *= 1.0 + 1e-9;
  const std::string error = stream_check(a.data(), b.data(), c.data(), n, reps, 2);
  EXPECT_NE(error.find("1 of 1000 elements of b"), std::string::npos) << error;
  EXPECT_NE(error.find("b[617]"), std::string::npos) << error;
}

TEST(StreamCheck, ReportsNaN) {
  const int reps = 3;
  const StreamExpected e = stream_expected(reps);
  std::vector<double> a(10, e.a), b(10, e.b), c(10, e.c);
  c[0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(stream_check(a.data(), b.data(), c.data(), 10, reps, 1), "");
}

TEST(StreamCheck, ReportsAStaleArray) {
  // A kernel that never ran leaves its output one repetition behind.
  const int reps = 4;
  const StreamExpected e = stream_expected(reps);
  const StreamExpected stale = stream_expected(reps - 1);
  std::vector<double> a(64, stale.a), b(64, e.b), c(64, e.c);
  EXPECT_NE(stream_check(a.data(), b.data(), c.data(), 64, reps, 2), "");
}

TEST(StreamDefaults, ElementsFollowTheRule) {
  const auto bytes = [](std::optional<std::size_t> llc) { return default_stream_elements(llc) * sizeof(double); };
  EXPECT_EQ(bytes(std::nullopt), 64 * mib);  // unknown cache: the floor
  EXPECT_EQ(bytes(1 * mib), 64 * mib);
  EXPECT_EQ(bytes(16 * mib), 64 * mib);
  EXPECT_EQ(bytes(32 * mib), 128 * mib);
  for (std::size_t llc : {std::size_t{0}, 3 * mib, 20 * mib, 33 * mib + 5, 256 * mib}) {
    SCOPED_TRACE(llc);
    EXPECT_GE(bytes(llc), 4 * llc);
    EXPECT_GE(bytes(llc), 64 * mib);
  }
  // Three arrays on a 32 MiB-LLC machine stay under a few hundred MiB.
  EXPECT_LE(3 * bytes(32 * mib), 400 * mib);
}

TEST(StreamSweep, OneRunPerThreadCount) {
  const std::vector<int> counts{1, 2, 1, 3};
  const StreamSweep sweep = sweep_threads(small(InitPolicy::first_touch), counts);
  ASSERT_EQ(sweep.runs.size(), counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    EXPECT_EQ(sweep.runs[i].options.threads, counts[i]);
    EXPECT_EQ(sweep.runs[i].threads, counts[i]);
    expect_sane(sweep.runs[i]);
    const auto speedup = sweep.triad_speedup(i);
    ASSERT_TRUE(speedup.has_value());
    EXPECT_TRUE(std::isfinite(*speedup));
    EXPECT_GT(*speedup, 0.0);
  }
  EXPECT_EQ(*sweep.triad_speedup(0), 1.0);
  EXPECT_FALSE(sweep.triad_speedup(counts.size()).has_value());
  EXPECT_TRUE(sweep_threads(small(InitPolicy::serial), {}).runs.empty());
}

TEST(StreamSweep, NoSpeedupWithoutAOneThreadRun) {
  const StreamSweep sweep = sweep_threads(small(InitPolicy::serial), {2});
  ASSERT_EQ(sweep.runs.size(), 1u);
  EXPECT_FALSE(sweep.triad_speedup(0).has_value());
}

TEST(StreamAgreement, WithinTheToleranceOfTheFirstMeasurement) {
  EXPECT_TRUE(bandwidths_agree(50.0, 50.0));
  EXPECT_TRUE(bandwidths_agree(50.0, 54.9));
  EXPECT_TRUE(bandwidths_agree(50.0, 45.1));
  EXPECT_FALSE(bandwidths_agree(50.0, 55.1));
  EXPECT_FALSE(bandwidths_agree(47.0, 85.0));  // the two paces seen on one machine within minutes
  EXPECT_FALSE(bandwidths_agree(85.0, 47.0));
  EXPECT_TRUE(bandwidths_agree(50.0, 59.0, 0.2));
  EXPECT_FALSE(bandwidths_agree(50.0, 61.0, 0.2));
}

TEST(StreamAgreement, NothingAgreesWithAnInvalidMeasurement) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(bandwidths_agree(nan, 50.0));
  EXPECT_FALSE(bandwidths_agree(50.0, nan));
  EXPECT_FALSE(bandwidths_agree(0.0, 0.0));
  EXPECT_FALSE(bandwidths_agree(50.0, -50.0));
  EXPECT_FALSE(bandwidths_agree(std::numeric_limits<double>::infinity(), 50.0));
}

TEST(StreamJson, CarriesRatesAndByteModel) {
  const StreamSweep sweep = sweep_threads(small(InitPolicy::serial), {1});
  const nlohmann::json j = sweep;
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["init"], "serial");
  EXPECT_EQ(j[0]["valid"], true);
  EXPECT_EQ(j[0]["triad_speedup"], 1.0);
  ASSERT_EQ(j[0]["kernels"].size(), 4u);
  EXPECT_EQ(j[0]["kernels"][3]["kernel"], "triad");
  EXPECT_EQ(j[0]["kernels"][3]["bytes_per_element"], 24);
  EXPECT_GT(j[0]["kernels"][3]["best_gbytes_per_second"].get<double>(), 0.0);
  EXPECT_TRUE(j[0].contains("byte_model"));
}

}  // namespace
}  // namespace wave3d
