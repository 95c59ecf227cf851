#include "iobench/segment_writer.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace wave3d {
namespace {

#ifdef IOV_MAX
constexpr std::size_t kMaxBuffers = IOV_MAX;
#else
constexpr std::size_t kMaxBuffers = 1024;
#endif

// Writes the buffers of `iov` (consecutive in the file from `offset`), continuing after short writes.
void write_all(int fd, std::vector<iovec>& iov, std::uint64_t offset, std::string_view file) {
  std::size_t first = 0;
  while (first < iov.size()) {
    const int count = static_cast<int>(std::min(iov.size() - first, kMaxBuffers));
    const ssize_t written = ::pwritev(fd, iov.data() + first, count, static_cast<off_t>(offset));
    if (written < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw std::runtime_error(fmt::format("writing {} at offset {}: {}", file, offset,
                                           std::generic_category().message(err)));
    }
    if (written == 0)
      throw std::runtime_error(fmt::format("writing {} at offset {}: the system wrote nothing (file system full "
                                           "or file size limit?)",
                                           file, offset));
    offset += static_cast<std::uint64_t>(written);
    // Skip the buffers written completely; trim the one written in part.
    auto left = static_cast<std::size_t>(written);
    while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (left > 0) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
}

}  // namespace

void write_segments(int fd, std::span<const WriteSegment> segments, std::string_view file) {
  std::vector<iovec> run;  // buffers of segments that follow each other in the file
  run.reserve(std::min(segments.size(), kMaxBuffers));
  std::uint64_t run_offset = 0, run_end = 0;
  for (const WriteSegment& s : segments) {
    if (s.bytes == 0) continue;
    if (!run.empty() && (s.file_offset != run_end || run.size() == kMaxBuffers)) {
      write_all(fd, run, run_offset, file);
      run.clear();
    }
    if (run.empty()) run_offset = run_end = s.file_offset;
    run.push_back(iovec{const_cast<std::byte*>(s.data), s.bytes});  // pwritev only reads the buffers
    run_end += s.bytes;
  }
  if (!run.empty()) write_all(fd, run, run_offset, file);
}

}  // namespace wave3d
