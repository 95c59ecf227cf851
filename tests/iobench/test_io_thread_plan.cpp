// Which I/O thread writes what and where it runs: a pure function, checked on made-up machines.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "iobench/io_thread_plan.hpp"
#include "iobench_test_support.hpp"

namespace wave3d {
namespace {

using testing::at;

// A buffer of `per_node` bytes on each of `nodes` nodes, block after block, written at file offset 0.
std::vector<NodePart> blocks(int nodes, std::uint64_t per_node) {
  std::vector<NodePart> parts;
  for (int n = 0; n < nodes; ++n) {
    const std::uint64_t start = per_node * static_cast<std::uint64_t>(n);
    parts.push_back(NodePart{n, {{at(0x100000000 + start), start, per_node}}, per_node});
  }
  return parts;
}

std::vector<NodeCores> machine(int nodes, int cores) {
  std::vector<NodeCores> m;
  for (int n = 0; n < nodes; ++n) m.push_back({n, cores});
  return m;
}

// Every byte of the parts exactly once: the tasks' segments, sorted by file offset, tile the file.
void expect_covers(const std::vector<IoThreadTask>& tasks, std::uint64_t total) {
  std::vector<WriteSegment> all;
  for (const IoThreadTask& t : tasks) {
    EXPECT_EQ(t.bytes, total_bytes(t.segments));
    all.insert(all.end(), t.segments.begin(), t.segments.end());
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.file_offset < b.file_offset; });
  std::uint64_t next = 0;
  for (const WriteSegment& s : all) {
    EXPECT_EQ(s.file_offset, next);
    EXPECT_EQ(s.data, at(0x100000000 + s.file_offset)) << "memory and file stay paired";
    next += s.bytes;
  }
  EXPECT_EQ(next, total);
}

std::map<int, int> threads_per_cpu_node(const std::vector<IoThreadTask>& tasks) {
  std::map<int, int> m;
  for (const IoThreadTask& t : tasks) ++m[t.cpu_node];
  return m;
}

TEST(IoThreadPlan, BufferOnEachNodeGetsItsOwnLocalThreads) {
  const auto tasks = plan_io_threads(blocks(4, 1 << 24), 8, machine(4, 8));
  ASSERT_EQ(tasks.size(), 8u);
  expect_covers(tasks, 4u << 24);
  for (const IoThreadTask& t : tasks) {
    ASSERT_EQ(t.data_nodes.size(), 1u);
    EXPECT_EQ(t.cpu_node, t.data_nodes.front()) << "every thread reads local memory";
    EXPECT_EQ(t.bytes, 1u << 23) << "equal shares";
  }
  EXPECT_EQ(threads_per_cpu_node(tasks), (std::map<int, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
}

TEST(IoThreadPlan, BufferOnOneNodeSpillsToTheNearestNodesWhenItsCoresAreTaken) {
  // Node 0 holds everything and has 8 cores; node 2 is nearer to it than nodes 1 and 3.
  std::vector<NodePart> one{blocks(1, 3 << 20)};
  const NodeDistance distance = [](int a, int b) { return a == b ? 10 : (a + b == 2 ? 16 : 22); };
  const auto tasks = plan_io_threads(one, 12, machine(4, 8), distance);
  ASSERT_EQ(tasks.size(), 12u);
  expect_covers(tasks, 3 << 20);
  EXPECT_EQ(threads_per_cpu_node(tasks), (std::map<int, int>{{0, 8}, {2, 4}}));
  for (const IoThreadTask& t : tasks) EXPECT_EQ(t.data_nodes, std::vector<int>{0});
}

TEST(IoThreadPlan, ThreadsFollowTheBytesOfUnevenParts) {
  std::vector<NodePart> parts = blocks(2, 1 << 20);
  parts[1].bytes = 3u << 20;
  parts[1].segments[0].bytes = 3u << 20;
  const auto tasks = plan_io_threads(parts, 4, machine(2, 4));
  EXPECT_EQ(threads_per_cpu_node(tasks), (std::map<int, int>{{0, 1}, {1, 3}}));
  expect_covers(tasks, 4u << 20);
}

TEST(IoThreadPlan, FewerThreadsThanNodesTakeWholePartsBalanced) {
  const auto tasks = plan_io_threads(blocks(4, 1 << 20), 2, machine(4, 8));
  ASSERT_EQ(tasks.size(), 2u);
  expect_covers(tasks, 4u << 20);
  for (const IoThreadTask& t : tasks) {
    EXPECT_EQ(t.bytes, 2u << 20);
    EXPECT_EQ(t.data_nodes.size(), 2u);
    EXPECT_TRUE(std::find(t.data_nodes.begin(), t.data_nodes.end(), t.cpu_node) != t.data_nodes.end())
        << "a thread runs on the node of one of its parts";
  }
  EXPECT_TRUE(std::is_sorted(tasks[0].segments.begin(), tasks[0].segments.end(),
                             [](const auto& a, const auto& b) { return a.file_offset < b.file_offset; }));
}

TEST(IoThreadPlan, OneThreadWritesEverything) {
  const auto tasks = plan_io_threads(blocks(1, 12345), 1, machine(1, 2));
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].cpu_node, 0);
  expect_covers(tasks, 12345);
}

TEST(IoThreadPlan, MoreThreadsThanBytesLeavesOutEmptyShares) {
  const auto tasks = plan_io_threads(blocks(1, 3), 8, machine(1, 8), {}, 1);
  EXPECT_EQ(tasks.size(), 3u);
  expect_covers(tasks, 3);
}

TEST(IoThreadPlan, MoreThreadsThanCoresOversubscribeTheDataNode) {
  const auto tasks = plan_io_threads(blocks(2, 1 << 20), 6, machine(2, 1));
  EXPECT_EQ(threads_per_cpu_node(tasks), (std::map<int, int>{{0, 3}, {1, 3}}));
}

TEST(IoThreadPlan, UnknownNodeAndNoNumaInformation) {
  std::vector<NodePart> unknown = blocks(1, 1 << 20);
  unknown[0].node = -1;
  const auto spread = plan_io_threads(unknown, 4, machine(2, 2));
  EXPECT_EQ(threads_per_cpu_node(spread), (std::map<int, int>{{0, 2}, {1, 2}}));
  const auto unbound = plan_io_threads(unknown, 2, {});
  EXPECT_EQ(threads_per_cpu_node(unbound), (std::map<int, int>{{-1, 2}}));
}

TEST(IoThreadPlan, CutsFallOnFilePageBoundariesWherePossible) {
  // 10 pages plus 100 bytes starting at file offset 100: 3 pieces cut at 4 KiB multiples of the file.
  const std::vector<WriteSegment> seg{{at(0x100000000), 100, 10 * 4096 + 100}};
  const auto pieces = cut_evenly(seg, 3, 4096);
  ASSERT_EQ(pieces.size(), 3u);
  std::uint64_t sum = 0;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    ASSERT_EQ(pieces[k].size(), 1u);
    if (k > 0) {
      EXPECT_EQ(pieces[k][0].file_offset % 4096, 0u);
    }
    sum += pieces[k][0].bytes;
  }
  EXPECT_EQ(sum, seg[0].bytes);
  EXPECT_THROW(cut_evenly(seg, 0, 4096), std::invalid_argument);
  EXPECT_THROW(plan_io_threads(blocks(1, 10), 0, machine(1, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace wave3d
