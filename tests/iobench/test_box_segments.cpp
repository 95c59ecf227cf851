// Where a subdomain's rows go in the global C-order dataset (z, y, x with x fastest), and that the
// rows written by I/O threads give the same file as one write of the whole array.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "../output/temp_dir.hpp"
#include "field/field.hpp"
#include "iobench/box_segments.hpp"
#include "iobench/io_threads.hpp"
#include "iobench/node_split.hpp"
#include "iobench/segment_writer.hpp"
#include "iobench_test_support.hpp"

namespace wave3d {
namespace {

using testing::read_all;

float value_at(std::int64_t x, std::int64_t y, std::int64_t z) {
  return static_cast<float>(x + 1000 * y + 1000000 * z);
}

TEST(BoxSegments, COrderOffsetsPutXFastestThenYThenZ) {
  const Index3 n{5, 4, 3};
  EXPECT_EQ(c_order_offset(n, {0, 0, 0}, 4), 0u);
  EXPECT_EQ(c_order_offset(n, {1, 0, 0}, 4), 4u);
  EXPECT_EQ(c_order_offset(n, {0, 1, 0}, 4), 5u * 4);
  EXPECT_EQ(c_order_offset(n, {0, 0, 1}, 4), 20u * 4);
  EXPECT_EQ(c_order_offset(n, {4, 3, 2}, 8), (2u * 20 + 3 * 5 + 4) * 8);
}

TEST(BoxSegments, OneSegmentPerRowAtItsDatasetOffset) {
  const Index3 n{10, 6, 4};
  const Box owned{{2, 1, 1}, {7, 4, 3}};
  Field<float> f(owned, 2);
  const BoxRows rows = owned_rows(f);
  const std::uint64_t base = 2048;
  const std::vector<WriteSegment> segs = box_rows_in_dataset(rows, n, base);
  ASSERT_EQ(segs.size(), 3u * 2);
  std::size_t i = 0;
  for (std::int64_t z = 1; z < 3; ++z)
    for (std::int64_t y = 1; y < 4; ++y, ++i) {
      EXPECT_EQ(segs[i].file_offset, base + ((z * 6 + y) * 10 + 2) * 4);
      EXPECT_EQ(segs[i].bytes, 5u * 4);
      EXPECT_EQ(segs[i].data, reinterpret_cast<const std::byte*>(&f.at(2, y, z)));
    }
  EXPECT_THROW(box_rows_in_dataset(rows, Index3{6, 6, 4}, 0), std::invalid_argument);
  EXPECT_TRUE(box_rows_in_dataset(BoxRows{}, n, 0).empty());
}

// Four subdomains of a 2 x 2 split in y and z (uneven), each a Field with halo and padding, written row
// by row by I/O threads into one file; the file must equal the dense C-order array written at once.
TEST(BoxSegments, SubdomainRowsByIoThreadsEqualOneWriteOfTheWholeArray) {
  testing::TempDir dir;
  const Index3 n{37, 11, 9};
  const std::uint64_t base = 4096 + 72;  // an HDF5 dataset starts wherever the file's metadata ends
  std::vector<float> dense(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x)
        dense[static_cast<std::size_t>((z * n[1] + y) * n[0] + x)] = value_at(x, y, z);
  const auto single = dir.path() / "single.bin";
  {
    const int fd = ::open(single.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    write_segments(fd, std::vector<WriteSegment>{{reinterpret_cast<const std::byte*>(dense.data()), base,
                                                  dense.size() * sizeof(float)}},
                   single.string());
    ::close(fd);
  }

  std::vector<Field<float>> fields;
  for (const Box& b : {Box{{0, 0, 0}, {37, 6, 5}}, Box{{0, 6, 0}, {37, 11, 5}}, Box{{0, 0, 5}, {37, 6, 9}},
                       Box{{0, 6, 5}, {37, 11, 9}}}) {
    Field<float>& f = fields.emplace_back(b, 4);
    for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z)
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y)
        for (std::int64_t x = b.lo[0]; x < b.hi[0]; ++x) f.at(x, y, z) = value_at(x, y, z);
  }
  const auto threaded = dir.path() / "threaded.bin";
  const int fd = ::open(threaded.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  // The header bytes before the dataset are the same in both files (zeros).
  for (const Field<float>& f : fields) {
    const std::vector<WriteSegment> rows = box_rows_in_dataset(owned_rows(f), n, base);
    const NodeSplit split = split_by_node(rows, system_page_bytes());
    const std::vector<IoThreadTask> tasks = plan_io_threads(split.parts, 3, {});
    const OpenFile file{fd, threaded.string()};
    run_io_threads(tasks, std::span<const OpenFile>(&file, 1), IoThreadOptions{});
  }
  ::close(fd);
  EXPECT_EQ(read_all(threaded), read_all(single));
}

}  // namespace
}  // namespace wave3d
