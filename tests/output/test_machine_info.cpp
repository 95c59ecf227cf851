#include <gtest/gtest.h>

#include "output/runtime_json.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/machine_info.hpp"

namespace wave3d {
namespace {

TEST(MachineInfo, FindsTheMachine) {
  const MachineInfo info = collect_machine_info();
  EXPECT_FALSE(info.hostname.empty());
  EXPECT_GE(info.packages, 0);
  EXPECT_GE(info.numa_nodes, 1);
  EXPECT_GE(info.cores, 1);
  EXPECT_GE(info.pus, info.cores);
  EXPECT_GE(info.allowed_pus, 1);
  EXPECT_LE(info.allowed_pus, info.pus);
  if (info.last_level_cache) {
    EXPECT_GE(info.last_level_cache->level, 1);
    EXPECT_GT(info.last_level_cache->bytes, 0u);
  }
  if (info.cpu_mhz) {
    EXPECT_GT(*info.cpu_mhz, 0.0);
    EXPECT_NE(info.cpu_mhz_source, "unknown");
  }
#if defined(__x86_64__)
  ASSERT_TRUE(info.simd_bytes.has_value());  // x86-64 always has at least SSE2
  EXPECT_GE(*info.simd_bytes, 16);
#endif

  const std::string summary = topology_summary(info);
  EXPECT_FALSE(summary.empty());
  EXPECT_NE(summary.find("core"), std::string::npos) << summary;

  const nlohmann::json j = info;
  EXPECT_EQ(j["cores"], info.cores);
  EXPECT_EQ(j["summary"], summary);
}

TEST(MachineInfo, SummaryWording) {
  MachineInfo info;
  info.packages = 1;
  info.numa_nodes = 1;
  info.cores = 2;
  info.pus = 2;
  info.allowed_pus = 2;
  info.last_level_cache = CacheLevel{3, std::uint64_t{32} << 20, 1};
  EXPECT_EQ(topology_summary(info), "1 package, 1 NUMA node, 2 cores, 2 PUs, L3 32 MiB");

  info.packages = 2;
  info.numa_nodes = 4;
  info.pus = 4;
  info.allowed_pus = 3;
  info.last_level_cache = CacheLevel{3, std::uint64_t{16} << 20, 2};
  EXPECT_EQ(topology_summary(info), "2 packages, 4 NUMA nodes, 2 cores, 4 PUs (3 allowed), L3 2x 16 MiB");
}

TEST(ByteSize, BinaryUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(32 * 1024), "32 KiB");
  EXPECT_EQ(format_bytes(1536 * 1024), "1.5 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 30), "1 GiB");
}

}  // namespace
}  // namespace wave3d
