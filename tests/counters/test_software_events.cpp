// The kernel's software events through perf_event_open, on this machine: real counts, checked
// against what the same thread measures another way; and the fallback that counts them where the
// counter library cannot, with the library's own events left to it.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <memory>
#include <thread>

#include "counters/dram_counter.hpp"
#include "counters/region_counters.hpp"
#include "counters/software_event_fallback.hpp"
#include "counters/software_events.hpp"
#include "fake_backend.hpp"

namespace wave3d::counters {
namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double spin(int iterations) {
  double sum = 0;
  for (int i = 0; i < iterations; ++i) sum += std::sqrt(static_cast<double>(i));
  return sum;
}

// One step of two threads spinning in the compute region.
void busy_step(RegionCounters& counters) {
  counters.begin_step();
#pragma omp parallel num_threads(2)
  {
    volatile double sink = spin(2'000'000);
    (void)sink;
  }
  counters.end_of(Region::compute);
  counters.end_step();
}

// Opens `names` on this thread with the software backend, or fails the test saying why not.
std::unique_ptr<EventReader> open_software(CounterBackend& backend, const std::vector<std::string>& names) {
  const std::vector<EventProbe> probes = backend.probe(names);
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_FALSE(probes[i].problem) << names[i] << ": " << probes[i].problem.value_or("");
    EXPECT_EQ(probes[i].counted_by, kSoftwareEventsLibrary);
  }
  OpenedEvents opened = backend.open_for_this_thread(names);
  EXPECT_TRUE(opened.reader) << opened.problem;
  return std::move(opened.reader);
}

TEST(SoftwareEvents, KnowsTheKernelsNamesAndNothingElse) {
  for (const char* name : {"perf::TASK-CLOCK", "perf::CPU-CLOCK", "perf::CONTEXT-SWITCHES", "perf::CS",
                           "perf::CPU-MIGRATIONS", "perf::MIGRATIONS", "perf::PAGE-FAULTS", "perf::FAULTS",
                           "perf::MINOR-FAULTS", "perf::MAJOR-FAULTS", "perf::PERF_COUNT_SW_TASK_CLOCK",
                           "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", "perf::TASK-CLOCK:u=1:k=0"})
    EXPECT_TRUE(is_software_event(name)) << name;
  for (const char* name : {"PAPI_TOT_CYC", "perf::CYCLES", "TASK-CLOCK", "perf::TASK-CLOCKS", "perf::"})
    EXPECT_FALSE(is_software_event(name)) << name;
  const auto backend = make_software_event_backend();
  const std::vector<EventProbe> probes = backend->probe(std::vector<std::string>{"PAPI_TOT_CYC", "perf::CS:x=1"});
  ASSERT_TRUE(probes[0].problem);
  EXPECT_NE(probes[0].problem->find("not one of the kernel's software events"), std::string::npos);
  ASSERT_TRUE(probes[1].problem);
  EXPECT_NE(probes[1].problem->find(":u=0/1 and :k=0/1"), std::string::npos);
}

TEST(SoftwareEvents, TaskClockIsTheThreadsCpuTime) {
  const auto backend = make_software_event_backend();
  ASSERT_FALSE(backend->unavailable_reason()) << *backend->unavailable_reason();
  const auto reader = open_software(*backend, {"perf::TASK-CLOCK"});
  ASSERT_TRUE(reader);
  long long before = 0, after = 0;
  ASSERT_FALSE(reader->read({&before, 1}));
  const double cpu_before = thread_cpu_seconds();
  volatile double sink = spin(20'000'000);
  (void)sink;
  const double cpu = thread_cpu_seconds() - cpu_before;
  ASSERT_FALSE(reader->read({&after, 1}));
  const double counted = 1e-9 * static_cast<double>(after - before);
  // The same CPU time measured two ways by the same kernel: equal but for the reads in between.
  EXPECT_GT(counted, 0.0);
  EXPECT_NEAR(counted / cpu, 1.0, 0.2) << counted << " s counted, " << cpu << " s of thread CPU time";
}

TEST(SoftwareEvents, SleepingSwitchesContextAndTouchingNewPagesFaults) {
  const auto backend = make_software_event_backend();
  ASSERT_FALSE(backend->unavailable_reason()) << *backend->unavailable_reason();
  const auto reader = open_software(*backend, {"perf::CONTEXT-SWITCHES", "perf::PAGE-FAULTS"});
  ASSERT_TRUE(reader);
  long long before[2] = {}, after[2] = {};
  ASSERT_FALSE(reader->read(before));
  constexpr int kSleeps = 5;
  for (int i = 0; i < kSleeps; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const long page = sysconf(_SC_PAGESIZE);
  constexpr int kPages = 64;
  void* memory = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  (void)madvise(memory, kPages * page, MADV_NOHUGEPAGE);  // one fault per page, not one per huge page
  for (int p = 0; p < kPages; ++p) static_cast<volatile char*>(memory)[p * page] = 1;
  ASSERT_FALSE(reader->read(after));
  munmap(memory, kPages * page);
  // Every sleep gives the CPU away (a voluntary switch, counted in kernel mode); every first touch of
  // an anonymous page faults it in.
  EXPECT_GE(after[0] - before[0], kSleeps);
  EXPECT_GE(after[1] - before[1], kPages);
}

TEST(SoftwareEventFallback, CountsWhatTheLibraryCannotAndLeavesItTheRest) {
  // A library that counts its own fake events and refuses every other name.
  auto combined = with_software_event_fallback(std::make_unique<testing::FakeBackend>(), make_software_event_backend());
  const std::vector<std::string> names{"fake::steady-2", "perf::TASK-CLOCK", "PAPI_TOT_CYC", "fake::steady-3"};
  RegionCounters counters(*combined, names, 2);
  ASSERT_TRUE(counters.counting());
  for (int s = 0; s < 2; ++s) busy_step(counters);
  const RankCounts counts = counters.counts();
  EXPECT_EQ(counts.library, "fake 1.0, perf_event_open");
  ASSERT_EQ(counts.events.size(), names.size());
  EXPECT_EQ(counts.events[0].counted_by, "fake 1.0");
  EXPECT_EQ(counts.events[1].counted_by, kSoftwareEventsLibrary);
  ASSERT_TRUE(counts.events[2].problem);
  EXPECT_NE(counts.events[2].problem->find("no such fake event"), std::string::npos) << *counts.events[2].problem;
  EXPECT_EQ(counts.events[3].counted_by, "fake 1.0");
  for (int t = 0; t < 2; ++t) {
    // The fake events land in their own places: each read adds (thread + 1) * N, and a step region
    // spans two reads after its first (compute's end and the step's end), over 2 steps.
    EXPECT_EQ(counts.events[0].per_thread[t][2], 2 * 2 * (t + 1) * 2);
    EXPECT_EQ(counts.events[3].per_thread[t][2], 2 * 2 * (t + 1) * 3);
    EXPECT_GT(counts.events[1].per_thread[t][static_cast<std::size_t>(Region::compute)], 0);
  }
}

TEST(SoftwareEventFallback, WithoutTheLibraryTheSoftwareEventsStillCount) {
  auto combined = with_software_event_fallback(
      std::make_unique<testing::FakeBackend>(testing::FakeOptions{.unavailable = "the fake library is off"}),
      make_software_event_backend());
  EXPECT_FALSE(combined->unavailable_reason());
  EXPECT_EQ(combined->library(), kSoftwareEventsLibrary);
  RegionCounters counters(*combined, {"PAPI_TOT_CYC", "perf::TASK-CLOCK"}, 2);
  ASSERT_TRUE(counters.counting());
  busy_step(counters);
  const RankCounts counts = counters.counts();
  ASSERT_TRUE(counts.events[0].problem);
  EXPECT_NE(counts.events[0].problem->find("the fake library is off"), std::string::npos);
  ASSERT_FALSE(counts.events[1].problem) << *counts.events[1].problem;
  for (const RegionCounts& r : counts.events[1].per_thread) EXPECT_GT(r[static_cast<std::size_t>(Region::compute)], 0);
  DramCounter dram(*combined);
  dram.start();
  dram.stop();
  ASSERT_TRUE(dram.counts().problem);
  EXPECT_NE(dram.counts().problem->find("the fake library is off"), std::string::npos);
}

}  // namespace
}  // namespace wave3d::counters
