#include "iobench/file_check.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace wave3d {

std::string compare_file_with_segments(int fd, std::span<const WriteSegment> segments, std::string_view file) {
  constexpr std::size_t kChunk = std::size_t{8} << 20;
  std::vector<std::byte> scratch;
  for (const WriteSegment& s : segments) {
    for (std::size_t done = 0; done < s.bytes;) {
      const std::size_t n = std::min(kChunk, s.bytes - done);
      scratch.resize(n);
      std::size_t got = 0;
      while (got < n) {
        const ssize_t r = ::pread(fd, scratch.data() + got, n - got, static_cast<off_t>(s.file_offset + done + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return fmt::format("reading {} at offset {}: {}", file, s.file_offset + done + got,
                                      std::generic_category().message(errno));
        if (r == 0) return fmt::format("{} ends at offset {}, before the {} bytes written there", file,
                                       s.file_offset + done + got, n - got);
        got += static_cast<std::size_t>(r);
      }
      if (std::memcmp(scratch.data(), s.data + done, n) != 0) {
        std::size_t i = 0;
        while (scratch[i] == s.data[done + i]) ++i;
        return fmt::format("{} differs from the buffer at file offset {}", file, s.file_offset + done + i);
      }
      done += n;
    }
  }
  return {};
}

PageHistogram locate_file_pages(int fd, std::uint64_t bytes, std::size_t max_samples) {
  if (bytes == 0) return locate_pages(nullptr, 0, max_samples);
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (map == MAP_FAILED) {
    PageHistogram none;
    none.unavailable_reason = fmt::format("cannot map the file to find its pages: {}",
                                          std::generic_category().message(errno));
    return none;
  }
  PageHistogram h = locate_pages(map, bytes, max_samples);
  ::munmap(map, bytes);
  return h;
}

void add_histogram(PageHistogram& into, const PageHistogram& more) {
  if (!into.available || !more.available) {
    if (into.available) into = more;
    return;
  }
  for (const auto& [node, count] : more.pages_per_node) into.pages_per_node[node] += count;
  into.pages_not_present += more.pages_not_present;
  into.pages_other += more.pages_other;
  into.pages_sampled += more.pages_sampled;
}

}  // namespace wave3d
