#include <gtest/gtest.h>

#include <cstddef>
#include <memory>

#include "runtime/memory_usage.hpp"

namespace wave3d {
namespace {

TEST(MemoryUsage, ParsesProcStatus) {
  const MemoryUsage usage = parse_proc_status("Name:\ttest\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n");
  ASSERT_TRUE(usage.rss_bytes && usage.peak_rss_bytes);
  EXPECT_EQ(*usage.rss_bytes, 1024u * 1024u);
  EXPECT_EQ(*usage.peak_rss_bytes, 2048u * 1024u);

  const MemoryUsage missing = parse_proc_status("Name:\ttest\nVmRSS:\t12 MB\n");
  EXPECT_FALSE(missing.rss_bytes);  // unknown unit: no value rather than a wrong one
  EXPECT_FALSE(missing.peak_rss_bytes);
}

TEST(MemoryUsage, PlausibleAndGrowsAfterTouchingBuffer) {
  const MemoryUsage before = read_memory_usage();
  ASSERT_TRUE(before.rss_bytes.has_value()) << "no VmRSS in /proc/self/status";
  ASSERT_TRUE(before.peak_rss_bytes.has_value());
  EXPECT_GT(*before.rss_bytes, 1u << 20);  // a running gtest binary is more than 1 MiB
  EXPECT_GE(*before.peak_rss_bytes, *before.rss_bytes);

  constexpr std::size_t kBytes = std::size_t{64} << 20;
  const auto buffer = std::make_unique<volatile unsigned char[]>(kBytes);
  for (std::size_t i = 0; i < kBytes; i += 4096) buffer[i] = static_cast<unsigned char>(i / 4096 + 1);

  const MemoryUsage after = read_memory_usage();
  ASSERT_TRUE(after.rss_bytes && after.peak_rss_bytes);
  EXPECT_GE(*after.rss_bytes, *before.rss_bytes + (std::size_t{60} << 20));
  EXPECT_GE(*after.peak_rss_bytes, *after.rss_bytes);
  EXPECT_EQ(current_rss_bytes().has_value(), true);
}

TEST(MemoryUsage, ResetPeakBringsPeakDownToCurrent) {
  {
    const auto buffer = std::make_unique<volatile unsigned char[]>(std::size_t{32} << 20);
    for (std::size_t i = 0; i < (std::size_t{32} << 20); i += 4096) buffer[i] = 1;
  }
  if (!reset_peak_rss()) GTEST_SKIP() << "/proc/self/clear_refs not writable here";
  const MemoryUsage usage = read_memory_usage();
  ASSERT_TRUE(usage.rss_bytes && usage.peak_rss_bytes);
  // Right after the reset the high-water mark is the current RSS (plus what a few pages add).
  EXPECT_LE(*usage.peak_rss_bytes, *usage.rss_bytes + (std::size_t{4} << 20));
}

}  // namespace
}  // namespace wave3d
