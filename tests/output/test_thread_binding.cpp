#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>

#include "output/runtime_json.hpp"
#include "runtime/cpu_list.hpp"
#include "runtime/thread_binding.hpp"

namespace wave3d {
namespace {

TEST(CpuList, CompactNotation) {
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({5}), "5");
  EXPECT_EQ(format_cpu_list({8, 0, 1, 2, 3, 3}), "0-3,8");
  EXPECT_EQ(format_cpu_list({0, 2, 4, 5}), "0,2,4-5");
}

TEST(ThreadBinding, OneEntryPerThreadRunningInsideItsMask) {
  const ThreadBinding binding = report_thread_binding(2);
  ASSERT_EQ(binding.threads.size(), 2u);
  for (std::size_t t = 0; t < binding.threads.size(); ++t) {
    const ThreadPlacement& p = binding.threads[t];
    EXPECT_EQ(p.thread, static_cast<int>(t));
    ASSERT_TRUE(p.cpu.has_value());
    ASSERT_FALSE(p.allowed_cpus.empty());
    EXPECT_NE(std::find(p.allowed_cpus.begin(), p.allowed_cpus.end(), *p.cpu), p.allowed_cpus.end())
        << "thread " << t << " ran on CPU " << *p.cpu << " outside its mask " << p.affinity;
    EXPECT_EQ(p.affinity, format_cpu_list(p.allowed_cpus));
    EXPECT_TRUE(p.numa_node.has_value());
  }
  EXPECT_FALSE(binding.proc_bind.empty());
  EXPECT_GE(binding.num_places, 0);

  const nlohmann::json j = binding;
  EXPECT_EQ(j["threads"].size(), 2u);
  EXPECT_TRUE(j.contains("OMP_PLACES"));
}

TEST(ThreadBinding, DefaultTeamFollowsOmpNumThreads) {
  // ctest sets OMP_NUM_THREADS=2 for this test.
  EXPECT_EQ(report_thread_binding().threads.size(), static_cast<std::size_t>(omp_get_max_threads()));
}

}  // namespace
}  // namespace wave3d
