#pragma once
// One piece of a parallel write: `bytes` bytes from memory at `data` go to the file at `file_offset`.
// A write (a buffer to a file, a subdomain's rows into a dataset) is a list of segments; the I/O
// threads each take some of them.
#include <cstddef>
#include <cstdint>
#include <span>

namespace wave3d {

struct WriteSegment {
  const std::byte* data = nullptr;
  std::uint64_t file_offset = 0;
  std::size_t bytes = 0;

  friend bool operator==(const WriteSegment&, const WriteSegment&) = default;
};

inline std::uint64_t total_bytes(std::span<const WriteSegment> segments) {
  std::uint64_t sum = 0;
  for (const WriteSegment& s : segments) sum += s.bytes;
  return sum;
}

}  // namespace wave3d
