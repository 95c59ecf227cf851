// The per-thread, per-region bookkeeping, on a backend whose counts are known exactly.
#include <gtest/gtest.h>

#include <stdexcept>

#include "counters/region_counters.hpp"
#include "fake_backend.hpp"

namespace wave3d::counters {
namespace {

using testing::FakeBackend;
using testing::FakeOptions;

constexpr int kThreads = 2;

// One overlap-mode step: halo (post), compute (interior), halo (finish), compute (shell).
void overlap_step(RegionCounters& c) {
  c.begin_step();
  c.end_of(Region::halo);
  c.end_of(Region::compute);
  c.end_of(Region::halo);
  c.end_of(Region::compute);
  c.end_step();
}

TEST(RegionCounters, CountsEachRegionOfEachThread) {
  FakeBackend backend;
  RegionCounters c(backend, {"fake::steady-1", "fake::missing", "fake::steady-3"}, kThreads);
  ASSERT_TRUE(c.counting());
  const int steps = 7;
  for (int s = 0; s < steps; ++s) overlap_step(c);
  const RankCounts counts = c.counts();
  EXPECT_EQ(counts.library, "fake 1.0");
  EXPECT_FALSE(counts.unavailable);
  EXPECT_EQ(counts.threads, kThreads);
  ASSERT_EQ(counts.events.size(), 3u);
  EXPECT_EQ(counts.events[1].name, "fake::missing");
  EXPECT_EQ(counts.events[1].problem, "no such fake event");
  EXPECT_TRUE(counts.events[1].per_thread.empty());
  EXPECT_EQ(counts.events[1].modes, "");
  for (const std::size_t e : {0u, 2u}) {
    const EventCounts& event = counts.events[e];
    ASSERT_FALSE(event.problem) << *event.problem;
    EXPECT_EQ(event.modes, "user+kernel");
    ASSERT_EQ(event.per_thread.size(), static_cast<std::size_t>(kThreads));
    for (int t = 0; t < kThreads; ++t) {
      // Every reading adds w; a step has six readings: two halo and two compute intervals, five in all.
      const long long w = (t + 1) * (e == 0 ? 1 : 3);
      const RegionCounts& r = event.per_thread[static_cast<std::size_t>(t)];
      EXPECT_EQ(r[static_cast<std::size_t>(Region::halo)], 2 * steps * w);
      EXPECT_EQ(r[static_cast<std::size_t>(Region::compute)], 2 * steps * w);
      EXPECT_EQ(r[static_cast<std::size_t>(Region::step)], 5 * steps * w);
    }
  }
}

TEST(RegionCounters, BulkStepAndGapsBelongToTheStepOnly) {
  FakeBackend backend;
  RegionCounters c(backend, {"fake::steady-2"}, kThreads);
  c.begin_step();
  c.end_of(Region::halo);
  c.end_of(Region::compute);
  c.end_step();  // the source term and the NaN check: in the step, in no other region
  const RankCounts counts = c.counts();
  const RegionCounts& r = counts.events[0].per_thread[0];
  EXPECT_EQ(r[0], 2);
  EXPECT_EQ(r[1], 2);
  EXPECT_EQ(r[2], 6);
}

TEST(RegionCounters, UnavailableBackendCountsNothingAndSaysWhy) {
  FakeBackend backend(FakeOptions{.unavailable = "not built in (fake)"});
  RegionCounters c(backend, {"fake::steady-1", "fake::missing"}, kThreads);
  EXPECT_FALSE(c.counting());
  overlap_step(c);  // the run goes on: boundaries cost nothing and change nothing
  const RankCounts counts = c.counts();
  EXPECT_EQ(counts.unavailable, "not built in (fake)");
  for (const EventCounts& e : counts.events) {
    EXPECT_EQ(e.problem, "not built in (fake)") << e.name;
    EXPECT_TRUE(e.per_thread.empty());
  }
}

TEST(RegionCounters, AThreadThatCannotOpenItsCountersMakesThemUnavailable) {
  FakeBackend backend(FakeOptions{.fail_open_on_thread = 1});
  RegionCounters c(backend, {"fake::steady-1", "fake::missing"}, kThreads);
  EXPECT_FALSE(c.counting());
  overlap_step(c);
  const RankCounts counts = c.counts();
  EXPECT_EQ(counts.events[0].problem, "thread 1: fake open failure");
  EXPECT_EQ(counts.events[1].problem, "no such fake event");
}

TEST(RegionCounters, AReadFailureDuringTheRunIsReportedNotHidden) {
  FakeBackend backend(FakeOptions{.fail_read_after = 4});
  RegionCounters c(backend, {"fake::steady-1"}, kThreads);
  ASSERT_TRUE(c.counting());
  overlap_step(c);
  overlap_step(c);
  const RankCounts counts = c.counts();
  ASSERT_TRUE(counts.events[0].problem);
  EXPECT_NE(counts.events[0].problem->find("fake read failure"), std::string::npos) << *counts.events[0].problem;
  EXPECT_TRUE(counts.events[0].per_thread.empty());
}

TEST(RegionCounters, NoEventsMeansNothingToCount) {
  FakeBackend backend;
  RegionCounters c(backend, {}, kThreads);
  EXPECT_FALSE(c.counting());
  overlap_step(c);
  EXPECT_TRUE(c.counts().events.empty());
}

TEST(RegionCounters, RejectsMisuse) {
  FakeBackend backend;
  std::vector<std::string> many;
  for (std::size_t i = 0; i <= kMaxEvents; ++i) many.push_back("fake::steady-1" + std::string(i, ' '));
  EXPECT_THROW(RegionCounters(backend, many, kThreads), std::invalid_argument);
  EXPECT_THROW(RegionCounters(backend, {"fake::steady-1"}, 0), std::invalid_argument);
  RegionCounters c(backend, {"fake::steady-1"}, kThreads);
  EXPECT_THROW(c.end_of(Region::step), std::logic_error);
}

}  // namespace
}  // namespace wave3d::counters
