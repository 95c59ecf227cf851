// Positioned writes of slabs, by one thread or several sharing a descriptor or a file each, give the
// same bytes as one plain write; errors name the file and the system's reason.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "../output/temp_dir.hpp"
#include "iobench/file_check.hpp"
#include "iobench/io_study.hpp"
#include "iobench/io_threads.hpp"
#include "iobench/placed_buffer.hpp"
#include "iobench/segment_writer.hpp"
#include "iobench_test_support.hpp"

namespace wave3d {
namespace {

using testing::read_all;

std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> b(bytes);
  fill_pattern(b.data(), b.size(), 0);
  return b;
}

int create(const std::filesystem::path& p) { return ::open(p.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644); }

TEST(SegmentWriter, ShuffledSlabsEqualOneWrite) {
  testing::TempDir dir;
  const std::vector<std::byte> data = pattern(3 * 1000 * 1000 + 17);
  const auto single = dir.path() / "single.bin", slabs = dir.path() / "slabs.bin";
  int fd = create(single);
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ::close(fd);

  // Slabs of uneven sizes, written out of order; 3000 consecutive ones also exceed one pwritev's IOV_MAX.
  std::vector<WriteSegment> segs;
  std::mt19937 rng(7);
  for (std::size_t at = 0; at < data.size();) {
    const std::size_t n = std::min<std::size_t>(data.size() - at, 1 + rng() % 2000);
    segs.push_back({data.data() + at, at, n});
    at += n;
  }
  std::vector<WriteSegment> shuffled(segs.begin(), segs.begin() + static_cast<std::ptrdiff_t>(segs.size() / 2));
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  shuffled.insert(shuffled.end(), segs.begin() + static_cast<std::ptrdiff_t>(segs.size() / 2), segs.end());
  fd = create(slabs);
  write_segments(fd, shuffled, slabs.string());
  EXPECT_EQ(compare_file_with_segments(fd, segs, slabs.string()), "");
  ::close(fd);
  EXPECT_EQ(read_all(slabs), read_all(single));
}

TEST(SegmentWriter, ThreadsOnOneDescriptorAndOneFileEachHoldTheSameBytes) {
  testing::TempDir dir;
  const std::vector<std::byte> data = pattern(5 * 4096 * 7 + 123);
  const std::vector<WriteSegment> whole{{data.data(), 0, data.size()}};
  std::vector<IoThreadTask> tasks;
  for (auto& piece : cut_evenly(whole, 5, 4096))
    tasks.push_back(IoThreadTask{.cpu_node = -1, .data_nodes = {-1}, .segments = piece, .bytes = total_bytes(piece)});

  const auto shared = dir.path() / "shared.bin";
  const OpenFile one{create(shared), shared.string()};
  IoThreadOptions with_fsync;
  with_fsync.fsync = true;
  const IoThreadsTiming t = run_io_threads(tasks, std::span<const OpenFile>(&one, 1), with_fsync);
  ::close(one.fd);
  EXPECT_EQ(t.thread_seconds.size(), 5u);
  EXPECT_GE(t.seconds, *std::max_element(t.thread_seconds.begin(), t.thread_seconds.end()));
  const std::vector<char> got = read_all(shared);
  ASSERT_EQ(got.size(), data.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), reinterpret_cast<const char*>(data.data())));

  std::vector<OpenFile> each;
  std::vector<IoThreadTask> packed = tasks;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const auto p = dir.path() / fmt::format("t{}", i);
    each.push_back({create(p), p.string()});
    packed[i].segments = packed_from_zero(tasks[i].segments);
  }
  run_io_threads(packed, each, IoThreadOptions{});
  std::vector<char> joined;
  for (const OpenFile& f : each) {
    ::close(f.fd);
    const std::vector<char> part = read_all(f.name);
    joined.insert(joined.end(), part.begin(), part.end());
  }
  EXPECT_EQ(joined, got);
}

TEST(SegmentWriter, ErrorsNameTheFileAndTheReason) {
  testing::TempDir dir;
  const auto p = dir.path() / "read-only.bin";
  ::close(create(p));
  const int fd = ::open(p.c_str(), O_RDONLY);
  const std::vector<std::byte> data = pattern(100);
  const std::vector<WriteSegment> seg{{data.data(), 0, data.size()}};
  try {
    write_segments(fd, seg, p.string());
    ADD_FAILURE() << "writing a read-only descriptor must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Bad file descriptor"), std::string::npos) << e.what();
  }
  const IoThreadTask task{.cpu_node = -1, .data_nodes = {-1}, .segments = seg, .bytes = 100};
  const OpenFile file{fd, p.string()};
  EXPECT_THROW(run_io_threads(std::span<const IoThreadTask>(&task, 1), std::span<const OpenFile>(&file, 1), {}),
               std::runtime_error);
  ::close(fd);
}

TEST(SegmentWriter, TheFileCheckFindsTheFirstDifference) {
  testing::TempDir dir;
  const auto p = dir.path() / "f.bin";
  std::vector<std::byte> data = pattern(10000);
  const int fd = create(p);
  const std::vector<WriteSegment> seg{{data.data(), 0, data.size()}};
  write_segments(fd, seg, p.string());
  data[7777] ^= std::byte{1};
  EXPECT_NE(compare_file_with_segments(fd, seg, p.string()).find("offset 7777"), std::string::npos);
  const std::vector<WriteSegment> beyond{{data.data(), 5000, data.size()}};
  EXPECT_NE(compare_file_with_segments(fd, beyond, p.string()).find("ends at offset 10000"), std::string::npos);
  ::close(fd);
}

}  // namespace
}  // namespace wave3d
