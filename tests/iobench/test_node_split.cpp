// Splitting a write by the NUMA node of its memory, on synthetic page maps.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "iobench/node_split.hpp"
#include "iobench_test_support.hpp"

namespace wave3d {
namespace {

using testing::at;

constexpr std::size_t kPage = 4096;

// A fake address space: page k of `base` is on node nodes[k]; pages outside it are unknown.
struct SyntheticPages {
  std::uintptr_t base;
  std::vector<int> nodes;
  int* queries = nullptr;

  PageNodeAnswer operator()(std::span<const void* const> pages) const {
    if (queries) ++*queries;
    PageNodeAnswer a;
    for (const void* p : pages) {
      const auto addr = reinterpret_cast<std::uintptr_t>(p);
      EXPECT_EQ(addr % kPage, 0u) << "pages are asked for by their page-aligned address";
      const std::size_t k = (addr - base) / kPage;
      a.nodes.push_back(addr >= base && k < nodes.size() ? nodes[k] : -1);
    }
    return a;
  }
};

constexpr std::uintptr_t kBase = std::uintptr_t{1} << 32;

std::uint64_t bytes_on(const NodeSplit& s, int node) {
  for (const NodePart& p : s.parts)
    if (p.node == node) return p.bytes;
  return 0;
}

TEST(NodeSplit, BlocksOfPagesGoToTheirNodes) {
  // 8 pages: 0,0,0,1,1,2,2,2
  const SyntheticPages map{kBase, {0, 0, 0, 1, 1, 2, 2, 2}};
  const std::vector<WriteSegment> whole{{at(kBase), 1000, 8 * kPage}};
  const NodeSplit s = split_by_node(whole, kPage, map);
  ASSERT_EQ(s.parts.size(), 3u);
  EXPECT_TRUE(s.unavailable_reason.empty());
  EXPECT_EQ(s.parts[0].node, 0);
  ASSERT_EQ(s.parts[0].segments.size(), 1u);
  EXPECT_EQ(s.parts[0].segments[0], (WriteSegment{at(kBase), 1000, 3 * kPage}));
  EXPECT_EQ(s.parts[1].segments[0], (WriteSegment{at(kBase + 3 * kPage), 1000 + 3 * kPage, 2 * kPage}));
  EXPECT_EQ(s.parts[2].segments[0], (WriteSegment{at(kBase + 5 * kPage), 1000 + 5 * kPage, 3 * kPage}));
}

TEST(NodeSplit, InterleavedPagesGiveOnePiecePerPageAndKeepEveryByte) {
  const SyntheticPages map{kBase, {0, 1, 0, 1, 0, 1}};
  // Starts and ends inside a page: the first and last pieces are partial pages.
  const std::vector<WriteSegment> seg{{at(kBase + 100), 0, 6 * kPage - 300}};
  const NodeSplit s = split_by_node(seg, kPage, map);
  ASSERT_EQ(s.parts.size(), 2u);
  EXPECT_EQ(s.parts[0].segments.size(), 3u);
  EXPECT_EQ(s.parts[1].segments.size(), 3u);
  EXPECT_EQ(bytes_on(s, 0), 3 * kPage - 100);
  EXPECT_EQ(bytes_on(s, 1), 3 * kPage - 200);
  // Every piece keeps its memory-to-file correspondence.
  for (const NodePart& p : s.parts)
    for (const WriteSegment& w : p.segments)
      EXPECT_EQ(w.file_offset, static_cast<std::uint64_t>(w.data - at(kBase + 100)));
}

TEST(NodeSplit, RowsSharingPagesAreQueriedOnceAndMergedWhereContiguous) {
  // Rows of 1000 bytes every 1024 bytes in memory, written back to back in the file: pieces of one node
  // are not merged across the 24-byte gaps in memory.
  const SyntheticPages base_map{kBase, {3, 3, 5, 5}};
  int queries = 0;
  SyntheticPages map = base_map;
  map.queries = &queries;
  std::vector<WriteSegment> rows;
  for (int r = 0; r < 16; ++r) rows.push_back({at(kBase + 1024 * r), static_cast<std::uint64_t>(1000 * r), 1000});
  const NodeSplit s = split_by_node(rows, kPage, map);
  EXPECT_EQ(queries, 1) << "16 rows on 4 pages need one batch";
  ASSERT_EQ(s.parts.size(), 2u);
  EXPECT_EQ(s.parts[0].node, 3);
  EXPECT_EQ(s.parts[0].bytes, 8 * 1000u);
  EXPECT_EQ(s.parts[1].bytes, 8 * 1000u);
  EXPECT_EQ(s.parts[0].segments.size(), 8u);
}

TEST(NodeSplit, ContiguousPiecesOfOneNodeAreMerged) {
  const SyntheticPages map{kBase, {0, 0, 0, 0}};
  // Two segments contiguous in memory and in the file: one piece.
  const std::vector<WriteSegment> segs{{at(kBase), 0, 5000}, {at(kBase + 5000), 5000, 6000}};
  const NodeSplit s = split_by_node(segs, kPage, map);
  ASSERT_EQ(s.parts.size(), 1u);
  ASSERT_EQ(s.parts[0].segments.size(), 1u);
  EXPECT_EQ(s.parts[0].segments[0].bytes, 11000u);
}

TEST(NodeSplit, UnknownPagesAndAnUnavailableQueryFormThePartOfNodeMinusOne) {
  const SyntheticPages map{kBase, {0, -1, 0}};
  const std::vector<WriteSegment> seg{{at(kBase), 0, 3 * kPage}};
  const NodeSplit s = split_by_node(seg, kPage, map);
  ASSERT_EQ(s.parts.size(), 2u);
  EXPECT_EQ(s.parts[0].node, -1) << "the unknown part comes first";
  EXPECT_EQ(s.parts[0].bytes, kPage);

  const PageNodeQuery refused = [](std::span<const void* const>) {
    return PageNodeAnswer{{}, "move_pages(2) is not permitted here"};
  };
  const NodeSplit r = split_by_node(seg, kPage, refused);
  ASSERT_EQ(r.parts.size(), 1u);
  EXPECT_EQ(r.parts[0].node, -1);
  EXPECT_EQ(r.parts[0].bytes, 3 * kPage);
  EXPECT_EQ(r.unavailable_reason, "move_pages(2) is not permitted here");
}

TEST(NodeSplit, TheKernelLocatesPagesThisProcessWrote) {
  std::vector<std::byte> mine(64 * kPage, std::byte{1});
  const std::vector<WriteSegment> seg{{mine.data(), 0, mine.size()}};
  const NodeSplit s = split_by_node(seg, system_page_bytes());
  std::uint64_t sum = 0;
  for (const NodePart& p : s.parts) sum += p.bytes;
  EXPECT_EQ(sum, mine.size());
  if (s.unavailable_reason.empty()) {
    for (const NodePart& p : s.parts) EXPECT_GE(p.node, 0) << "written pages have a node";
  } else {
    GTEST_SKIP() << s.unavailable_reason;
  }
}

}  // namespace
}  // namespace wave3d
