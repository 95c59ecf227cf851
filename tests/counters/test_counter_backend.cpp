// The backend this build was made with (PAPI, or none, with the kernel's software events behind it), on
// whatever machine the tests run: events it cannot count are reported with a reason and the counting
// goes on; counted events are consistent; the software events are always counted.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>

#include "counters/counter_backend.hpp"
#include "counters/dram_counter.hpp"
#include "counters/region_counters.hpp"

namespace wave3d::counters {
namespace {

constexpr bool kBuiltWithPapi = WAVE3D_EXPECT_PAPI;
constexpr int kBackendThreads = 2;

// Something for the threads to do inside a region.
double busy_work() {
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(kBackendThreads)
  for (int i = 0; i < 2000000; ++i) sum += std::sqrt(static_cast<double>(i));
  return sum;
}

TEST(CounterBackend, IsTheOneThisBuildAskedFor) {
  const auto backend = make_library_backend();
  if (kBuiltWithPapi) {
    EXPECT_TRUE(backend->library().starts_with("PAPI ")) << backend->library();
    if (const auto why = backend->unavailable_reason()) std::printf("PAPI does not start here: %s\n", why->c_str());
  } else {
    EXPECT_EQ(backend->library(), "none");
    ASSERT_TRUE(backend->unavailable_reason());
    EXPECT_NE(backend->unavailable_reason()->find("WAVE3D_WITH_PAPI=OFF"), std::string::npos);
  }
}

TEST(CounterBackend, WithoutPapiOnlyTheSoftwareEventsAreCounted) {
  if (kBuiltWithPapi) GTEST_SKIP() << "this build has PAPI; the no-PAPI backend is tested in the no-papi build";
  const auto backend = make_counter_backend();
  RegionCounters counters(*backend, {"PAPI_TOT_CYC", "perf::TASK-CLOCK"}, kBackendThreads);
  EXPECT_TRUE(counters.counting());
  counters.begin_step();
  busy_work();
  counters.end_of(Region::compute);
  counters.end_step();
  const RankCounts counts = counters.counts();
  EXPECT_EQ(counts.library, "perf_event_open");
  ASSERT_TRUE(counts.events[0].problem);
  EXPECT_NE(counts.events[0].problem->find("WAVE3D_WITH_PAPI=OFF"), std::string::npos);
  ASSERT_FALSE(counts.events[1].problem) << *counts.events[1].problem;
  EXPECT_EQ(counts.events[1].counted_by, "perf_event_open");
  for (const RegionCounts& r : counts.events[1].per_thread) EXPECT_GT(r[static_cast<std::size_t>(Region::compute)], 0);
  DramCounter dram(*backend);
  dram.start();
  dram.stop();
  ASSERT_TRUE(dram.counts().problem);
  EXPECT_NE(dram.counts().problem->find("WAVE3D_WITH_PAPI=OFF"), std::string::npos);
}

TEST(CounterBackend, BogusAndMissingEventsAreUnavailableTheRestIsConsistent) {
  const auto backend = make_counter_backend();
  const std::vector<std::string> names{"wave3d::NO-SUCH-EVENT", "PAPI_TOT_CYC", "perf::TASK-CLOCK",
                                       "perf::CONTEXT-SWITCHES", "perf::PAGE-FAULTS"};
  RegionCounters counters(*backend, names, kBackendThreads);
  const int steps = 3;
  for (int s = 0; s < steps; ++s) {
    counters.begin_step();
    busy_work();
    counters.end_of(Region::halo);
    busy_work();
    counters.end_of(Region::compute);
    busy_work();
    counters.end_step();
  }
  const RankCounts counts = counters.counts();
  ASSERT_EQ(counts.events.size(), names.size());
  // The kernel's software events are counted on this machine, by PAPI or by perf_event_open.
  for (std::size_t i = 2; i < names.size(); ++i) EXPECT_FALSE(counts.events[i].problem) << names[i];
  ASSERT_TRUE(counts.events[0].problem) << "a bogus event name was counted";
  EXPECT_FALSE(counts.events[0].problem->empty());
  for (const EventCounts& e : counts.events) {
    if (e.problem) {
      std::printf("%-24s not counted: %s\n", e.name.c_str(), e.problem->c_str());
      EXPECT_FALSE(e.problem->empty()) << e.name;
      EXPECT_TRUE(e.per_thread.empty()) << e.name;
      continue;
    }
    ASSERT_EQ(e.per_thread.size(), static_cast<std::size_t>(kBackendThreads)) << e.name;
    for (const RegionCounts& r : e.per_thread) {
      std::printf("%-24s compute %lld halo %lld step %lld\n", e.name.c_str(), r[0], r[1], r[2]);
      for (long long v : r) EXPECT_GE(v, 0) << e.name;
      // Counters only grow, and the regions are disjoint intervals inside the step.
      EXPECT_LE(r[0] + r[1], r[2]) << e.name;
    }
    if (e.name == "perf::TASK-CLOCK") {
      for (const RegionCounts& r : e.per_thread) EXPECT_GT(r[static_cast<std::size_t>(Region::compute)], 0);
    }
    EXPECT_TRUE(e.counted_by == "PAPI" || e.counted_by == "perf_event_open") << e.name << ": " << e.counted_by;
  }
  EXPECT_EQ(counters.counting(),
            std::any_of(counts.events.begin(), counts.events.end(), [](const EventCounts& e) { return !e.problem; }));
}

TEST(CounterBackend, DramEitherMeasuresOrSaysWhy) {
  const auto backend = make_counter_backend();
  DramCounter dram(*backend);
  dram.start();
  busy_work();
  dram.stop();
  const DramCounts counts = dram.counts();
  if (counts.problem) {
    std::printf("DRAM counters: %s\n", counts.problem->c_str());
    EXPECT_FALSE(counts.problem->empty());
  } else {
    EXPECT_FALSE(counts.events.empty());
    EXPECT_GE(counts.bytes, 0.0);
  }
}

TEST(CounterBackend, FirstCpuOfEachPackage) {
  const std::vector<int> cpus = first_cpu_of_each_package();
  ASSERT_FALSE(cpus.empty());
  for (int cpu : cpus) EXPECT_GE(cpu, 0);
}

}  // namespace
}  // namespace wave3d::counters
