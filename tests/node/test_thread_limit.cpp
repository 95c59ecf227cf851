// The thread counts a process may start: bounded by the CPUs it may run on and by the OpenMP
// runtime's limit, with a message that names the setting, its value and the bound.
#include <gtest/gtest.h>

#include "runtime/thread_limit.hpp"

namespace wave3d {
namespace {

TEST(ThreadLimit, OversubscriptionWithinTheBoundRuns) {
  const ThreadLimit limit = thread_limit(2, 1 << 30);
  EXPECT_EQ(limit.threads, 2 * kMaxThreadsPerCpu);
  EXPECT_FALSE(thread_count_problem(1, "run.threads", limit));
  EXPECT_FALSE(thread_count_problem(8, "run.threads", limit));  // 4 per CPU: taking turns, named by the audit
  EXPECT_FALSE(thread_count_problem(2 * kMaxThreadsPerCpu, "run.threads", limit));
}

TEST(ThreadLimit, BeyondThePerCpuBoundIsRefusedSayingWhy) {
  const auto why = thread_count_problem(100000, "run.threads", thread_limit(2, 1 << 30));
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "run.threads = 100000: at most 128 threads per process here (64 per CPU this process may run on, "
                  "2 CPUs); more could only take turns, if the OpenMP runtime could start them at all");
}

TEST(ThreadLimit, TheRuntimesLimitIsNamedWhenItIsTheLowerOne) {
  const ThreadLimit limit = thread_limit(16, 4);
  EXPECT_EQ(limit.threads, 4);
  EXPECT_FALSE(thread_count_problem(4, "OMP_NUM_THREADS", limit));
  const auto why = thread_count_problem(5, "OMP_NUM_THREADS", limit);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "OMP_NUM_THREADS = 5: the OpenMP runtime starts at most 4 threads (OMP_THREAD_LIMIT)");
}

TEST(ThreadLimit, ThisProcessHasAtLeastOneCpu) {
  const ThreadLimit limit = this_process_thread_limit();
  EXPECT_GE(limit.allowed_cpus, 1);
  EXPECT_GE(limit.threads, 1);
  EXPECT_FALSE(thread_count_problem(1, "run.threads", limit));
}

}  // namespace
}  // namespace wave3d
